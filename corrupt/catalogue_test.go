package corrupt

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

var update = flag.Bool("update", false, "rewrite testdata/golden checksums")

// required are the names the catalogue must contain (issue contract).
var required = strings.Fields(`gaussian_noise shot_noise impulse_noise uniform_noise blur median_blur
	gaussian_blur glass_blur defocus_blur motion_blur brightness frost hue_saturation_value
	color_jitter rgb_shift contrast jpeg_compression`)

func TestRequiredCorruptionsPresent(t *testing.T) {
	for _, n := range required {
		if _, err := Lookup(n); err != nil {
			t.Errorf("missing corruption: %v", err)
		}
	}
}

// mid returns a parameter vector at the middle of every domain (rounded to a
// valid value for integer kinds): the analogue of the reference's index 500.
func mid(c *Corruption) []float64 {
	p := make([]float64, len(c.Params))
	for i, d := range c.Params {
		p[i] = snap(d, (d.Min+d.Max)/2)
	}
	return p
}

// snap rounds v to the nearest valid value of d.
func snap(d Param, v float64) float64 {
	switch d.Kind {
	case Integer:
		v = math.Round(v)
	case Odd:
		v = 2*math.Floor(v/2) + 1
		if v > d.Max {
			v -= 2
		}
		if v < d.Min {
			v += 2
		}
	}
	return math.Max(d.Min, math.Min(d.Max, v))
}

var img64 = testimg.Natural(64, 48, 3)

func apply(c *Corruption, src *imageio.Image, p []float64, seed, index uint64) *imageio.Image {
	dst := imageio.New(src.Width, src.Height)
	c.Apply(dst, src, p, NewRand(seed, index))
	return dst
}

func TestDeterministicAndInRange(t *testing.T) {
	for _, c := range All() {
		t.Run(c.Name, func(t *testing.T) {
			for i := range uint64(4) {
				p := c.Sample(NewRand(1, i))
				if err := c.Check(p); err != nil {
					t.Fatalf("sampled parameters fail Check: %v", err)
				}
				a := apply(c, img64, p, 7, i)
				b := apply(c, img64, p, 7, i)
				if imageio.MaxAbsDiff(a, b) != 0 {
					t.Fatalf("params %v: two runs with the same seed differ", p)
				}
				if a.Width != img64.Width || a.Height != img64.Height {
					t.Fatalf("size changed to %dx%d", a.Width, a.Height)
				}
				for ch := range 3 {
					for k, v := range a.Ch[ch] {
						if !(v >= 0 && v <= 1) {
							t.Fatalf("params %v: sample %d of channel %d = %v, outside [0,1]", p, k, ch, v)
						}
					}
				}
			}
		})
	}
}

func TestIdentity(t *testing.T) {
	for _, c := range All() {
		if c.Identity == nil {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			out := apply(c, img64, c.Identity, 1, 0)
			// Within 8-bit rounding of the input.
			if d := imageio.MaxAbsDiff(out, img64); d > 1.0/255+1e-6 {
				t.Errorf("identity params %v: max |out − in| = %v (%.2f/255)", c.Identity, d, d*255)
			}
		})
	}
}

// TestSweepIncreasesChange checks, for every monotone parameter, that the
// mean squared difference to the original grows on average along the
// parameter's Trend, other parameters held at mid-domain.
func TestSweepIncreasesChange(t *testing.T) {
	src := testimg.Natural(96, 80, 11)
	const steps = 7
	for _, c := range All() {
		for pi, d := range c.Params {
			if d.Trend == 0 || d.Min == d.Max {
				continue
			}
			t.Run(c.Name+"/"+d.Name, func(t *testing.T) {
				var mse [steps]float64
				for s := range steps {
					p := mid(c)
					p[pi] = snap(d, d.Min+(d.Max-d.Min)*float64(s)/(steps-1))
					for seed := range uint64(3) {
						mse[s] += imageio.MeanSquaredDiff(apply(c, src, p, seed, 0), src)
					}
				}
				if d.Trend < 0 {
					for i, j := 0, steps-1; i < j; i, j = i+1, j-1 {
						mse[i], mse[j] = mse[j], mse[i]
					}
				}
				up := 0
				for s := 1; s < steps; s++ {
					if mse[s] >= mse[s-1] {
						up++
					}
				}
				if !(mse[steps-1] > mse[0]) || up < (steps-1)*2/3 {
					t.Errorf("MSE along %s (trend %+d) does not grow: %v", d.Name, d.Trend, mse)
				}
			})
		}
	}
}

// TestGolden guards every corruption against accidental change: the SHA-256
// of the 8-bit output at mid-domain parameters, seed 42, on a generated image.
// Regenerate with go test ./corrupt -run Golden -update and review the diff.
func TestGolden(t *testing.T) {
	src := testimg.Natural(80, 64, 5)
	for _, c := range All() {
		t.Run(c.Name, func(t *testing.T) {
			out := apply(c, src, mid(c), 42, 0)
			h := sha256.New()
			h.Write(out.NRGBA(imageio.Round).Pix)
			got := hex.EncodeToString(h.Sum(nil))
			path := filepath.Join("testdata", "golden", c.Name+".sha256")
			if *update {
				if err := os.WriteFile(path, []byte(got+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("no golden checksum (run with -update): %v", err)
			}
			if strings.TrimSpace(string(want)) != got {
				t.Errorf("output changed: sha256 %s, golden %s", got, strings.TrimSpace(string(want)))
			}
		})
	}
}

func TestLookupSuggests(t *testing.T) {
	_, err := Lookup("gausian_noise")
	if err == nil || !strings.Contains(err.Error(), "gaussian_noise") {
		t.Errorf("Lookup(gausian_noise) error %v should suggest gaussian_noise", err)
	}
	if c, err := Lookup("Gaussian-Noise"); err != nil || c.Name != "gaussian_noise" {
		t.Errorf("Lookup normalises case and dashes: %v", err)
	}
	if c, err := Lookup("RGB"); err != nil || c.Name != "rgb_shift" {
		t.Errorf("Lookup(RGB) (the ICSE data's name) = %v, %v", c, err)
	}
	for typed, want := range map[string]string{"gausian": "gaussian_", "motion": "motion_blur", "frosty": "frost"} {
		if _, err := Lookup(typed); err == nil || !strings.Contains(err.Error(), "did you mean "+want) {
			t.Errorf("Lookup(%q) error %v should first suggest %s", typed, err, want)
		}
	}
}

func TestParseParams(t *testing.T) {
	c, err := Lookup("gaussian_noise")
	if err != nil {
		t.Skip(err)
	}
	d := c.Params[0]
	for _, tc := range []struct {
		in      []string
		wantErr string
	}{
		{[]string{d.Name + "=" + fmtNum(d.Max)}, ""},
		{[]string{d.Name + "=" + fmtNum(d.Max+1)}, "outside its domain"},
		{[]string{"nope=1"}, "no parameter"},
		{[]string{d.Name}, "name=value"},
		{[]string{d.Name + "=abc"}, "not a finite number"},
		{[]string{d.Name + "=NaN"}, "not a finite number"},
		{[]string{d.Name + "=0.1", d.Name + "=0.2"}, "twice"},
	} {
		_, err := c.ParseParams(tc.in, NewRand(1, 1))
		if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("ParseParams(%q) error = %v, want %q", tc.in, err, tc.wantErr)
		}
	}
}

func FuzzParseParams(f *testing.F) {
	f.Add("sigma=0.5")
	f.Add("=")
	f.Add("x=1e400")
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range All() {
			p, err := c.ParseParams([]string{s}, NewRand(1, 2))
			if err == nil {
				if cerr := c.Check(p); cerr != nil {
					t.Fatalf("%s: ParseParams(%q) accepted %v but Check says %v", c.Name, s, p, cerr)
				}
			}
		}
	})
}

func TestBorderIndex(t *testing.T) {
	// n = 4: samples a b c d at 0…3.
	for _, tc := range []struct {
		b    Border
		want []int // indices for i = -3 … 6
	}{
		{Replicate, []int{0, 0, 0, 0, 1, 2, 3, 3, 3, 3}},
		{Reflect101, []int{3, 2, 1, 0, 1, 2, 3, 2, 1, 0}},
		{Symmetric, []int{2, 1, 0, 0, 1, 2, 3, 3, 2, 1}},
		{Wrap, []int{1, 2, 3, 0, 1, 2, 3, 0, 1, 2}},
	} {
		for k, w := range tc.want {
			if got := borderIndex(k-3, 4, tc.b); got != w {
				t.Errorf("border %d: index(%d) = %d, want %d", tc.b, k-3, got, w)
			}
		}
	}
}

// BenchmarkCorruptions times every corruption on a 224×224 RGB image at
// mid-domain parameters (the reference timings use index 500 of 1000).
func BenchmarkCorruptions(b *testing.B) { benchCorruptions(b, 224, 224) }

// BenchmarkCorruptions500x375 is BenchmarkCorruptions at 500×375, the
// larger image size of issue 18's generate throughput targets.
func BenchmarkCorruptions500x375(b *testing.B) { benchCorruptions(b, 500, 375) }

// BenchmarkDefocusFold times defocus_blur at radius 9, where the kernel's
// fold correction (r ≥ 7, a third of the domain) runs, at 224×224 and
// 500×375.
func BenchmarkDefocusFold(b *testing.B) {
	c, err := Lookup("defocus_blur")
	if err != nil {
		b.Fatal(err)
	}
	for _, sz := range [][2]int{{224, 224}, {500, 375}} {
		src := testimg.Natural(sz[0], sz[1], 1)
		dst := imageio.New(sz[0], sz[1])
		b.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(b *testing.B) {
			rng := NewRand(1, 0)
			for b.Loop() {
				c.Apply(dst, src, []float64{9, 0.5}, rng)
			}
		})
	}
}

func benchCorruptions(b *testing.B, w, h int) {
	src := testimg.Natural(w, h, 1)
	dst := imageio.New(w, h)
	for _, c := range All() {
		b.Run(c.Name, func(b *testing.B) {
			p := mid(c)
			rng := NewRand(1, 0)
			b.ReportAllocs()
			for b.Loop() {
				c.Apply(dst, src, p, rng)
			}
		})
	}
}

// TestTargetRanges checks every widened parameter (Param.TargetMin/Max):
// the change keeps following the declared trend over the whole target
// range (log-spaced when TargetLog), so the wider values are the same
// operation, weaker or stronger; CheckTarget and Extended accept the target
// range and Check does not.
func TestTargetRanges(t *testing.T) {
	src := testimg.Natural(96, 80, 11)
	const steps = 9
	widened := 0
	for _, c := range All() {
		if err := c.CheckTarget(mid(c)); err != nil {
			t.Errorf("%s: CheckTarget rejects mid-domain: %v", c.Name, err)
		}
		for pi, d := range c.Params {
			if !d.Widened() {
				continue
			}
			widened++
			tr := d.Target()
			t.Run(c.Name+"/"+d.Name, func(t *testing.T) {
				if d.Trend == 0 {
					t.Fatalf("widened parameter without trend")
				}
				at := func(s int) float64 {
					f := float64(s) / (steps - 1)
					if d.TargetLog {
						return tr.Min * math.Pow(tr.Max/tr.Min, f)
					}
					return tr.Min + (tr.Max-tr.Min)*f
				}
				for _, v := range []float64{tr.Min, tr.Max} {
					p := mid(c)
					p[pi] = v
					if err := c.CheckTarget(p); err != nil {
						t.Errorf("CheckTarget(%v): %v", p, err)
					}
					if err := c.Extended().Check(p); err != nil {
						t.Errorf("Extended().Check(%v): %v", p, err)
					}
					if d.Contains(v) {
						continue
					}
					if c.Check(p) == nil {
						t.Errorf("Check accepts %v outside the published domain", p)
					}
					if _, err := c.ParseParams([]string{fmt.Sprintf("%s=%v", d.Name, v)}, NewRand(1, 1)); err == nil {
						t.Errorf("ParseParams accepts %s=%v", d.Name, v)
					}
					if _, err := c.Extended().ParseParams([]string{fmt.Sprintf("%s=%v", d.Name, v)}, NewRand(1, 1)); err != nil {
						t.Errorf("Extended().ParseParams: %v", err)
					}
				}
				var mse [steps]float64
				for s := range steps {
					p := mid(c)
					p[pi] = at(s)
					for seed := range uint64(3) {
						mse[s] += imageio.MeanSquaredDiff(apply(c, src, p, seed, 0), src)
					}
				}
				if d.Trend < 0 {
					for i, j := 0, steps-1; i < j; i, j = i+1, j-1 {
						mse[i], mse[j] = mse[j], mse[i]
					}
				}
				up := 0
				for s := 1; s < steps; s++ {
					if mse[s] >= mse[s-1] {
						up++
					}
				}
				if !(mse[steps-1] > mse[0]) || up < (steps-1)*2/3 {
					t.Errorf("MSE along %s's target range (trend %+d) does not grow: %v", d.Name, d.Trend, mse)
				}
			})
		}
	}
	if widened == 0 {
		t.Error("no parameter has a target range")
	}
}
