package report

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/vcr-bench/vcr/consistency"
	"github.com/vcr-bench/vcr/imagenetc"
	"github.com/vcr-bench/vcr/internal/version"
	"github.com/vcr-bench/vcr/results"
	"github.com/vcr-bench/vcr/robustness"
)

// Version is the vcr version that wrote a file. When decoding, it also
// accepts the format number that summary.json files before format 2 held
// in their "version" field (as "format N").
type Version string

// UnmarshalJSON decodes a string, or an older file's number.
func (v *Version) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*v = Version(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("version: want a string, got %s", b)
	}
	*v = Version("format " + n.String())
	return nil
}

// Analysis is everything 'vcr analyze' computed: the models' and humans'
// estimates, the comparisons and the similarity classes, with the settings
// that produced them.
type Analysis struct {
	// Results are the results files read; Human names the human data
	// (a file or a built-in dataset), empty without humans.
	Results []string
	Human   string
	// VIFMethod is the flavour of the models' Δv axis; HumanVIFMethod the
	// humans'.
	VIFMethod, HumanVIFMethod string
	// ResultsVIFMethod is the flavour of the results' dv column; DVMethod,
	// when not empty, the flavour whose dv_<flavour> column gave the models'
	// Δv instead (to share the human data's axis).
	ResultsVIFMethod, DVMethod string
	// Tasks maps models to the task their results record; HumanTask is the
	// human data's task ("" when unknown).
	Tasks     map[string]results.Task
	HumanTask string
	// VIFMismatch, when not empty, is the warning recorded because model and
	// human Δv come from different VIF flavours and the comparison was
	// allowed anyway.
	VIFMismatch string
	// Settings.
	Bins, MinPerBin, Bootstrap int
	Seed                       uint64
	Lambda                     *float64
	// Models are the model estimates, sorted by model then corruption;
	// Comparisons[i] compares Models[i] with humans (nil without humans).
	Models      []*robustness.Estimate
	Comparisons []*robustness.Comparison
	// Humans are the human estimates, sorted by corruption.
	Humans []*robustness.Estimate
	// SimilarAccuracy and SimilarConsistency are the humans' visually
	// similar corruptions (nil with fewer than two human corruptions or
	// without bootstrap).
	SimilarAccuracy, SimilarConsistency *robustness.SimilarityTable
	// Warnings are caveats (skipped rows, sparse bins, …).
	Warnings []string
	// ImageNetC holds the ImageNet-C metrics (CE, mCE, per-severity errors)
	// of the models whose results have severities; nil without.
	ImageNetC *imagenetc.Report
	// Families maps model names to model families (e.g. "cnn", "vit"):
	// plots colour a family alike. Models without one get their own colour.
	Families map[string]string
	// ErrorConsistency is the trial-by-trial comparison of models and
	// human participants (nil unless the human data are trials of
	// identified participants, as 'vcr experiment export' writes them).
	ErrorConsistency *consistency.Result
}

// SummaryTool is the "tool" field of summary.json, by which 'vcr report'
// recognises the file.
const SummaryTool = "vcr analyze"

// SummaryFormat is the format version of summary.json.
const SummaryFormat = 2

// Summary is the machine-readable summary (summary.json).
type Summary struct {
	// Tool is SummaryTool; Version the vcr version that wrote the file
	// (internal/version); Format the file format's version (files before
	// format 2 held it in "version" and had no tool).
	Tool    string   `json:"tool"`
	Version Version  `json:"version"`
	Format  int      `json:"format"`
	Results []string `json:"results"`
	Human   string   `json:"human,omitempty"`
	// VIFMethod is the flavour of the models' Δv axis; ResultsVIFMethod the
	// flavour of the results' dv column, and DVMethod the flavour whose
	// dv_<flavour> column was used instead (absent when dv was used).
	VIFMethod        string `json:"vif_method"`
	ResultsVIFMethod string `json:"results_vif_method,omitempty"`
	DVMethod         string `json:"dv_method,omitempty"`
	HumanVIFMethod   string `json:"human_vif_method,omitempty"`
	// Task is the models' task when they share one (else empty, and each
	// model states its own); HumanTask the human data's.
	Task               *results.Task      `json:"task,omitempty"`
	HumanTask          string             `json:"human_task,omitempty"`
	VIFMismatch        string             `json:"vif_mismatch_warning,omitempty"`
	Bins               int                `json:"bins"`
	MinPerBin          int                `json:"min_per_bin"`
	Bootstrap          int                `json:"bootstrap"`
	Seed               uint64             `json:"seed"`
	Lambda             *float64           `json:"lambda"` // null: chosen by GCV
	Families           map[string]string  `json:"families,omitempty"`
	Models             []ModelSummary     `json:"models"`
	Humans             []SubjectSummary   `json:"humans,omitempty"`
	SimilarAccuracy    *SimilaritySummary `json:"similar_accuracy,omitempty"`
	SimilarConsistency *SimilaritySummary `json:"similar_consistency,omitempty"`
	// ImageNetC is the ImageNet-C section (mce, relative_mce, per-corruption
	// ce and per-severity errors per model), present when the results have
	// severities.
	ImageNetC *imagenetc.Report `json:"imagenet_c,omitempty"`
	Warnings  []string          `json:"warnings,omitempty"`
	// ErrorConsistency summarises error_consistency.csv.
	ErrorConsistency *ErrorConsistencySummary `json:"error_consistency,omitempty"`
}

// ErrorConsistencySummary is the summary.json section of the error
// consistency (Geirhos, Meding & Wichmann, 2020) between observers: the
// settings, the number of observers and pairs, the human ceiling (mean
// kappa over pairs of participants) and each model's mean kappa over the
// participants, per corruption and Δv bin ("all" or "lo-hi").
type ErrorConsistencySummary struct {
	File       string             `json:"file"`
	Bins       int                `json:"dv_bins"`
	Bootstrap  int                `json:"bootstrap"`
	Level      float64            `json:"level"`
	Seed       uint64             `json:"seed"`
	Humans     int                `json:"humans"`
	Models     int                `json:"models"`
	Rows       int                `json:"rows"`
	Ceiling    []consistency.Mean `json:"human_ceiling"`
	ModelHuman []consistency.Mean `json:"model_human"`
}

// ErrorConsistencyFile is the file WriteErrorConsistencyCSV fills in the
// report folder.
const ErrorConsistencyFile = "error_consistency.csv"

// WriteErrorConsistencyCSV writes a.ErrorConsistency as CSV
// (consistency.CSVColumns); it must not be nil.
func (a *Analysis) WriteErrorConsistencyCSV(w io.Writer) error { return a.ErrorConsistency.WriteCSV(w) }

func errorConsistencySummary(r *consistency.Result) *ErrorConsistencySummary {
	if r == nil {
		return nil
	}
	s := &ErrorConsistencySummary{File: ErrorConsistencyFile, Bins: r.Options.Bins, Bootstrap: r.Options.Bootstrap,
		Level: r.Options.Level, Seed: r.Options.Seed, Humans: r.Humans, Models: r.Models, Rows: len(r.Rows),
		Ceiling: r.Ceiling, ModelHuman: r.ModelHuman}
	if s.Ceiling == nil {
		s.Ceiling = []consistency.Mean{}
	}
	if s.ModelHuman == nil {
		s.ModelHuman = []consistency.Mean{}
	}
	return s
}

// SubjectSummary is one estimate (a model or humans on one corruption).
// Intervals are [lo, hi] percentile bootstrap intervals, absent without
// bootstrap; numbers that are undefined are null.
type SubjectSummary struct {
	Subject    string `json:"subject"`
	Corruption string `json:"corruption"`
	VIFMethod  string `json:"vif_method"`
	N          int    `json:"n"`
	Seed       uint64 `json:"seed"`
	// CleanAccuracy and CleanConsistency are the curves' anchors at Δv = 0.
	// They are null for unanchored curves.
	CleanAccuracy    *float64 `json:"clean_accuracy"`
	CleanConsistency *float64 `json:"clean_consistency"`
	// MeanAccuracy and MeanConsistency are plain averages over all trials
	// (what ImageNet-C reports), beside R̂ to expose coverage bias.
	MeanAccuracy    *float64    `json:"mean_accuracy"`
	MeanConsistency *float64    `json:"mean_consistency"`
	Ra              float64     `json:"ra"`
	RaCI83          *[2]float64 `json:"ra_ci83,omitempty"`
	RaCI95          *[2]float64 `json:"ra_ci95,omitempty"`
	Rp              float64     `json:"rp"`
	RpCI83          *[2]float64 `json:"rp_ci83,omitempty"`
	RpCI95          *[2]float64 `json:"rp_ci95,omitempty"`
	// CoveredA and CoveredP are the Δv ranges the data support (the used
	// bins' centres, from Δv = 0 for anchored curves); DVCovered is their
	// intersection, where both curves behind R̂a and R̂p rest on data.
	// Beyond it the curves are extrapolated.
	CoveredA  [2]float64 `json:"covered_a"`
	CoveredP  [2]float64 `json:"covered_p"`
	DVCovered [2]float64 `json:"dv_covered"`
	Warnings  []string   `json:"warnings,omitempty"`
}

// ModelSummary is a model's estimate on one corruption and, with human
// data, its human-aware metrics (suffix _a: accuracy, _p: consistency).
type ModelSummary struct {
	Model string `json:"model"`
	// Task is the task the model's results record.
	Task *results.Task `json:"task,omitempty"`
	SubjectSummary
	HumanCorruption string `json:"human_corruption,omitempty"`
	// HumanDVCovered is the Δv range where both the model's and the humans'
	// curves rest on data (the intersection of both DVCovered): HMRI and
	// MRSI compare data with data there and extrapolations beyond.
	HumanDVCovered *[2]float64 `json:"human_dv_covered,omitempty"`
	HMRIa          *float64    `json:"hmri_a,omitempty"`
	HMRIaCI83      *[2]float64 `json:"hmri_a_ci83,omitempty"`
	HMRIaCI95      *[2]float64 `json:"hmri_a_ci95,omitempty"`
	MRSIa          *float64    `json:"mrsi_a,omitempty"`
	MRSIaCI83      *[2]float64 `json:"mrsi_a_ci83,omitempty"`
	MRSIaCI95      *[2]float64 `json:"mrsi_a_ci95,omitempty"`
	HMRIp          *float64    `json:"hmri_p,omitempty"`
	HMRIpCI83      *[2]float64 `json:"hmri_p_ci83,omitempty"`
	HMRIpCI95      *[2]float64 `json:"hmri_p_ci95,omitempty"`
	MRSIp          *float64    `json:"mrsi_p,omitempty"`
	MRSIpCI83      *[2]float64 `json:"mrsi_p_ci83,omitempty"`
	MRSIpCI95      *[2]float64 `json:"mrsi_p_ci95,omitempty"`
	// AreasA and AreasP are A(h), A(m), A(h>m), A(m>h).
	AreasA *Areas `json:"areas_a,omitempty"`
	AreasP *Areas `json:"areas_p,omitempty"`
}

// Areas are the areas behind HMRI and MRSI.
type Areas struct {
	AH  float64 `json:"a_h"`
	AM  float64 `json:"a_m"`
	AHM float64 `json:"a_h_gt_m"`
	AMH float64 `json:"a_m_gt_h"`
}

// SimilaritySummary lists the visually similar corruptions for humans.
type SimilaritySummary struct {
	Corruptions []string     `json:"corruptions"`
	Similar     [][]bool     `json:"similar"`
	Gap         [][]*float64 `json:"gap"`
	Classes     [][]string   `json:"classes"`
	Components  [][]string   `json:"components"`
}

func num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func ci(lo, hi float64) *[2]float64 {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return nil
	}
	return &[2]float64{lo, hi}
}

func errStrings(errs []error) []string {
	var s []string
	for _, e := range errs {
		s = append(s, e.Error())
	}
	return s
}

func subjectSummary(e *robustness.Estimate) SubjectSummary {
	return SubjectSummary{
		Subject: e.Subject, Corruption: e.Corruption, VIFMethod: e.VIFMethod, N: e.N, Seed: e.Seed,
		CleanAccuracy: num(e.Accuracy.Anchor), CleanConsistency: num(e.Consistency.Anchor),
		MeanAccuracy: num(e.MeanAccuracy), MeanConsistency: num(e.MeanConsistency),
		Ra: e.Ra.Value, RaCI83: ci(e.Ra.Lo83, e.Ra.Hi83), RaCI95: ci(e.Ra.Lo95, e.Ra.Hi95),
		Rp: e.Rp.Value, RpCI83: ci(e.Rp.Lo83, e.Rp.Hi83), RpCI95: ci(e.Rp.Lo95, e.Rp.Hi95),
		CoveredA: e.Accuracy.Covered, CoveredP: e.Consistency.Covered, DVCovered: DVCovered(e),
		Warnings: errStrings(e.Warnings),
	}
}

// DVCovered returns the Δv range where both curves of e rest on data: the
// intersection of e.Accuracy.Covered and e.Consistency.Covered.
func DVCovered(e *robustness.Estimate) [2]float64 {
	return [2]float64{math.Max(e.Accuracy.Covered[0], e.Consistency.Covered[0]), math.Min(e.Accuracy.Covered[1], e.Consistency.Covered[1])}
}

func similaritySummary(t *robustness.SimilarityTable) *SimilaritySummary {
	if t == nil {
		return nil
	}
	s := &SimilaritySummary{Corruptions: t.Corruptions, Similar: t.Similar, Classes: t.Classes, Components: t.Components}
	for _, row := range t.Gap {
		r := make([]*float64, len(row))
		for j, g := range row {
			r[j] = num(g)
		}
		s.Gap = append(s.Gap, r)
	}
	return s
}

// Summary returns the machine-readable summary of a.
func (a *Analysis) Summary() Summary {
	s := Summary{
		Tool: SummaryTool, Version: Version(version.String()), Format: SummaryFormat,
		Results: a.Results, Human: a.Human, VIFMethod: a.VIFMethod, HumanVIFMethod: a.HumanVIFMethod,
		ResultsVIFMethod: a.ResultsVIFMethod, DVMethod: a.DVMethod, HumanTask: a.HumanTask,
		VIFMismatch: a.VIFMismatch, Bins: a.Bins, MinPerBin: a.MinPerBin, Bootstrap: a.Bootstrap, Seed: a.Seed,
		Lambda: a.Lambda, Families: a.Families, Models: []ModelSummary{}, Warnings: a.Warnings, ImageNetC: a.ImageNetC,
		SimilarAccuracy: similaritySummary(a.SimilarAccuracy), SimilarConsistency: similaritySummary(a.SimilarConsistency),
		ErrorConsistency: errorConsistencySummary(a.ErrorConsistency),
	}
	var tasks []results.Task
	for _, e := range a.Models {
		if t, ok := a.Tasks[e.Subject]; ok && !slices.ContainsFunc(tasks, func(x results.Task) bool { return x.Name == t.Name }) {
			tasks = append(tasks, t)
		}
	}
	if len(tasks) == 1 {
		s.Task = &tasks[0]
	}
	for i, e := range a.Models {
		m := ModelSummary{Model: e.Subject, SubjectSummary: subjectSummary(e)}
		if t, ok := a.Tasks[e.Subject]; ok {
			m.Task = &t
		}
		if i < len(a.Comparisons) && a.Comparisons[i] != nil {
			c := a.Comparisons[i]
			m.HumanCorruption = c.HumanCorruption
			for _, h := range a.Humans {
				if h.Corruption == c.HumanCorruption {
					mc, hc := DVCovered(e), DVCovered(h)
					m.HumanDVCovered = &[2]float64{math.Max(mc[0], hc[0]), math.Min(mc[1], hc[1])}
				}
			}
			set := func(iv robustness.Interval, v **float64, c83, c95 **[2]float64) {
				*v, *c83, *c95 = num(iv.Value), ci(iv.Lo83, iv.Hi83), ci(iv.Lo95, iv.Hi95)
			}
			set(c.Accuracy.HMRI, &m.HMRIa, &m.HMRIaCI83, &m.HMRIaCI95)
			set(c.Accuracy.MRSI, &m.MRSIa, &m.MRSIaCI83, &m.MRSIaCI95)
			set(c.Consistency.HMRI, &m.HMRIp, &m.HMRIpCI83, &m.HMRIpCI95)
			set(c.Consistency.MRSI, &m.MRSIp, &m.MRSIpCI83, &m.MRSIpCI95)
			ar := func(x robustness.Metrics) *Areas {
				return &Areas{AH: x.AH.Value, AM: x.AM.Value, AHM: x.AHM.Value, AMH: x.AMH.Value}
			}
			m.AreasA, m.AreasP = ar(c.Accuracy), ar(c.Consistency)
			m.Warnings = append(m.Warnings, errStrings(c.Warnings)...)
		}
		s.Models = append(s.Models, m)
	}
	for _, h := range a.Humans {
		s.Humans = append(s.Humans, subjectSummary(h))
	}
	return s
}

// WriteJSON writes a's summary as indented JSON.
func (a *Analysis) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(a.Summary())
}

// SummaryColumns are the columns of WriteSummaryCSV; empty cells are
// undefined (no bootstrap, no humans).
var SummaryColumns = []string{
	"subject", "human", "corruption", "vif_method", "n", "clean_accuracy", "mean_accuracy", "mean_consistency",
	"ra", "ra_lo83", "ra_hi83", "ra_lo95", "ra_hi95",
	"rp", "rp_lo83", "rp_hi83", "rp_lo95", "rp_hi95",
	"human_corruption",
	"hmri_a", "hmri_a_lo83", "hmri_a_hi83", "hmri_a_lo95", "hmri_a_hi95",
	"mrsi_a", "mrsi_a_lo83", "mrsi_a_hi83", "mrsi_a_lo95", "mrsi_a_hi95",
	"hmri_p", "hmri_p_lo83", "hmri_p_hi83", "hmri_p_lo95", "hmri_p_hi95",
	"mrsi_p", "mrsi_p_lo83", "mrsi_p_hi83", "mrsi_p_lo95", "mrsi_p_hi95",
	"dv_covered_lo", "dv_covered_hi",
}

func fcell(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', 10, 64)
}

func ivCells(iv robustness.Interval) []string {
	return []string{fcell(iv.Value), fcell(iv.Lo83), fcell(iv.Hi83), fcell(iv.Lo95), fcell(iv.Hi95)}
}

// WriteSummaryCSV writes one row per model and corruption, then one per
// human corruption.
func (a *Analysis) WriteSummaryCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(SummaryColumns)
	row := func(e *robustness.Estimate, c *robustness.Comparison) {
		r := []string{e.Subject, strconv.FormatBool(e.Human), e.Corruption, e.VIFMethod, strconv.Itoa(e.N),
			fcell(e.Accuracy.Anchor), fcell(e.MeanAccuracy), fcell(e.MeanConsistency)}
		r = append(r, ivCells(e.Ra)...)
		r = append(r, ivCells(e.Rp)...)
		if c != nil {
			r = append(r, c.HumanCorruption)
			for _, iv := range []robustness.Interval{c.Accuracy.HMRI, c.Accuracy.MRSI, c.Consistency.HMRI, c.Consistency.MRSI} {
				r = append(r, ivCells(iv)...)
			}
		} else {
			r = append(r, make([]string, 21)...)
		}
		cov := DVCovered(e)
		r = append(r, fcell(cov[0]), fcell(cov[1]))
		cw.Write(r)
	}
	for i, e := range a.Models {
		var c *robustness.Comparison
		if i < len(a.Comparisons) {
			c = a.Comparisons[i]
		}
		row(e, c)
	}
	for _, h := range a.Humans {
		row(h, nil)
	}
	cw.Flush()
	return cw.Error()
}

// CurveColumns are the columns of WriteCurvesCSV.
var CurveColumns = []string{"subject", "human", "corruption", "property", "dv", "value", "lo83", "hi83", "lo95", "hi95", "covered"}

// WriteCurvesCSV writes every fitted curve on its grid with its bands
// (empty without bootstrap); covered is 1 where the data support the curve.
func (a *Analysis) WriteCurvesCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(CurveColumns)
	for _, e := range slices.Concat(a.Models, a.Humans) {
		for _, p := range []struct {
			name string
			c    *robustness.Curve
		}{{"accuracy", &e.Accuracy}, {"consistency", &e.Consistency}} {
			c := p.c
			band := func(b []float64, i int) string {
				if b == nil {
					return ""
				}
				return fcell(b[i])
			}
			for i, x := range c.Grid {
				cov := "0"
				if x >= c.Covered[0]-1e-12 && x <= c.Covered[1]+1e-12 {
					cov = "1"
				}
				cw.Write([]string{e.Subject, strconv.FormatBool(e.Human), e.Corruption, p.name, fcell(x), fcell(c.Value[i]),
					band(c.Lo83, i), band(c.Hi83, i), band(c.Lo95, i), band(c.Hi95, i), cov})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// BinColumns are the columns of WriteBinsCSV.
var BinColumns = []string{"subject", "human", "corruption", "property", "dv", "n", "k", "rate", "used"}

// WriteBinsCSV writes the per-bin data behind every curve: bin position,
// trials n, successes k, k/n and whether the bin entered the fit.
func (a *Analysis) WriteBinsCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(BinColumns)
	for _, e := range slices.Concat(a.Models, a.Humans) {
		for _, p := range []struct {
			name string
			c    *robustness.Curve
		}{{"accuracy", &e.Accuracy}, {"consistency", &e.Consistency}} {
			b := p.c.Bins
			for i, x := range b.X {
				rate := ""
				if b.N[i] > 0 {
					rate = fcell(float64(b.K[i]) / float64(b.N[i]))
				}
				used := "0"
				if i < len(p.c.Used) && p.c.Used[i] {
					used = "1"
				}
				cw.Write([]string{e.Subject, strconv.FormatBool(e.Human), e.Corruption, p.name, fcell(x),
					strconv.Itoa(b.N[i]), strconv.Itoa(b.K[i]), rate, used})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteTable writes a plain-text table for the terminal: per model and
// corruption the trials, plain mean accuracy, R̂a and R̂p with 95%
// intervals, the Δv range covered by data (DVCovered) and, with humans,
// HMRI and MRSI; then the human rows and the
// similarity classes.
func (a *Analysis) WriteTable(w io.Writer) error {
	withHuman := len(a.Humans) > 0
	ci := ""
	if a.Bootstrap > 0 {
		ci = " [95%]"
	}
	head := []string{"model", "corruption", "n", "mean acc", "R̂a" + ci, "R̂p" + ci, "Δv covered"}
	if withHuman {
		head = append(head, "HMRI_a"+ci, "MRSI_a"+ci, "HMRI_p"+ci, "MRSI_p"+ci)
	}
	iv := func(x robustness.Interval) string {
		if math.IsNaN(x.Value) {
			return "–"
		}
		if math.IsNaN(x.Lo95) {
			return fmt.Sprintf("%.3f", x.Value)
		}
		return fmt.Sprintf("%.3f [%.3f, %.3f]", x.Value, x.Lo95, x.Hi95)
	}
	f3 := func(v float64) string {
		if math.IsNaN(v) {
			return "–"
		}
		return fmt.Sprintf("%.3f", v)
	}
	cov := func(e *robustness.Estimate) string {
		c := DVCovered(e)
		if c[0] > c[1] {
			return "none"
		}
		return fmt.Sprintf("%.2f–%.2f", c[0], c[1])
	}
	var rows [][]string
	for i, e := range a.Models {
		r := []string{e.Subject, e.Corruption, strconv.Itoa(e.N), f3(e.MeanAccuracy), iv(e.Ra), iv(e.Rp), cov(e)}
		if withHuman {
			if i < len(a.Comparisons) && a.Comparisons[i] != nil {
				c := a.Comparisons[i]
				r = append(r, iv(c.Accuracy.HMRI), iv(c.Accuracy.MRSI), iv(c.Consistency.HMRI), iv(c.Consistency.MRSI))
			} else {
				r = append(r, "–", "–", "–", "–")
			}
		}
		rows = append(rows, r)
	}
	for _, h := range a.Humans {
		r := []string{"humans", h.Corruption, strconv.Itoa(h.N), f3(h.MeanAccuracy), iv(h.Ra), iv(h.Rp), cov(h)}
		if withHuman {
			r = append(r, "", "", "", "")
		}
		rows = append(rows, r)
	}
	width := make([]int, len(head))
	for _, r := range append([][]string{head}, rows...) {
		for j, c := range r {
			width[j] = max(width[j], len([]rune(c)))
		}
	}
	var b strings.Builder
	line := func(r []string) {
		var l strings.Builder
		for j, c := range r {
			if j > 0 {
				l.WriteString("  ")
			}
			pad := width[j] - len([]rune(c))
			if j >= 2 {
				l.WriteString(strings.Repeat(" ", pad) + c)
			} else {
				l.WriteString(c + strings.Repeat(" ", pad))
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
	line(head)
	for _, r := range rows {
		line(r)
	}
	by := a.VIFMethod
	if a.DVMethod != "" {
		by += " (column " + iqaColumn(a.DVMethod) + ")"
	}
	fmt.Fprintf(&b, "(Δv by %s; %d bins, ≥ %d trials per bin; %d bootstrap replicates, seed %d; beyond Δv covered the curves are extrapolated)\n",
		by, a.Bins, a.MinPerBin, a.Bootstrap, a.Seed)
	if a.VIFMismatch != "" {
		fmt.Fprintf(&b, "WARNING: %s\n", a.VIFMismatch)
	}
	for _, s := range []struct {
		name string
		t    *robustness.SimilarityTable
	}{{"accuracy", a.SimilarAccuracy}, {"consistency", a.SimilarConsistency}} {
		if s.t == nil {
			continue
		}
		var cl []string
		for _, c := range s.t.Classes {
			cl = append(cl, "{"+strings.Join(c, ", ")+"}")
		}
		fmt.Fprintf(&b, "Visually similar for humans (%s, 83%% bands overlap): %s\n", s.name, strings.Join(cl, " "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func iqaColumn(m string) string { return "dv_" + strings.ReplaceAll(m, "-", "_") }

// Corruptions returns the corruptions of the models and humans, sorted.
func (a *Analysis) Corruptions() []string {
	var c []string
	for _, e := range slices.Concat(a.Models, a.Humans) {
		if !slices.Contains(c, e.Corruption) {
			c = append(c, e.Corruption)
		}
	}
	slices.SortFunc(c, cmp.Compare)
	return c
}
