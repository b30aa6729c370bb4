package analysis

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/human"
)

// writeMVHSubjects writes the embedded contrast data of the given subjects
// as one raw-data CSV each into a new folder and returns it.
func writeMVHSubjects(t *testing.T, trials []human.MVHTrial, subjects ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, s := range subjects {
		var b strings.Builder
		cw := csv.NewWriter(&b)
		cw.Write(human.MVHColumns)
		for _, x := range trials {
			if x.Subject == s {
				cw.Write([]string{x.Subject, x.Session, strconv.Itoa(x.Trial), strconv.FormatFloat(x.RT, 'g', -1, 64), x.Response, x.Category, x.Condition, x.ImageName})
			}
		}
		cw.Flush()
		if err := os.WriteFile(filepath.Join(dir, "contrast_"+s+".csv"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// referenceContrast reads model-vs-human's own numbers on its contrast data
// (consistency/testdata/model-vs-human/reference-contrast.csv, origin in
// ORIGIN.md there): accuracy by (subject, condition) and kappa by
// (condition, subject a, subject b).
func referenceContrast(t *testing.T) (acc map[[2]string]float64, kappa map[[3]string]float64) {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "consistency", "testdata", "model-vs-human", "reference-contrast.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	acc, kappa = map[[2]string]float64{}, map[[3]string]float64{}
	for _, r := range rows[1:] {
		switch r[2] {
		case "accuracy":
			acc[[2]string{r[3], r[1]}], _ = strconv.ParseFloat(r[6], 64)
		case "error_consistency":
			kappa[[3]string{r[1], r[3], r[4]}], _ = strconv.ParseFloat(r[10], 64)
		}
	}
	return acc, kappa
}

// TestMVHPredictionsReference gives subject-01's answers on the contrast
// data as a "model" in a predictions file keyed by image name, against the
// other three subjects: the model's accuracy per condition and its kappa
// with each subject must equal subject-01's own numbers in model-vs-human's
// reference (reference-contrast.csv) to 1e-12, and its mean kappa the mean
// of subject-01's three kappas. The file names the stimuli three ways (the
// humans' image names, model-vs-human's stimulus names for models with
// "dnn" as the subject tag, bare image ids with a condition column) and the
// answers three ways (category names, WordNet IDs, ImageNet-1k indices).
func TestMVHPredictionsReference(t *testing.T) {
	all, err := human.OpenMVH("builtin:mvh-contrast")
	if err != nil {
		t.Fatal(err)
	}
	refAcc, refKappa := referenceContrast(t)
	// One WordNet ID and its ImageNet-1k index per category
	// (dataset/imagenet16.json).
	wnid := map[string]string{}
	index := map[string]int{}
	for _, x := range all {
		p := strings.Split(strings.TrimSuffix(x.ImageName, ".png"), "_")
		wnid[p[4]] = p[6]
	}
	for cat := range wnid {
		for i := range 1000 {
			if c, err := ImageNet16Answer(strconv.Itoa(i)); err == nil && c == cat {
				index[cat] = i
				break
			}
		}
	}
	for name, layout := range map[string]func(i int, x human.MVHTrial) (image, cond, pred string){
		"human names, categories": func(_ int, x human.MVHTrial) (string, string, string) {
			return x.ImageName, "", x.Response
		},
		"stimulus names, WordNet IDs and indices": func(i int, x human.MVHTrial) (string, string, string) {
			p := strings.Split(x.ImageName, "_")
			p[2] = "dnn"
			img := "dnn/session-1/" + strings.Join(p, "_")
			switch {
			case i%3 == 1 && wnid[x.Response] != "":
				return img, "", strings.ToUpper(x.Response[:1]) + x.Response[1:] // case ignored
			case i%3 == 2 && wnid[x.Response] != "":
				return img, "", wnid[x.Response]
			case wnid[x.Response] != "":
				return img, "", strconv.Itoa(index[x.Response])
			}
			return img, "", x.Response
		},
		"image ids with a condition column": func(_ int, x human.MVHTrial) (string, string, string) {
			return human.ShortImageName(x.ImageName), x.Condition, x.Response
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			var b strings.Builder
			b.WriteString("imagename,condition,prediction\n")
			i := 0
			for _, x := range all {
				if x.Subject == "subject-01" {
					img, cond, pred := layout(i, x)
					fmt.Fprintf(&b, "%s,%s,%s\n", img, cond, pred)
					i++
				}
			}
			pred := filepath.Join(dir, "copycat.csv")
			os.WriteFile(pred, []byte(b.String()), 0o644)
			res, err := ModelVsHuman(context.Background(), MVHOptions{
				Human: writeMVHSubjects(t, all, "subject-02", "subject-03", "subject-04"), Predictions: []string{pred}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Warnings) != 0 {
				t.Errorf("warnings: %v", res.Warnings)
			}
			near := func(what string, got, want float64) {
				if math.Abs(got-want) > 1e-12 {
					t.Errorf("%s: got %.17g, want %.17g", what, got, want)
				}
			}
			rows := 0
			for _, r := range res.Consistency.Rows {
				if r.Kind == "model-human" {
					near(r.Corruption+" copycat–"+r.B, r.Kappa, refKappa[[3]string{r.Corruption, "subject-01", r.B}])
					rows++
				}
			}
			if rows != 3*8 || len(res.Conditions) != 8 {
				t.Fatalf("%d model-human rows and %d conditions, want 24 and 8", rows, len(res.Conditions))
			}
			for _, c := range res.Conditions {
				if len(c.Models) != 1 || c.Models[0].Name != "copycat" || c.Models[0].Pairs != 3 || c.Models[0].N != 160 {
					t.Fatalf("%s: models %+v", c.Condition, c.Models)
				}
				m := c.Models[0]
				near(c.Condition+" accuracy", m.Accuracy, refAcc[[2]string{"subject-01", c.Condition}])
				var want float64
				for _, s := range []string{"subject-02", "subject-03", "subject-04"} {
					want += refKappa[[3]string{c.Condition, "subject-01", s}]
				}
				near(c.Condition+" mean kappa", m.Kappa, want/3)
			}
		})
	}
}

// TestMVHPredictionsHand checks a case computed by hand: two subjects and
// four stimuli in each of two conditions.
func TestMVHPredictionsHand(t *testing.T) {
	dir := t.TempDir()
	// Condition c1: images a…d, all dogs; subject s1 right on a, b; s2 on a, c.
	// Condition c2: images a…d again (other conditions of the same source
	// images), all cats; both subjects right on a, b, c.
	hum := "subj,Session,trial,rt,object_response,category,condition,imagename\n"
	resp := map[string]string{"s1c1": "dog dog cat cat", "s2c1": "dog cat dog cat", "s1c2": "cat cat cat dog", "s2c2": "cat cat cat dog"}
	for _, s := range []string{"s1", "s2"} {
		for _, c := range []string{"c1", "c2"} {
			cat := map[string]string{"c1": "dog", "c2": "cat"}[c]
			for i, r := range strings.Fields(resp[s+c]) {
				img := string(rune('a' + i))
				hum += fmt.Sprintf("%s,1,%d,0.5,%s,%s,%s,000%d_x_%s_%s_%s_10_n0000000%d_%s.png\n", s, i+1, r, cat, c, i+1, s, c, cat, i, img)
			}
		}
	}
	hfile := filepath.Join(dir, "h.csv")
	os.WriteFile(hfile, []byte(hum), 0o644)
	// Model m: c1 right on a, b, c (dog, dog, dog, and n02084071 outside
	// the task on d); c2 right on d only. Image ids with conditions.
	pred := "model,imagename,condition,prediction\n" +
		"m,n00000000_a.JPEG,c1,dog\nm,n00000001_b,c1,Dog\nm,x/n00000002_c.png,c1,dog\nm,n00000003_d.png,c1,n01440764\n" +
		"m,n00000000_a.png,c2,bear\nm,n00000001_b.png,c2,bear\nm,n00000002_c.png,c2,0\nm,n00000003_d.png,c2,cat\n"
	pfile := filepath.Join(dir, "p.csv")
	os.WriteFile(pfile, []byte(pred), 0o644)
	res, err := ModelVsHuman(context.Background(), MVHOptions{Human: hfile, Predictions: []string{pfile}})
	if err != nil {
		t.Fatal(err)
	}
	// By hand, as c_obs, c_exp = p1·p2 + (1−p1)(1−p2), kappa = (c_obs − c_exp)/(1 − c_exp):
	// c1 m (RRRW) vs s1 (RRWW): p 3/4, 1/2; c_obs 3/4; c_exp 1/2; kappa 1/2.
	// c1 m vs s2 (RWRW): p 3/4, 1/2; c_obs 3/4; kappa 1/2.
	// c1 s1 vs s2: p 1/2, 1/2; c_obs 1/2; c_exp 1/2; kappa 0.
	// c2 m (WWWR) vs s1 (RRRW): c_obs 0; c_exp 1/4·3/4·2 = 3/8; kappa −3/5.
	// c2 s1 vs s2: identical, kappa 1.
	want := map[string]struct{ acc, kappa, hAcc, hKappa float64 }{
		"c1": {0.75, 0.5, 0.5, 0},
		"c2": {0.25, -0.6, 0.75, 1},
	}
	for _, c := range res.Conditions {
		w := want[c.Condition]
		m := c.Models[0]
		if math.Abs(m.Accuracy-w.acc) > 1e-15 || math.Abs(m.Kappa-w.kappa) > 1e-15 || m.Pairs != 2 ||
			math.Abs(c.HumanAccuracy-w.hAcc) > 1e-15 || math.Abs(c.HumanKappa-w.hKappa) > 1e-15 || c.HumanKappaPairs != 1 {
			t.Errorf("%s: %+v, want %+v", c.Condition, c, w)
		}
	}
	if len(res.Conditions) != 2 {
		t.Errorf("%d conditions, want 2", len(res.Conditions))
	}
	// The figure's panels carry the same numbers.
	charts := MVHCharts(res, mvhDatasetName(hfile))
	if len(charts) != 2 || charts[0].Title != "h: accuracy" || charts[1].Title != "h: error consistency" {
		t.Fatalf("charts %+v", charts)
	}
	for k, want := range [][2][]float64{{{0.5, 0.75}, {0.75, 0.25}}, {{0, 1}, {0.5, -0.6}}} {
		s := charts[k].Series
		if len(s) != 2 || !s[0].Human || s[1].Name != "m" || !slices.Equal(s[0].Y, want[0]) || !slices.Equal(s[1].Y, want[1]) {
			t.Errorf("panel %d series %+v, want humans %v and m %v", k, s, want[0], want[1])
		}
	}
	if y := charts[1].YMin; !(y <= -0.6 && y > -0.75) || charts[1].YMax != 1 {
		t.Errorf("kappa range [%v, %v], want about [-0.6, 1]", y, charts[1].YMax)
	}
	// Without the condition column, image a is in both conditions.
	os.WriteFile(pfile, []byte("imagename,prediction\nn00000000_a.png,dog\n"), 0o644)
	_, err = ModelVsHuman(context.Background(), MVHOptions{Human: hfile, Predictions: []string{pfile}})
	if want := "1 image names are ambiguous: n00000000_a.png (line 2) is in conditions c1, c2; add a condition column"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one containing %q", err, want)
	}
}

// TestMVHPredictionsErrors checks that bad predictions files fail with
// messages that say what is wrong and where.
func TestMVHPredictionsErrors(t *testing.T) {
	all, err := human.OpenMVH("builtin:mvh-contrast")
	if err != nil {
		t.Fatal(err)
	}
	first := all[0].ImageName // 0001_cop_s01_c30_knife_10_n03041632_7380.png
	for _, tc := range []struct{ name, file, want string }{
		{"unknown images", "imagename,prediction\n" + first + ",knife\nn0_nothing.png,knife\nzz_1.png,dog\nzz_2.png,dog\nzz_3.png,dog\n",
			"4 of 5 image names match no stimulus of the human data (first: n0_nothing.png (line 3), zz_1.png (line 4), zz_2.png (line 5))"},
		{"nearest class", "imagename,prediction\n" + first + ",kniff\n", `line 2, column 2 (prediction): "kniff" is neither one of the 16 categories (did you mean "knife"?)`},
		{"index range", "imagename,prediction\n" + first + ",1000\n", "class index 1000 is outside the ImageNet-1k indices 0…999"},
		{"duplicate", "imagename,prediction\n" + first + ",knife\nn03041632_7380.png,knife\n", "line 3: model p already answered image n03041632_7380 of condition c30 at line 2"},
		{"no image column", "id,prediction\n1,knife\n", "no image name column"},
		{"logits only", "path,logit_0,logit_1\na.png,1,2\n", "the 16-class decision needs the 1000 ImageNet-1k scores"},
		{"two image columns", "path,imagename,pred\na,b,knife\n", "columns imagename and path mean the same"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "p.csv")
			os.WriteFile(p, []byte(tc.file), 0o644)
			_, err := ModelVsHuman(context.Background(), MVHOptions{Human: "builtin:mvh-contrast", Predictions: []string{p}})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrPredictions) {
				t.Errorf("error %v, want one containing %q and wrapping ErrPredictions", err, tc.want)
			}
		})
	}
}

// TestMVHPredictionsEvalFormat reads a predictions file in the format of
// 'vcr eval --predictions' (id, path, pred, confidence, kind; a clean row
// skipped) with several models in a model column, and warns about the
// stimuli a model left out.
func TestMVHPredictionsEvalFormat(t *testing.T) {
	all, err := human.OpenMVH("builtin:mvh-contrast")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("id,path,source,kind,pred,confidence,model\n")
	b.WriteString(",,n03041632_7380.png,clean,knife,0.9,alpha\n")
	n := 0
	for _, x := range all {
		if x.Subject == "subject-02" {
			fmt.Fprintf(&b, "%d,images/%s,,corrupted,%s,0.5,alpha\n", n, x.ImageName, x.Response)
			if x.Condition != "c01" {
				fmt.Fprintf(&b, "%d,images/%s,,,%s,0.5,beta\n", n, x.ImageName, x.Category)
			}
			n++
		}
	}
	p := filepath.Join(t.TempDir(), "preds.csv")
	os.WriteFile(p, []byte(b.String()), 0o644)
	res, err := ModelVsHuman(context.Background(), MVHOptions{Human: "builtin:mvh-contrast", Predictions: []string{p}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Conditions {
		var names []string
		for _, m := range c.Models {
			names = append(names, m.Name)
			// beta is always right; alpha is subject-02.
			want := 1.0
			if m.Name == "alpha" {
				want = -1
				for _, s := range c.Subjects {
					if s.Name == "subject-02" {
						want = s.Accuracy
					}
				}
			}
			if m.Accuracy != want || m.N != 160 {
				t.Errorf("%s %s: accuracy %v on %d, want %v on 160", c.Condition, m.Name, m.Accuracy, m.N, want)
			}
		}
		wantNames := []string{"alpha", "beta"}
		if c.Condition == "c01" {
			wantNames = wantNames[:1]
		}
		if !slices.Equal(names, wantNames) {
			t.Errorf("%s: models %v, want %v", c.Condition, names, wantNames)
		}
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings %v, want none (beta answered every stimulus of the conditions it has)", res.Warnings)
	}
}

// TestImageNet16Answer checks the mapping of predictions to the 16
// categories against dataset/imagenet16.json (model-vs-human's
// human_categories.py): n02690373 (airliner, index 404) is an airplane;
// n01440764 (tench, index 0) is in no category.
func TestImageNet16Answer(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"airplane", "airplane"}, {" Knife ", "knife"}, {"n02690373", "airplane"}, {"404", "airplane"},
		{"n01440764", ""}, {"0", ""},
	} {
		if got, err := ImageNet16Answer(tc.in); err != nil || got != tc.want {
			t.Errorf("ImageNet16Answer(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"-1", "1000", "cat dog", "bycicle"} {
		if _, err := ImageNet16Answer(bad); err == nil {
			t.Errorf("ImageNet16Answer(%q) accepted", bad)
		}
	}
}

// TestMVHPlotOneSubject writes the figure for one subject and no model:
// the kappa panel has no value and draws its axes only.
func TestMVHPlotOneSubject(t *testing.T) {
	all, err := human.OpenMVH("builtin:mvh-contrast")
	if err != nil {
		t.Fatal(err)
	}
	dir := writeMVHSubjects(t, all, "subject-01")
	fig := filepath.Join(t.TempDir(), "f.svg")
	if _, err := ModelVsHuman(context.Background(), MVHOptions{Human: dir, Plot: fig}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(fig)
	if err != nil || strings.Count(string(data), `class="series human"`) != 2 || strings.Count(string(data), `class="marker"`) != 8 {
		t.Errorf("figure of one subject: %v, %d human series, %d markers; want 2 series and 8 accuracy markers",
			err, strings.Count(string(data), `class="series human"`), strings.Count(string(data), `class="marker"`))
	}
}

// TestMVHDatasetName checks the names of the figure's titles.
func TestMVHDatasetName(t *testing.T) {
	for in, want := range map[string]string{"builtin:mvh-contrast": "contrast", "mvh-edge": "edge", "data/raw/sketch": "sketch", "x/h.csv": "h"} {
		if got := mvhDatasetName(in); got != want {
			t.Errorf("mvhDatasetName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCompareCondition checks the order of model-vs-human's conditions.
func TestCompareCondition(t *testing.T) {
	for _, want := range [][]string{
		{"c01", "c03", "c05", "c10", "c15", "c30", "c50", "c100"},
		{"1-10-10", "2-10-10", "16-10-10", "128-10-10"},
		{"0", "0.03", "0.1", "0.9"},
		{"0", "pow"},
	} {
		got := slices.Clone(want)
		slices.Reverse(got)
		slices.SortFunc(got, compareCondition)
		if !slices.Equal(got, want) {
			t.Errorf("sorted %v, want %v", got, want)
		}
	}
}

// FuzzReadMVHPredictions checks that no input makes the predictions reader
// or the matching panic, and that every prediction read has a model, an
// image and a raw prediction.
func FuzzReadMVHPredictions(f *testing.F) {
	f.Add("imagenameprediction\n")
	f.Add("imagename,prediction\n0001_cop_dnn_c30_knife_10_n03041632_7380.png,knife\n")
	f.Add("model,path,condition,pred,kind\nm,a/b_c.png,c30,404,\nm,,x,knife,clean\n")
	f.Add("image,top5\nx.png,knife;dog\n\"unterminated\n")
	hum := []human.MVHTrial{{Subject: "s", Category: "knife", Condition: "c30", ImageName: "0001_cop_s01_c30_knife_10_n03041632_7380.png"}}
	f.Fuzz(func(t *testing.T, in string) {
		preds, err := ReadMVHPredictions(strings.NewReader(in), "f.csv", false)
		if err != nil {
			return
		}
		for _, p := range preds {
			if p.Model == "" || p.Image == "" || p.Raw == "" {
				t.Errorf("prediction %+v lacks a field", p)
			}
		}
		MatchMVHPredictions(hum, preds, "f.csv")
	})
}

// logitsRow writes one row of a vcr eval --logits file (id, path, source,
// kind, logit_0 … logit_999) whose scores are 0 except those in set.
func logitsRow(b *strings.Builder, id int, image string, set map[int]float64, rest float64) {
	fmt.Fprintf(b, "%d,images/%s,,corrupted", id, image)
	for i := range 1000 {
		v, ok := set[i]
		if !ok {
			v = rest
		}
		fmt.Fprintf(b, ",%g", v)
	}
	b.WriteByte('\n')
}

func logitsHeader(b *strings.Builder) {
	b.WriteString("id,path,source,kind")
	for i := range 1000 {
		fmt.Fprintf(b, ",logit_%d", i)
	}
	b.WriteByte('\n')
}

// TestMVHPredictionsLogits decides answers from vcr eval's 1000 scores by
// model-vs-human's rule (mean softmax probability per category), on rows
// where the arg-max class says otherwise. By hand: bear has the 4 classes
// 294–297, airplane the one class 404. Row 1, logits: class 294 at 3 (the
// arg-max, a bear), 404 at 2.5, all else 0: bear's mean probability is
// (e³ + 3)/4/Z = 5.77/Z, airplane's e^2.5/Z = 12.18/Z, every other
// category's 1/Z, so airplane. Row 2, probabilities: 294 at 0.5, 404 at
// 0.13, the remaining 0.37 spread evenly: bear's mean 0.125 < airplane's
// 0.13, so airplane; read as logits the same row gives bear ((e^0.5 +
// 3)/4 = 1.162 > e^0.13 = 1.139), so the flag matters.
func TestMVHPredictionsLogits(t *testing.T) {
	bear := dataset.ImageNet16Indices("bear")
	if !slices.Equal(bear, []int{294, 295, 296, 297}) || !slices.Equal(dataset.ImageNet16Indices("airplane"), []int{404}) {
		t.Fatalf("the hand computation assumes bear = 294…297 and airplane = 404; got %v and %v", bear, dataset.ImageNet16Indices("airplane"))
	}
	var logits strings.Builder
	logitsHeader(&logits)
	logitsRow(&logits, 0, "0001_cop_dnn_c30_knife_10_n03041632_7380.png", map[int]float64{294: 3, 404: 2.5}, 0)
	preds, err := ReadMVHPredictions(strings.NewReader(logits.String()), "m.csv", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(preds) != 1 || preds[0].Answer != "airplane" || preds[0].Image != "images/0001_cop_dnn_c30_knife_10_n03041632_7380.png" {
		t.Errorf("logits row: %+v, want the answer airplane (the arg-max class 294 is a bear)", preds)
	}

	var probs strings.Builder
	logitsHeader(&probs)
	logitsRow(&probs, 0, "x.png", map[int]float64{294: 0.5, 295: 0, 296: 0, 297: 0, 404: 0.13}, 0.37/995)
	for _, tc := range []struct {
		probabilities bool
		want          string
	}{{true, "airplane"}, {false, "bear"}} {
		preds, err := ReadMVHPredictions(strings.NewReader(probs.String()), "m.csv", tc.probabilities)
		if err != nil {
			t.Fatal(err)
		}
		if len(preds) != 1 || preds[0].Answer != tc.want {
			t.Errorf("probabilities=%v: %+v, want %s", tc.probabilities, preds, tc.want)
		}
	}

	bad := func(file string, probabilities bool, want string) {
		t.Helper()
		_, err := ReadMVHPredictions(strings.NewReader(file), "m.csv", probabilities)
		if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, ErrPredictions) {
			t.Errorf("error %v, want one containing %q", err, want)
		}
	}
	nan := strings.Replace(logits.String(), ",2.5", ",NaN", 1)
	bad(nan, false, `m.csv line 2, column 409 (logit_404): "NaN" is not a finite number`)
	bad(logits.String(), true, "line 2, column 299 (logit_294): 3 is no probability")
	short := strings.Replace(logits.String(), ",logit_999", "", 1)
	bad(short, false, "999 logit_ columns; the 16-class decision needs the 1000 ImageNet-1k scores")
}
