package analysis

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/human"
	"github.com/vcr-bench/vcr/internal/suggest"
	"github.com/vcr-bench/vcr/task"
)

// imagenetClasses is the number of ImageNet-1k classes, the scores a
// predictions file needs for the 16-class decision.
const imagenetClasses = 1000

// ErrPredictions is wrapped by the errors of ReadMVHPredictions and
// MatchMVHPredictions: a predictions file that cannot be read or matched
// to the human data.
var ErrPredictions = errors.New("bad predictions")

// MVHPrediction is one row of a predictions file keyed by image name
// (ReadMVHPredictions): one model's answer to one model-vs-human stimulus.
type MVHPrediction struct {
	// Model is the row's model column, else the file's base name without
	// its extension.
	Model string
	// Image is the image name (or path) as the file gives it.
	Image string
	// Condition is the row's condition column; empty without one.
	Condition string
	// Answer is the prediction as one of the 16 categories
	// (dataset.ImageNet16Categories), or empty when the prediction is an
	// ImageNet class that belongs to none of them.
	Answer string
	// Raw is the prediction as written; for a row decided by its scores,
	// the category they decide.
	Raw string
	// Line is the row's line in the file.
	Line int
}

// Column names ReadMVHPredictions recognises (lower case), by role.
var (
	mvhImageColumns = []string{"imagename", "image", "path"}
	mvhPredColumns  = []string{"prediction", "pred", "class"}
	mvhTopColumns   = []string{"top5", "topk", "top_k"}
)

// IsMVHRawHeader reports whether a CSV header is that of a model-vs-human
// raw-data file (it has an object_response column) rather than of a
// predictions file keyed by image name.
func IsMVHRawHeader(head []string) bool {
	return slices.ContainsFunc(head, func(h string) bool {
		return strings.EqualFold(strings.TrimPrefix(strings.TrimSpace(h), "\ufeff"), "object_response")
	})
}

// ReadMVHPredictions reads a model's predictions on model-vs-human stimuli
// from a CSV file with a header row; name names the input in errors and,
// without a model column, the model. Column names are case-insensitive and
// other columns are ignored, so the predictions files 'vcr eval
// --predictions' reads work when they key rows by path:
//
//   - imagename (or image, path): the stimulus's image name; only its base
//     name counts (see MatchMVHPredictions);
//   - prediction (or pred, class): one of the 16 categories (case
//     ignored; "na", no answer, is wrong), an ImageNet WordNet ID (n02690373) or an ImageNet-1k class
//     index (0…999), the last two mapped to their category as package
//     task's imagenet16 mapping maps a hard prediction; without it, the
//     first entry of top5 (or topk, top_k);
//   - logit_0 … logit_999: the model's 1000 ImageNet-1k scores, as vcr eval
//     --logits writes them; when all 1000 are present they decide the
//     answer by model-vs-human's rule (task.ImageNet16Mapping: softmax, the
//     mean probability of each category's member classes, arg-max over the
//     16), before any prediction column; probabilities says the scores are
//     probabilities already (a model ending in a softmax), not logits;
//   - model: optional, the model's name, so that one file holds several
//     models (without it the file's base name is the model);
//   - condition: optional, the stimulus's condition;
//   - kind: optional; rows of kind "clean" (predictions on clean source
//     images in vcr eval's format) are skipped.
//
// An ImageNet class outside the 16 categories' 207 classes is an answer
// outside the task and counts as wrong. Errors wrap ErrPredictions and
// name the input, line and column; an unknown class name gets the nearest
// category.
func ReadMVHPredictions(r io.Reader, name string, probabilities bool) ([]MVHPrediction, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%w: %s is empty; want a header such as imagename,prediction", ErrPredictions, name)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrPredictions, name, err)
	}
	col := map[string]int{}
	nLogits := 0
	for i, h := range head {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		head[i] = h
		if strings.HasPrefix(h, "logit_") {
			nLogits++
		}
		if _, dup := col[h]; dup && h != "" {
			return nil, fmt.Errorf("%w: %s line 1: column %q appears twice", ErrPredictions, name, h)
		}
		col[h] = i
	}
	find := func(names []string) (int, error) {
		at, which := -1, ""
		for _, n := range names {
			if i, ok := col[n]; ok {
				if at >= 0 {
					return -1, fmt.Errorf("%w: %s line 1: columns %s and %s mean the same; keep one", ErrPredictions, name, which, n)
				}
				at, which = i, n
			}
		}
		return at, nil
	}
	imgCol, err := find(mvhImageColumns)
	if err != nil {
		return nil, err
	}
	predCol, err := find(mvhPredColumns)
	if err != nil {
		return nil, err
	}
	topCol, err := find(mvhTopColumns)
	if err != nil {
		return nil, err
	}
	opt := func(c string) int {
		if i, ok := col[c]; ok {
			return i
		}
		return -1
	}
	modelCol, condCol, kindCol := opt("model"), opt("condition"), opt("kind")
	// scoreCols[i] is the column of logit_i when the file has the 1000
	// ImageNet-1k scores.
	var scoreCols []int
	if nLogits > 0 {
		scoreCols = make([]int, imagenetClasses)
		for i := range scoreCols {
			c, ok := col["logit_"+strconv.Itoa(i)]
			if !ok {
				scoreCols = nil
				break
			}
			scoreCols[i] = c
		}
		if scoreCols == nil || nLogits != imagenetClasses {
			scoreCols = nil
			if predCol < 0 && topCol < 0 {
				return nil, fmt.Errorf("%w: %s line 1: %d logit_ columns; the 16-class decision needs the %d ImageNet-1k scores logit_0 … logit_%d (a model with another output is not an ImageNet-1k classifier: add a prediction column with its 16-class answer)", ErrPredictions, name, nLogits, imagenetClasses, imagenetClasses-1)
			}
		}
	}
	switch {
	case imgCol < 0:
		return nil, fmt.Errorf("%w: %s line 1: no image name column; want imagename (or image, path) and prediction, e.g. imagename,prediction", ErrPredictions, name)
	case predCol < 0 && topCol < 0 && scoreCols == nil:
		return nil, fmt.Errorf("%w: %s line 1: no prediction column; want prediction (or pred, class, top5)", ErrPredictions, name)
	}
	defModel := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	var (
		decide task.Mapping
		scores []float32
		cats   []string
	)
	if scoreCols != nil {
		decide = task.ImageNet16Mapping(probabilities)
		scores = make([]float32, imagenetClasses)
		cats = decide.Classes()
	}
	var out []MVHPrediction
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrPredictions, name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(head) {
			if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
				continue
			}
			return nil, fmt.Errorf("%w: %s line %d: %d fields, but the header has %d", ErrPredictions, name, line, len(rec), len(head))
		}
		get := func(c int) string {
			if c < 0 {
				return ""
			}
			return strings.TrimSpace(rec[c])
		}
		if strings.EqualFold(get(kindCol), "clean") {
			continue
		}
		p := MVHPrediction{Model: get(modelCol), Image: get(imgCol), Condition: get(condCol), Raw: get(predCol), Line: line}
		at := predCol
		if scoreCols != nil {
			for i, c := range scoreCols {
				v, err := strconv.ParseFloat(get(c), 32)
				if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("%w: %s line %d, column %d (%s): %q is not a finite number", ErrPredictions, name, line, c+1, head[c], get(c))
				}
				if probabilities && (v < 0 || v > 1) {
					return nil, fmt.Errorf("%w: %s line %d, column %d (%s): %v is no probability; without --probabilities the scores are read as logits", ErrPredictions, name, line, c+1, head[c], v)
				}
				scores[i] = float32(v)
			}
			k, _ := decide.Map(scores)
			p.Raw = cats[k]
		} else if p.Raw == "" && topCol >= 0 {
			if f := strings.FieldsFunc(get(topCol), func(r rune) bool { return r == ';' || r == ' ' || r == '|' }); len(f) > 0 {
				p.Raw = f[0]
			}
			at = topCol
		}
		if p.Model == "" {
			p.Model = defModel
		}
		if p.Image == "" {
			return nil, fmt.Errorf("%w: %s line %d, column %d (%s): empty image name", ErrPredictions, name, line, imgCol+1, head[imgCol])
		}
		if p.Raw == "" {
			return nil, fmt.Errorf("%w: %s line %d: no prediction", ErrPredictions, name, line)
		}
		if p.Answer, err = ImageNet16Answer(p.Raw); err != nil {
			return nil, fmt.Errorf("%w: %s line %d, column %d (%s): %v", ErrPredictions, name, line, at+1, head[at], err)
		}
		out = append(out, p)
	}
	return out, nil
}

// MVHNoAnswer is the answer model-vs-human's raw data records when a
// subject gave none; it never equals a category.
const MVHNoAnswer = "na"

// ImageNet16Answer maps a prediction to one of the 16 categories: a
// category name (case ignored) is itself, and so is MVHNoAnswer; an ImageNet WordNet ID or an
// ImageNet-1k class index (0…999) maps through task.ImageNet16Mapping
// (Geirhos et al., NeurIPS 2018), and to "" when the class belongs to
// none of the categories. Anything else is an error naming the nearest
// category.
func ImageNet16Answer(s string) (string, error) {
	cats := dataset.ImageNet16Categories()
	low := strings.ToLower(strings.TrimSpace(s))
	if slices.Contains(cats, low) || low == MVHNoAnswer {
		return low, nil
	}
	lab := imagenet16().(task.TaskLabeler)
	var c int
	var err error
	if n, aerr := strconv.Atoi(low); aerr == nil {
		if n < 0 || n > 999 {
			return "", fmt.Errorf("class index %d is outside the ImageNet-1k indices 0…999", n)
		}
		c, err = lab.TaskLabel(n, "")
	} else if dataset.IsWNID(low) {
		c, err = lab.TaskLabel(-1, low)
	} else {
		best, bd := "", math.MaxInt
		for _, k := range cats {
			if d := suggest.Distance(low, k); d < bd {
				best, bd = k, d
			}
		}
		return "", fmt.Errorf("%q is neither one of the 16 categories (did you mean %q?), an ImageNet WordNet ID (n02690373) nor an ImageNet-1k index (0…999)", s, best)
	}
	if errors.Is(err, task.ErrOutsideTask) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return imagenet16().Classes()[c], nil
}

// imagenet16 is the 16-class mapping ImageNet16Answer maps classes with.
var imagenet16 = sync.OnceValue(func() task.Mapping { return task.ImageNet16Mapping(false) })

// mvhStem is an image name as predictions are matched by: its base name
// (after the last / or \) without its extension.
func mvhStem(name string) string {
	b := path.Base(strings.ReplaceAll(name, `\`, "/"))
	return strings.TrimSuffix(b, path.Ext(b))
}

// mvhStimulus is a stimulus of the human data.
type mvhStimulus struct{ category, imagename string }

// MatchMVHPredictions turns predictions (ReadMVHPredictions) into trials
// on the stimuli of the human trials hum, one model per Model; file names
// the predictions in errors. A prediction's image is matched, as
// model-vs-human matches the trials of two observers, by condition and the
// image id human.ShortImageName gives of its base name (extensions
// ignored). Its condition is the row's condition column; without one, the
// fourth "_"-separated part of the base name when that is a condition of
// the human data (model-vs-human's stimulus names, e.g.
// 0001_cop_dnn_c30_knife_10_n03041632_7380.png, and the humans' own
// image names); else the one condition whose stimuli include the image id.
// The category (the right answer) is the humans'.
//
// It returns an error wrapping ErrPredictions for images that match no
// stimulus (how many, the first few), for image ids that are in several
// conditions (add a condition column), and for a model answering one
// stimulus twice.
func MatchMVHPredictions(hum []human.MVHTrial, preds []MVHPrediction, file string) ([]human.MVHTrial, error) {
	stim := map[string]mvhStimulus{}
	conds := map[string][]string{} // image id → its conditions
	hasCond := map[string]bool{}
	for _, t := range hum {
		id := mvhStem(human.ShortImageName(t.ImageName))
		k := t.Condition + "\x00" + id
		if _, ok := stim[k]; !ok {
			stim[k] = mvhStimulus{t.Category, t.ImageName}
			conds[id] = append(conds[id], t.Condition)
		}
		hasCond[t.Condition] = true
	}
	var unknown, ambiguous []string
	nUnknown, nAmbiguous := 0, 0
	seen := map[string]int{} // model, condition, id → line
	out := make([]human.MVHTrial, 0, len(preds))
	for _, p := range preds {
		base := mvhStem(p.Image)
		id := mvhStem(human.ShortImageName(base))
		cond := p.Condition
		if parts := strings.Split(base, "_"); cond == "" && len(parts) >= 6 && hasCond[parts[3]] {
			cond = parts[3]
		}
		if cond == "" {
			switch cs := conds[id]; len(cs) {
			case 0:
			case 1:
				cond = cs[0]
			default:
				if nAmbiguous++; len(ambiguous) < 3 {
					ambiguous = append(ambiguous, fmt.Sprintf("%s (line %d) is in conditions %s", p.Image, p.Line, strings.Join(cs, ", ")))
				}
				continue
			}
		}
		s, ok := stim[cond+"\x00"+id]
		if !ok {
			if nUnknown++; len(unknown) < 3 {
				what := fmt.Sprintf("%s (line %d", p.Image, p.Line)
				if cond != "" {
					what += ", condition " + cond
				}
				unknown = append(unknown, what+")")
			}
			continue
		}
		k := p.Model + "\x00" + cond + "\x00" + id
		if prev, dup := seen[k]; dup {
			return nil, fmt.Errorf("%w: %s line %d: model %s already answered image %s of condition %s at line %d; give each stimulus once per model", ErrPredictions, file, p.Line, p.Model, id, cond, prev)
		}
		seen[k] = p.Line
		resp := p.Answer
		if resp == "" {
			resp = p.Raw // outside the 16 categories: never the category
		}
		out = append(out, human.MVHTrial{Subject: p.Model, Session: "1", Trial: len(out) + 1, RT: math.NaN(),
			Response: resp, Category: s.category, Condition: cond, ImageName: s.imagename})
	}
	if nAmbiguous > 0 {
		return nil, fmt.Errorf("%w: %s: %d image names are ambiguous: %s; add a condition column, or name images as model-vs-human's stimuli (…_s01_c30_knife_…)", ErrPredictions, file, nAmbiguous, strings.Join(ambiguous, "; "))
	}
	if nUnknown > 0 {
		return nil, fmt.Errorf("%w: %s: %d of %d image names match no stimulus of the human data (first: %s); images are matched by condition and image id, e.g. 0001_cop_dnn_c30_knife_10_n03041632_7380.png or n03041632_7380.png with condition c30", ErrPredictions, file, nUnknown, len(preds), strings.Join(unknown, ", "))
	}
	return out, nil
}
