package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/human"
)

// TestErrorConsistencyMVH runs vcr error-consistency on the embedded
// contrast data of model-vs-human with a "model" whose answers are
// subject-01's: its kappa with subject-01 is 1 in every condition, its
// accuracy is subject-01's, and the human pairs carry model-vs-human's own
// numbers (consistency/testdata/model-vs-human/reference-contrast.csv).
func TestErrorConsistencyMVH(t *testing.T) {
	dir := t.TempDir()
	trials, err := human.OpenMVH("builtin:mvh-contrast")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("subj,session,trial,rt,object_response,category,condition,imagename\n")
	cw := csv.NewWriter(&b)
	for _, x := range trials {
		if x.Subject == "subject-01" {
			cw.Write([]string{"copycat", "1", "1", "NaN", x.Response, x.Category, x.Condition, x.ImageName})
		}
	}
	cw.Flush()
	pred := filepath.Join(dir, "copycat.csv")
	os.WriteFile(pred, []byte(b.String()), 0o644)
	out := filepath.Join(dir, "ec")
	stdout := mustRun(t, "error-consistency", "--human", "builtin:mvh-contrast", "--predictions", pred, "--out", out, "--bootstrap", "20")
	if !strings.Contains(stdout, "humans (ceiling)") || !strings.Contains(stdout, "copycat vs humans") {
		t.Errorf("table:\n%s", stdout)
	}
	f, _ := os.Open(filepath.Join(out, "error_consistency.csv"))
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, r := range rows[1:] {
		got[r[0]+" "+r[1]+" "+r[3]] = r
	}
	for _, c := range []string{"c01", "c03", "c05", "c10", "c15", "c30", "c50", "c100"} {
		r := got["copycat subject-01 "+c]
		if r == nil || r[2] != "model-human" || r[5] != "160" || r[10] != "1" || r[6] != r[7] {
			t.Errorf("copycat vs subject-01 on %s: %v", c, r)
		}
	}
	// reference-contrast.csv: c05, subject-01 vs subject-02.
	if r := got["subject-01 subject-02 c05"]; r == nil || r[9] != "0.5984375000000001" || r[8] != "0.74375" || r[10] != "0.3618677042801556" {
		t.Errorf("subject-01 vs subject-02 on c05: %v", r)
	}
	var s struct {
		Tool     string `json:"tool"`
		Accuracy []struct {
			Observer, Condition string
			Accuracy            float64
		}
		Ceiling    []struct{ Pairs int } `json:"human_ceiling"`
		ModelHuman []struct {
			Model string
			Pairs int
		} `json:"model_human"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(out, "summary.json")), &s); err != nil {
		t.Fatal(err)
	}
	if s.Tool != "vcr error-consistency" || len(s.Ceiling) != 8 || s.Ceiling[0].Pairs != 6 || len(s.ModelHuman) != 8 || s.ModelHuman[0].Pairs != 4 || len(s.Accuracy) != 5*8 {
		t.Errorf("summary.json: %+v", s)
	}
	for _, a := range s.Accuracy { // reference-contrast.csv: subject-01 on c01 is 0.05625
		if (a.Observer == "subject-01" || a.Observer == "copycat") && a.Condition == "c01" && a.Accuracy != 0.05625 {
			t.Errorf("accuracy %+v, want 0.05625", a)
		}
	}
	for _, bad := range [][]string{
		{"error-consistency", "--out", filepath.Join(dir, "x")},
		{"error-consistency", "--human", "builtin:mvh-nothing", "--out", filepath.Join(dir, "y")},
	} {
		if code, _, errOut := runCmd(t, bad...); code != exitUsage || !strings.Contains(errOut, "mvh-contrast") {
			t.Errorf("%v: exit %d, %s", bad, code, errOut)
		}
	}
}

// TestErrorConsistencyPredictionsPlot runs vcr error-consistency with a
// predictions file keyed by image name and --plot: the table has the
// model's row, and the figure has one human and one model series in each
// of its two panels. A --plot that is neither .svg nor .png is a usage
// error.
func TestErrorConsistencyPredictionsPlot(t *testing.T) {
	dir := t.TempDir()
	trials, err := human.OpenMVH("builtin:mvh-contrast")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("imagename,prediction\n")
	for _, x := range trials {
		if x.Subject == "subject-03" {
			b.WriteString(x.ImageName + "," + x.Category + "\n")
		}
	}
	pred := filepath.Join(dir, "oracle.csv")
	os.WriteFile(pred, []byte(b.String()), 0o644)
	fig := filepath.Join(dir, "fig", "ec.svg")
	stdout := mustRun(t, "error-consistency", "--human", "mvh-contrast", "--predictions", pred, "--out", filepath.Join(dir, "ec"), "--bootstrap", "0", "--plot", fig)
	if !strings.Contains(stdout, "oracle vs humans     1.000") {
		t.Errorf("table:\n%s", stdout)
	}
	svg := string(readFile(t, fig))
	if n, m := strings.Count(svg, `<g class="series human">`), strings.Count(svg, `<g class="series model">`); n != 2 || m != 2 {
		t.Errorf("figure has %d human and %d model series, want 2 and 2", n, m)
	}
	if code, _, errOut := runCmd(t, "error-consistency", "--human", "mvh-contrast", "--out", filepath.Join(dir, "ec2"), "--plot", filepath.Join(dir, "ec.pdf")); code != exitUsage || !strings.Contains(errOut, ".svg or .png") {
		t.Errorf("--plot ec.pdf: exit %d, %s", code, errOut)
	}
}

// TestErrorConsistencyLogits runs the --help example with a file in vcr
// eval --logits format: every stimulus subject-03 saw gets logit 5 on each
// class of its true category and 0 elsewhere, so model-vs-human's decision
// (mean softmax per category) is always right. With --probabilities the
// same file is refused: 5 is no probability.
func TestErrorConsistencyLogits(t *testing.T) {
	dir := t.TempDir()
	trials, err := human.OpenMVH("builtin:mvh-contrast")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("id,path,source,kind")
	for i := range 1000 {
		fmt.Fprintf(&b, ",logit_%d", i)
	}
	b.WriteByte('\n')
	scores := make([]string, 1000)
	for id, x := range trials {
		if x.Subject != "subject-03" {
			continue
		}
		for i := range scores {
			scores[i] = "0"
		}
		for _, i := range dataset.ImageNet16Indices(x.Category) {
			scores[i] = "5"
		}
		fmt.Fprintf(&b, "%d,stimuli/%s,,corrupted,%s\n", id, x.ImageName, strings.Join(scores, ","))
	}
	logits := filepath.Join(dir, "logits.csv")
	os.WriteFile(logits, []byte(b.String()), 0o644)
	stdout := mustRun(t, "error-consistency", "--human", "mvh-contrast", "--predictions", logits, "--out", filepath.Join(dir, "ec"))
	if !strings.Contains(stdout, "logits vs humans     1.000") {
		t.Errorf("table:\n%s", stdout)
	}
	code, _, errOut := runCmd(t, "error-consistency", "--human", "mvh-contrast", "--predictions", logits, "--probabilities", "--out", filepath.Join(dir, "ec2"))
	if code == 0 || !strings.Contains(errOut, "(logit_") || !strings.Contains(errOut, "5 is no probability") {
		t.Errorf("--probabilities on logits: exit %d, %s", code, errOut)
	}
}
