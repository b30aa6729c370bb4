package human

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/vcr-bench/vcr/iqa"
	"github.com/vcr-bench/vcr/robustness"
)

// VIF flavours of the published human data.
const (
	// VIFVec is the MATLAB vifvec flavour (the steerable-pyramid VIF of
	// Sheikh & Bovik), with which the ICSE 2022 ImageNet stimuli were labelled.
	VIFVec = "vifvec"
	// VIFVec2Layers is the unpublished 2-level variant of vifvec with which
	// the ICSE 2022 CIFAR-10 stimuli (32×32, too small for the full pyramid)
	// were labelled; iqa.VIFVec2Layers computes it (an assumption that the
	// unpublished code cannot confirm; docs/vif.md). Its Δv values are not
	// comparable with VIFVec's on images larger than 32 pixels.
	VIFVec2Layers = string(iqa.VIFVec2Layers)
)

// TaskCar is the task of the ICSE 2022 data, ImageNet and CIFAR-10 alike:
// car / not car (the name 'vcr eval' records for that task).
const TaskCar = "car"

// Subject is the Series.Subject of human data.
const Subject = "human"

// ErrFormat: a malformed human data file.
var ErrFormat = errors.New("human: malformed data")

// Dataset is human data for one or more corruptions.
type Dataset struct {
	Name string
	// Task names the recognition task the humans performed, in the task
	// vocabulary of vcr eval's results (TaskCar for all ICSE 2022 data;
	// "" when the data do not say).
	Task      string
	VIFMethod string // common flavour of all series ("" if they differ)
	// Series holds one human series per corruption (Subject "human",
	// Human true), in order of first appearance.
	Series []robustness.Series
	// Source says where the data come from.
	Source string
}

// Lookup returns the series for a corruption, or an error naming the
// corruptions the dataset has.
func (d *Dataset) Lookup(corruption string) (*robustness.Series, error) {
	var have []string
	for i := range d.Series {
		if d.Series[i].Corruption == corruption {
			return &d.Series[i], nil
		}
		have = append(have, d.Series[i].Corruption)
	}
	return nil, fmt.Errorf("human data %s has no corruption %q (it has %s)", d.Name, corruption, strings.Join(have, ", "))
}

// ICSENames maps the ICSE 2022 transformation names to the corruption
// catalogue's names.
var ICSENames = map[string]string{
	"RGB":              "rgb_shift",
	"Color_jitter":     "color_jitter",
	"brightness":       "brightness",
	"contrast":         "contrast",
	"defocus_blur":     "defocus_blur",
	"frost":            "frost",
	"gaussian_noise":   "gaussian_noise",
	"jpeg_compression": "jpeg_compression",
}

func catalogueName(icse string) string {
	if n, ok := ICSENames[icse]; ok {
		return n
	}
	return icse
}

// header maps column names to indices and checks the required ones.
func header(rec []string, required ...string) (map[string]int, error) {
	col := map[string]int{}
	for i, h := range rec {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	for _, r := range required {
		if _, ok := col[r]; !ok {
			return nil, fmt.Errorf("%w: missing column %q (header %q)", ErrFormat, r, strings.Join(rec, ","))
		}
	}
	return col, nil
}

// majority returns the most frequent label, ties going to the label seen
// first (the ICSE script's rule).
func majority(labels []string) string {
	best, bestN := "", 0
	for i, l := range labels {
		if slices.Index(labels, l) != i {
			continue
		}
		n := 0
		for _, m := range labels {
			if m == l {
				n++
			}
		}
		if n > bestN {
			best, bestN = l, n
		}
	}
	return best
}

// pairing turns judgements into trials: correct against the ground truth,
// consistent against the majority answer given to the original of the same
// source image by anyone (ICSE 2022's reference), unpaired when nobody
// judged the original. It also returns the clean accuracy over all original
// judgements and the clean consistency, each original judged against the
// majority of the *other* judgements of the same original (leave-one-out,
// so that a judgement never votes for itself); originals judged once are
// left out of the consistency.
type judgement struct {
	corruption, id, truth, answer string
	dv                            float64
	original                      bool
}

func pair(js []judgement, name, vif string, vifOf map[string]string) (*Dataset, error) {
	orig := map[string][]string{}
	correct, n := 0, 0
	for _, j := range js {
		if j.original {
			orig[j.id] = append(orig[j.id], j.answer)
			n++
			if j.answer == j.truth {
				correct++
			}
		}
	}
	// Leave-one-out clean consistency.
	agree, paired := 0, 0
	seen := map[string]int{}
	for _, j := range js {
		if !j.original {
			continue
		}
		all := orig[j.id]
		k := seen[j.id]
		seen[j.id]++
		if len(all) < 2 {
			continue
		}
		others := slices.Concat(all[:k], all[k+1:])
		paired++
		if j.answer == majority(others) {
			agree++
		}
	}
	ref := map[string]string{}
	for id, l := range orig {
		ref[id] = majority(l)
	}
	d := &Dataset{Name: name, VIFMethod: vif}
	idx := map[string]int{}
	for _, j := range js {
		if j.original {
			continue
		}
		i, ok := idx[j.corruption]
		if !ok {
			i = len(d.Series)
			idx[j.corruption] = i
			v := vif
			if vifOf != nil {
				v = vifOf[j.corruption]
			}
			d.Series = append(d.Series, robustness.Series{Subject: Subject, Corruption: j.corruption, VIFMethod: v, Human: true,
				CleanAccuracy: math.NaN(), CleanConsistency: math.NaN(), CleanN: n})
		}
		t := robustness.Trial{DV: j.dv, Correct: j.answer == j.truth}
		if r, ok := ref[j.id]; ok {
			t.Consistent = j.answer == r
		} else {
			t.Unpaired = true
		}
		d.Series[i].Trials = append(d.Series[i].Trials, t)
	}
	for i := range d.Series {
		if n > 0 {
			d.Series[i].CleanAccuracy = float64(correct) / float64(n)
		}
		if paired > 0 {
			d.Series[i].CleanConsistency = float64(agree) / float64(paired)
		}
		if d.Series[i].VIFMethod != vif {
			d.VIFMethod = ""
		}
	}
	if len(d.Series) == 0 {
		return nil, fmt.Errorf("%w: %s has no judgements of corrupted images", ErrFormat, name)
	}
	return d, nil
}

// ReadICSETrials reads the ICSE 2022 per-trial CSV (columns image_link,
// transformation, ground_truth, human_label, IQA; IQA is VIF, Δv = 1 − IQA,
// clamped at 0; transformation "original" marks judgements of originals).
// The pairing identifier is the link's base name without extension
// (batch_<b>_<n> for CIFAR-10) or, for ImageNet links, the first
// n<digits>_<digits>. vif names the flavour (VIFVec2Layers for CIFAR-10).
// Clean accuracy is pooled over all originals (10,046/10,386 = 0.96726 for
// the published CIFAR-10 file, the study's 0.967).
func ReadICSETrials(r io.Reader, name, vif string) (*Dataset, error) {
	cr := csv.NewReader(r)
	rec, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", name, err)
	}
	col, err := header(rec, "image_link", "transformation", "ground_truth", "human_label", "IQA")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	cr.FieldsPerRecord = -1 // checkRow names the line
	nCols := len(rec)
	var js []judgement
	rows := newRows(cr, name, nCols)
	for rows.next() {
		rec, line := rows.rec, rows.line
		iqa, err := strconv.ParseFloat(rec[col["IQA"]], 64)
		if err != nil || math.IsNaN(iqa) {
			return nil, fmt.Errorf("%w: %s line %d: IQA %q is not a number", ErrFormat, name, line, rec[col["IQA"]])
		}
		tr := rec[col["transformation"]]
		js = append(js, judgement{
			corruption: catalogueName(tr),
			id:         icseID(rec[col["image_link"]]),
			truth:      rec[col["ground_truth"]],
			answer:     rec[col["human_label"]],
			dv:         math.Max(0, 1-iqa),
			original:   tr == "original",
		})
	}
	if rows.err != nil {
		return nil, rows.err
	}
	d, err := pair(js, name, vif, nil)
	if err != nil {
		return nil, err
	}
	d.Task = TaskCar
	return d, nil
}

// icseID extracts the source-image identifier from a stimulus link.
func icseID(link string) string {
	base := link[strings.LastIndexByte(link, '/')+1:]
	// ImageNet: the first n<digits>_<digits>.
	for i := 0; i < len(base); i++ {
		if base[i] != 'n' {
			continue
		}
		j := i + 1
		for j < len(base) && base[j] >= '0' && base[j] <= '9' {
			j++
		}
		if j == i+1 || j >= len(base) || base[j] != '_' {
			continue
		}
		k := j + 1
		for k < len(base) && base[k] >= '0' && base[k] <= '9' {
			k++
		}
		if k > j+1 {
			return base[i:k]
		}
	}
	if dot := strings.IndexByte(base, '.'); dot >= 0 {
		base = base[:dot]
	}
	return base
}

// ReadICSEBins reads one ICSE 2022 per-bin CSV (IQA,Accuracy,Count,Num_Accs
// or IQA,Preserved,Count,Num_Pre). IQA there is Δv, the upper edge of a
// 0.01-wide bin (i − 0.01, i]; the returned X is the bin centre i − 0.005,
// clamped to [0, 1].
func ReadICSEBins(r io.Reader, name string) (robustness.Counts, error) {
	var c robustness.Counts
	cr := csv.NewReader(r)
	rec, err := cr.Read()
	if err != nil {
		return c, fmt.Errorf("%s: header: %w", name, err)
	}
	col, err := header(rec, "IQA", "Count")
	if err != nil {
		return c, fmt.Errorf("%s: %w", name, err)
	}
	cr.FieldsPerRecord = -1 // checkRow names the line
	nCols := len(rec)
	kcol := "Num_Accs"
	if _, ok := col[kcol]; !ok {
		kcol = "Num_Pre"
	}
	if _, ok := col[kcol]; !ok {
		return c, fmt.Errorf("%w: %s has neither Num_Accs nor Num_Pre", ErrFormat, name)
	}
	rows := newRows(cr, name, nCols)
	for rows.next() {
		rec, line := rows.rec, rows.line
		x, err1 := strconv.ParseFloat(rec[col["IQA"]], 64)
		n, err2 := strconv.Atoi(rec[col["Count"]])
		k, err3 := strconv.Atoi(rec[col[kcol]])
		if err := errors.Join(err1, err2, err3); err != nil || !(x >= 0 && x <= 1.0000001) || n < 0 || k < 0 || k > n {
			return c, fmt.Errorf("%w: %s line %d: %q", ErrFormat, name, line, strings.Join(rec, ","))
		}
		c.X = append(c.X, math.Min(1, math.Max(0, x-0.005)))
		c.N = append(c.N, n)
		c.K = append(c.K, k)
	}
	if rows.err != nil {
		return c, rows.err
	}
	return c, nil
}
