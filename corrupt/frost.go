package corrupt

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/vcr-bench/vcr/imageio"
)

const frostDoc = `Frost: out = clip(scale·x + constant·F, 0, 1), where F is a frost texture of the image's size ` +
	`(Hendrycks & Dietterich 2019, ImageNet-C; corruptions.md §2.19). The texture is drawn uniformly from five (every reference draws np.random.randint(5), so ImageNet-C's sixth file, frost6, is never used), ` +
	`then a crop of the image's size is taken at a uniformly random top-left corner in [0, h−H) × [0, w−W) ` +
	`(ImageNet-C; the corner is 0 along a side where the texture is exactly as large as the image). A texture ` +
	`smaller than the image along either side is first enlarged with bicubic interpolation (OpenCV INTER_CUBIC, ` +
	`a = −0.75) by 1.1 × the larger of the two needed ratios, as bethgelab/imagecorruptions does. ` +
	`The textures are ImageNet-C's own files frost1.png … frost5.jpeg (Apache-2.0, embedded in vcr; alpha dropped, ` +
	`as OpenCV's imread does), so on 224×224 images this is ImageNet-C's frost. The procedurally generated ` +
	`look-alike textures of earlier vcr versions remain available ('--frost-textures procedural', NewProceduralFrost), ` +
	`and any other set can be passed ('--frost-textures DIR', NewFrost). Textures keep RGB order: the VCR toolbox and the ICSE checker resize (not crop) the ` +
	`texture and reverse its channels to B, G, R (the frost tint is colour-swapped); vcr follows ImageNet-C's ` +
	`RGB crop. scale and constant are independent, as in the VCR toolbox (each shuffled separately); the ICSE ` +
	`checker ties them to one value.`

// frostParams are the parameters of every frost corruption, built-in or
// user-textured.
var frostParams = []Param{
	{Name: "scale", Min: 0.01, Max: 1, Trend: 0,
		Doc: "weight of the image; smaller darkens it under the frost. Domain linspace(0.01, 1) of the VCR toolbox and the ICSE checker (corruptions.md §1). " +
			"Monotone (smaller corrupts more) only when constant is near 0: with frost added, darkening and frost partly cancel, and the " +
			"change is V-shaped in scale (at constant = 0.5 the mean squared change is smallest near scale ≈ 0.4 and grows both ways), so Trend is 0"},
	{Name: "constant", Min: 0.01, Max: 1, Trend: +1,
		Doc: "weight of the frost texture. Domain linspace(0.01, 1) of the VCR toolbox and the ICSE checker (corruptions.md §1)"},
}

func init() {
	register(newFrost(FrostImageNetC, frostDoc, ImageNetCFrostTextures))
}

// newFrost returns the frost corruption drawing from the textures that tex
// returns (called on first use, so a built-in set is decoded or generated
// lazily, once), with Textures set to set.
func newFrost(set, doc string, tex func() []*imageio.Image) *Corruption {
	return &Corruption{
		Name:       "frost",
		Textures:   set,
		Family:     Weather,
		Params:     frostParams,
		Severities: [][]float64{{1, .4}, {.8, .6}, {.7, .7}, {.65, .7}, {.6, .75}},
		Identity:   []float64{1, 0},
		Doc:        doc,
		Papers:     []string{"vcr", "icse", "imagenet-c"},
		apply: func(dst, src *imageio.Image, p []float64, rng *rand.Rand) {
			frostApply(dst, src, p[0], p[1], tex(), rng)
		},
	}
}

// ErrNoTextures is returned by NewFrost when no texture is given.
var ErrNoTextures = errors.New("frost: no textures given")

// NewFrost returns a frost corruption (same name, parameters and severities as
// the built-in "frost") that draws its texture uniformly from textures. The
// built-in frost already uses ImageNet-C's frost1.png … frost5.jpeg
// (ImageNetCFrostTextures); NewFrost is for other sets. Its Textures is
// "sha256:" and 16 hex digits of a hash of the textures' pixels, so that a
// run records which set it used. The corruption is not registered in the
// catalogue; the textures are used as given (not copied) and must not be
// modified afterwards. It returns ErrNoTextures for an empty list and an
// error naming the texture for a nil or empty one.
func NewFrost(textures []*imageio.Image) (*Corruption, error) {
	if len(textures) == 0 {
		return nil, ErrNoTextures
	}
	for i, t := range textures {
		if t == nil || t.Width == 0 || t.Height == 0 {
			return nil, fmt.Errorf("frost: texture %d is empty", i)
		}
	}
	tex := append([]*imageio.Image(nil), textures...)
	doc := fmt.Sprintf("Frost with %d user-supplied textures. ", len(tex)) + frostDoc
	return newFrost(frostFingerprint(tex), doc, func() []*imageio.Image { return tex }), nil
}

// NewProceduralFrost returns the frost corruption with the procedurally
// generated textures of frosttex.go (Textures FrostProcedural): vcr's
// default before the ImageNet-C files were embedded. Its Δv is 0.022–0.034
// lower than ImageNet-C's frost at the same parameters; use it to
// reproduce test sets made with those versions.
func NewProceduralFrost() *Corruption {
	return newFrost(FrostProcedural, "Frost with vcr's procedurally generated look-alike textures (frosttex.go), not ImageNet-C's files. "+frostDoc, builtinFrostTextures)
}

// frostApply implements out = clip(s·x + t·F) with F a random crop of a
// random texture.
func frostApply(dst, src *imageio.Image, s, t float64, textures []*imageio.Image, rng *rand.Rand) {
	W, H := src.Width, src.Height
	tex := textures[rng.IntN(len(textures))]
	tw, th := tex.Width, tex.Height
	// Enlarge when the texture is smaller than the image (imagecorruptions).
	f := 1.0
	if tw < W || th < H {
		f = 1.1 * max(float64(W)/float64(tw), float64(H)/float64(th))
	}
	ew, eh := int(math.Ceil(float64(tw)*f)), int(math.Ceil(float64(th)*f))
	if f == 1 {
		ew, eh = tw, th
	}
	x0, y0 := 0, 0
	if eh > H {
		y0 = rng.IntN(eh - H)
	}
	if ew > W {
		x0 = rng.IntN(ew - W)
	}
	ss, tt := float32(s), float32(t)
	if f == 1 {
		for c := range 3 {
			for y := range H {
				sr := src.Ch[c][y*W : (y+1)*W]
				dr := dst.Ch[c][y*W : (y+1)*W][:len(sr)]
				fr := tex.Ch[c][(y0+y)*tw+x0:][:len(sr)]
				for x := frostBlendVec(dr, sr, fr, ss, tt); x < len(sr); x++ {
					dr[x] = weatherClamp01(ss*sr[x] + tt*fr[x])
				}
			}
		}
		return
	}
	// Bicubic enlargement of only the cropped window: output pixel (x0+x,
	// y0+y) of the ew×eh resized texture, with OpenCV's mapping
	// sx = (X + 0.5)·tw/ew − 0.5 and replicated borders.
	// Separable: a horizontal pass over the texture rows the crop needs,
	// then a vertical pass.
	xs := frostCubicAxis(x0, W, tw, ew)
	ys := frostCubicAxis(y0, H, th, eh)
	rlo, rhi := th, 0
	for _, a := range ys {
		for _, i := range a.idx {
			rlo, rhi = min(rlo, i), max(rhi, i)
		}
	}
	rows := make([]float32, (rhi-rlo+1)*W)
	for c := range 3 {
		tp := tex.Ch[c]
		for r := rlo; r <= rhi; r++ {
			row := tp[r*tw : (r+1)*tw]
			out := rows[(r-rlo)*W : (r-rlo+1)*W][:len(xs)]
			for x := range xs {
				ax := &xs[x]
				out[x] = ax.w[0]*row[ax.idx[0]] + ax.w[1]*row[ax.idx[1]] + ax.w[2]*row[ax.idx[2]] + ax.w[3]*row[ax.idx[3]]
			}
		}
		for y := range H {
			ay := &ys[y]
			r0 := rows[(ay.idx[0]-rlo)*W:][:W]
			r1 := rows[(ay.idx[1]-rlo)*W:][:W]
			r2 := rows[(ay.idx[2]-rlo)*W:][:W]
			r3 := rows[(ay.idx[3]-rlo)*W:][:W]
			sr := src.Ch[c][y*W : (y+1)*W][:W]
			dr := dst.Ch[c][y*W : (y+1)*W][:W]
			w0, w1, w2, w3 := ay.w[0], ay.w[1], ay.w[2], ay.w[3]
			for x := frostBlend4Vec(dr, sr, r0, r1, r2, r3, ss, tt, ay.w); x < len(sr); x++ {
				// cv2.resize saturates an 8-bit texture to 0…255.
				fv := weatherClamp01(w0*r0[x] + w1*r1[x] + w2*r2[x] + w3*r3[x])
				dr[x] = weatherClamp01(ss*sr[x] + tt*fv)
			}
		}
	}
}

// frostTap holds the four source indices and weights of one output sample
// of a bicubic resize.
type frostTap struct {
	idx [4]int
	w   [4]float32
}

// frostCubicAxis returns the bicubic taps for output samples off … off+n−1
// of a resize from src to dstLen samples (OpenCV INTER_CUBIC, a = −0.75,
// replicated borders).
func frostCubicAxis(off, n, src, dstLen int) []frostTap {
	taps := make([]frostTap, n)
	scale := float64(src) / float64(dstLen)
	for i := range taps {
		sx := (float64(off+i)+0.5)*scale - 0.5
		fx := math.Floor(sx)
		t := sx - fx
		for j := range 4 {
			taps[i].idx[j] = borderIndex(int(fx)-1+j, src, Replicate)
			taps[i].w[j] = float32(cubicWeight(t + 1 - float64(j)))
		}
	}
	return taps
}

// cubicWeight is the Keys cubic convolution kernel with a = −0.75 (OpenCV).
func cubicWeight(d float64) float64 {
	const a = -0.75
	d = math.Abs(d)
	switch {
	case d <= 1:
		return ((a+2)*d-(a+3))*d*d + 1
	case d < 2:
		return ((a*d-5*a)*d+8*a)*d - 4*a
	}
	return 0
}
