package reliability

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// sampleReport holds two requirements: frost with both rows violated and
// a reproducibility warning, contrast with both rows satisfied.
func sampleReport() *CheckReport {
	r := NewCheckReport("req.json", "model m.onnx", "val")
	r.Seconds = 12.5
	r.Add(&Verdict{
		Requirement: Requirement{Transformation: "frost", Dataset: "icse2022-imagenet", VIFMethod: "vifvec", TC: 0.84, TP: 0.87},
		VIFMethod:   "vifvec", Batches: 200, BatchSize: 50, Seed: 1, Alpha: 0.05, Z: 1.6449,
		Correctness:  Distance{Kind: "correctness", Threshold: 0.84, Delta: 0.25, Sigma: 0.05, Bound: 0.25 + 1.6449*0.05},
		Preservation: Distance{Kind: "preservation", Threshold: 0.87, Delta: 0.125, Sigma: 0.0625, Bound: 0.125 + 1.6449*0.0625},
		Warnings:     []string{"seeds 1 and 2 give Δm 0.2500 vs 0.3000"},
		Timing:       Timing{Wall: 7.25},
	})
	r.Add(&Verdict{
		Requirement: Requirement{Transformation: "contrast", VIFMethod: "vifvec", TC: 0.76, TP: 0.88},
		VIFMethod:   "vifvec", Batches: 200, BatchSize: 50, Seed: 1, Alpha: 0.05, Z: 1.6449, Satisfied: true,
		Correctness:  Distance{Kind: "correctness", Threshold: 0.76, Delta: -0.5, Sigma: 0.0625, Bound: -0.5 + 1.6449*0.0625, Satisfied: true},
		Preservation: Distance{Kind: "preservation", Threshold: 0.88, Satisfied: true},
	})
	return r
}

func TestCheckReportCount(t *testing.T) {
	r := sampleReport()
	c := r.Count()
	if want := (Count{Requirements: 2, ViolatedRequirements: 1, Rows: 4, ViolatedRows: 2}); c != want {
		t.Errorf("Count = %+v, want %+v", c, want)
	}
	if got := c.String(); !strings.HasPrefix(got, "1 of 2 requirements violated (2 of 4 rows: ") {
		t.Errorf("Count.String = %q", got)
	}
	// The text table has as many rows as Count says, and as many VIOLATED.
	var b bytes.Buffer
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 1+c.Rows || strings.Count(b.String(), "VIOLATED") != c.ViolatedRows {
		t.Errorf("table with %d lines:\n%s", len(lines), b.String())
	}
}

func TestCheckReportJSON(t *testing.T) {
	r := sampleReport()
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	// The contract's top-level keys.
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &top); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range top {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"images", "model", "requirements", "seconds", "tool", "verdicts", "version", "warnings"}; !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	if string(top["tool"]) != `"vcr requirements check"` || string(top["warnings"]) == "null" {
		t.Errorf("tool %s, warnings %s", top["tool"], top["warnings"])
	}
	got, err := ReadCheckReport(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, r) {
		t.Errorf("round trip:\n%+v\nwant\n%+v", got, r)
	}
	if want := []string{"frost: seeds 1 and 2 give Δm 0.2500 vs 0.3000"}; !slices.Equal(got.Warnings, want) {
		t.Errorf("warnings %q, want %q", got.Warnings, want)
	}
	// An empty report still writes arrays, not null.
	b.Reset()
	(&CheckReport{Tool: CheckTool}).Write(&b)
	if !strings.Contains(b.String(), `"verdicts": []`) || !strings.Contains(b.String(), `"warnings": []`) {
		t.Errorf("empty report:\n%s", b.String())
	}
}

func TestReadCheckReportOlderAndOther(t *testing.T) {
	// A file written before "tool" and "warnings": the verdicts' warnings
	// are collected.
	old := `{"model": "m", "images": "val", "seconds": 3, "verdicts": [{"requirement": {"transformation": "frost", "t_c": 0.8, "t_p": 0.8},
	  "warnings": ["the verdict differs with seed 2"]}]}`
	r, err := ReadCheckReport(strings.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"frost: the verdict differs with seed 2"}; r.Model != "m" || !slices.Equal(r.Warnings, want) {
		t.Errorf("old file: %+v", r)
	}
	for _, c := range []struct{ in, want string }{
		{`{"tool": "vcr eval", "verdicts": []}`, `written by "vcr eval"`},
		{`{"checks": [{"model": "simnet", "satisfied": true}]}`, "no verdicts"},
		{`{"tool": "vcr requirements check", "verdicts": [null]}`, "verdict 1 is null"},
		{`[`, "not a requirements check report"},
	} {
		if _, err := ReadCheckReport(strings.NewReader(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.in, err, c.want)
		}
	}
}

func TestCheckReportJUnit(t *testing.T) {
	var b bytes.Buffer
	if err := sampleReport().WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "<?xml") {
		t.Errorf("no XML header: %.40s", b.String())
	}
	var s JUnitSuites
	if err := xml.Unmarshal(b.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Suites) != 1 {
		t.Fatalf("%d suites", len(s.Suites))
	}
	su := s.Suites[0]
	if su.Tests != 2 || su.Failures != 1 || su.Time != "12.500" || len(su.Cases) != 2 {
		t.Fatalf("suite %+v", su)
	}
	frost, contrast := su.Cases[0], su.Cases[1]
	if frost.Failure == nil || frost.Failure.Type != "violated" || frost.ClassName != "vcr.requirements.icse2022-imagenet" || frost.Time != "7.250" {
		t.Errorf("frost case %+v", frost)
	}
	if contrast.Failure != nil || contrast.ClassName != "vcr.requirements" {
		t.Errorf("contrast case %+v", contrast)
	}
	props := map[string]string{}
	for _, p := range frost.Props {
		props[p.Name] = p.Value
	}
	for k, v := range map[string]string{"delta_m": "0.25", "sigma_s": "0.0625", "t_c": "0.84", "t_p": "0.87", "correctness_satisfied": "false", "vif_method": "vifvec"} {
		if props[k] != v {
			t.Errorf("property %s = %q, want %q", k, props[k], v)
		}
	}
	if !strings.Contains(frost.SystemOut, "warning: seeds 1 and 2") {
		t.Errorf("system-out lacks the warning: %q", frost.SystemOut)
	}
}

func ExampleCheckReport_Count() {
	r := NewCheckReport("req.json", "model", "val")
	r.Add(&Verdict{Requirement: Requirement{Transformation: "frost"},
		Correctness: Distance{Kind: "correctness"}, Preservation: Distance{Kind: "preservation", Satisfied: true}})
	c := r.Count()
	fmt.Println(c.ViolatedRequirements, "of", c.Requirements, "requirements;", c.ViolatedRows, "of", c.Rows, "rows")
	// Output: 1 of 1 requirements; 1 of 2 rows
}

// TestTaskWarnings: one warning per distinct human task that differs from
// the model's; the old "car / not car" spelling is the car task.
func TestTaskWarnings(t *testing.T) {
	reqs := []Requirement{
		{Transformation: "frost", Task: "car"},
		{Transformation: "fog", Task: "car / not car"},
		{Transformation: "blur", Task: "imagenet16"},
		{Transformation: "noise"},
	}
	got := TaskWarnings(reqs, "identity", 3)
	want := []string{
		"the requirements frost, fog were derived from humans on task car; the model is checked on task identity (3 classes): the comparison mixes two questions (give --task car if the model can answer it)",
		"the requirements blur were derived from humans on task imagenet16; the model is checked on task identity (3 classes): the comparison mixes two questions (give --task imagenet16 if the model can answer it)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("TaskWarnings:\n%q\nwant\n%q", got, want)
	}
	if got := TaskWarnings(reqs[:2], "car", 2); len(got) != 0 {
		t.Errorf("same task: %q", got)
	}
}
