package reliability

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/human"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the validation tables in docs/requirements.md")

// TestCIFARTrialsReproduceBins: binning the raw CIFAR-10 trials as §A.1
// does reproduces the published CIFAR-10 per-bin files exactly.
func TestCIFARTrialsReproduceBins(t *testing.T) {
	raw, err := human.Builtin("icse2022-cifar10")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range raw.Series {
		got := FromTrials(s.Trials)
		want := builtinBins(t, "icse2022-cifar10-bins", s.Corruption)
		for _, c := range []struct {
			name string
			g, w Bins
		}{{"correctness", got.Correctness, want.Correctness}, {"preservation", got.Preservation, want.Preservation}} {
			if !slices.Equal(c.g.X, c.w.X) || !slices.Equal(c.g.N, c.w.N) || !slices.Equal(c.g.C, c.w.C) {
				t.Errorf("%s %s: binned trials differ from the published bins:\n got %v\nwant %v", s.Corruption, c.name, c.g, c.w)
			}
		}
	}
}

type validationSet struct {
	builtin  string
	p0       float64
	weighted bool
}

func estimateAll(t *testing.T, v validationSet, rule string) map[string]*Requirement {
	t.Helper()
	d, err := human.Builtin(v.builtin)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*Requirement{}
	for _, s := range d.Series {
		r, err := Estimate(HumanBins{Correctness: FromICSECounts(s.Binned.Accuracy), Preservation: FromICSECounts(s.Binned.Consistency)},
			EstimateOptions{Rule: rule, P0: v.p0, Weighted: v.weighted})
		if err != nil {
			t.Fatalf("%s %s: %v", v.builtin, s.Corruption, err)
		}
		out[s.Corruption] = r
	}
	return out
}

func sortedKeys(m map[string]*Requirement) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	slices.Sort(k)
	return k
}

// validationTables renders the thresholds of every published data set and
// rule, and the subset agreement, as Markdown.
func validationTables(t *testing.T) string {
	var b strings.Builder
	sets := []struct {
		label string
		v     validationSet
	}{
		{"ImageNet", validationSet{"icse2022-imagenet", ImageNetCleanAccuracy, false}},
		{"CIFAR-10", validationSet{"icse2022-cifar10-bins", CIFAR10CleanAccuracy, true}},
	}
	mark := func(ce *CurveEstimate) string {
		if ce.Fallback {
			return fmt.Sprintf("%.2f†", ce.Threshold)
		}
		return fmt.Sprintf("%.2f", ce.Threshold)
	}
	b.WriteString("| data | transformation | t_c script | t_p script | t_c intended | t_p intended | t_c first | t_p first | s0 | df (c, p) |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range sets {
		res := map[string]map[string]*Requirement{}
		for _, rule := range Rules {
			res[rule] = estimateAll(t, s.v, rule)
		}
		for _, tr := range sortedKeys(res[RuleScript]) {
			fmt.Fprintf(&b, "| %s | %s |", s.label, tr)
			for _, rule := range Rules {
				det := res[rule][tr].Details.(*EstimateDetails)
				fmt.Fprintf(&b, " %s | %s |", mark(det.Correctness), mark(det.Preservation))
			}
			det := res[RuleScript][tr].Details.(*EstimateDetails)
			fmt.Fprintf(&b, " %.4f | %.1f, %.1f |\n", res[RuleScript][tr].HumanPreservation, det.Correctness.DF, det.Preservation.DF)
		}
	}
	b.WriteString("\nSubset agreement (ImageNet): thresholds of `sixty_percent_1` / `sixty_percent_2` minus the full data's; " +
		"✓ = within one bin (|difference| ≤ 0.01) for both subsets.\n\n")
	b.WriteString("| transformation | rule | t_c full | t_c Δ (s1, s2) | t_p full | t_p Δ (s1, s2) | t_c | t_p |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	full, s1, s2 := map[string]map[string]*Requirement{}, map[string]map[string]*Requirement{}, map[string]map[string]*Requirement{}
	for _, rule := range Rules {
		full[rule] = estimateAll(t, sets[0].v, rule)
		s1[rule] = estimateAll(t, validationSet{"icse2022-imagenet-sixty1", ImageNetCleanAccuracy, false}, rule)
		s2[rule] = estimateAll(t, validationSet{"icse2022-imagenet-sixty2", ImageNetCleanAccuracy, false}, rule)
	}
	ok, total := map[string]int{}, 0
	for _, tr := range sortedKeys(full[RuleScript]) {
		for _, rule := range Rules {
			f, a, c := full[rule][tr], s1[rule][tr], s2[rule][tr]
			within := func(x, y, z float64) string {
				if math.Abs(y-x) <= 0.01+1e-9 && math.Abs(z-x) <= 0.01+1e-9 {
					ok[rule]++
					return "✓"
				}
				return "✗"
			}
			total++
			fmt.Fprintf(&b, "| %s | %s | %.2f | %+.2f, %+.2f | %.2f | %+.2f, %+.2f | %s | %s |\n", tr, rule,
				f.TC, a.TC-f.TC, c.TC-f.TC, f.TP, a.TP-f.TP, c.TP-f.TP, within(f.TC, a.TC, c.TC), within(f.TP, a.TP, c.TP))
		}
	}
	n := total / len(Rules) * 2
	fmt.Fprintf(&b, "\nWithin one bin for both subsets: script %d of %d thresholds, intended %d of %d, first %d of %d.\n",
		ok[RuleScript], n, ok[RuleIntended], n, ok[RuleFirst], n)
	return b.String()
}

// TestValidationDocUpToDate: the tables in docs/requirements.md are what
// Estimate computes on the published data (go test ./reliability -run
// TestValidationDocUpToDate -update-docs rewrites them).
func TestValidationDocUpToDate(t *testing.T) {
	const begin, end = "<!-- validation:begin -->\n", "<!-- validation:end -->"
	path := filepath.Join("..", "docs", "requirements.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the %q … %q markers", path, begin, end)
	}
	want := validationTables(t)
	if s[i+len(begin):j] == want {
		return
	}
	if *updateDocs {
		if err := os.WriteFile(path, []byte(s[:i+len(begin)]+want+s[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Error("docs/requirements.md validation tables are stale; rerun with -update-docs")
}
