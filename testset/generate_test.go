package testset

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
	"github.com/vcr-bench/vcr/iqa"
)

// makeDataset writes a class-folder dataset into dir: natural images of
// several sizes (PNG and JPEG), two true grayscale PNGs and two broken files,
// and returns the number of image files (broken ones included).
func makeDataset(t testing.TB, dir string) int {
	t.Helper()
	sizes := [][2]int{{40, 32}, {48, 48}, {36, 44}}
	n := 0
	for c, class := range []string{"cat", "dog", "fish"} {
		cd := filepath.Join(dir, class)
		if err := os.MkdirAll(cd, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range 4 {
			sz := sizes[(i+c)%len(sizes)]
			m := testimg.Natural(sz[0], sz[1], uint64(10*c+i))
			ext := ".png"
			if i == 3 {
				ext = ".jpg"
			}
			if err := imageio.Save(filepath.Join(cd, fmt.Sprintf("img%d%s", i, ext)), m, imageio.EncodeOptions{}); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	// Grayscale PNGs (image.Gray on disk).
	for i := range 2 {
		m := testimg.Natural(44, 40, uint64(100+i))
		g := image.NewGray(image.Rect(0, 0, m.Width, m.Height))
		for p := range g.Pix {
			g.Pix[p] = imageio.To8(m.Ch[1][p], imageio.Round)
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, g); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "dog", fmt.Sprintf("gray%d.png", i)), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		n++
	}
	// A file name that CSV must quote (comma, quotes, non-ASCII).
	if err := imageio.Save(filepath.Join(dir, "fish", `odd, "näme".png`), testimg.Natural(40, 40, 77), imageio.EncodeOptions{}); err != nil {
		t.Fatal(err)
	}
	n++
	// Broken files: a truncated PNG and text named .jpg.
	good, err := os.ReadFile(filepath.Join(dir, "cat", "img0.png"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "cat", "broken.png"), good[:len(good)/2], 0o644)
	os.WriteFile(filepath.Join(dir, "fish", "notanimage.jpg"), []byte("hello"), 0o644)
	os.WriteFile(filepath.Join(dir, "fish", "README.txt"), []byte("not listed"), 0o644)
	return n + 2
}

func lookup(t testing.TB, names ...string) []*corrupt.Corruption {
	t.Helper()
	var cs []*corrupt.Corruption
	for _, n := range names {
		c, err := corrupt.Lookup(n)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	return cs
}

func testConfig(t testing.TB, data, out string) Config {
	t.Helper()
	src, err := dataset.Open(dataset.Spec{Path: data})
	if err != nil {
		t.Fatal(err)
	}
	return Config{
		Source: src, Corruptions: lookup(t, "gaussian_noise", "gaussian_blur"), N: 30, Seed: 7,
		Method: iqa.Pixel, Out: out, Workers: 2, Version: "test",
	}
}

// dirFiles returns every file under dir (relative path → content).
func dirFiles(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// sameFiles reports the differences between two folders' files.
func sameFiles(t *testing.T, want, got string) {
	t.Helper()
	a, b := dirFiles(t, want), dirFiles(t, got)
	var diffs []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			diffs = append(diffs, "missing "+k)
		} else if !bytes.Equal(v, w) {
			diffs = append(diffs, "differs "+k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			diffs = append(diffs, "extra "+k)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("%s vs %s: %d differences, e.g. %s", want, got, len(diffs), strings.Join(diffs[:min(5, len(diffs))], "; "))
	}
}

func readCSV(t testing.TB, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestGenerateManifest(t *testing.T) {
	data := t.TempDir()
	nFiles := makeDataset(t, data)
	out := filepath.Join(t.TempDir(), "out")
	cfg := testConfig(t, data, out)
	sum, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Source.Len() != nFiles {
		t.Fatalf("source lists %d images, want %d", cfg.Source.Len(), nFiles)
	}
	man := readCSV(t, filepath.Join(out, ManifestFile))
	fail := readCSV(t, filepath.Join(out, FailuresFile))
	// The sources are 32…48 pixels on their shorter side (< 72), so the
	// default flavours include vifvec2-layers; the primary (pixel) is added.
	wantCols := append(slices.Clone(Columns), "dv_vcr_py", "dv_vifvec", "dv_vifvec2_layers", "dv_pixel")
	if !slices.Equal(man[0], wantCols) || !slices.Equal(fail[0], FailureColumns) {
		t.Fatalf("headers %v / %v", man[0], fail[0])
	}
	if sum.Rows != len(man)-1 || sum.Failures != len(fail)-1 || sum.Rows+sum.Failures != 60 {
		t.Fatalf("summary %+v, manifest %d rows, failures %d rows, want 60 in all", sum, len(man)-1, len(fail)-1)
	}
	if sum.Failures == 0 {
		t.Fatal("no failures although the dataset has broken files (draw more)")
	}
	// Every id in exactly one file; manifest rows in id order.
	seen := map[int]bool{}
	prev := -1
	col := func(name string) int { return slices.Index(Columns, name) }
	for _, rec := range man[1:] {
		id, _ := strconv.Atoi(rec[0])
		if id <= prev {
			t.Fatalf("manifest ids out of order: %d after %d", id, prev)
		}
		prev = id
		seen[id] = true
		c, err := corrupt.Lookup(rec[col("corruption")])
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"gaussian_noise", "gaussian_blur"}[id/30]; c.Name != want {
			t.Errorf("row %d: corruption %s, want %s (draws g = ci·N + k)", id, c.Name, want)
		}
		var params map[string]float64
		if err := json.Unmarshal([]byte(rec[col("params")]), &params); err != nil || len(params) != len(c.Params) {
			t.Errorf("row %d: params %q", id, rec[col("params")])
		}
		dv, _ := strconv.ParseFloat(rec[col("dv")], 64)
		vif, _ := strconv.ParseFloat(rec[col("vif")], 64)
		// Δv is exactly 0 for an unchanged image (iqa.Scorer.Score).
		if !(dv >= 0 && dv <= 1) || (dv != iqa.DV(vif) && dv != 0) {
			t.Errorf("row %d: vif %v dv %v", id, vif, dv)
		}
		if rec[col("label")] != rec[col("label_name")] || rec[col("label_index")] == "" || rec[col("vif_method")] != "pixel" || rec[col("sampling")] != "uniform" {
			t.Errorf("row %d: label %q/%q/%q, method %q, sampling %q", id, rec[col("label")], rec[col("label_index")], rec[col("label_name")], rec[col("vif_method")], rec[col("sampling")])
		}
		want := fmt.Sprintf("images/%s/%06d.png", c.Name, id)
		if rec[col("path")] != want {
			t.Errorf("row %d: path %q, want %q", id, rec[col("path")], want)
		}
		m, err := imageio.Load(filepath.Join(out, rec[col("path")]), imageio.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if strconv.Itoa(m.Width) != rec[col("width")] || strconv.Itoa(m.Height) != rec[col("height")] {
			t.Errorf("row %d: image %dx%d, manifest says %sx%s", id, m.Width, m.Height, rec[col("width")], rec[col("height")])
		}
	}
	for _, rec := range fail[1:] {
		id, _ := strconv.Atoi(rec[0])
		if seen[id] {
			t.Errorf("id %d in both files", id)
		}
		seen[id] = true
		if !strings.Contains(rec[1], "broken") && !strings.Contains(rec[1], "notanimage") {
			t.Errorf("failure for a good image: %v", rec)
		}
		if strings.Contains(rec[3], data) || !strings.Contains(rec[3], rec[1]) {
			t.Errorf("failure message %q should name the source %s relative to the dataset root", rec[3], rec[1])
		}
	}
	if len(seen) != 60 {
		t.Errorf("%d distinct ids, want 60", len(seen))
	}
	if !slices.ContainsFunc(man[1:], func(rec []string) bool { return rec[1] == `fish/odd, "näme".png` }) {
		t.Error("no row for the file whose name needs CSV quoting (draw more)")
	}
	// Coverage agrees with the manifest.
	var rep CoverageReport
	if err := readJSON(filepath.Join(out, CoverageFile), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Corruptions) != 2 || rep.Overall.N != sum.Rows || rep.Corruptions[0].N+rep.Corruptions[1].N != sum.Rows || rep.Bins != 40 {
		t.Errorf("coverage.json %+v", rep)
	}
}

// TestRowReproducible checks the manifest's promise: the row's seed and
// params, applied to the source with corrupt.NewRand(seed, 0) (what vcr
// corrupt --seed does), give the saved image.
func TestRowReproducible(t *testing.T) {
	data := t.TempDir()
	makeDataset(t, data)
	out := t.TempDir()
	cfg := testConfig(t, data, out)
	cfg.N = 4
	if _, err := Generate(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	man := readCSV(t, filepath.Join(out, ManifestFile))
	col := func(name string) int { return slices.Index(Columns, name) }
	for _, rec := range man[1:] {
		c, _ := corrupt.Lookup(rec[col("corruption")])
		var named map[string]float64
		json.Unmarshal([]byte(rec[col("params")]), &named)
		var assign []string
		for k, v := range named {
			assign = append(assign, k+"="+strconv.FormatFloat(v, 'g', -1, 64))
		}
		p, err := c.ParseParams(assign, nil)
		if err != nil {
			t.Fatal(err)
		}
		seed, _ := strconv.ParseUint(rec[col("seed")], 10, 64)
		src, err := imageio.Load(filepath.Join(data, rec[col("source")]), imageio.Options{})
		if err != nil {
			t.Fatal(err)
		}
		dst := imageio.New(src.Width, src.Height)
		c.Apply(dst, src, p, corrupt.NewRand(seed, 0))
		dst.Quantize(imageio.Round)
		got, err := imageio.Load(filepath.Join(out, rec[col("path")]), imageio.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if d := imageio.MaxAbsDiff(dst, got); d != 0 {
			t.Errorf("row %s: reproduced image differs by %v", rec[0], d)
		}
		r, _ := iqa.NewScorer(iqa.Pixel).Score(iqa.GrayFrom(src), iqa.GrayFrom(got))
		if strconv.FormatFloat(r.VIF, 'g', -1, 64) != rec[col("vif")] {
			t.Errorf("row %s: VIF of the saved image %v, manifest %s", rec[0], r.VIF, rec[col("vif")])
		}
		// Every per-flavour column holds exactly what a Scorer of that
		// flavour gives for the saved image (computed from one shared
		// pyramid by generate).
		for j, name := range man[0][len(Columns):] {
			m := iqa.Methods[slices.IndexFunc(iqa.Methods, func(m iqa.Method) bool { return iqa.DVColumn(m) == name })]
			r, err := iqa.NewScorer(m).Score(iqa.GrayFrom(src), iqa.GrayFrom(got))
			if err != nil {
				t.Fatal(err)
			}
			if want := strconv.FormatFloat(r.DV, 'g', -1, 64); rec[len(Columns)+j] != want {
				t.Errorf("row %s: %s = %s, %s Scorer on the saved image %s", rec[0], name, rec[len(Columns)+j], m, want)
			}
		}
		if got, want := rec[slices.Index(man[0], "dv_pixel")], rec[col("dv")]; got != want {
			t.Errorf("row %s: dv_pixel %s, dv (primary pixel) %s", rec[0], got, want)
		}
	}
}

// TestDVMethods: an explicit list (here vifvec only, primary vcr-py) gives
// exactly the primary and the listed flavours' columns in iqa.Methods
// order, run.json records them, and ReadManifest returns the values by
// flavour; a manifest without the columns (as written before they existed)
// still reads, with no per-flavour values.
func TestDVMethods(t *testing.T) {
	data := t.TempDir()
	makeDataset(t, data)
	out := t.TempDir()
	cfg := testConfig(t, data, out)
	cfg.N = 3
	cfg.Method = iqa.VCRPy
	cfg.DVMethods = []iqa.Method{iqa.VIFVec}
	if _, err := Generate(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	man := readCSV(t, filepath.Join(out, ManifestFile))
	if want := append(slices.Clone(Columns), "dv_vcr_py", "dv_vifvec"); !slices.Equal(man[0], want) {
		t.Fatalf("header %v, want %v", man[0], want)
	}
	ri, err := ReadRunInfo(out)
	if err != nil || !slices.Equal(ri.DVMethods, []string{"vcr-py", "vifvec"}) {
		t.Fatalf("run.json dv_methods %v, %v", ri.DVMethods, err)
	}
	if ms, err := ManifestDVMethods(filepath.Join(out, ManifestFile)); err != nil || !slices.Equal(ms, []iqa.Method{iqa.VCRPy, iqa.VIFVec}) {
		t.Fatalf("ManifestDVMethods = %v, %v", ms, err)
	}
	var recs []*Record
	if err := ReadManifest(filepath.Join(out, ManifestFile), func(r *Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(man)-1 || len(recs) == 0 {
		t.Fatalf("%d records for %d rows", len(recs), len(man)-1)
	}
	for i, r := range recs {
		dvv, _ := strconv.ParseFloat(man[i+1][len(Columns)+1], 64)
		if r.DVs[iqa.VCRPy] != r.DV || r.DVs[iqa.VIFVec] != dvv || len(r.DVs) != 2 {
			t.Errorf("row %d: DVs %v, dv %v, dv_vifvec cell %s", r.ID, r.DVs, r.DV, man[i+1][len(Columns)+1])
		}
	}
	// The same rows without the per-flavour columns.
	old := filepath.Join(t.TempDir(), ManifestFile)
	var sb strings.Builder
	cw := csv.NewWriter(&sb)
	for _, rec := range man {
		cw.Write(rec[:len(Columns)])
	}
	cw.Flush()
	os.WriteFile(old, []byte(sb.String()), 0o644)
	n := 0
	err = ReadManifest(old, func(r *Record) error {
		if r.DVs != nil || r.DV != recs[n].DV || r.Path != recs[n].Path {
			t.Errorf("old manifest row %d: %+v", n, r)
		}
		n++
		return nil
	})
	if err != nil || n != len(recs) {
		t.Errorf("old manifest: %d rows, %v", n, err)
	}
	// An unknown column after the fixed ones is refused.
	bad := filepath.Join(t.TempDir(), ManifestFile)
	os.WriteFile(bad, []byte(strings.Join(append(slices.Clone(Columns), "dv_ssim"), ",")+"\n"), 0o644)
	if err := ReadManifest(bad, func(*Record) error { return nil }); err == nil || !strings.Contains(err.Error(), "dv_ssim") {
		t.Errorf("manifest with a dv_ssim column: %v", err)
	}
}

func TestGenerateIndependentOfWorkers(t *testing.T) {
	data := t.TempDir()
	makeDataset(t, data)
	root := t.TempDir()
	for _, w := range []int{1, 3} {
		cfg := testConfig(t, data, filepath.Join(root, strconv.Itoa(w)))
		cfg.Workers = w
		if _, err := Generate(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
	}
	sameFiles(t, filepath.Join(root, "1"), filepath.Join(root, "3"))
}

func TestShardsMerge(t *testing.T) {
	data := t.TempDir()
	makeDataset(t, data)
	root := t.TempDir()
	whole := filepath.Join(root, "whole")
	cfg := testConfig(t, data, whole)
	if _, err := Generate(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "sharded")
	for i := range 3 {
		c := testConfig(t, data, "")
		c.Shard = Shard{i, 3}
		c.Out = c.Shard.Dir(out)
		c.Workers = 1 + i%2
		if _, err := Generate(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	dirs, err := ShardDirs(out)
	if err != nil || len(dirs) != 3 {
		t.Fatalf("ShardDirs = %v, %v", dirs, err)
	}
	// Merging before all shards are there is refused.
	if _, err := Merge(context.Background(), filepath.Join(root, "x"), dirs[:2], MergeOptions{}); err == nil || !strings.Contains(err.Error(), "missing shard(s) 2") {
		t.Errorf("merge of 2 of 3 shards: %v", err)
	}
	merged := filepath.Join(root, "merged")
	sum, err := Merge(context.Background(), merged, dirs, MergeOptions{Images: ImagesCopy})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows+sum.Failures != 60 {
		t.Errorf("merged %d rows + %d failures", sum.Rows, sum.Failures)
	}
	sameFiles(t, whole, merged)
	// Move mode into the parent folder, as docs/generate.md suggests.
	if _, err := Merge(context.Background(), out, dirs, MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		os.RemoveAll(d)
	}
	sameFiles(t, whole, out)
	// A second merge is refused without Force.
	if _, err := Merge(context.Background(), merged, dirs, MergeOptions{}); err == nil {
		t.Error("merge into a merged folder succeeded without Force")
	}
}

func TestResumeAfterCrash(t *testing.T) {
	data := t.TempDir()
	makeDataset(t, data)
	for _, inc := range []bool{false, true} {
		t.Run(fmt.Sprintf("imagenet-c=%v", inc), func(t *testing.T) {
			config := func(out string) Config {
				cfg := testConfig(t, data, out)
				if inc {
					cfg.ImageNetC, cfg.N = true, 7 // 70 rows; cuts fall inside draws
				}
				return cfg
			}
			testResumeAfterCrash(t, config)
		})
	}
}

func testResumeAfterCrash(t *testing.T, config func(out string) Config) {
	root := t.TempDir()
	whole := filepath.Join(root, "whole")
	if _, err := Generate(context.Background(), config(whole)); err != nil {
		t.Fatal(err)
	}
	man, err := os.ReadFile(filepath.Join(whole, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	fails, _ := os.ReadFile(filepath.Join(whole, FailuresFile))
	lastFail, _ := strconv.Atoi(strings.SplitN(string(fails[bytes.LastIndexByte(fails[:len(fails)-1], '\n')+1:]), ",", 2)[0])
	// Simulate crashes at many points: a manifest cut at byte k (possibly
	// mid-line); a failures file at least as far (it is synced first),
	// itself cut mid-line when it is ahead; the images of the rows after
	// the cut missing; a stray temporary file; no coverage or status.
	for _, frac := range []float64{0, 0.01, 0.3, 0.5, 0.77, 0.999} {
		crash := filepath.Join(root, fmt.Sprintf("crash%v", frac))
		if err := os.CopyFS(crash, os.DirFS(whole)); err != nil {
			t.Fatal(err)
		}
		k := int(frac * float64(len(man)))
		os.WriteFile(filepath.Join(crash, ManifestFile), man[:k], 0o644)
		lastKept := -1
		if nl := bytes.LastIndexByte(man[:k], '\n'); nl > 0 {
			lines := strings.Split(string(man[:nl]), "\n")
			lastKept, _ = strconv.Atoi(strings.SplitN(lines[len(lines)-1], ",", 2)[0])
		}
		if lastFail > lastKept {
			os.WriteFile(filepath.Join(crash, FailuresFile), fails[:len(fails)-3], 0o644)
		}
		for _, rec := range readCSV(t, filepath.Join(whole, ManifestFile))[1:] {
			if id, _ := strconv.Atoi(rec[0]); id > lastKept {
				os.Remove(filepath.Join(crash, rec[slices.Index(Columns, "path")]))
			}
		}
		os.Remove(filepath.Join(crash, CoverageFile))
		os.Remove(filepath.Join(crash, StatusFile))
		os.WriteFile(filepath.Join(crash, ImagesDir, "gaussian_noise", ".000007.png.tmp-123"), []byte("x"), 0o644)
		cfg := config(crash)
		if _, err := Generate(context.Background(), cfg); !errors.Is(err, ErrExists) {
			t.Fatalf("without --resume: %v, want ErrExists", err)
		}
		cfg.Resume = true
		cfg.Workers = 3
		var said []string
		cfg.Warn = func(msg string) { said = append(said, msg) }
		if _, err := Generate(context.Background(), cfg); err != nil {
			t.Fatalf("resume at %v: %v", frac, err)
		}
		sameFiles(t, whole, crash)
		// The resume line counts what it kept of each file: the rows of
		// the draws before the one it resumes at.
		parsed := 0
		for _, msg := range said {
			var start, total, rows, failed int
			i := strings.Index(msg, " at draw ")
			if i < 0 {
				continue
			}
			if n, _ := fmt.Sscanf(msg[i:], " at draw %d of %d (kept: %d rows of manifest.csv, %d of failures.csv)", &start, &total, &rows, &failed); n != 4 {
				t.Errorf("resume line %q: want 'at draw S of T (kept: R rows of manifest.csv, F of failures.csv)'", msg)
				continue
			}
			parsed++
			perDraw := 1
			if cfg.ImageNetC {
				perDraw = 5
			}
			count := func(path string) (n int) {
				for _, rec := range readCSV(t, path)[1:] {
					if id, _ := strconv.Atoi(rec[0]); id/perDraw < start {
						n++
					}
				}
				return n
			}
			if want, wantF := count(filepath.Join(whole, ManifestFile)), count(filepath.Join(whole, FailuresFile)); rows != want || failed != wantF {
				t.Errorf("resume at %v: %q; the draws before %d have %d rows and %d failures", frac, msg, start, want, wantF)
			}
		}
		if frac >= 0.3 && parsed != 1 {
			t.Errorf("resume at %v: %d resume lines in %q, want 1", frac, parsed, said)
		}
	}
}

func TestResumeMismatch(t *testing.T) {
	data := t.TempDir()
	makeDataset(t, data)
	out := t.TempDir()
	cfg := testConfig(t, data, out)
	cfg.N = 3
	if _, err := Generate(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Resume = true
	cfg.Seed = 8
	cfg.Method = iqa.PixelMS
	_, err := Generate(context.Background(), cfg)
	var me *MismatchError
	if !errors.As(err, &me) || len(me.Diffs) != 3 || me.Diffs[0].Key != "seed" || me.Diffs[1].Key != "vif_method" || me.Diffs[2].Key != "dv_methods" {
		t.Fatalf("resume with another seed and method: %v", err)
	}
	if !strings.Contains(err.Error(), "seed: 7 there, 8 here") {
		t.Errorf("message %q", err)
	}
	cfg.Resume, cfg.Force = false, true
	if _, err := Generate(context.Background(), cfg); err != nil {
		t.Fatalf("--force: %v", err)
	}
	ri, err := readRunInfo(filepath.Join(out, RunFile))
	if err != nil || ri.Seed != 8 {
		t.Errorf("after --force run.json seed = %v, %v", ri, err)
	}
}

func TestGenerateCancelResume(t *testing.T) {
	data := t.TempDir()
	makeDataset(t, data)
	root := t.TempDir()
	whole := filepath.Join(root, "whole")
	if _, err := Generate(context.Background(), testConfig(t, data, whole)); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "cancelled")
	ctx, cancel := context.WithCancel(context.Background())
	cfg := testConfig(t, data, out)
	cfg.Progress = func(done, total int) {
		if done >= 20 {
			cancel()
		}
	}
	if _, err := Generate(ctx, cfg); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run returned %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, StatusFile)); err == nil {
		t.Error("cancelled run wrote status.json")
	}
	cfg = testConfig(t, data, out)
	cfg.Resume = true
	sum, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Resumed < 15 {
		t.Errorf("resumed from %d rows, want about 20", sum.Resumed)
	}
	sameFiles(t, whole, out)
}

func TestImageNetCMode(t *testing.T) {
	data := t.TempDir()
	makeDataset(t, data)
	out := t.TempDir()
	cfg := testConfig(t, data, out)
	cfg.ImageNetC = true
	cfg.N = 6
	cfg.Layout = LayoutImageFolder
	cfg.Method = iqa.VCRPy // a wavelet primary: the prepared reference serves it too
	noSev := ""
	for _, c := range corrupt.All() {
		if c.Severities == nil {
			noSev = c.Name
			cfg.Corruptions = append(cfg.Corruptions, c)
			break
		}
	}
	var warnings []string
	cfg.Warn = func(m string) { warnings = append(warnings, m) }
	sum, err := Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if noSev != "" && (len(warnings) != 1 || !strings.Contains(warnings[0], noSev)) {
		t.Errorf("warnings %q, want one about %s", warnings, noSev)
	}
	if !slices.Equal(sum.Corruptions, []string{"gaussian_noise", "gaussian_blur"}) || sum.Rows+sum.Failures != 60 {
		t.Fatalf("summary %+v", sum)
	}
	man := readCSV(t, filepath.Join(out, ManifestFile))
	col := func(name string) int { return slices.Index(Columns, name) }
	for _, rec := range man[1:] {
		id, _ := strconv.Atoi(rec[0])
		c, _ := corrupt.Lookup(rec[col("corruption")])
		sev := id%5 + 1
		if rec[col("severity")] != strconv.Itoa(sev) || rec[col("sampling")] != "imagenet-c" {
			t.Errorf("row %d: severity %q sampling %q, want %d", id, rec[col("severity")], rec[col("sampling")], sev)
		}
		if want := ParamsJSON(c, c.Severities[sev-1]); rec[col("params")] != want {
			t.Errorf("row %d: params %s, want %s", id, rec[col("params")], want)
		}
		if want := fmt.Sprintf("images/%s/%s/%06d.png", c.Name, rec[col("label_name")], id); rec[col("path")] != want {
			t.Errorf("row %d: path %s, want %s", id, rec[col("path")], want)
		}
		// The five severities of a draw share the source image.
		if id%5 > 0 {
			if prev := man[1:][slices.IndexFunc(man[1:], func(r []string) bool { return r[0] == strconv.Itoa(id-1) })]; prev[1] != rec[1] {
				t.Errorf("rows %d and %d of one draw have sources %s and %s", id-1, id, prev[1], rec[1])
			}
		}
		// A draw's severities are scored against one prepared reference
		// (iqa.Reference): every VIF and Δv column holds exactly what a
		// Scorer gives for the source and the saved image.
		src, err := imageio.Load(filepath.Join(data, rec[col("source")]), imageio.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := imageio.Load(filepath.Join(out, rec[col("path")]), imageio.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := iqa.NewScorer(cfg.Method).Score(iqa.GrayFrom(src), iqa.GrayFrom(got))
		if err != nil {
			t.Fatal(err)
		}
		if want := strconv.FormatFloat(r.VIF, 'g', -1, 64); rec[col("vif")] != want {
			t.Errorf("row %d: VIF %s, %s Scorer on the saved image %s", id, rec[col("vif")], cfg.Method, want)
		}
		for j, name := range man[0][len(Columns):] {
			m := iqa.Methods[slices.IndexFunc(iqa.Methods, func(m iqa.Method) bool { return iqa.DVColumn(m) == name })]
			r, err := iqa.NewScorer(m).Score(iqa.GrayFrom(src), iqa.GrayFrom(got))
			if err != nil {
				t.Fatal(err)
			}
			if want := strconv.FormatFloat(r.DV, 'g', -1, 64); rec[len(Columns)+j] != want {
				t.Errorf("row %d: %s = %s, %s Scorer on the saved image %s", id, name, rec[len(Columns)+j], m, want)
			}
		}
	}
}

func TestPilotDeterministic(t *testing.T) {
	data := t.TempDir()
	makeDataset(t, data)
	var got [][]PilotPoint
	for _, w := range []int{1, 3} {
		cfg := testConfig(t, data, t.TempDir())
		cfg.Sampling, cfg.Pilot, cfg.Workers = SamplingTargeted, 40, w
		st, err := newRunState(cfg)
		if err != nil {
			t.Fatal(err)
		}
		pts, err := st.pilot(context.Background(), 0, Uniform{cfg.Corruptions[0]}, 0, 25)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, pts)
	}
	if len(got[0]) < 15 || len(got[0]) == 25 {
		t.Fatalf("%d pilot points of 25 (some sources are broken)", len(got[0]))
	}
	for i := range got[0] {
		if got[0][i].DV != got[1][i].DV || !slices.Equal(got[0][i].Params, got[1][i].Params) {
			t.Fatalf("pilot point %d differs between 1 and 3 workers", i)
		}
	}
	var dmin, dmax = 1.0, 0.0
	for _, p := range got[0] {
		dmin, dmax = min(dmin, p.DV), max(dmax, p.DV)
	}
	if dmax-dmin < 0.1 {
		t.Errorf("pilot Δv range [%v, %v] is implausibly narrow", dmin, dmax)
	}
}

func TestCoverageCounter(t *testing.T) {
	dvs := []float64{0, 0.01, 0.025, 0.5, 0.5, 0.99, 1}
	for range 30 {
		dvs = append(dvs, 0.3)
	}
	c := NewCoverageCounter(40, 20)
	for _, v := range dvs {
		c.Add(v)
	}
	got, want := c.Coverage(), ComputeCoverage(dvs, 40, 20)
	if !slices.Equal(got.Counts, want.Counts) || got.Covered != want.Covered || got.Fraction != want.Fraction || got.N != want.N {
		t.Errorf("counter %+v, ComputeCoverage %+v", got, want)
	}
}

func TestParseShardAndEnv(t *testing.T) {
	if s, err := ParseShard("2/5"); err != nil || s != (Shard{2, 5}) {
		t.Errorf("ParseShard(2/5) = %v, %v", s, err)
	}
	for _, bad := range []string{"5/5", "-1/3", "1", "a/b", "0/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		env  []string
		want Shard
		ok   bool
		err  bool
	}{
		{nil, Shard{}, false, false},
		{[]string{"SLURM_ARRAY_TASK_ID", "3", "SLURM_ARRAY_TASK_COUNT", "4"}, Shard{3, 4}, true, false},
		{[]string{"SLURM_ARRAY_TASK_ID", "4", "SLURM_ARRAY_TASK_COUNT", "4", "SLURM_ARRAY_TASK_MIN", "1"}, Shard{3, 4}, true, false},
		{[]string{"SLURM_ARRAY_TASK_ID", "4", "SLURM_ARRAY_TASK_COUNT", "4"}, Shard{}, false, true},
		{[]string{"SLURM_ARRAY_TASK_ID", "1"}, Shard{}, false, true},
		{[]string{"JOB_COMPLETION_INDEX", "2", "VCR_SHARD_COUNT", "8"}, Shard{2, 8}, true, false},
		{[]string{"JOB_COMPLETION_INDEX", "2"}, Shard{}, false, true},
	} {
		s, ok, err := ShardFromEnv(env(tc.env...))
		if s != tc.want || ok != tc.ok || (err != nil) != tc.err {
			t.Errorf("env %v: %v %v %v", tc.env, s, ok, err)
		}
	}
	if d := (Shard{3, 12}).Dir("out"); d != filepath.Join("out", "shard-03-of-12") {
		t.Errorf("Dir = %s", d)
	}
	// Every draw belongs to exactly one shard.
	for _, total := range []int{0, 1, 7, 12} {
		var all []int
		for i := range 5 {
			s := Shard{i, 5}
			for p := range s.draws(total) {
				all = append(all, s.draw(p))
			}
		}
		sort.Ints(all)
		for i, g := range all {
			if g != i {
				t.Fatalf("total %d: shards cover %v", total, all)
			}
		}
		if len(all) != total {
			t.Fatalf("total %d: shards cover %d draws", total, len(all))
		}
	}
}

func TestGenerateLocked(t *testing.T) {
	data := t.TempDir()
	makeDataset(t, data)
	out := t.TempDir()
	release, err := lockDir(out)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, data, out)
	cfg.N = 2
	if _, err := Generate(context.Background(), cfg); runtime.GOOS == "linux" && !errors.Is(err, ErrLocked) {
		t.Errorf("Generate while another process writes the folder: %v, want ErrLocked", err)
	}
	release()
	if _, err := Generate(context.Background(), cfg); err != nil {
		t.Fatalf("after release: %v", err)
	}
}
