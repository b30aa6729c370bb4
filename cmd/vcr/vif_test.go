package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
	"github.com/vcr-bench/vcr/iqa"
)

// Most tests use --vif-method pixel because it is the cheapest; TestVIFWavelet
// covers the default and the vifvec flavour.

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// writeImage saves m as dir/name (PNG) and returns the path.
func writeImage(t *testing.T, dir, name string, m *imageio.Image) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := imageio.Save(p, m, imageio.EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	return p
}

// testPair writes a reference image and a noisy copy of it.
func testPair(t *testing.T, dir string, w, h int) (ref, dist string) {
	t.Helper()
	m := testimg.Natural(w, h, 11)
	d := m.Clone()
	for c := range d.Ch {
		for i := range d.Ch[c] {
			// Deterministic ±0.08 pattern, clamped.
			v := d.Ch[c][i] + 0.08*float32((i*7+c*3)%5-2)/2
			d.Ch[c][i] = min(1, max(0, v))
		}
	}
	return writeImage(t, dir, "ref.png", m), writeImage(t, dir, "dist.png", d)
}

func TestVIFJSON(t *testing.T) {
	dir := t.TempDir()
	ref, dist := testPair(t, dir, 48, 40)
	code, out, errOut := runCmd(t, "vif", "--vif-method", "pixel", "--json", ref, dist)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output %q is not JSON: %v", out, err)
	}
	vif, ok1 := got["vif"].(float64)
	dv, ok2 := got["dv"].(float64)
	if !ok1 || !ok2 || got["method"] != "pixel" || len(got) != 3 {
		t.Fatalf("output %q: want exactly numeric vif and dv and method pixel", out)
	}
	if !(vif > 0 && vif < 1) || math.Abs(dv-(1-vif)) > 1e-15 {
		t.Errorf("vif %v, dv %v: want 0 < vif < 1 and dv = 1 − vif", vif, dv)
	}
	// The same numbers as the library computes.
	want := scoreFiles(t, iqa.Pixel, ref, dist)
	if vif != want.VIF {
		t.Errorf("vif %v, library gives %v", vif, want.VIF)
	}

	// Human-readable form.
	code, out, _ = runCmd(t, "vif", ref, dist, "--vif-method", "pixel-multiscale")
	if code != exitOK || !strings.Contains(out, "VIF ") || !strings.Contains(out, "Δv ") || !strings.Contains(out, "pixel-multiscale") {
		t.Errorf("human output %q (exit %d)", out, code)
	}
}

func scoreFiles(t *testing.T, m iqa.Method, ref, dist string) iqa.Result {
	t.Helper()
	a, err := imageio.Load(ref, imageio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := imageio.Load(dist, imageio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := iqa.NewScorer(m).Score(iqa.GrayFrom(a), iqa.GrayFrom(b))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestVIFSameImage(t *testing.T) {
	dir := t.TempDir()
	ref, _ := testPair(t, dir, 40, 40)
	for _, m := range []string{"vcr-py", "vifvec", "pixel", "pixel-multiscale"} {
		code, out, errOut := runCmd(t, "vif", "--vif-method", m, "--json", ref, ref)
		if code != exitOK {
			t.Fatalf("exit %d, stderr %s", code, errOut)
		}
		var r iqa.Result
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		// Δv is exactly 0 for identical images; VIF is reported as computed
		// (0.99999999987 for vif_spatial in cases.csv, gray224_identical).
		if r.DV != 0 || math.Abs(r.VIF-1) > 1e-9 {
			t.Errorf("%s: same image gives VIF %v, Δv %v; want Δv = 0", m, r.VIF, r.DV)
		}
		code, out, _ = runCmd(t, "vif", "--vif-method", m, ref, ref)
		if code != exitOK || !strings.Contains(out, "Δv 0.000000") {
			t.Errorf("%s: human output %q, want Δv 0.000000", m, out)
		}
	}
}

func TestVIFSizeMismatch(t *testing.T) {
	dir := t.TempDir()
	a := writeImage(t, dir, "a.png", testimg.Natural(40, 30, 1))
	b := writeImage(t, dir, "b.png", testimg.Natural(40, 31, 1))
	code, _, errOut := runCmd(t, "vif", "--vif-method", "pixel", a, b)
	if code != exitFailure {
		t.Errorf("exit %d, want %d", code, exitFailure)
	}
	for _, s := range []string{"40×30", "40×31", "a.png", "b.png"} {
		if !strings.Contains(errOut, s) {
			t.Errorf("message %q does not mention %s", errOut, s)
		}
	}
}

func TestVIFUsage(t *testing.T) {
	dir := t.TempDir()
	ref, dist := testPair(t, dir, 24, 24)
	for _, tc := range []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"vif", "--vif-method", "ssim", ref, dist}, "vcr-py, vifvec, vifvec2-layers, pixel, pixel-multiscale"},
		{[]string{"vif", "--vif-method", "pixel", ref}, "two arguments"},
		{[]string{"vif", "--vif-method", "pixel", "--workers", "3", ref, dist}, "--workers"},
		{[]string{"vif", "--pairs", "x.csv", ref}, "no positional"},
		{[]string{"vif", "--pairs", "x.csv", "--workers", "0"}, "--workers must be at least 1"},
		{[]string{"vif", "--pairs", "x.csv", "--progress", "sometimes"}, "auto, always or never"},
		{[]string{"vif", "--pairs", "x.csv", "--out", filepath.Join(ref, "scored.csv")}, "--out " + filepath.Join(ref, "scored.csv") + ": cannot create the folder " + ref},
	} {
		code, _, errOut := runCmd(t, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", tc.args, code, errOut, exitUsage, tc.want)
		}
	}
	if code, _, errOut := runCmd(t, "vif", "--vif-method", "pixel", ref, filepath.Join(dir, "nope.png")); code != exitFailure || !strings.Contains(errOut, "nope.png does not exist") {
		t.Errorf("missing file: exit %d, stderr %q", code, errOut)
	}
}

func TestVIFBatch(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "img")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	ref, dist := testPair(t, sub, 40, 36)
	small := writeImage(t, sub, "small.png", testimg.Natural(20, 20, 2))
	if err := os.WriteFile(filepath.Join(sub, "broken.png"), []byte("\x89PNG\r\n\x1a\nnot really"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := scoreFiles(t, iqa.Pixel, ref, dist)

	// Relative paths (resolved against the CSV's directory), an absolute
	// one, a quoted field with a comma, a missing file, a broken file, a
	// size mismatch and an empty path.
	csvText := "id,reference,distorted,note\n" +
		"1,img/ref.png,img/dist.png,\"a, b\"\n" +
		"2,img/ref.png,img/missing.png,x\n" +
		"3,img/broken.png,img/dist.png,y\n" +
		"4," + ref + ",img/ref.png,z\n" +
		"5,img/ref.png,img/" + filepath.Base(small) + ",w\n" +
		"6,,img/dist.png,v\n" +
		"7,img/ref.png,img/dist.png,again\n"
	pairs := filepath.Join(dir, "pairs.csv")
	if err := os.WriteFile(pairs, []byte(csvText), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "scored.csv")
	code, stdout, errOut := runCmd(t, "vif", "--pairs", pairs, "--out", out, "--vif-method", "pixel", "--workers", "3")
	if code != exitFailure {
		t.Errorf("exit %d, want %d (some pairs failed); stderr %s", code, exitFailure, errOut)
	}
	if stdout != "" {
		t.Errorf("stdout %q, want nothing (the CSV goes to --out)", stdout)
	}
	if !strings.Contains(errOut, "3 pairs scored, 4 failed") {
		t.Errorf("stderr %q lacks the summary", errOut)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rows[0], ","); got != "id,reference,distorted,note,vif,dv,vif_method,error" {
		t.Fatalf("header %s", got)
	}
	if len(rows) != 8 {
		t.Fatalf("%d rows, want 8", len(rows))
	}
	for i, row := range rows[1:] {
		if row[0] != strconv.Itoa(i+1) {
			t.Errorf("row %d has id %s: order not kept", i+1, row[0])
		}
		if row[6] != "pixel" {
			t.Errorf("row %d: vif_method %q", i+1, row[6])
		}
	}
	if rows[1][3] != "a, b" {
		t.Errorf("quoted field became %q", rows[1][3])
	}
	for _, i := range []int{1, 7} {
		vif, err := strconv.ParseFloat(rows[i][4], 64)
		if err != nil || vif != want.VIF || rows[i][7] != "" {
			t.Errorf("row %d: vif %q error %q, want %v and no error", i, rows[i][4], rows[i][7], want.VIF)
		}
		if dv, err := strconv.ParseFloat(rows[i][5], 64); err != nil || dv != want.DV {
			t.Errorf("row %d: dv %q, want %v", i, rows[i][5], want.DV)
		}
	}
	if dv, err := strconv.ParseFloat(rows[4][5], 64); err != nil || dv > 1e-9 {
		t.Errorf("row 4 (same image, absolute path): dv %q error %q", rows[4][5], rows[4][7])
	}
	for _, tc := range []struct {
		row  int
		want string
	}{
		{2, "missing.png does not exist"},
		{3, "broken.png"},
		{5, "img/ref.png is 40×36 but img/small.png is 20×20"},
		{6, "empty image path"},
	} {
		r := rows[tc.row]
		if r[4] != "" || r[5] != "" || !strings.Contains(r[7], tc.want) {
			t.Errorf("row %d: vif %q dv %q error %q; want empty values and an error mentioning %q", tc.row, r[4], r[5], r[7], tc.want)
		}
	}

	// The same run with one worker writes the same bytes; without --out the
	// CSV goes to stdout.
	data, _ := os.ReadFile(out)
	code, stdout, _ = runCmd(t, "vif", "--pairs", pairs, "--vif-method", "pixel", "--workers", "1")
	if code != exitFailure || stdout != string(data) {
		t.Errorf("1 worker to stdout: exit %d, output differs from 3 workers:\n%s\nvs\n%s", code, stdout, data)
	}
}

func TestVIFBatchAllGood(t *testing.T) {
	dir := t.TempDir()
	ref, dist := testPair(t, dir, 32, 32)
	// Short column names, many rows (more than the in-flight window).
	var sb strings.Builder
	sb.WriteString("dist,ref\n")
	for i := range 150 {
		if i%2 == 0 {
			sb.WriteString("dist.png,ref.png\n")
		} else {
			sb.WriteString("ref.png,ref.png\n")
		}
	}
	pairs := filepath.Join(dir, "pairs.csv")
	if err := os.WriteFile(pairs, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.csv")
	code, _, errOut := runCmd(t, "vif", "--pairs", pairs, "--out", out, "--vif-method", "pixel", "--workers", "4", "--progress", "always")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "150 pairs scored, 0 failed") || !strings.Contains(errOut, "150/150") {
		t.Errorf("stderr %q: want a progress bar reaching 150/150 and the summary", errOut)
	}
	rows := readCSV(t, out)
	want := scoreFiles(t, iqa.Pixel, ref, dist)
	for i, row := range rows[1:] {
		vif, _ := strconv.ParseFloat(row[2], 64)
		if i%2 == 0 && vif != want.VIF || i%2 == 1 && vif < 1-1e-9 {
			t.Fatalf("row %d: %v", i+1, row)
		}
	}

	// A missing column is a usage error that names the columns.
	code, _, errOut = runCmd(t, "vif", "--pairs", pairs, "--ref-col", "original", "--vif-method", "pixel")
	if code != exitUsage || !strings.Contains(errOut, `no column "original"`) || !strings.Contains(errOut, "dist, ref") {
		t.Errorf("missing column: exit %d, stderr %q", code, errOut)
	}
}

func TestVIFBatchCancelled(t *testing.T) {
	dir := t.TempDir()
	testPair(t, dir, 32, 32)
	pairs := filepath.Join(dir, "pairs.csv")
	if err := os.WriteFile(pairs, []byte("reference,distorted\nref.png,dist.png\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.csv")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var so, se bytes.Buffer
	if code := run(ctx, []string{"vif", "--pairs", pairs, "--out", out, "--vif-method", "pixel"}, &so, &se); code != exitInterrupted {
		t.Errorf("exit %d, want %d; stderr %s", code, exitInterrupted, se.String())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("an interrupted run left %s behind", out)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestVIFWavelet runs the default method and vifvec through the command and
// checks them against the library.
func TestVIFWavelet(t *testing.T) {
	dir := t.TempDir()
	ref, dist := testPair(t, dir, 80, 72)
	for _, tc := range []struct {
		args []string
		m    iqa.Method
	}{
		{[]string{"vif", "--json", ref, dist}, iqa.VCRPy},
		{[]string{"vif", "--json", "--vif-method", "vifvec", ref, dist}, iqa.VIFVec},
		{[]string{"vif", "--json", "--vif-method", "vifvec2-layers", ref, dist}, iqa.VIFVec2Layers},
	} {
		code, out, errOut := runCmd(t, tc.args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d, %s", tc.args, code, errOut)
		}
		var r iqa.Result
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		want := scoreFiles(t, tc.m, ref, dist)
		levels := 4
		if tc.m == iqa.VIFVec2Layers {
			levels = 2
		}
		if r.Method != tc.m || r.VIF != want.VIF || r.DV != want.DV || r.Levels != levels {
			t.Errorf("%v: got %+v, library gives %+v", tc.args, r, want)
		}
	}
	// A 16×16 pair is below the reference's 72-pixel minimum: scored with a
	// lower pyramid, and the height is reported.
	small := writeImage(t, dir, "small.png", testimg.Natural(16, 16, 2))
	code, out, errOut := runCmd(t, "vif", small, small)
	if code != exitOK || !strings.Contains(out, "1 level") {
		t.Errorf("16×16: exit %d, out %q, err %q", code, out, errOut)
	}
	tiny := writeImage(t, dir, "tiny.png", testimg.Natural(8, 8, 2))
	if code, _, errOut := runCmd(t, "vif", tiny, tiny); code == exitOK || !strings.Contains(errOut, "8") {
		t.Errorf("8×8: exit %d, err %q; want a failure naming the size", code, errOut)
	}
}
