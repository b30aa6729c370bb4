package corrupt

import (
	"math"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// pixel returns a 1×1 image of the given 8-bit colour.
func pixel(r, g, b uint8) *imageio.Image {
	m := imageio.New(1, 1)
	m.Ch[0][0], m.Ch[1][0], m.Ch[2][0] = imageio.From8(r), imageio.From8(g), imageio.From8(b)
	return m
}

func rgb8(m *imageio.Image, i int) [3]uint8 {
	return [3]uint8{imageio.To8(m.Ch[0][i], imageio.Round), imageio.To8(m.Ch[1][i], imageio.Round), imageio.To8(m.Ch[2][i], imageio.Round)}
}

// TestSkimageHSVRoundTrip converts every 8-bit colour to HSV and back.
func TestSkimageHSVRoundTrip(t *testing.T) {
	step := 1
	if testing.Short() {
		step = 5
	}
	worst := 0.0
	for r := 0; r < 256; r += step {
		for g := 0; g < 256; g += step {
			for b := 0; b < 256; b += step {
				R, G, B := float64(r)/255, float64(g)/255, float64(b)/255
				h, s, v := skRGBToHSV(R, G, B)
				if !(h >= 0 && h <= 1 && s >= 0 && s <= 1 && v == max(R, G, B)) {
					t.Fatalf("rgb %d,%d,%d: hsv %v,%v,%v out of range", r, g, b, h, s, v)
				}
				r2, g2, b2 := skHSVToRGB(h, s, v)
				worst = max(worst, math.Abs(r2-R), math.Abs(g2-G), math.Abs(b2-B))
			}
		}
	}
	if worst > 1e-12 {
		t.Errorf("HSV round trip error up to %v", worst)
	}
}

// TestSkimageHSVTies checks hues where two channels share the maximum. The
// tie rule (blue over green over red) cannot change the result in IEEE
// arithmetic: every candidate formula reduces to ±(x − y)/(x − y) = ±1
// exactly, and an exhaustive search over 8-bit colours and 10⁷ random float
// pairs found no difference; the cases pin the values anyway.
func TestSkimageHSVTies(t *testing.T) {
	for _, tc := range []struct {
		r, g, b float64
		want    float64 // hue from the formula of the winning channel
	}{
		// Red and green tie: green's formula 2 + (B − R)/Δ.
		{0.7, 0.7, 0.1, (2 + (0.1-0.7)/(0.7-0.1)) / 6},
		// Green and blue tie: blue's 4 + (R − G)/Δ.
		{0.1, 0.7, 0.7, (4 + (0.1-0.7)/(0.7-0.1)) / 6},
		// Red and blue tie: blue's.
		{0.9, 0.3, 0.9, (4 + (0.9-0.3)/(0.9-0.3)) / 6},
		// Red maximum with G < B: negative, wrapped by numpy's remainder.
		{0.9, 0.3, 0.4, 1 + (0.3-0.4)/(0.9-0.3)/6},
		// Grey: hue and saturation 0.
		{0.4, 0.4, 0.4, 0},
	} {
		h, _, _ := skRGBToHSV(tc.r, tc.g, tc.b)
		if h != tc.want {
			t.Errorf("hue(%v, %v, %v) = %v, want %v", tc.r, tc.g, tc.b, h, tc.want)
		}
	}
	// A hue of exactly 1 (from a wrapped −ε) maps to sector 0 like 0.
	r, g, b := skHSVToRGB(1, 0.5, 0.8)
	if r != 0.8 || g != 0.4 || b != 0.4 {
		t.Errorf("hsv2rgb(1, .5, .8) = %v %v %v, want .8 .4 .4", r, g, b)
	}
}

func TestBrightnessSaturateValues(t *testing.T) {
	br, _ := Lookup("brightness")
	sa, _ := Lookup("saturate")
	set := func(r, g, b float32) *imageio.Image {
		m := imageio.New(1, 1)
		m.Ch[0][0], m.Ch[1][0], m.Ch[2][0] = r, g, b
		return m
	}
	for _, tc := range []struct {
		c     *Corruption
		p     []float64
		in    [3]float32
		want  [3]float64
		label string
	}{
		// V .5 → .75 keeps H = 1/12 and S = 1: (.75, .375, 0).
		{br, []float64{0.25}, [3]float32{0.5, 0.25, 0}, [3]float64{0.75, 0.375, 0}, "brightness hue 1/12"},
		{br, []float64{0.2}, [3]float32{0.5, 0.5, 0.5}, [3]float64{0.7, 0.7, 0.7}, "brightness grey"},
		{br, []float64{1}, [3]float32{0.5, 0.25, 0}, [3]float64{1, 0.5, 0}, "brightness V clipped to 1"},
		// S .75 → .375; H = 1/18 gives sector 0 with f = 1/3: p = .5, t = .6.
		{sa, []float64{0.5, 0}, [3]float32{0.8, 0.4, 0.2}, [3]float64{0.8, 0.6, 0.5}, "saturate ×.5"},
		{sa, []float64{0, 0}, [3]float32{0.8, 0.4, 0.2}, [3]float64{0.8, 0.8, 0.8}, "saturate ×0 is grey V"},
		// Grey has H = 0, so adding saturation tints towards red: S = .2 gives (.5, .4, .4).
		{sa, []float64{5, 0.2}, [3]float32{0.5, 0.5, 0.5}, [3]float64{0.5, 0.4, 0.4}, "saturate grey + .2"},
	} {
		in := set(tc.in[0], tc.in[1], tc.in[2])
		out := apply(tc.c, in, tc.p, 1, 0)
		for ch := range 3 {
			if math.Abs(float64(out.Ch[ch][0])-tc.want[ch]) > 1e-6 {
				t.Errorf("%s: got %v %v %v, want %v", tc.label, out.Ch[0][0], out.Ch[1][0], out.Ch[2][0], tc.want)
				break
			}
		}
	}
}

func TestContrast(t *testing.T) {
	c, _ := Lookup("contrast")
	src := testimg.Natural(64, 48, 2)
	for _, k := range []float64{0.01, 0.3, 0.9, 1} {
		out := apply(c, src, []float64{k}, 1, 0)
		for ch := range 3 {
			// Slow reference in float64: (u − m)·c + m, clipped.
			var m float64
			for _, v := range src.Ch[ch] {
				m += float64(v)
			}
			m /= float64(len(src.Ch[ch]))
			var got float64
			for i, v := range src.Ch[ch] {
				want := math.Min(math.Max((float64(v)-m)*k+m, 0), 1)
				if d := math.Abs(float64(out.Ch[ch][i]) - want); d > 1e-6 {
					t.Fatalf("c %v channel %d sample %d: %v, want %v", k, ch, i, out.Ch[ch][i], want)
				}
				got += float64(out.Ch[ch][i])
			}
			// c ≤ 1 moves samples towards the mean without clipping, so the mean stays.
			if got /= float64(len(src.Ch[ch])); math.Abs(got-m) > 1e-6 {
				t.Errorf("c %v channel %d: mean %v, want %v", k, ch, got, m)
			}
		}
	}
}

// TestOpenCVRGBToHSV compares the fixed-point conversion with the exact
// formula (OpenCV documentation: V = max, S = 255·Δ/V, H = 30·h6 with h6 in
// [0, 6)) for every 8-bit colour: the table reciprocals may round the other
// way, so results agree within 1, and most exactly.
func TestOpenCVRGBToHSV(t *testing.T) {
	step := 1
	if testing.Short() {
		step = 3
	}
	n, exact := 0, 0
	for r := 0; r < 256; r += step {
		for g := 0; g < 256; g += step {
			for b := 0; b < 256; b += step {
				h, s, v := cvRGBToHSV8(uint8(r), uint8(g), uint8(b))
				R, G, B := float64(r), float64(g), float64(b)
				V := max(R, G, B)
				d := V - min(R, G, B)
				var S, H float64
				if V > 0 {
					S = 255 * d / V
				}
				if d > 0 {
					switch V {
					case R:
						H = (G - B) / d
					case G:
						H = 2 + (B-R)/d
					default:
						H = 4 + (R-G)/d
					}
					H *= 30
					if H < 0 {
						H += 180
					}
				}
				dh := math.Abs(float64(h) - H)
				dh = math.Min(dh, 180-dh)
				if int(v) != int(V) || math.Abs(float64(s)-S) > 1 || dh > 1 || h >= 180 {
					t.Fatalf("rgb %d,%d,%d: hsv %d,%d,%d, formula %.2f,%.2f,%v", r, g, b, h, s, v, H, S, V)
				}
				n++
				if float64(s) == math.Round(S) && (dh < 0.5 || 180-dh < 0.5) {
					exact++
				}
			}
		}
	}
	if float64(exact) < 0.9*float64(n) {
		t.Errorf("only %d of %d conversions equal the rounded formula", exact, n)
	}
	for _, tc := range []struct{ r, g, b, h, s, v uint8 }{
		{255, 0, 0, 0, 255, 255}, {0, 255, 0, 60, 255, 255}, {0, 0, 255, 120, 255, 255},
		{255, 255, 0, 30, 255, 255}, {0, 255, 255, 90, 255, 255}, {255, 0, 255, 150, 255, 255},
		{255, 255, 255, 0, 0, 255}, {0, 0, 0, 0, 0, 0}, {128, 128, 128, 0, 0, 128},
		// S = 100·round(1044480/200) = 100·5222, +2048, >>12 = 127 (the exact 127.5 would round to 128).
		{100, 150, 200, 105, 127, 200},
	} {
		h, s, v := cvRGBToHSV8(tc.r, tc.g, tc.b)
		if h != tc.h || s != tc.s || v != tc.v {
			t.Errorf("RGB2HSV(%d,%d,%d) = %d,%d,%d, want %d,%d,%d", tc.r, tc.g, tc.b, h, s, v, tc.h, tc.s, tc.v)
		}
	}
}

// TestOpenCVHSVToRGB compares the float32 conversion with the exact formula
// in float64 for every 8-bit HSV triple (H < 180).
func TestOpenCVHSVToRGB(t *testing.T) {
	step := 1
	if testing.Short() {
		step = 3
	}
	for h := 0; h < 180; h += step {
		for s := 0; s < 256; s += step {
			for v := 0; v < 256; v += step {
				r, g, b := cvHSVToRGB8(uint8(h), uint8(s), uint8(v))
				H, S, V := float64(h)/30, float64(s)/255, float64(v)/255
				sec := math.Floor(H)
				f := H - sec
				p, q, tt := V*(1-S), V*(1-f*S), V*(1-(1-f)*S)
				want := [6][3]float64{{V, tt, p}, {q, V, p}, {p, V, tt}, {p, q, V}, {tt, p, V}, {V, p, q}}[int(sec)]
				for i, got := range [3]uint8{r, g, b} {
					if math.Abs(float64(got)-255*want[i]) > 0.5+1e-4 {
						t.Fatalf("HSV2RGB(%d,%d,%d) = %d,%d,%d, formula %v", h, s, v, r, g, b, want)
					}
				}
			}
		}
	}
	// Greys and primaries come back exactly.
	for k := range 256 {
		for _, c := range [][3]uint8{{uint8(k), uint8(k), uint8(k)}, {uint8(k), 0, 0}, {0, uint8(k), 0}, {0, 0, uint8(k)}} {
			h, s, v := cvRGBToHSV8(c[0], c[1], c[2])
			if r, g, b := cvHSVToRGB8(h, s, v); [3]uint8{r, g, b} != c {
				t.Errorf("round trip %v → %d,%d,%d → %d,%d,%d", c, h, s, v, r, g, b)
			}
		}
	}
}

func TestHueSaturationValueValues(t *testing.T) {
	c, _ := Lookup("hue_saturation_value")
	for _, tc := range []struct {
		in   [3]uint8
		p    []float64
		want [3]uint8
	}{
		{[3]uint8{100, 100, 100}, []float64{0, 0, 50}, [3]uint8{150, 150, 150}},
		{[3]uint8{100, 100, 100}, []float64{0, 0, 50.9}, [3]uint8{150, 150, 150}}, // truncated
		{[3]uint8{250, 250, 250}, []float64{0, 0, 50}, [3]uint8{255, 255, 255}},   // clipped
		{[3]uint8{255, 0, 0}, []float64{60, 0, 0}, [3]uint8{0, 255, 0}},           // H 0 → 60: green
		{[3]uint8{255, 0, 0}, []float64{60.9, 0, 0}, [3]uint8{0, 255, 0}},         // truncated to 60
		{[3]uint8{255, 0, 0}, []float64{-120, 0, 0}, [3]uint8{0, 255, 0}},         // (0 − 120) mod 180 = 60
		{[3]uint8{255, 0, 0}, []float64{0, -100, 0}, [3]uint8{255, 100, 100}},     // S 255 → 155
		{[3]uint8{255, 0, 0}, []float64{0, -100, -100}, [3]uint8{155, 61, 61}},    // V 155: 155·(1 − 155/255) = 60.8
		{[3]uint8{12, 34, 56}, []float64{0, 0, 0}, [3]uint8{12, 34, 56}},          // all zero: untouched
	} {
		out := apply(c, pixel(tc.in[0], tc.in[1], tc.in[2]), tc.p, 1, 0)
		if got := rgb8(out, 0); got != tc.want {
			t.Errorf("%v with shifts %v = %v, want %v", tc.in, tc.p, got, tc.want)
		}
	}
	// Tables: numpy's remainder then truncation.
	if l := colourHueLUT(-0.5); l[0] != 179 || l[1] != 0 || l[179] != 178 {
		t.Errorf("hue table for −0.5: %d %d %d, want 179 0 178", l[0], l[1], l[179])
	}
	if l := colourClipLUT(20.7); l[10] != 30 || l[250] != 255 {
		t.Errorf("clip table for 20.7: %d %d, want 30 255", l[10], l[250])
	}
}

func TestRGBShiftValues(t *testing.T) {
	c, _ := Lookup("rgb_shift")
	for _, tc := range []struct {
		in   [3]uint8
		p    []float64
		want [3]uint8
	}{
		// float32 k + shift, clipped, truncated.
		{[3]uint8{100, 100, 100}, []float64{20.7, -20.7, 0.5}, [3]uint8{120, 79, 100}},
		{[3]uint8{100, 10, 250}, []float64{200, -200, 10}, [3]uint8{255, 0, 255}},
		{[3]uint8{0, 255, 128}, []float64{-0.5, 0.99, -128}, [3]uint8{0, 255, 0}},
	} {
		out := apply(c, pixel(tc.in[0], tc.in[1], tc.in[2]), tc.p, 1, 0)
		if got := rgb8(out, 0); got != tc.want {
			t.Errorf("%v shifted by %v = %v, want %v", tc.in, tc.p, got, tc.want)
		}
	}
}

// planes builds 8-bit planes from pixels.
func planes(px ...[3]uint8) [3][]uint8 {
	var pl [3][]uint8
	for _, p := range px {
		for c := range 3 {
			pl[c] = append(pl[c], p[c])
		}
	}
	return pl
}

func TestColorJitterOps(t *testing.T) {
	check := func(name string, pl [3][]uint8, want ...[3]uint8) {
		t.Helper()
		for i, w := range want {
			if got := [3]uint8{pl[0][i], pl[1][i], pl[2][i]}; got != w {
				t.Errorf("%s: pixel %d = %v, want %v", name, i, got, w)
			}
		}
	}
	pl := planes([3]uint8{255, 3, 100})
	jitterBrightness(pl, 0.5) // 127.5 → 127, 1.5 → 1, 50
	check("brightness .5", pl, [3]uint8{127, 1, 50})
	pl = planes([3]uint8{200, 100, 0})
	jitterBrightness(pl, 2)
	check("brightness 2", pl, [3]uint8{255, 200, 0})

	// Grey mean of black and (200,200,200) is 100.
	pl = planes([3]uint8{0, 0, 0}, [3]uint8{200, 200, 200})
	jitterContrast(pl, 0.5)
	check("contrast .5", pl, [3]uint8{50, 50, 50}, [3]uint8{150, 150, 150})
	pl = planes([3]uint8{0, 0, 0}, [3]uint8{201, 201, 201})
	jitterContrast(pl, 0) // mean 100.5 → int(101.0) = 101
	check("contrast 0", pl, [3]uint8{101, 101, 101}, [3]uint8{101, 101, 101})

	// Grey of (200, 100, 0) = (9798·200 + 19235·100 + 16384) >> 15 = 119.
	pl = planes([3]uint8{200, 100, 0})
	jitterSaturation(pl, 0)
	check("saturation 0", pl, [3]uint8{119, 119, 119})
	pl = planes([3]uint8{200, 100, 0})
	jitterSaturation(pl, 2) // 2v − 119: 281 → 255, 81, −119 → 0
	check("saturation 2", pl, [3]uint8{255, 81, 0})
	pl = planes([3]uint8{200, 100, 0})
	jitterSaturation(pl, 0.5) // (v + 119)/2: 159.5 → 160 (half to even), 109.5 → 110, 59.5 → 60
	check("saturation .5", pl, [3]uint8{160, 110, 60})

	pl = planes([3]uint8{255, 0, 0})
	jitterHue(pl, 1.0/3) // H 0 + 60 → green
	check("hue 1/3", pl, [3]uint8{0, 255, 0})
	pl = planes([3]uint8{255, 0, 0})
	jitterHue(pl, -1) // a full turn back: unchanged
	check("hue −1", pl, [3]uint8{255, 0, 0})
}

func TestColorJitterOrderFromRng(t *testing.T) {
	c, _ := Lookup("color_jitter")
	src := testimg.Natural(32, 24, 4)
	// Brightness 2 and contrast 0.3 do not commute, so different orders show.
	p := []float64{2, 0.3, 1, 0}
	seen := map[[32]byte]bool{}
	for seed := range uint64(16) {
		out := apply(c, src, p, seed, 0)
		var key [32]byte
		for i := range key {
			key[i] = imageio.To8(out.Ch[0][i*7], imageio.Round)
		}
		seen[key] = true
	}
	if len(seen) != 2 {
		t.Errorf("16 seeds gave %d distinct results, want the 2 orders of brightness and contrast", len(seen))
	}
}

func TestColourTo8(t *testing.T) {
	vals := []float32{0, 1, -0, -1e-9, -0.5, -1e30, 1e30, 2, 0.5, float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}
	for k := range 256 {
		for _, d := range []float32{-2e-3, -1e-7, 0, 1e-7, 2e-3} {
			vals = append(vals, float32(k)/255+d, (float32(k)+0.5)/255+d)
		}
	}
	for _, v := range vals {
		if got, want := colourTo8(v), imageio.To8(v, imageio.Round); got != want {
			t.Errorf("colourTo8(%v) = %d, imageio.To8 = %d", v, got, want)
		}
	}
}
