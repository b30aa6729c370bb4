package reliability

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/vcr-bench/vcr/internal/version"
)

// CheckReport is the outcome of checking one model against requirements:
// the file 'vcr requirements check --json' writes, and the source of its
// table and JUnit XML.
type CheckReport struct {
	// Tool is CheckTool; Version the vcr build that ran the check.
	Tool    string `json:"tool"`
	Version string `json:"version"`
	// Requirements is the requirements file checked against (as given).
	Requirements string `json:"requirements"`
	// Model describes what was checked (backend, file or server and name).
	Model string `json:"model"`
	// Images is the pool of original images (as given); empty for a check
	// on a test set.
	Images string `json:"images,omitempty"`
	// TestSet is the test set whose rows a check with --testset used (as
	// given; see CheckTestSet).
	TestSet string `json:"testset,omitempty"`
	// Seconds is the wall time of the whole check.
	Seconds float64 `json:"seconds"`
	// Verdicts holds one verdict per requirement, in the file's order.
	Verdicts []*Verdict `json:"verdicts"`
	// Warnings collects every verdict's warnings (the reproducibility
	// rerun's, an accepted VIF mismatch), each prefixed with its
	// transformation. Never null in the JSON.
	Warnings []string `json:"warnings"`
}

// NewCheckReport returns an empty report stamped with CheckTool and the
// running build's version.
func NewCheckReport(requirements, model, images string) *CheckReport {
	return &CheckReport{Tool: CheckTool, Version: version.String(), Requirements: requirements,
		Model: model, Images: images, Verdicts: []*Verdict{}, Warnings: []string{}}
}

// Add appends v and its warnings.
func (r *CheckReport) Add(v *Verdict) {
	r.Verdicts = append(r.Verdicts, v)
	for _, w := range v.Warnings {
		r.Warnings = append(r.Warnings, v.Requirement.Transformation+": "+w)
	}
}

// Count tells how many requirements the report holds and how many are
// violated, and the same for the rows of its table: every requirement has
// two rows, correctness (t_c) and preservation (t_p), and is violated when
// either row is.
type Count struct {
	Requirements, ViolatedRequirements int
	Rows, ViolatedRows                 int
}

// Count counts the report's requirements and rows.
func (r *CheckReport) Count() Count {
	var c Count
	for _, v := range r.Verdicts {
		c.Requirements++
		if !v.Satisfied {
			c.ViolatedRequirements++
		}
		for _, d := range v.Distances() {
			c.Rows++
			if !d.Satisfied {
				c.ViolatedRows++
			}
		}
	}
	return c
}

// String says what was counted, e.g. "1 of 2 requirements violated (2 of
// 4 rows: each requirement has a correctness and a preservation row)".
func (c Count) String() string {
	return fmt.Sprintf("%d of %d requirements violated (%d of %d rows: each requirement has a correctness and a preservation row and is violated when either is)",
		c.ViolatedRequirements, c.Requirements, c.ViolatedRows, c.Rows)
}

// Distances returns the verdict's correctness and preservation distances,
// in that order.
func (v *Verdict) Distances() []Distance { return []Distance{v.Correctness, v.Preservation} }

// Write writes r as indented JSON followed by a newline.
func (r *CheckReport) Write(w io.Writer) error {
	cp := *r
	if cp.Warnings == nil {
		cp.Warnings = []string{}
	}
	if cp.Verdicts == nil {
		cp.Verdicts = []*Verdict{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(&cp)
}

// ReadCheckReport decodes a CheckReport from r. It accepts files whose
// "tool" is CheckTool, and files written before the tool was recorded
// whose first verdict names a transformation; any other JSON is an error.
func ReadCheckReport(r io.Reader) (*CheckReport, error) {
	var c CheckReport
	if err := json.NewDecoder(r).Decode(&c); err != nil {
		return nil, fmt.Errorf("not a requirements check report: %w", err)
	}
	switch {
	case c.Tool != "" && c.Tool != CheckTool:
		return nil, fmt.Errorf("not a requirements check report: written by %q, want %q", c.Tool, CheckTool)
	case c.Tool == "" && (len(c.Verdicts) == 0 || c.Verdicts[0] == nil || c.Verdicts[0].Requirement.Transformation == ""):
		return nil, fmt.Errorf("not a requirements check report: no \"tool\": %q and no verdicts", CheckTool)
	}
	for i, v := range c.Verdicts {
		if v == nil {
			return nil, fmt.Errorf("requirements check report: verdict %d is null", i+1)
		}
	}
	if c.Warnings == nil {
		// Files written before the report collected them: the verdicts'.
		c.Warnings = []string{}
		for _, v := range c.Verdicts {
			for _, w := range v.Warnings {
				c.Warnings = append(c.Warnings, v.Requirement.Transformation+": "+w)
			}
		}
	}
	return &c, nil
}

// WriteTable writes r as a text table, one row per requirement and
// distance (two per requirement).
func (r *CheckReport) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "REQUIREMENT\tTHRESHOLD\tBASELINE\tTRANSFORMED\tMEAN Δ\tσ\tBOUND\tVERDICT\t")
	for _, v := range r.Verdicts {
		for _, d := range v.Distances() {
			fmt.Fprintf(tw, "%s %s\t%s=%.3f\t%.4f\t%.4f\t%+.4f\t%.4f\t%+.4f\t%s\t\n", v.Requirement.Transformation, d.Kind, d.Symbol(), d.Threshold,
				d.Baseline, d.Transformed, d.Delta, d.Sigma, d.Bound, verdictWord(d.Satisfied))
		}
	}
	return tw.Flush()
}

// Symbol returns "t_c" for the correctness distance and "t_p" for the
// preservation distance.
func (d Distance) Symbol() string {
	if d.Kind == "preservation" {
		return "t_p"
	}
	return "t_c"
}

func verdictWord(ok bool) string {
	if ok {
		return "satisfied"
	}
	return "VIOLATED"
}

// JUnit XML, the subset CI systems read (Jenkins, GitLab, GitHub Actions).

// JUnitSuites is the root element of JUnit XML.
type JUnitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []JUnitSuite `xml:"testsuite"`
}

// JUnitSuite is a test suite: one per check.
type JUnitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []JUnitCase `xml:"testcase"`
}

// JUnitCase is a test case: one per requirement.
type JUnitCase struct {
	Name      string          `xml:"name,attr"`
	ClassName string          `xml:"classname,attr"`
	Time      string          `xml:"time,attr"`
	Props     []JUnitProperty `xml:"properties>property,omitempty"`
	Failure   *JUnitFailure   `xml:"failure,omitempty"`
	SystemOut string          `xml:"system-out,omitempty"`
}

// JUnitProperty is a name/value pair of a test case.
type JUnitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// JUnitFailure marks a violated requirement.
type JUnitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// JUnit returns r as JUnit test suites: one test case per requirement
// (class vcr.requirements[.<dataset>]), failed when it is violated, with
// every statistic as a property and the warnings in its system-out.
func (r *CheckReport) JUnit() JUnitSuites {
	s := JUnitSuite{Name: "vcr requirements", Tests: len(r.Verdicts), Time: fmt.Sprintf("%.3f", r.Seconds)}
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for _, v := range r.Verdicts {
		q := v.Requirement
		class := "vcr.requirements"
		if q.Dataset != "" {
			class += "." + q.Dataset
		}
		c := JUnitCase{Name: q.Transformation, ClassName: class, Time: fmt.Sprintf("%.3f", v.Timing.Wall)}
		c.Props = []JUnitProperty{
			{"vif_method", string(v.VIFMethod)}, {"batches", strconv.Itoa(v.Batches)}, {"batch_size", strconv.Itoa(v.BatchSize)},
			{"seed", strconv.FormatUint(v.Seed, 10)}, {"alpha", g(v.Alpha)}, {"z", g(v.Z)}, {"epsilon", g(v.Epsilon)},
		}
		var lines, bad []string
		for _, d := range v.Distances() {
			p := "m"
			if d.Kind == "preservation" {
				p = "s"
			}
			c.Props = append(c.Props,
				JUnitProperty{d.Symbol(), g(d.Threshold)},
				JUnitProperty{p + "0", g(d.Baseline)}, JUnitProperty{p + "_t", g(d.Transformed)},
				JUnitProperty{"delta_" + p, g(d.Delta)}, JUnitProperty{"sigma_" + p, g(d.Sigma)},
				JUnitProperty{"bound_" + p, g(d.Bound)}, JUnitProperty{d.Kind + "_satisfied", strconv.FormatBool(d.Satisfied)},
				JUnitProperty{d.Kind + "_attempts", strconv.Itoa(d.Attempts)})
			line := fmt.Sprintf("%s (threshold %g): Δ%s = %.4f, σ = %.4f, Δ + %.4f·σ = %+.4f: %s", d.Kind, d.Threshold, p, d.Delta, d.Sigma, v.Z, d.Bound, verdictWord(d.Satisfied))
			lines = append(lines, line)
			if !d.Satisfied {
				bad = append(bad, line)
			}
		}
		for _, w := range v.Warnings {
			lines = append(lines, "warning: "+w)
		}
		c.SystemOut = strings.Join(lines, "\n")
		if len(bad) > 0 {
			s.Failures++
			c.Failure = &JUnitFailure{Message: fmt.Sprintf("%s requirement violated", q.Transformation), Type: "violated", Text: strings.Join(bad, "\n")}
		}
		s.Cases = append(s.Cases, c)
	}
	return JUnitSuites{Suites: []JUnitSuite{s}}
}

// WriteJUnit writes r as JUnit XML (see JUnit).
func (r *CheckReport) WriteJUnit(w io.Writer) error {
	b, err := xml.MarshalIndent(r.JUnit(), "", "  ")
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// TaskWarnings returns one warning per distinct task of reqs (the task of
// the humans they were derived from) that differs from the checked model's
// task, named as package task names tasks, with classes its number of
// classes: a requirement derived from humans judging car / not car says
// little about a model that tells 1000 classes apart. Requirements that
// record no task are not compared.
func TaskWarnings(reqs []Requirement, modelTask string, classes int) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range reqs {
		if r.Task == "car / not car" {
			r.Task = "car" // files written before the task names were unified
		}
		if r.Task == "" || r.Task == modelTask || seen[r.Task] {
			continue
		}
		seen[r.Task] = true
		var names []string
		for _, q := range reqs {
			if q.Task == r.Task || q.Task == "car / not car" && r.Task == "car" {
				names = append(names, q.Transformation)
			}
		}
		out = append(out, fmt.Sprintf("the requirements %s were derived from humans on task %s; the model is checked on task %s (%d classes): the comparison mixes two questions (give --task %s if the model can answer it)",
			strings.Join(names, ", "), r.Task, modelTask, classes, r.Task))
	}
	return out
}
