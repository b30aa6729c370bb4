package plot

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// groupedSample returns a grouped chart of n models (m00, m01, …, no
// family unless fam) over three corruptions, with intervals on the
// first model.
func groupedSample(n int, fam bool) GroupedChart {
	c := GroupedChart{Title: "HMRI of accuracy", XLabel: "HMRI (ratio of areas)",
		Categories: []string{"gaussian_blur", "gaussian_noise", "jpeg_compression"}}
	for i := range n {
		s := GroupedSeries{Name: fmt.Sprintf("m%02d", i)}
		if fam && i < 3 {
			s.Group = "cnn"
		}
		for k := range c.Categories {
			s.Values = append(s.Values, 0.35+0.6*float64((i*7+k*3)%n+1)/float64(n+1))
		}
		if i == 0 {
			s.CI95 = []*Interval{{0.3, 0.5}, nil, {0.6, 0.9}}
		}
		c.Series = append(c.Series, s)
	}
	return c
}

// TestGroupedFewSeriesUnchanged: a chart whose series need no more than
// the palette's colours is drawn exactly as before hatching existed
// (goldens written by the code of commit e9292d7), without pattern defs.
func TestGroupedFewSeriesUnchanged(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    GroupedChart
	}{{"grouped6", groupedSample(6, false)}, {"grouped8fam", groupedSample(8, true)}} {
		var buf bytes.Buffer
		if err := GroupedSVG(&buf, tc.c); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(buf.Bytes(), []byte("<pattern")) || bytes.Contains(buf.Bytes(), []byte("url(#")) {
			t.Errorf("%s: pattern in a chart of few series", tc.name)
		}
		golden(t, tc.name+".svg.golden", buf.Bytes())
		buf.Reset()
		w, h := GroupedSize(tc.c)
		if err := GroupedPNG(&buf, tc.c, w, h); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", tc.name+".png.golden")
		if *update {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := png.Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if d := pixelsDiffer(got, want); d != 0 {
			t.Errorf("%s: %d pixels differ from %s", tc.name, d, path)
		}
	}
}

// pixelsDiffer counts the pixels where a and b differ (all of them when
// their sizes do).
func pixelsDiffer(a, b image.Image) int {
	if a.Bounds() != b.Bounds() {
		return math.MaxInt
	}
	n := 0
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, a1 := a.At(x, y).RGBA()
			r2, g2, b2, a2 := b.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				n++
			}
		}
	}
	return n
}
