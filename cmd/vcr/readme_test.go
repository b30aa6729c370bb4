package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/vcr-bench/vcr/model/onnx"
	"github.com/vcr-bench/vcr/model/onnx/onnxgen"
)

// readmeCommand is one command line of README.md's Examples.
type readmeCommand struct {
	line       int      // line number in README.md
	args       []string // after "vcr"
	background bool     // ends with " &"
}

func (c readmeCommand) String() string {
	return fmt.Sprintf("README.md:%d: vcr %s", c.line, strings.Join(c.args, " "))
}

// readmeExamples returns the commands of the first sh block after the
// "## Examples" heading of README.md. Lines continue with a trailing
// backslash; "#" starts a comment; a trailing "&" runs in the background;
// "cd DIR" changes the directory.
func readmeExamples(t *testing.T) []readmeCommand {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var cmds []readmeCommand
	state := 0 // 0: before the heading, 1: before the block, 2: in the block
	var pending string
	start := 0
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch state {
		case 0:
			if strings.TrimSpace(line) == "## Examples" {
				state = 1
			}
			continue
		case 1:
			if strings.HasPrefix(line, "```sh") {
				state = 2
			} else if strings.HasPrefix(line, "## ") {
				t.Fatal("README.md: the Examples section has no sh code block")
			}
			continue
		}
		if strings.HasPrefix(line, "```") {
			break
		}
		if pending == "" {
			start = n
		}
		line = stripComment(line)
		if s, ok := strings.CutSuffix(strings.TrimRight(line, " "), `\`); ok {
			pending += s + " "
			continue
		}
		full := strings.TrimSpace(pending + line)
		pending = ""
		if full == "" {
			continue
		}
		words := shellWords(t, full, start)
		c := readmeCommand{line: start}
		if words[len(words)-1] == "&" {
			c.background, words = true, words[:len(words)-1]
		}
		switch words[0] {
		case "vcr", "./vcr":
			c.args = words[1:]
		case "cd":
			c.args = words
		default:
			t.Fatalf("README.md:%d: %q is not a vcr command; the Examples block holds only vcr commands (and cd)", start, words[0])
		}
		cmds = append(cmds, c)
	}
	if len(cmds) == 0 {
		t.Fatal("README.md: no commands found under ## Examples")
	}
	return cmds
}

// stripComment removes a "#" comment (one that starts a word) outside quotes.
func stripComment(s string) string {
	var quote rune
	prev := ' '
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && unicode.IsSpace(prev):
			return s[:i]
		}
		prev = r
	}
	return s
}

// shellWords splits a command line as sh does for the plain words,
// single and double quotes the README uses.
func shellWords(t *testing.T, s string, line int) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case unicode.IsSpace(r):
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case strings.ContainsRune("|;<>`$", r):
			t.Fatalf("README.md:%d: %q uses shell syntax (%c) the journey test cannot run", line, s, r)
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		t.Fatalf("README.md:%d: unbalanced quote in %q", line, s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// TestREADMEJourney runs README.md's Examples, in order, as a new user
// types them: on a dataset the test writes, in a working directory of its
// own, with the inputs a user brings (a predictions file made elsewhere, an
// ONNX model, an experiment config) written by the test when a command
// first names them. It fails when README and code drift. After the
// examples, the test set and its source images are moved and evaluated
// again from another working directory: a test set finds its images.
func TestREADMEJourney(t *testing.T) {
	if testing.Short() {
		t.Skip("the README journey takes about a minute")
	}
	lib, _, err := onnx.FindLibrary(onnx.Options{})
	if err != nil {
		if os.Getenv("VCR_REQUIRE_ONNXRUNTIME") != "" {
			t.Fatalf("ONNX Runtime required but not found: %v", err)
		}
		t.Skip("ONNX Runtime not installed (see docs/onnx.md); the README's examples evaluate an ONNX model")
	}
	// The journey runs in a working directory of its own, where the
	// places searched relative to this module (its .cache) are not: name
	// the library found here.
	if lib, err = filepath.Abs(lib); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VCR_ONNXRUNTIME_LIB", lib)
	cmds := readmeExamples(t)
	root := t.TempDir()
	work := filepath.Join(root, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	j := &journey{t: t, root: root}
	defer j.stopBackground()
	for _, c := range cmds {
		if c.args[0] == "cd" {
			t.Chdir(c.args[1])
			continue
		}
		j.provide(c)
		if c.background {
			j.startBackground(c)
			continue
		}
		code, out, errOut := j.run(c.args)
		// requirements check is a CI gate: exit 1 says a requirement is
		// violated (the untrained model of the journey violates them),
		// with the verdicts written.
		gate := len(c.args) > 1 && c.args[0] == "requirements" && c.args[1] == "check" && code == exitFailure &&
			strings.Contains(errOut, "requirements violated")
		if code != exitOK && !gate {
			t.Fatalf("%s\nexit %d\nstdout:\n%s\nstderr:\n%s", c, code, out, errOut)
		}
		t.Logf("%s: ok", c)
	}
	j.checkOutcome()
}

// journey holds the state of one README run.
type journey struct {
	t      *testing.T
	root   string
	cancel context.CancelFunc
	done   chan int
	bgOut  *syncBuffer
}

func (j *journey) run(args []string) (int, string, string) {
	var out, errb syncBuffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// flagValue returns the value of --name in args, or "".
func flagValue(args []string, name string) string {
	for i, a := range args {
		if a == "--"+name && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
	}
	return ""
}

// provide writes the inputs a user would bring that c names and that do
// not exist yet.
func (j *journey) provide(c readmeCommand) {
	t := j.t
	for i, a := range c.args {
		if _, err := os.Stat(a); err == nil {
			continue
		}
		switch filepath.Base(a) {
		case "preds.csv":
			writeJourneyPredictions(t, flagValue(c.args, "testset"), a)
		case "model.onnx":
			writeJourneyModel(t, a)
		case "study.yaml":
			writeJourneyStudy(t, a)
		default:
			if i > 0 && strings.HasSuffix(a, ".onnx") {
				t.Fatalf("%s: no maker for %s", c, a)
			}
		}
	}
}

// writeJourneyPredictions writes what a PyTorch user's script writes: one
// row per corrupted image (id, pred) and one per clean source (source,
// pred). The simulated model is right on clean images and on corrupted
// ones with Δv below a threshold that depends on the image, so accuracy
// falls with Δv.
func writeJourneyPredictions(t *testing.T, testset, path string) {
	t.Helper()
	if testset == "" {
		t.Fatal("preds.csv is named by a command without --testset")
	}
	f, err := os.Open(filepath.Join(testset, "manifest.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var labels []string
	for _, r := range rows[1:] {
		if l := r[col["label"]]; !slices.Contains(labels, l) {
			labels = append(labels, l)
		}
	}
	sort.Strings(labels)
	var b strings.Builder
	b.WriteString("id,source,pred\n")
	clean := map[string]string{}
	for _, r := range rows[1:] {
		id, _ := strconv.Atoi(r[col["id"]])
		dv, _ := strconv.ParseFloat(r[col["dv"]], 64)
		label := r[col["label"]]
		pred := label
		if dv > 0.15+0.7*float64(id%10)/10 {
			pred = labels[(slices.Index(labels, label)+1)%len(labels)]
		}
		fmt.Fprintf(&b, "%d,,%s\n", id, pred)
		clean[r[col["source"]]] = label
	}
	sources := make([]string, 0, len(clean))
	for s := range clean {
		sources = append(sources, s)
	}
	sort.Strings(sources)
	for _, s := range sources {
		fmt.Fprintf(&b, ",%s,%s\n", s, clean[s])
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeJourneyModel writes a small convolutional ONNX classifier for the
// README's photos (3 classes, 128×128; weights from a fixed seed).
func writeJourneyModel(t *testing.T, path string) {
	t.Helper()
	net, err := onnxgen.New(onnxgen.Spec{Arch: onnxgen.Conv, Classes: 3, Height: 128, Width: 128, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if err := net.WriteFile(path); err != nil {
		t.Fatal(err)
	}
}

// writeJourneyStudy writes the experiment config of the README's study: the
// test set T, the photos' own classes as answer categories, small batches.
func writeJourneyStudy(t *testing.T, path string) {
	t.Helper()
	yaml := `name: readme-study
seed: 1
testset: T
task:
  categories:
    - name: class_00
    - name: class_01
    - name: class_02
trials_per_batch: 20
clean_per_batch: 4
views_per_batch: 2
practice: 1
qualification: 2
qualification_min_correct: 0
sanity: 1
sanity_max_failures: 1
server:
  admin_token: readme-admin-token-0123456789
  rate_per_ip: 100000
  # every simulated participant of the load test comes from this one address
  max_places_per_ip: -1
  joins_per_minute: 100000
  joins_per_minute_per_ip: 100000
`
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
}

// startBackground runs c (vcr experiment serve … &) until the journey
// ends, and waits until its address answers.
func (j *journey) startBackground(c readmeCommand) {
	t := j.t
	addr := flagValue(c.args, "addr")
	if addr == "" {
		t.Fatalf("%s: a background command must name --addr so the next commands can reach it", c)
	}
	if l, err := net.Listen("tcp", addr); err != nil {
		t.Fatalf("%s: %s is in use on this machine: %v", c, addr, err)
	} else {
		l.Close()
	}
	ctx, cancel := context.WithCancel(context.Background())
	j.cancel, j.done, j.bgOut = cancel, make(chan int, 1), &syncBuffer{}
	go func() { j.done <- run(ctx, c.args, j.bgOut, j.bgOut) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			break
		}
		select {
		case code := <-j.done:
			t.Fatalf("%s exited with %d:\n%s", c, code, j.bgOut.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no answer on %s after 60 s:\n%s", c, addr, j.bgOut.String())
		}
	}
	t.Logf("%s: serving", c)
}

func (j *journey) stopBackground() {
	if j.cancel == nil {
		return
	}
	j.cancel()
	select {
	case code := <-j.done:
		if code != exitOK && code != exitInterrupted {
			j.t.Errorf("background command exited with %d:\n%s", code, j.bgOut.String())
		}
	case <-time.After(30 * time.Second):
		j.t.Error("background command did not stop")
	}
	j.cancel = nil
}

// checkOutcome checks what the README promises: the analysis against the
// built-in humans holds HMRI for both corruptions, the report exists, and
// the test set works from elsewhere after a move.
func (j *journey) checkOutcome() {
	t := j.t
	j.stopBackground()
	var s struct {
		Models []struct {
			Model      string   `json:"model"`
			Corruption string   `json:"corruption"`
			HMRIA      *float64 `json:"hmri_a"`
		} `json:"models"`
	}
	b, err := os.ReadFile(filepath.Join("A", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("A/summary.json: %v", err)
	}
	hmri := map[string]bool{}
	for _, m := range s.Models {
		if m.HMRIA != nil {
			hmri[m.Corruption] = true
		}
	}
	for _, c := range []string{"frost", "gaussian_noise"} {
		if !hmri[c] {
			t.Errorf("A/summary.json has no hmri_a for %s:\n%.2000s", c, b)
		}
	}
	// The report found the check's verdicts in A/check.json by its "tool"
	// field, not by a special file name.
	html, err := os.ReadFile("report.html")
	if err != nil {
		t.Fatal(err)
	}
	var check struct {
		Verdicts []json.RawMessage `json:"verdicts"`
	}
	if b, err := os.ReadFile(filepath.Join("A", "check.json")); err != nil || json.Unmarshal(b, &check) != nil || len(check.Verdicts) != 1 {
		t.Errorf("A/check.json: %v, %d verdicts; want the frost requirement's", err, len(check.Verdicts))
	}
	if !strings.Contains(string(html), `class="verdict-count"`) || !strings.Contains(string(html), "of 1 requirements violated") {
		t.Errorf("report.html shows no verdicts of A/check.json")
	}
	// Move the test set and its photos together, then evaluate from
	// another working directory.
	moved := filepath.Join(j.root, "moved")
	if err := os.MkdirAll(moved, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"T", "photos", "preds.csv"} {
		if err := os.Rename(d, filepath.Join(moved, d)); err != nil {
			t.Fatal(err)
		}
	}
	elsewhere := filepath.Join(j.root, "elsewhere")
	if err := os.MkdirAll(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(elsewhere)
	code, out, errOut := j.run([]string{"eval", "--testset", filepath.Join(moved, "T"), "--predictions", filepath.Join(moved, "preds.csv"), "--out", "again.csv"})
	if code != exitOK {
		t.Fatalf("eval of the moved test set from another directory: exit %d\n%s\n%s", code, out, errOut)
	}
	a, _ := os.ReadFile(filepath.Join(moved, "T", "results.csv"))
	b2, _ := os.ReadFile("again.csv")
	if string(a) != string(b2) || len(a) == 0 {
		t.Errorf("results of the moved test set differ from the original's (%d vs %d bytes)", len(b2), len(a))
	}
}
