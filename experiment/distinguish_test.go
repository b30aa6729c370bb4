package experiment

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/vcr-bench/vcr/internal/version"
	"github.com/vcr-bench/vcr/stats"
)

func distinguishDesign(t *testing.T) *Design {
	t.Helper()
	yaml := `
name: dist
kind: distinguish
seed: 5
testset: ` + filepath.Join(fixture(t), "ts") + `
cache: ` + t.TempDir() + `
trials_per_batch: 4
views_per_batch: 4
practice: 1
exclude_timing_misses: true
distinguish:
  pairs: [[gaussian_noise, gaussian_blur]]
`
	cfg, err := ParseConfig([]byte(yaml), "dist.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, _ := build(t, cfg)
	return d
}

func TestDistinguishReport(t *testing.T) {
	d := distinguishDesign(t)
	run := func(answer func(Trial, *Stimulus) Response, n int) *Distinguishability {
		s := OpenTestStore(t)
		if err := s.Init(context.Background(), d); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			simulate(t, s, d, "p"+strconv.Itoa(i), answer)
		}
		// A participant whose timing always misses: excluded by the design.
		simulate(t, s, d, "slow", func(tr Trial, st *Stimulus) Response {
			return Response{Response: st.GroundTruth, ShownMS: 300, RefreshHz: 60}
		})
		rep, err := DistinguishReport(context.Background(), s, d)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	perfect := run(func(tr Trial, st *Stimulus) Response { return Response{Response: st.GroundTruth} }, 6)
	if len(perfect.Pairs) != 1 {
		t.Fatalf("pairs %+v", perfect.Pairs)
	}
	if perfect.Tool != "vcr experiment distinguish" || perfect.Version != version.String() {
		t.Errorf("report tool %q, version %q", perfect.Tool, perfect.Version)
	}
	p := perfect.Pairs[0]
	if p.N != 6*4 || p.Correct != p.N || p.Participants != 6 || p.SameN+p.DiffN != p.N || p.SameN == 0 || p.DiffN == 0 {
		t.Errorf("perfect observers: %+v", p)
	}
	if math.Abs(p.PValue/math.Pow(0.5, 24)-1) > 1e-12 || !p.Distinguishable || p.Verdict != "distinguishable" {
		t.Errorf("perfect observers: p = %v, verdict %s; want 0.5^24, distinguishable", p.PValue, p.Verdict)
	}
	if perfect.ExcludedTrials != 4 {
		t.Errorf("excluded trials %d, want the slow participant's 4", perfect.ExcludedTrials)
	}
	// Always answering "same": right exactly on the same trials.
	same := run(func(tr Trial, st *Stimulus) Response { return Response{Response: AnswerSame} }, 6)
	q := same.Pairs[0]
	if q.Correct != q.SameN || q.DiffCorrect != 0 || q.PValue != stats.BinomGreater(q.Correct, q.N, 0.5) || q.Distinguishable {
		t.Errorf("always-same observers: %+v", q)
	}

	var js bytes.Buffer
	if err := perfect.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Distinguishability
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Pairs[0].PValue != p.PValue || back.Alpha != 0.05 || back.Pairs[0].Pair != "gaussian_noise|gaussian_blur" {
		t.Errorf("JSON round trip: %+v", back)
	}
	var cs bytes.Buffer
	if err := perfect.WriteCSV(&cs); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&cs).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || !slices.Equal(rows[0], DistinguishColumns) || rows[1][len(rows[1])-1] != "distinguishable" {
		t.Errorf("CSV %v", rows)
	}

	rec := &Design{Kind: KindRecognition}
	if _, err := DistinguishReport(context.Background(), OpenTestStore(t), rec); err == nil {
		t.Error("a recognition design was accepted")
	}
}
