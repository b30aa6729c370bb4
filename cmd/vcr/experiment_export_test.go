package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/experiment"
	"github.com/vcr-bench/vcr/experiment/sqlite"
	"github.com/vcr-bench/vcr/human"
)

// TestExperimentExportEscapes: 'vcr experiment export' writes a session id
// such as "-2-3" as "'-2-3" (a spreadsheet would run it as a formula) and
// --raw-csv as it is; 'vcr analyze --human' (human.ReadTrials) reads both
// files to the same trials.
func TestExperimentExportEscapes(t *testing.T) {
	cfgPath := experimentFixture(t, "")
	cfg, err := experiment.LoadConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d, err := experiment.Build(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "exp.sqlite")
	st, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Init(ctx, d); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	sessions := []string{"-2-3", "@A1:A9"}
	for i, sess := range sessions {
		p, _, err := st.Join(ctx, experiment.JoinRequest{ExternalID: []string{"a", "b"}[i], Platform: "direct", SessionID: sess, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		trials, err := st.Trials(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range trials {
			r := experiment.Response{Response: d.Stimulus(tr.StimulusID).GroundTruth, RTms: 500, ShownMS: 200, RefreshHz: 60,
				Frames: 12, TimingOK: true, Input: "key", At: now}
			if err := st.Respond(ctx, p.ID, tr.Index, r); err != nil {
				t.Fatal(err)
			}
		}
	}
	st.Close()

	dir := t.TempDir()
	esc, raw := filepath.Join(dir, "trials.csv"), filepath.Join(dir, "raw.csv")
	mustRun(t, "experiment", "export", "--db", db, "--out", esc)
	mustRun(t, "experiment", "export", "--db", db, "--out", raw, "--raw-csv")
	sessionsIn := func(path string) []string {
		rows := readCSV(t, path)
		c := slices.Index(rows[0], "session")
		var out []string
		for _, r := range rows[1:] {
			if !slices.Contains(out, r[c]) {
				out = append(out, r[c])
			}
		}
		slices.Sort(out)
		return out
	}
	if got := sessionsIn(esc); !slices.Equal(got, []string{"'-2-3", "'@A1:A9"}) {
		t.Errorf("escaped export: sessions %q, want '-2-3 and '@A1:A9", got)
	}
	if got := sessionsIn(raw); !slices.Equal(got, []string{"-2-3", "@A1:A9"}) {
		t.Errorf("--raw-csv export: sessions %q, want -2-3 and @A1:A9", got)
	}
	read := func(path string) *human.Dataset {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		ds, err := human.ReadTrials(f, path)
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	a, b := read(esc), read(raw)
	if len(a.Series) == 0 || len(a.Series) != len(b.Series) {
		t.Fatalf("%d series from the escaped export, %d from the raw one", len(a.Series), len(b.Series))
	}
	for i := range a.Series {
		if !slices.Equal(a.Series[i].Trials, b.Series[i].Trials) || len(a.Series[i].Trials) == 0 {
			t.Errorf("series %s: escaped and raw exports read differently", a.Series[i].Corruption)
		}
	}
}

// TestExperimentDistinguishCSV: an --out ending in .csv gets the CSV
// report (docs/experiment.md), JSON otherwise.
func TestExperimentDistinguishCSV(t *testing.T) {
	dir := filepath.Dir(experimentFixture(t, ""))
	cfgPath := filepath.Join(dir, "dist.yaml")
	yaml := "name: dist\nkind: distinguish\nseed: 2\ntestset: ts\ntrials_per_batch: 4\npractice: 0\n" +
		"distinguish:\n  pairs: [[gaussian_noise, gaussian_blur]]\nserver:\n  admin_token: cli-admin-token-0123456789\n"
	if err := os.WriteFile(cfgPath, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := experiment.LoadConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d, err := experiment.Build(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "dist.sqlite")
	st, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Init(ctx, d); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p, _, err := st.Join(ctx, experiment.JoinRequest{ExternalID: "x", Platform: "direct", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	trials, err := st.Trials(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range trials {
		r := experiment.Response{Response: experiment.AnswerSame, RTms: 500, ShownMS: 200, RefreshHz: 60, Frames: 12, TimingOK: true, Input: "key", At: now}
		if err := st.Respond(ctx, p.ID, tr.Index, r); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	out := filepath.Join(t.TempDir(), "d.csv")
	mustRun(t, "experiment", "distinguish", "--db", db, "--out", out)
	rows := readCSV(t, out)
	if len(rows) != 2 || !slices.Equal(rows[0], experiment.DistinguishColumns) || rows[1][0] != "gaussian_noise|gaussian_blur" || rows[1][4] != "4" {
		t.Errorf("distinguish CSV %q", rows)
	}
}
