package corrupt

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
	"path"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
	"github.com/vcr-bench/vcr/iqa"
)

// refFrostTexture decodes an embedded texture file the way ImageNet-C's
// cv2.imread(filename)[..., [2, 1, 0]] gives it: 8-bit R, G, B rows, the
// PNGs' alpha dropped (the stored colour kept), decoded here with the
// standard library directly rather than through imageio.
func refFrostTexture(t testing.TB, name string) (pix []uint8, w, h int) {
	data, err := frostFiles.ReadFile("frostdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var m image.Image
	if path.Ext(name) == ".png" {
		m, err = png.Decode(bytes.NewReader(data))
	} else {
		m, err = jpeg.Decode(bytes.NewReader(data))
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b := m.Bounds()
	w, h = b.Dx(), b.Dy()
	pix = make([]uint8, 3*w*h)
	for y := range h {
		for x := range w {
			var r, g, bl uint8
			switch mm := m.(type) {
			case *image.NRGBA:
				o := mm.PixOffset(b.Min.X+x, b.Min.Y+y)
				r, g, bl = mm.Pix[o], mm.Pix[o+1], mm.Pix[o+2]
			default:
				r32, g32, b32, _ := m.At(b.Min.X+x, b.Min.Y+y).RGBA()
				r, g, bl = uint8(r32>>8), uint8(g32>>8), uint8(b32>>8)
			}
			pix[3*(y*w+x)], pix[3*(y*w+x)+1], pix[3*(y*w+x)+2] = r, g, bl
		}
	}
	return pix, w, h
}

// refFrost is ImageNet-C's frost (make_imagenet_c.py) on a 224×224 8-bit
// image x: idx = randint(5); a 224×224 crop at x_start = randint(0, h −
// 224) (rows), y_start = randint(0, w − 224); np.uint8(clip(s·x + t·frost,
// 0, 255)).
func refFrost(x *imageio.Image, s, tc float64, tex [5][]uint8, tw, th [5]int, rng *rand.Rand) *imageio.Image {
	const side = 224
	k := rng.IntN(5)
	y0 := rng.IntN(th[k] - side)
	x0 := rng.IntN(tw[k] - side)
	out := imageio.New(side, side)
	for c := range 3 {
		for y := range side {
			for xx := range side {
				u := math.Round(float64(x.Ch[c][y*side+xx]) * 255) // x is 8-bit already
				f := float64(tex[k][3*((y0+y)*tw[k]+x0+xx)+c])
				v := math.Trunc(math.Min(255, math.Max(0, s*u+tc*f)))
				out.Ch[c][y*side+xx] = float32(v / 255)
			}
		}
	}
	return out
}

// round8 returns m rounded to 8 bit, as vcr generate stores it.
func round8(m *imageio.Image) *imageio.Image {
	q := imageio.New(m.Width, m.Height)
	for c := range 3 {
		for i, v := range m.Ch[c] {
			q.Ch[c][i] = float32(math.Round(float64(v)*255) / 255)
		}
	}
	return q
}

// TestFrostMatchesImageNetC checks that the default frost is ImageNet-C's,
// by distribution: 200 draws (8 generated 224×224 images × the five
// severities), each scored with Δv (vcr-py) after 8-bit rounding.
//
//   - Paired: ImageNet-C's frost computed the way make_imagenet_c.py does
//     it (refFrost, from the embedded files decoded with the standard
//     library) with the texture and crop drawn from the same random stream
//     as vcr's draw (common random numbers): the mean Δv of the catalogue's
//     frost must equal the reference's within 0.005.
//   - Independent: refFrost with its own random stream; the two means must
//     agree within 4 standard errors of their difference (texture choice
//     and crop make its standard error about 0.009 at 200 draws), which
//     checks vcr's texture and crop draws as well.
//
// The procedural textures, kept as an option, must give valid Δv measurably
// lower than ImageNet-C's (by more than 0.01 in the paired mean): the reason
// the ImageNet-C files are the default.
func TestFrostMatchesImageNetC(t *testing.T) {
	if testing.Short() {
		t.Skip("800 VIF scores")
	}
	var tex [5][]uint8
	var tw, th [5]int
	for k, name := range frostFileNames {
		tex[k], tw[k], th[k] = refFrostTexture(t, name)
	}
	def, err := Lookup("frost")
	if err != nil {
		t.Fatal(err)
	}
	if def.Textures != FrostImageNetC {
		t.Fatalf("default frost Textures = %q, want %q", def.Textures, FrostImageNetC)
	}
	proc := NewProceduralFrost()
	const draws, nimg = 200, 8
	imgs := make([]*imageio.Image, nimg)
	for i := range imgs {
		imgs[i] = round8(testimg.Natural(224, 224, uint64(100+i)))
	}
	sc := iqa.NewScorer(iqa.VCRPy)
	dv := func(ref, dist *imageio.Image) float64 {
		r, err := sc.Score(iqa.GrayFrom(ref), iqa.GrayFrom(dist))
		if err != nil {
			t.Fatal(err)
		}
		return r.DV
	}
	indRng := rand.New(rand.NewPCG(2019, 7))
	var def_, pair, ind, procv []float64
	dst := imageio.New(224, 224)
	for i := range draws {
		x := imgs[i%nimg]
		sev := def.Severities[i%5]
		def.Apply(dst, x, sev, NewRand(11, uint64(i)))
		def_ = append(def_, dv(x, round8(dst)))
		pair = append(pair, dv(x, refFrost(x, sev[0], sev[1], tex, tw, th, NewRand(11, uint64(i)))))
		ind = append(ind, dv(x, refFrost(x, sev[0], sev[1], tex, tw, th, indRng)))
		proc.Apply(dst, x, sev, NewRand(11, uint64(i)))
		procv = append(procv, dv(x, round8(dst)))
	}
	meanVar := func(v []float64) (m, s2 float64) {
		for _, x := range v {
			m += x
		}
		m /= float64(len(v))
		for _, x := range v {
			s2 += (x - m) * (x - m)
		}
		return m, s2 / float64(len(v)-1)
	}
	mDef, vDef := meanVar(def_)
	mPair, _ := meanVar(pair)
	mInd, vInd := meanVar(ind)
	mProc, _ := meanVar(procv)
	se := math.Sqrt(vDef/draws + vInd/draws)
	t.Logf("mean Δv over %d draws: default (embedded) %.4f; ImageNet-C paired %.4f (diff %+.4f), independent %.4f (diff %+.4f, SE %.4f, z %+.2f); procedural %.4f (diff to paired %+.4f)",
		draws, mDef, mPair, mDef-mPair, mInd, mDef-mInd, se, (mDef-mInd)/se, mProc, mProc-mPair)
	if d := math.Abs(mDef - mPair); d > 0.005 {
		t.Errorf("default frost: mean Δv %.4f, ImageNet-C %.4f (same draws): differ by %.4f > 0.005", mDef, mPair, d)
	}
	if z := (mDef - mInd) / se; math.Abs(z) > 4 {
		t.Errorf("default frost: mean Δv %.4f, ImageNet-C %.4f (independent draws): z = %.2f", mDef, mInd, z)
	}
	if !(mProc > 0 && mProc < mPair-0.01) {
		t.Errorf("procedural frost: mean Δv %.4f, want valid and below ImageNet-C's %.4f by more than 0.01", mProc, mPair)
	}
}

// TestFrostDefaultPixels checks one draw of the default frost pixel by
// pixel against refFrost with the same texture and crop: the embedded
// files decode to the bytes ImageNet-C reads (within JPEG decoder
// differences of 2/255) and are blended in RGB order.
func TestFrostDefaultPixels(t *testing.T) {
	var tex [5][]uint8
	var tw, th [5]int
	for k, name := range frostFileNames {
		tex[k], tw[k], th[k] = refFrostTexture(t, name)
	}
	def, _ := Lookup("frost")
	x := round8(testimg.Natural(224, 224, 3))
	for i := range uint64(10) {
		p := []float64{0.6, 0.75}
		got := round8(apply(def, x, p, 5, i))
		// The same draws as frostApply: texture, then row, then column.
		rng := NewRand(5, i)
		k := rng.IntN(5)
		y0, x0 := rng.IntN(th[k]-224), rng.IntN(tw[k]-224)
		var worst float64
		for c := range 3 {
			for y := range 224 {
				for xx := range 224 {
					f := float64(tex[k][3*((y0+y)*tw[k]+x0+xx)+c])
					want := math.Round(math.Min(255, math.Max(0, p[0]*math.Round(float64(x.Ch[c][y*224+xx])*255)+p[1]*f)))
					worst = max(worst, math.Abs(want-math.Round(float64(got.Ch[c][y*224+xx])*255)))
				}
			}
		}
		limit := 1.0 // float32 rounding at .5
		if frostFileNames[k][len(frostFileNames[k])-4:] == "jpeg" {
			limit = 2
		}
		if worst > limit {
			t.Errorf("draw %d (texture %s): max |vcr − ImageNet-C| = %v/255, want ≤ %v", i, frostFileNames[k], worst, limit)
		}
	}
}

// TestFrostTexturesOnce checks that the embedded textures are decoded once
// and shared, with the sizes of frostdata/README.md.
func TestFrostTexturesOnce(t *testing.T) {
	a, b := ImageNetCFrostTextures(), ImageNetCFrostTextures()
	want := [5][2]int{{900, 600}, {560, 315}, {560, 315}, {527, 350}, {660, 495}}
	for k := range a {
		if a[k] != b[k] {
			t.Errorf("texture %d decoded twice", k)
		}
		if a[k].Width != want[k][0] || a[k].Height != want[k][1] {
			t.Errorf("%s is %d×%d, want %d×%d", frostFileNames[k], a[k].Width, a[k].Height, want[k][0], want[k][1])
		}
	}
	if NewProceduralFrost().Textures != FrostProcedural {
		t.Error("NewProceduralFrost: Textures not procedural")
	}
	c1, _ := NewFrost(a[:2])
	c2, _ := NewFrost(a[1:3])
	if c1.Textures == c2.Textures || c1.Textures == "" {
		t.Errorf("NewFrost fingerprints %q and %q of different sets", c1.Textures, c2.Textures)
	}
	if c3, _ := NewFrost(a[:2]); c3.Textures != c1.Textures {
		t.Error("NewFrost fingerprint not deterministic")
	}
}

// BenchmarkFrostTexturesDecode times decoding the five embedded files
// (done once per process).
func BenchmarkFrostTexturesDecode(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, name := range frostFileNames {
			data, _ := frostFiles.ReadFile("frostdata/" + name)
			if _, _, err := imageio.DecodeBytes(data, imageio.Options{MaxPixels: -1}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
