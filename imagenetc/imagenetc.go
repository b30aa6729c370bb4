package imagenetc

import (
	"encoding/csv"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// Severities is the number of ImageNet-C severities (1…5).
const Severities = 5

// Benchmark lists the 15 corruptions averaged into mCE, in the paper's
// order (noise, blur, weather, digital).
var Benchmark = []string{
	"gaussian_noise", "shot_noise", "impulse_noise",
	"defocus_blur", "glass_blur", "motion_blur", "zoom_blur",
	"snow", "frost", "fog", "brightness",
	"contrast", "elastic_transform", "pixelate", "jpeg_compression",
}

// Extra lists ImageNet-C's extra corruptions: reported, never averaged.
var Extra = []string{"speckle_noise", "gaussian_blur", "spatter", "saturate"}

// alexNetError holds AlexNet's top-1 errors averaged over the five
// severities, as decimal strings so that they enter the rational
// arithmetic exactly. Origin: hendrycks/robustness, ImageNet-C/test.py
// (Apache-2.0), as transcribed in alexnet.md beside this file.
var alexNetError = map[string]string{
	"gaussian_noise":    "0.886428",
	"shot_noise":        "0.894468",
	"impulse_noise":     "0.922640",
	"defocus_blur":      "0.819880",
	"glass_blur":        "0.826268",
	"motion_blur":       "0.785948",
	"zoom_blur":         "0.798360",
	"snow":              "0.866816",
	"frost":             "0.826572",
	"fog":               "0.819324",
	"brightness":        "0.564592",
	"contrast":          "0.853204",
	"elastic_transform": "0.646056",
	"pixelate":          "0.717840",
	"jpeg_compression":  "0.606500",
}

// alexNetCleanError is torchvision's AlexNet clean top-1 error (top-1
// accuracy 56.522 %), which the paper rounds to 43.5 %.
const alexNetCleanError = "0.43478"

// AlexNetError returns AlexNet's top-1 error on benchmark corruption c
// averaged over the five severities, and false for other names.
func AlexNetError(c string) (float64, bool) {
	s, ok := alexNetError[c]
	if !ok {
		return 0, false
	}
	f, _ := rat(s).Float64()
	return f, true
}

// AlexNetCleanError is AlexNet's clean top-1 error used by the relative
// CE: 0.43478 (torchvision's AlexNet; the paper prints 43.5 %).
const AlexNetCleanError = 0.43478

func rat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("imagenetc: bad constant " + s)
	}
	return r
}

// Kind returns "benchmark", "extra" or "other" for a corruption name.
func Kind(c string) string {
	switch {
	case slices.Contains(Benchmark, c):
		return "benchmark"
	case slices.Contains(Extra, c):
		return "extra"
	}
	return "other"
}

// Order sorts corruption names in place as reports list them, Benchmark
// first (in its order), then Extra, then the others by name, and returns
// names.
func Order(names []string) []string {
	rank := func(c string) int {
		if i := slices.Index(Benchmark, c); i >= 0 {
			return i
		}
		if i := slices.Index(Extra, c); i >= 0 {
			return len(Benchmark) + i
		}
		return len(Benchmark) + len(Extra)
	}
	slices.SortFunc(names, func(a, b string) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return names
}

// Count is the top-1 outcome of one model on one corruption at one
// severity: N labelled images, Errors of them misclassified.
type Count struct {
	Corruption string
	Severity   int // 1…Severities
	N, Errors  int
}

// Model is the input for one model: its per-severity counts and its clean
// outcome (CleanN images, CleanErrors misclassified; CleanN = 0 when
// unknown, and then there is no relative CE).
type Model struct {
	Name                string
	Counts              []Count
	CleanN, CleanErrors int
}

// Severity is one cell of the per-corruption, per-severity error table.
type Severity struct {
	Severity int     `json:"severity"`
	N        int     `json:"n"`
	Errors   int     `json:"errors"`
	Error    float64 `json:"error"`
}

// Corruption is a model's result on one corruption. MeanError, CE and
// RelativeCE are nil when a severity is missing (MissingSeverities); CE
// and RelativeCE are nil for corruptions outside Benchmark, RelativeCE
// also without a clean error.
type Corruption struct {
	Corruption        string     `json:"corruption"`
	Kind              string     `json:"kind"`
	Severities        []Severity `json:"severities"`
	MissingSeverities []int      `json:"missing_severities,omitempty"`
	MeanError         *float64   `json:"mean_error"`
	CE                *float64   `json:"ce"`
	RelativeCE        *float64   `json:"relative_ce"`
	// CEInterval and RelativeCEInterval are the bootstrap intervals of CE
	// and RelativeCE (Intervals); nil without them.
	CEInterval         *Interval `json:"ce_interval,omitempty"`
	RelativeCEInterval *Interval `json:"relative_ce_interval,omitempty"`
}

// Result is one model's ImageNet-C metrics. CE values are in percent of
// AlexNet's (100 = AlexNet). MCE, RelativeMCE and MeanError (the mean over
// Benchmark of the mean errors: the "unnormalized mCE" of test.py) are nil
// when a benchmark corruption is Missing (absent, or without all five
// severities); RelativeMCE also without a clean error. Notes say why a
// number is missing.
type Result struct {
	Model       string             `json:"model"`
	CleanN      int                `json:"clean_n"`
	CleanErrors int                `json:"clean_errors"`
	CleanError  *float64           `json:"clean_error"`
	MCE         *float64           `json:"mce"`
	RelativeMCE *float64           `json:"relative_mce"`
	MeanError   *float64           `json:"mean_error"`
	CE          map[string]float64 `json:"ce"`
	RelativeCE  map[string]float64 `json:"relative_ce,omitempty"`
	Missing     []string           `json:"missing,omitempty"`
	Corruptions []Corruption       `json:"corruptions"`
	Notes       []string           `json:"notes,omitempty"`
	// MCEInterval, RelativeMCEInterval, CEInterval and RelativeCEInterval
	// are percentile bootstrap intervals of the values above, made as
	// Bootstrap says (Intervals); absent without a bootstrap, and each
	// absent where its value is.
	MCEInterval         *Interval           `json:"mce_interval,omitempty"`
	RelativeMCEInterval *Interval           `json:"relative_mce_interval,omitempty"`
	CEInterval          map[string]Interval `json:"ce_interval,omitempty"`
	RelativeCEInterval  map[string]Interval `json:"relative_ce_interval,omitempty"`
	Bootstrap           *Bootstrap          `json:"bootstrap,omitempty"`
}

func ptr(r *big.Rat) *float64 {
	f, _ := r.Float64()
	return &f
}

// Compute returns m's ImageNet-C metrics. Counts of one corruption and
// severity are added up; corruptions are listed Benchmark first (in its
// order), then Extra, then the others by name. It panics on a severity
// outside 1…Severities or negative counts (programmer misuse: readers
// validate their files).
func Compute(m Model) Result {
	type cell struct{ n, e int }
	cells := map[string]*[Severities]cell{}
	for _, c := range m.Counts {
		if c.Severity < 1 || c.Severity > Severities || c.N < 0 || c.Errors < 0 || c.Errors > c.N {
			panic(fmt.Sprintf("imagenetc: bad count %+v", c))
		}
		t := cells[c.Corruption]
		if t == nil {
			t = &[Severities]cell{}
			cells[c.Corruption] = t
		}
		t[c.Severity-1].n += c.N
		t[c.Severity-1].e += c.Errors
	}
	names := make([]string, 0, len(cells))
	for c := range cells {
		names = append(names, c)
	}
	names = Order(names)

	r := Result{Model: m.Name, CleanN: m.CleanN, CleanErrors: m.CleanErrors, CE: map[string]float64{}}
	var clean *big.Rat
	if m.CleanN < 0 || m.CleanErrors < 0 || m.CleanErrors > m.CleanN {
		panic(fmt.Sprintf("imagenetc: bad clean count %d of %d", m.CleanErrors, m.CleanN))
	}
	if m.CleanN > 0 {
		clean = big.NewRat(int64(m.CleanErrors), int64(m.CleanN))
		r.CleanError = ptr(clean)
		r.RelativeCE = map[string]float64{}
	} else {
		r.Notes = append(r.Notes, "no clean error (CleanN = 0): no relative CE")
	}
	hundred := big.NewRat(100, 1)
	aClean := rat(alexNetCleanError)
	sumCE, sumRel, sumErr := new(big.Rat), new(big.Rat), new(big.Rat)
	have := map[string]bool{}
	for _, name := range names {
		t := cells[name]
		c := Corruption{Corruption: name, Kind: Kind(name)}
		mean := new(big.Rat)
		for s := range Severities {
			if t[s].n == 0 {
				c.MissingSeverities = append(c.MissingSeverities, s+1)
				continue
			}
			e := big.NewRat(int64(t[s].e), int64(t[s].n))
			ef, _ := e.Float64()
			c.Severities = append(c.Severities, Severity{Severity: s + 1, N: t[s].n, Errors: t[s].e, Error: ef})
			mean.Add(mean, e)
		}
		if len(c.MissingSeverities) == 0 {
			mean.Quo(mean, big.NewRat(Severities, 1))
			c.MeanError = ptr(mean)
			if a, ok := alexNetError[name]; ok {
				have[name] = true
				sumErr.Add(sumErr, mean)
				ce := new(big.Rat).Quo(mean, rat(a))
				ce.Mul(ce, hundred)
				sumCE.Add(sumCE, ce)
				c.CE = ptr(ce)
				r.CE[name] = *c.CE
				if clean != nil {
					rel := new(big.Rat).Sub(mean, clean)
					rel.Quo(rel, new(big.Rat).Sub(rat(a), aClean))
					rel.Mul(rel, hundred)
					sumRel.Add(sumRel, rel)
					c.RelativeCE = ptr(rel)
					r.RelativeCE[name] = *c.RelativeCE
				}
			}
		} else if c.Kind == "benchmark" {
			r.Notes = append(r.Notes, fmt.Sprintf("%s lacks severities %s: no CE", name, joinInts(c.MissingSeverities)))
		}
		r.Corruptions = append(r.Corruptions, c)
	}
	for _, b := range Benchmark {
		if !have[b] {
			r.Missing = append(r.Missing, b)
		}
	}
	if len(r.Missing) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("no mCE: %d of the %d benchmark corruptions lack errors at all five severities: %s",
			len(r.Missing), len(Benchmark), strings.Join(r.Missing, ", ")))
		return r
	}
	k := big.NewRat(int64(len(Benchmark)), 1)
	r.MCE = ptr(sumCE.Quo(sumCE, k))
	r.MeanError = ptr(sumErr.Quo(sumErr, k))
	if clean != nil {
		r.RelativeMCE = ptr(sumRel.Quo(sumRel, k))
	}
	return r
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

// Report is the ImageNet-C section of an analysis (imagenet_c.json and
// summary.json's "imagenet_c"): the reference constants, how the models'
// clean error was measured, and one Result per model.
type Report struct {
	Benchmark         []string           `json:"benchmark"`
	Extra             []string           `json:"extra"`
	AlexNetError      map[string]float64 `json:"alexnet_error"`
	AlexNetCleanError float64            `json:"alexnet_clean_error"`
	// CleanErrorMethod says how the models' clean error was measured.
	CleanErrorMethod string   `json:"clean_error_method,omitempty"`
	Models           []Result `json:"models"`
}

// NewReport computes every model's Result and records the constants.
// cleanMethod says how the models' clean errors were measured.
func NewReport(models []Model, cleanMethod string) *Report {
	r := &Report{Benchmark: Benchmark, Extra: Extra, AlexNetError: map[string]float64{},
		AlexNetCleanError: AlexNetCleanError, CleanErrorMethod: cleanMethod, Models: []Result{}}
	for _, c := range Benchmark {
		r.AlexNetError[c], _ = AlexNetError(c)
	}
	for _, m := range models {
		r.Models = append(r.Models, Compute(m))
	}
	return r
}

// CSVColumns are the columns of Report.WriteCSV.
var CSVColumns = []string{"model", "corruption", "kind", "severity", "n", "errors", "error", "ce", "relative_ce"}

// WriteCSV writes r as one table: per model a "clean" row (kind clean:
// the clean error), per corruption one row per severity (severity 1…5,
// its n, errors and error) and one row without severity (n and errors
// summed, error = the mean over the severities, ce, relative_ce), and an
// "mce" row (kind mean: error = the mean error over the benchmark, ce =
// mCE, relative_ce = relative mCE). Undefined numbers are empty cells.
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(CSVColumns)
	f := func(v *float64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatFloat(*v, 'g', -1, 64)
	}
	for _, m := range r.Models {
		cw.Write([]string{m.Model, "clean", "clean", "", strconv.Itoa(m.CleanN), strconv.Itoa(m.CleanErrors), f(m.CleanError), "", ""})
		for _, c := range m.Corruptions {
			n, e := 0, 0
			for _, s := range c.Severities {
				n, e = n+s.N, e+s.Errors
				cw.Write([]string{m.Model, c.Corruption, c.Kind, strconv.Itoa(s.Severity), strconv.Itoa(s.N), strconv.Itoa(s.Errors), f(&s.Error), "", ""})
			}
			cw.Write([]string{m.Model, c.Corruption, c.Kind, "", strconv.Itoa(n), strconv.Itoa(e), f(c.MeanError), f(c.CE), f(c.RelativeCE)})
		}
		cw.Write([]string{m.Model, "mce", "mean", "", "", "", f(m.MeanError), f(m.MCE), f(m.RelativeMCE)})
	}
	cw.Flush()
	return cw.Error()
}
