package pairs

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
	"github.com/vcr-bench/vcr/iqa"
)

// TestScore: every row's vif equals a direct iqa.Scorer on the same files,
// rows stay in input order whatever the workers do, a broken row is that
// row's error and other columns pass through.
func TestScore(t *testing.T) {
	dir := t.TempDir()
	var rows [][]string
	want := map[int]float64{}
	for i := range 12 {
		ref, dist := testimg.Natural(40, 32, uint64(i)), testimg.Natural(40, 32, uint64(100+i))
		rp, dp := filepath.Join(dir, "r"+strconv.Itoa(i)+".png"), filepath.Join(dir, "d"+strconv.Itoa(i)+".png")
		for _, f := range []struct {
			p string
			m *imageio.Image
		}{{rp, ref}, {dp, dist}} {
			if err := imageio.Save(f.p, f.m, imageio.EncodeOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		r, err := iqa.NewScorer(iqa.VIFVec).Score(iqa.GrayFrom(ref), iqa.GrayFrom(dist))
		if err != nil {
			t.Fatal(err)
		}
		want[i] = r.VIF
		rows = append(rows, []string{strconv.Itoa(i), filepath.Base(rp), filepath.Base(dp)})
	}
	rows = append(rows, []string{"12", "r0.png", "missing.png"})
	var in bytes.Buffer
	cw := csv.NewWriter(&in)
	cw.Write([]string{"id", "ref", "dist"})
	cw.WriteAll(rows)
	csvPath := filepath.Join(dir, "pairs.csv")
	if err := os.WriteFile(csvPath, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	calls := 0
	sum, err := Score(context.Background(), Options{In: csvPath, Method: iqa.VIFVec, Workers: 3,
		RefCol: "reference", DistCol: "distorted", RefAlias: true, DistAlias: true, Progress: func() { calls++ }}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Scored != 12 || sum.Failed != 1 || calls != 13 {
		t.Errorf("summary %+v, %d progress calls; want 12 scored, 1 failed, 13 calls", sum, calls)
	}
	got, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if h := got[0]; len(h) != 7 || h[3] != "vif" || h[4] != "dv" || h[5] != "vif_method" || h[6] != "error" {
		t.Fatalf("header %q", h)
	}
	for i, r := range got[1:] {
		if r[0] != strconv.Itoa(i) {
			t.Fatalf("row %d has id %s: order lost", i, r[0])
		}
		if i == 12 {
			if r[3] != "" || r[6] == "" {
				t.Errorf("broken row: %q", r)
			}
			continue
		}
		if v, _ := strconv.ParseFloat(r[3], 64); v != want[i] || r[5] != "vifvec" || r[6] != "" {
			t.Errorf("row %d: %q, want vif %v", i, r, want[i])
		}
	}
	if n, err := CountRows(csvPath); err != nil || n != 13 {
		t.Errorf("CountRows = %d, %v; want 13", n, err)
	}
	_, err = Score(context.Background(), Options{In: csvPath, Method: iqa.VIFVec, Workers: 1, RefCol: "reference", DistCol: "distorted"}, &out)
	var ce *ColumnError
	if !errors.As(err, &ce) || ce.Column != "reference" || ce.Flag != "--ref-col" {
		t.Errorf("without aliases: %v, want a ColumnError for reference", err)
	}
}
