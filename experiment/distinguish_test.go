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

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/vcr-bench/vcr/internal/version"
)

func TestBinomialGreater(t *testing.T) {
	for _, tc := range []struct {
		k, n int
		p0   float64
		want float64
		tol  float64
	}{
		// R 4.x: binom.test(15, 20, 0.5, alternative = "greater")$p.value.
		{15, 20, 0.5, 0.02069473, 5e-9},
		// Exact: P(X = 10 | n = 10) = 1/1024; P(X ≥ 5 | n = 10) = 638/1024.
		{10, 10, 0.5, 1.0 / 1024, 1e-15},
		{5, 10, 0.5, 638.0 / 1024, 1e-14},
		{1, 1, 0.5, 0.5, 1e-15},
		{0, 7, 0.5, 1, 0},
		// Exact: Σ_{k=3..5} C(5,k) 0.3^k 0.7^(5−k) = 0.1323 + 0.02835 + 0.00243.
		{3, 5, 0.3, 0.16308, 1e-12},
	} {
		if got := BinomialGreater(tc.k, tc.n, tc.p0); math.Abs(got-tc.want) > tc.tol {
			t.Errorf("BinomialGreater(%d, %d, %v) = %.10g, want %.10g", tc.k, tc.n, tc.p0, got, tc.want)
		}
	}
	// Agrees with gonum's binomial distribution: P(X ≥ k) = Survival(k − 1).
	for n := 1; n <= 60; n += 7 {
		b := distuv.Binomial{N: float64(n), P: 0.5}
		for k := 1; k <= n; k++ {
			want := b.Survival(float64(k - 1))
			if got := BinomialGreater(k, n, 0.5); math.Abs(got-want) > 1e-12 {
				t.Errorf("BinomialGreater(%d, %d) = %v, distuv says %v", k, n, got, want)
			}
		}
	}
}

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
	if q.Correct != q.SameN || q.DiffCorrect != 0 || q.PValue != BinomialGreater(q.Correct, q.N, 0.5) || q.Distinguishable {
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
