package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
	"github.com/vcr-bench/vcr/testset"
)

// TestMain lets the resume test run the command in a child process that it
// can kill: with VCR_TEST_RUN_MAIN=1 the test binary is the vcr command.
func TestMain(m *testing.M) {
	getenv = func(string) string { return "" } // no shard from the test's environment
	if os.Getenv("VCR_TEST_RUN_MAIN") == "1" {
		if p := os.Getenv("VCR_TEST_PEAK_RSS_FILE"); p != "" {
			os.Exit(runReportingPeakRSS(p)) // generate_memory_test.go
		}
		main() // exits
	}
	os.Exit(m.Run())
}

// genDataset writes a class-folder dataset: natural images of several sizes
// (PNG and JPEG), grayscale PNGs, and two broken files.
func genDataset(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	sizes := [][2]int{{40, 32}, {48, 48}, {36, 44}, {64, 40}}
	for c, class := range []string{"car", "tree", "boat"} {
		os.MkdirAll(filepath.Join(dir, class), 0o755)
		for i := range 4 {
			sz := sizes[(i+c)%len(sizes)]
			ext := []string{".png", ".png", ".jpg", ".png"}[i]
			p := filepath.Join(dir, class, fmt.Sprintf("%d%s", i, ext))
			if err := imageio.Save(p, testimg.Natural(sz[0], sz[1], uint64(7*c+i)), imageio.EncodeOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	m := testimg.Natural(40, 40, 99)
	g := image.NewGray(image.Rect(0, 0, 40, 40))
	for i := range g.Pix {
		g.Pix[i] = imageio.To8(m.Ch[0][i], imageio.Round)
	}
	var buf bytes.Buffer
	png.Encode(&buf, g)
	os.WriteFile(filepath.Join(dir, "tree", "gray.png"), buf.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "car", "broken.png"), buf.Bytes()[:buf.Len()/3], 0o644)
	os.WriteFile(filepath.Join(dir, "boat", "empty.jpg"), nil, 0o644)
	return dir
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := runCmd(t, args...)
	if code != exitOK {
		t.Fatalf("vcr %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	return out
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGenerateContract is the contract: the command writes a
// manifest with the required columns, the images it lists and coverage.json;
// the same command into another folder, with another worker count, or as two
// merged shards gives the same manifest bytes.
func TestGenerateContract(t *testing.T) {
	data := genDataset(t)
	root := t.TempDir()
	base := []string{"generate", "--images", data, "--corruptions", "gaussian_noise,gaussian_blur", "--n", "200", "--seed", "1"}
	out1 := filepath.Join(root, "out1")
	stdout := mustRun(t, append(base, "--out", out1, "--workers", "1")...)
	if !strings.Contains(stdout, "gaussian_noise") || !strings.Contains(stdout, "coverage") {
		t.Errorf("stdout lacks the coverage table:\n%s", stdout)
	}
	man := readCSV(t, filepath.Join(out1, "manifest.csv"))
	for _, col := range []string{"id", "source", "label", "corruption", "params", "seed", "vif", "dv", "path"} {
		if !slices.Contains(man[0], col) {
			t.Errorf("manifest lacks column %s", col)
		}
	}
	// Default flavours for images under 72 pixels: the primary vcr-py in dv,
	// and all three wavelet flavours in their own columns.
	if want := []string{"height", "dv_vcr_py", "dv_vifvec", "dv_vifvec2_layers"}; !slices.Equal(man[0][len(man[0])-4:], want) {
		t.Errorf("manifest ends with columns %v, want %v", man[0][len(man[0])-4:], want)
	}
	for _, rec := range man[1:] {
		if rec[slices.Index(man[0], "dv")] != rec[slices.Index(man[0], "dv_vcr_py")] {
			t.Fatalf("row %s: dv %s but dv_vcr_py %s", rec[0], rec[slices.Index(man[0], "dv")], rec[slices.Index(man[0], "dv_vcr_py")])
		}
	}
	var ri struct {
		DVMethods []string `json:"dv_methods"`
		Dataset   struct {
			Root    string `json:"root"`
			RootAbs string `json:"root_abs"`
			RootRel string `json:"root_rel"`
		} `json:"dataset"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(out1, "run.json")), &ri); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ri.DVMethods, []string{"vcr-py", "vifvec", "vifvec2-layers"}) || ri.Dataset.Root != data || ri.Dataset.RootAbs != data {
		t.Errorf("run.json dv_methods %v, dataset %+v", ri.DVMethods, ri.Dataset)
	}
	if rel, _ := filepath.Rel(out1, data); ri.Dataset.RootRel != filepath.ToSlash(rel) {
		t.Errorf("run.json dataset.root_rel %q, want %q", ri.Dataset.RootRel, rel)
	}
	fails := readCSV(t, filepath.Join(out1, "failures.csv"))
	if len(man)-1+len(fails)-1 != 400 || len(fails) < 2 {
		t.Fatalf("%d rows and %d failures, want 400 in all, some failures (broken files)", len(man)-1, len(fails)-1)
	}
	pathCol := slices.Index(man[0], "path")
	for _, rec := range man[1:] {
		if _, err := os.Stat(filepath.Join(out1, rec[pathCol])); err != nil {
			t.Fatalf("listed image: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(out1, "coverage.json")); err != nil {
		t.Fatal(err)
	}
	want := readFile(t, filepath.Join(out1, "manifest.csv"))

	out2 := filepath.Join(root, "out2")
	mustRun(t, append(base, "--out", out2, "--workers", "2")...)
	if !bytes.Equal(readFile(t, filepath.Join(out2, "manifest.csv")), want) {
		t.Error("second run (2 workers) wrote another manifest")
	}

	sharded := filepath.Join(root, "sharded")
	mustRun(t, append(base, "--out", sharded, "--shard", "0/2")...)
	mustRun(t, append(base, "--out", sharded, "--shard", "1/2", "--workers", "1")...)
	mustRun(t, "merge", sharded)
	for _, f := range []string{"manifest.csv", "failures.csv", "coverage.json", "run.json", "status.json"} {
		if !bytes.Equal(readFile(t, filepath.Join(sharded, f)), readFile(t, filepath.Join(out1, f))) {
			t.Errorf("merged %s differs from the single run's", f)
		}
	}
	for _, rec := range man[1:] {
		if !bytes.Equal(readFile(t, filepath.Join(sharded, rec[pathCol])), readFile(t, filepath.Join(out1, rec[pathCol]))) {
			t.Fatalf("merged image %s differs", rec[pathCol])
		}
	}

	// One flavour only, and vifvec2-layers as the primary.
	one := filepath.Join(root, "one")
	mustRun(t, "generate", "--images", data, "--corruptions", "gaussian_blur", "--n", "5", "--out", one, "--vif-method", "vifvec2-layers", "--dv-methods", "vifvec2-layers")
	m1 := readCSV(t, filepath.Join(one, "manifest.csv"))
	if got := m1[0][len(m1[0])-2:]; !slices.Equal(got, []string{"height", "dv_vifvec2_layers"}) {
		t.Errorf("--dv-methods vifvec2-layers: manifest ends with %v", got)
	}
	for _, rec := range m1[1:] {
		if rec[slices.Index(m1[0], "vif_method")] != "vifvec2-layers" || rec[slices.Index(m1[0], "dv")] != rec[len(rec)-1] {
			t.Errorf("row %v: primary vifvec2-layers expected in dv and dv_vifvec2_layers", rec)
		}
	}

	// An existing output folder is refused without --resume or --force.
	code, _, errOut := runCmd(t, append(base, "--out", out1)...)
	if code != exitUsage || !strings.Contains(errOut, "--resume") || !strings.Contains(errOut, "--force") {
		t.Errorf("rerun into a full folder: exit %d, %s", code, errOut)
	}
	code, _, errOut = runCmd(t, "generate", "--images", data, "--corruptions", "gaussian_noise,gaussian_blur", "--n", "200", "--seed", "2", "--out", out1, "--resume")
	if code != exitUsage || !strings.Contains(errOut, "--seed: 1 in the folder, 2 now") {
		t.Errorf("resume with another seed: exit %d, %s", code, errOut)
	}
	// Resuming a complete run changes nothing.
	if _, _, errOut := runCmd(t, append(base, "--out", out1, "--resume")...); !strings.Contains(errOut, "complete already") {
		t.Errorf("resuming a complete run: %s", errOut)
	}
	if !bytes.Equal(readFile(t, filepath.Join(out1, "manifest.csv")), want) {
		t.Error("resuming a complete run changed the manifest")
	}
}

// TestGenerateKillResume kills a running vcr generate with SIGKILL, resumes
// it, and compares with an uninterrupted run byte for byte.
func TestGenerateKillResume(t *testing.T) {
	data := genDataset(t)
	root := t.TempDir()
	args := []string{"generate", "--images", data, "--corruptions", "gaussian_noise,gaussian_blur", "--n", "600", "--seed", "3", "--vif-method", "pixel", "--workers", "2", "--progress", "never"}
	// stopAfterRows starts the command into out and sends sig once the
	// manifest has more than 100 rows; it returns the exit code and stderr.
	stopAfterRows := func(out string, sig os.Signal) (int, string) {
		cmd := exec.Command(os.Args[0], append(args, "--out", out)...)
		cmd.Env = append(os.Environ(), "VCR_TEST_RUN_MAIN=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			b, _ := os.ReadFile(filepath.Join(out, "manifest.csv"))
			if bytes.Count(b, []byte("\n")) > 100 {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("no rows after 20 s: %s", stderr.String())
			}
			time.Sleep(2 * time.Millisecond)
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		if _, err := os.Stat(filepath.Join(out, "status.json")); err == nil {
			t.Fatal("the run finished before it was stopped; raise --n")
		}
		return cmd.ProcessState.ExitCode(), stderr.String()
	}
	killed := filepath.Join(root, "killed")
	stopAfterRows(killed, os.Kill)
	rowsAtKill := bytes.Count(readFile(t, filepath.Join(killed, "manifest.csv")), []byte("\n")) - 1
	mustRun(t, append(args, "--out", killed, "--resume")...)

	// Ctrl-C: exit status 130, a hint to resume, the manifest ends on a whole row.
	interrupted := filepath.Join(root, "interrupted")
	code, errOut := stopAfterRows(interrupted, os.Interrupt)
	if code != exitInterrupted || !strings.Contains(errOut, "--resume") {
		t.Errorf("after SIGINT: exit %d, stderr %q", code, errOut)
	}
	if b := readFile(t, filepath.Join(interrupted, "manifest.csv")); b[len(b)-1] != '\n' {
		t.Error("an interrupted run left a partial manifest row")
	}
	mustRun(t, append(args, "--out", interrupted, "--resume")...)

	ref := filepath.Join(root, "ref")
	mustRun(t, append(args, "--out", ref)...)
	for _, dir := range []string{killed, interrupted} {
		for _, f := range []string{"manifest.csv", "failures.csv", "coverage.json", "run.json", "status.json"} {
			if !bytes.Equal(readFile(t, filepath.Join(dir, f)), readFile(t, filepath.Join(ref, f))) {
				t.Errorf("%s after stopping and --resume differs from an uninterrupted run's (%s)", f, filepath.Base(dir))
			}
		}
	}
	var files []string
	filepath.WalkDir(killed, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && filepath.Base(filepath.Dir(p)) != "coverage" {
			files = append(files, p)
			if strings.Contains(e.Name(), ".tmp-") {
				t.Errorf("temporary file left: %s", p)
			}
		}
		return nil
	})
	rows := len(readCSV(t, filepath.Join(ref, "manifest.csv"))) - 1
	if want := rows + 5; len(files) != want {
		t.Errorf("%d files in the resumed folder, want %d (images and 5 files)", len(files), want)
	}
	for _, f := range []string{"gaussian_noise.svg", "gaussian_noise.png"} {
		if !bytes.Equal(readFile(t, filepath.Join(killed, "coverage", f)), readFile(t, filepath.Join(ref, "coverage", f))) {
			t.Errorf("coverage plot %s differs after kill and --resume", f)
		}
	}
	t.Logf("killed after %d of %d rows", rowsAtKill, rows)
}

func TestGenerateImageNetCAndLayout(t *testing.T) {
	data := genDataset(t)
	out := filepath.Join(t.TempDir(), "inc")
	code, stdout, errOut := runCmd(t, "generate", "--images", data, "--corruptions", "gaussian_noise,gaussian_blur", "--n", "8",
		"--imagenet-c", "--layout", "imagefolder", "--format", "jpg", "--out", out, "--vif-method", "pixel")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	man := readCSV(t, filepath.Join(out, "manifest.csv"))
	sev, path, label := slices.Index(man[0], "severity"), slices.Index(man[0], "path"), slices.Index(man[0], "label")
	seen := map[string]bool{}
	for _, rec := range man[1:] {
		seen[rec[sev]] = true
		if !strings.Contains(rec[path], "/"+rec[label]+"/") || !strings.HasSuffix(rec[path], ".jpg") {
			t.Errorf("path %s is not images/<corruption>/<class>/<id>.jpg", rec[path])
		}
	}
	if len(seen) != 5 || !strings.Contains(stdout, "gaussian_blur") {
		t.Errorf("severities %v; stdout %s", seen, stdout)
	}
}

func TestGenerateShardFromEnv(t *testing.T) {
	data := genDataset(t)
	out := t.TempDir()
	getenv = func(k string) string {
		return map[string]string{"JOB_COMPLETION_INDEX": "1", "VCR_SHARD_COUNT": "2"}[k]
	}
	defer func() { getenv = func(string) string { return "" } }()
	stdout := mustRun(t, "generate", "--images", data, "--corruptions", "gaussian_noise", "--n", "6", "--out", out, "--vif-method", "pixel")
	if _, err := os.Stat(filepath.Join(out, "shard-1-of-2", "status.json")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "vcr merge "+out) {
		t.Errorf("stdout does not say how to merge:\n%s", stdout)
	}
	code, _, errOut := runCmd(t, "merge", out)
	if code == exitOK || !strings.Contains(errOut, "missing shard(s) 0") {
		t.Errorf("merge with a shard missing: exit %d, %s", code, errOut)
	}
	// A shard of another command is refused, naming the flag.
	mustRun(t, "generate", "--images", data, "--corruptions", "gaussian_noise", "--n", "6", "--out", out, "--vif-method", "pixel", "--seed", "5", "--shard", "0/2")
	code, _, errOut = runCmd(t, "merge", out)
	if code == exitOK || !strings.Contains(errOut, "--seed: 0 there, 5 in the first") {
		t.Errorf("merge of shards of different commands: exit %d, %s", code, errOut)
	}
}

func TestGenerateUsageErrors(t *testing.T) {
	data := genDataset(t)
	x := filepath.Join(t.TempDir(), "x")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--corruptions", "gaussian_noise", "--out", x}, "--images is required"},
		{[]string{"--images", data, "--out", x}, "--corruptions is required"},
		{[]string{"--images", data, "--corruptions", "gausian_noise", "--out", x}, "did you mean gaussian_noise"},
		{[]string{"--images", data, "--corruptions", "gaussian_noise", "--out", x, "--n", "0"}, "--n must be at least 1"},
		{[]string{"--images", data, "--corruptions", "gaussian_noise", "--out", x, "--shard", "2/2"}, "0 ≤ i < n"},
		{[]string{"--images", data, "--corruptions", "gaussian_noise", "--out", x, "--layout", "tree"}, "--layout must be flat or imagefolder"},
		{[]string{"--images", filepath.Join(data, "nope"), "--corruptions", "gaussian_noise", "--out", x}, "does not exist"},
		{[]string{"--images", data, "--corruptions", "gaussian_noise", "--out", x, "--dv-methods", "vcr-py,ssim"}, "--dv-methods: unknown VIF method \"ssim\""},
		{[]string{"--images", data, "--corruptions", "gaussian_noise", "--out", x, "--dv-methods", "vifvec,vifvec"}, "vifvec is listed twice"},
		{[]string{"--images", data, "--corruptions", "gaussian_noise", "--out", x, "--bins", "0"}, "--bins must be at least 1"},
		{[]string{"--images", data, "--corruptions", "gaussian_noise", "--out", x, "--min-per-bin", "0"}, "--min-per-bin must be at least 1"},
		{[]string{"--images", data, "--corruptions", "gaussian_noise", "--out", filepath.Join(data, "car", "0.png", "out")}, "--out " + filepath.Join(data, "car", "0.png", "out") + ": cannot create the folder"},
	} {
		code, _, errOut := runCmd(t, append([]string{"generate"}, tc.args...)...)
		if code == exitOK || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errOut, tc.want)
		}
	}
	// A folder that is not empty is refused before the plan is printed:
	// no line about images, workers or memory precedes the refusal.
	full := filepath.Join(t.TempDir(), "full")
	if err := os.MkdirAll(full, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(full, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCmd(t, "generate", "--images", data, "--corruptions", "gaussian_noise", "--out", full)
	if code != exitUsage || !strings.HasPrefix(errOut, "vcr generate: "+full+" is not empty") {
		t.Errorf("non-empty --out: exit %d, stderr %q, want the refusal first", code, errOut)
	}
	code, _, errOut = runCmd(t, "generate", "--help")
	if code != exitOK || !strings.Contains(errOut, "Examples:") {
		t.Errorf("--help: exit %d", code)
	}
}

func TestSynth(t *testing.T) {
	out := filepath.Join(t.TempDir(), "synth")
	mustRun(t, "synth", "--out", out, "--n", "7", "--size", "40x30", "--classes", "3")
	src, err := dataset.Open(dataset.Spec{Path: out})
	if err != nil {
		t.Fatal(err)
	}
	if src.Len() != 7 || len(src.Classes()) != 3 {
		t.Fatalf("%d images in %d classes", src.Len(), len(src.Classes()))
	}
	m, err := src.Load(6)
	if err != nil || m.Width != 40 || m.Height != 30 {
		t.Fatalf("image 6: %v", err)
	}
	if code, _, _ := runCmd(t, "synth", "--out", out); code != exitUsage {
		t.Errorf("synth into a full folder: exit %d", code)
	}
}

// TestGenerateTargeted runs Δv-targeted sampling end to end: the pilot, the
// fitted sampler and the manifest's sampling column, with every parameter
// inside the corruption's domain.
func TestGenerateTargeted(t *testing.T) {
	data := genDataset(t)
	out := filepath.Join(t.TempDir(), "out")
	mustRun(t, "generate", "--images", data, "--corruptions", "brightness", "--n", "60", "--seed", "5",
		"--sampling", "targeted", "--pilot", "100", "--vif-method", "pixel", "--out", out, "--progress", "never")
	man := readCSV(t, filepath.Join(out, "manifest.csv"))
	col := func(name string) int { return slices.Index(man[0], name) }
	c, err := corrupt.Lookup("brightness")
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range man[1:] {
		if rec[col("sampling")] != "targeted" {
			t.Fatalf("row %s: sampling %q", rec[0], rec[col("sampling")])
		}
		var p map[string]float64
		if err := json.Unmarshal([]byte(rec[col("params")]), &p); err != nil {
			t.Fatal(err)
		}
		if err := c.Check([]float64{p["c"]}); err != nil {
			t.Errorf("row %s: %v", rec[0], err)
		}
	}
	for _, f := range []string{"coverage/brightness.svg", "coverage/brightness.png"} {
		if len(readFile(t, filepath.Join(out, f))) == 0 {
			t.Errorf("%s is empty", f)
		}
	}
	if code, _, errOut := runCmd(t, "generate", "--images", data, "--corruptions", "brightness", "--n", "10",
		"--sampling", "targeted", "--pilot", "10", "--out", filepath.Join(t.TempDir(), "x")); code == exitOK || !strings.Contains(errOut, "pilot") {
		t.Errorf("--pilot 10: exit %d, %q", code, errOut)
	}
}

// TestGenerateCIFARResizeCrop reads CIFAR-10 binary batches (written here),
// resizes and crops them, and checks the image sizes and labels recorded.
func TestGenerateCIFARResizeCrop(t *testing.T) {
	dir := t.TempDir()
	var rec []byte
	for i := range 12 {
		rec = append(rec, byte(i%10))
		m := testimg.Natural(32, 32, uint64(i))
		for c := range 3 {
			for _, v := range m.Ch[c] {
				rec = append(rec, imageio.To8(v, imageio.Round))
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "test_batch.bin"), rec, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	mustRun(t, "generate", "--images", dir, "--corruptions", "contrast", "--n", "8", "--resize", "40", "--crop", "36",
		"--vif-method", "pixel", "--out", out, "--progress", "never")
	man := readCSV(t, filepath.Join(out, "manifest.csv"))
	col := func(name string) int { return slices.Index(man[0], name) }
	if len(man) != 9 {
		t.Fatalf("%d rows, want 8", len(man)-1)
	}
	for _, r := range man[1:] {
		if r[col("width")] != "36" || r[col("height")] != "36" {
			t.Errorf("row %s: %s×%s, want 36×36", r[0], r[col("width")], r[col("height")])
		}
		if r[col("label_name")] == "" || !strings.Contains(r[col("source")], "test_batch.bin") {
			t.Errorf("row %s: label %q source %q", r[0], r[col("label_name")], r[col("source")])
		}
		m, err := imageio.Load(filepath.Join(out, r[col("path")]), imageio.Options{})
		if err != nil || m.Width != 36 {
			t.Errorf("row %s: image %v", r[0], err)
		}
	}
}

// TestCoverageCompare runs uniform and ImageNet-C generation on the same
// images and compares their coverage side by side.
func TestCoverageCompare(t *testing.T) {
	data := genDataset(t)
	root := t.TempDir()
	uni, inc, cmp := filepath.Join(root, "uniform"), filepath.Join(root, "inc"), filepath.Join(root, "cmp")
	common := []string{"generate", "--images", data, "--corruptions", "gaussian_noise", "--seed", "4", "--vif-method", "pixel", "--progress", "never"}
	mustRun(t, append(common, "--n", "50", "--out", uni)...)
	mustRun(t, append(common, "--n", "10", "--imagenet-c", "--out", inc)...)
	// Draw k of both runs uses the same source image.
	um, im := readCSV(t, filepath.Join(uni, "manifest.csv")), readCSV(t, filepath.Join(inc, "manifest.csv"))
	src := map[string]string{}
	for _, r := range um[1:] {
		src[r[0]] = r[1]
	}
	for _, r := range im[1:] {
		id, _ := strconv.Atoi(r[0])
		if want, ok := src[strconv.Itoa(id/5)]; ok && want != r[1] {
			t.Errorf("ImageNet-C row %d uses %s, uniform draw %d used %s", id, r[1], id/5, want)
		}
	}
	out := mustRun(t, "coverage", "--out", cmp, uni, inc)
	if !strings.Contains(out, "uniform (uniform)") || !strings.Contains(out, "inc (imagenet-c)") || !strings.Contains(out, "gaussian_noise") {
		t.Errorf("table:\n%s", out)
	}
	svg := string(readFile(t, filepath.Join(cmp, "gaussian_noise.svg")))
	if !strings.Contains(svg, "<svg") || !strings.Contains(svg, "imagenet-c") {
		t.Error("overlay SVG lacks the series")
	}
	// Other bins and threshold: recomputed from the manifests, and equal to
	// the coverage of the dv column counted directly.
	out = mustRun(t, "coverage", "--out", cmp, "--bins", "8", "--min-per-bin", "3", uni, inc)
	if !strings.Contains(out, "(Δv in 8 equal bins (--bins); a bin is covered with ≥ 3 rows (--min-per-bin)") {
		t.Errorf("table footer does not name --bins 8 and --min-per-bin 3:\n%s", out)
	}
	var dvs []float64
	for _, r := range um[1:] {
		v, _ := strconv.ParseFloat(r[slices.Index(um[0], "dv")], 64)
		dvs = append(dvs, v)
	}
	want := testset.ComputeCoverage(dvs, 8, 3)
	if line := fmt.Sprintf("%.1f%% (%d rows)", 100*want.Fraction, want.N); !strings.Contains(out, "gaussian_noise  "+line) {
		t.Errorf("uniform coverage with 8 bins, ≥ 3 rows: want %s in\n%s", line, out)
	}
	if code, _, errOut := runCmd(t, "coverage", "--bins", "8", filepath.Join(uni, "coverage.json"), inc); code != exitUsage || !strings.Contains(errOut, "40 bins") {
		t.Errorf("coverage.json of 40 bins with --bins 8: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runCmd(t, "coverage", "--out", filepath.Join(uni, "manifest.csv", "x"), uni, inc); code != exitUsage || !strings.Contains(errOut, "--out") {
		t.Errorf("--out under a file: exit %d, %q", code, errOut)
	}
	px := filepath.Join(root, "px")
	mustRun(t, "generate", "--images", data, "--corruptions", "gaussian_noise", "--seed", "4", "--n", "20", "--out", px, "--progress", "never")
	if code, _, errOut := runCmd(t, "coverage", "--out", cmp, uni, px); code == exitOK || !strings.Contains(errOut, "different Δv axes") {
		t.Errorf("different VIF methods: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runCmd(t, "coverage", uni, data); code == exitOK || !strings.Contains(errOut, "coverage.json") {
		t.Errorf("not a run: exit %d, %q", code, errOut)
	}
}
