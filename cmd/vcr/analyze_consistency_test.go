package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAnalyzeErrorConsistency runs vcr analyze on two models' results and
// an experiment export whose six participants (two batches of three, each
// batch judging the same 100 of the 400 test-set images) always answer
// right where model "agree" is right. Model "opposite" is right exactly
// where "agree" is wrong. So kappa(agree, participant) = 1, participants of
// one batch have kappa 1 with each other (the ceiling), and kappa(opposite,
// participant) = −c_exp/(1 − c_exp) with c_exp = 2·p·(1−p), p the
// participant's accuracy on its stimuli. Clean originals, practice and
// excluded rows do not enter.
func TestAnalyzeErrorConsistency(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(5, 6))
	const n = 400
	right := make([]bool, n)
	dv := make([]float64, n)
	for i := range right {
		dv[i] = math.Round(r.Float64()*1e6) / 1e6
		right[i] = r.Float64() < 1-0.6*dv[i]
	}
	bit := func(b bool) string {
		if b {
			return "1"
		}
		return "0"
	}
	head := "id,source,corruption,severity,params,dv,vif_method,label,target,pred_clean,pred_corrupted,correct_clean,correct_corrupted,consistent,conf_clean,conf_corrupted,error\n"
	var paths []string
	for _, m := range []string{"agree", "opposite"} {
		var b strings.Builder
		b.WriteString(head)
		for i := range n {
			ok := right[i]
			if m == "opposite" {
				ok = !ok
			}
			fmt.Fprintf(&b, "%d,img%d.png,gaussian_blur,,\"{\"\"sigma\"\":%d}\",%s,vcr-py,car,car,car,car,1,%s,1,,,\n",
				i, i%200, i, strconv.FormatFloat(dv[i], 'g', -1, 64), bit(ok))
		}
		p := filepath.Join(dir, m, "results.csv")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	// The export: the experiment app's columns that matter, plus role and
	// excluded; a practice row and an excluded row must not count.
	var b strings.Builder
	b.WriteString("participant,session,trial,role,stimulus_id,source_id,source,corruption,params,dv,vif_method,ground_truth,response,correct,rt_ms,is_original,excluded\n")
	accOf := map[int]float64{}
	for p := 1; p <= 6; p++ {
		first := 100 * ((p - 1) / 3) // batch 0: stimuli 0–99, batch 1: 100–199
		k := 0
		fmt.Fprintf(&b, "%d,s%d,0,practice,p0001,img199.png,imagefolder,gaussian_blur,\"{\"\"sigma\"\":399}\",%s,vcr-py,car,not car,0,500,0,0\n", p, p, strconv.FormatFloat(dv[399], 'g', -1, 64))
		for i := first; i < first+100; i++ {
			resp := "not car"
			if right[i] {
				resp, k = "car", k+1
			}
			fmt.Fprintf(&b, "%d,s%d,%d,main,m%06d,img%d.png,imagefolder,gaussian_blur,\"{\"\"sigma\"\":%d}\",%s,vcr-py,car,%s,%s,500,0,0\n",
				p, p, i-first+1, i, i%200, i, strconv.FormatFloat(dv[i], 'g', -1, 64), resp, bit(right[i]))
		}
		// Originals of the other batch's sources (the human consistency
		// curve pairs corrupted trials with them; error consistency leaves
		// them out).
		for i := 100 - first; i < 200-first; i++ {
			fmt.Fprintf(&b, "%d,s%d,%d,main,o%06d,img%d.png,imagefolder,,,0,vcr-py,car,car,1,500,1,0\n", p, p, 200+i, i, i)
		}
		fmt.Fprintf(&b, "%d,s%d,101,main,m000300,img100.png,imagefolder,gaussian_blur,\"{\"\"sigma\"\":300}\",%s,vcr-py,car,not car,0,500,0,1\n", p, p, strconv.FormatFloat(dv[300], 'g', -1, 64))
		accOf[p] = float64(k) / 100
	}
	hum := filepath.Join(dir, "export.csv")
	if err := os.WriteFile(hum, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "report")
	_, _, errOut := runCmd(t, "analyze", "--results", strings.Join(paths, ","), "--human", hum, "--out", out, "--bootstrap", "50", "--bins", "5", "--min-per-bin", "5")
	if !strings.Contains(errOut, "error consistency of 2 models and 6 participants") {
		t.Fatalf("stderr: %s", errOut)
	}
	f, err := os.Open(filepath.Join(out, "error_consistency.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := "observer_a,observer_b,kind,corruption,dv_bin,n,accuracy_a,accuracy_b,c_obs,c_exp,kappa,kappa_lo,kappa_hi"
	if strings.Join(rows[0], ",") != want {
		t.Fatalf("header %v, want %s", rows[0], want)
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("cell %q: %v", s, err)
		}
		return v
	}
	kinds := map[string]int{}
	for _, row := range rows[1:] {
		a, bb, kind, bin, nn, kappa := row[0], row[1], row[2], row[4], num(row[5]), num(row[10])
		if bin != "all" {
			continue
		}
		kinds[kind]++
		switch {
		case kind == "human-human":
			same := (a[6]-'1')/3 == (bb[6]-'1')/3 // human:N, same batch
			if !same || nn != 100 || kappa != 1 {
				t.Errorf("human pair %s %s: n %v kappa %v (only pairs of one batch share stimuli)", a, bb, nn, kappa)
			}
		case a == "agree" && kind == "model-human":
			if nn != 100 || kappa != 1 || row[11] != "1" || row[12] != "1" {
				t.Errorf("agree vs %s: %v", bb, row)
			}
		case a == "opposite" && kind == "model-human":
			p := accOf[int(bb[6]-'0')]
			q := 2 * p * (1 - p)
			if nn != 100 || math.Abs(kappa-(-q/(1-q))) > 1e-12 || num(row[8]) != 0 {
				t.Errorf("opposite vs %s: %v, want kappa %v", bb, row, -q/(1-q))
			}
		case kind == "model-model":
			if nn != n || num(row[8]) != 0 {
				t.Errorf("model pair: %v", row)
			}
		}
	}
	if kinds["human-human"] != 6 || kinds["model-human"] != 12 || kinds["model-model"] != 1 {
		t.Errorf("pairs per kind %v, want 6 human-human, 12 model-human, 1 model-model", kinds)
	}
	var s struct {
		EC struct {
			File      string `json:"file"`
			Humans    int    `json:"humans"`
			Models    int    `json:"models"`
			Bootstrap int    `json:"bootstrap"`
			Ceiling   []struct {
				Bin   string  `json:"dv_bin"`
				Pairs int     `json:"pairs"`
				Kappa float64 `json:"kappa"`
			} `json:"human_ceiling"`
			ModelHuman []struct {
				Model string  `json:"model"`
				Bin   string  `json:"dv_bin"`
				Pairs int     `json:"pairs"`
				Kappa float64 `json:"kappa"`
			} `json:"model_human"`
		} `json:"error_consistency"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(out, "summary.json")), &s); err != nil {
		t.Fatal(err)
	}
	if s.EC.File != "error_consistency.csv" || s.EC.Humans != 6 || s.EC.Models != 2 || s.EC.Bootstrap != 50 ||
		len(s.EC.Ceiling) == 0 || s.EC.Ceiling[0].Bin != "all" || s.EC.Ceiling[0].Pairs != 6 || s.EC.Ceiling[0].Kappa != 1 {
		t.Errorf("summary.json error_consistency: %+v", s.EC)
	}
	for _, m := range s.EC.ModelHuman {
		if m.Model == "agree" && m.Bin == "all" && (m.Pairs != 6 || m.Kappa != 1) {
			t.Errorf("agree's mean over participants: %+v", m)
		}
	}
	// The same command writes the same bytes (seeded bootstrap).
	out2 := filepath.Join(dir, "report2")
	runCmd(t, "analyze", "--results", strings.Join(paths, ","), "--human", hum, "--out", out2, "--bootstrap", "50", "--bins", "5", "--min-per-bin", "5")
	if string(readFile(t, filepath.Join(out, "error_consistency.csv"))) != string(readFile(t, filepath.Join(out2, "error_consistency.csv"))) {
		t.Error("error_consistency.csv differs between two runs with the same seed")
	}
}
