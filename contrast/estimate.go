package contrast

import (
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vcr-bench/vcr/imageio"
)

// Estimator settings, chosen by vcr (the study labelled by hand; nothing in
// it fixes these).
const (
	// MaxDeltaE is the largest CIE76 distance (ΔE*ab) from a pixel to the
	// nearest palette prototype for the pixel to vote for that colour;
	// farther pixels vote "others".
	MaxDeltaE = 30
	// MinShare is the smallest share of a region's pixels the winning
	// colour needs; below it no colour dominates and the region is "others".
	MinShare = 0.4
	// BorderFrac is the border's width as a fraction of min(width, height);
	// the centre region is the middle half of each side.
	BorderFrac = 0.1
)

// prototypes are sRGB (0–255) examples of each palette colour, several per
// colour to cover light and dark shades; a pixel votes for the colour of
// its nearest prototype in CIELAB. They are vcr's choice: the study gives
// no colour values.
var prototypes = []struct {
	name string
	rgb  [3]float64
}{
	{"red", [3]float64{210, 40, 40}}, {"red", [3]float64{150, 25, 25}}, {"red", [3]float64{230, 90, 80}},
	{"green", [3]float64{50, 150, 50}}, {"green", [3]float64{30, 90, 30}}, {"green", [3]float64{120, 180, 60}},
	{"blue", [3]float64{40, 80, 190}}, {"blue", [3]float64{30, 40, 120}}, {"blue", [3]float64{90, 150, 220}},
	{"brown", [3]float64{130, 80, 40}}, {"brown", [3]float64{90, 60, 35}}, {"brown", [3]float64{170, 120, 70}},
	{"gray", [3]float64{128, 128, 128}}, {"gray", [3]float64{90, 90, 90}}, {"gray", [3]float64{180, 180, 180}},
	{"white", [3]float64{245, 245, 245}},
	{"black", [3]float64{15, 15, 15}}, {"black", [3]float64{45, 45, 45}},
}

var protoLab = func() [][3]float64 {
	l := make([][3]float64, len(prototypes))
	for i, p := range prototypes {
		l[i] = Lab(p.rgb[0]/255, p.rgb[1]/255, p.rgb[2]/255)
	}
	return l
}()

// Lab converts an sRGB colour (components in [0, 1]) to CIELAB (D65 white,
// IEC 61966-2-1 transfer function, CIE 1976 L*a*b*).
func Lab(r, g, b float64) [3]float64 {
	lin := func(c float64) float64 {
		if c <= 0.04045 {
			return c / 12.92
		}
		return math.Pow((c+0.055)/1.055, 2.4)
	}
	r, g, b = lin(r), lin(g), lin(b)
	x := (0.4124564*r + 0.3575761*g + 0.1804375*b) / 0.95047
	y := 0.2126729*r + 0.7151522*g + 0.0721750*b
	z := (0.0193339*r + 0.1191920*g + 0.9503041*b) / 1.08883
	f := func(t float64) float64 {
		if t > 216.0/24389 {
			return math.Cbrt(t)
		}
		return (24389.0/27*t + 16) / 116
	}
	fx, fy, fz := f(x), f(y), f(z)
	return [3]float64{116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)}
}

// Nearest returns the palette colour of the prototype nearest to the sRGB
// colour (r, g, b) in CIELAB, or Others when it is farther than MaxDeltaE.
func Nearest(r, g, b float64) string {
	if i := nearest(Lab(r, g, b)); i >= 0 {
		return prototypes[i].name
	}
	return Others
}

// nearest returns the index of the nearest prototype, or -1.
func nearest(l [3]float64) int {
	best, bd := -1, MaxDeltaE*MaxDeltaE+0.0
	for i, p := range protoLab {
		d := (l[0]-p[0])*(l[0]-p[0]) + (l[1]-p[1])*(l[1]-p[1]) + (l[2]-p[2])*(l[2]-p[2])
		if d <= bd {
			best, bd = i, d
		}
	}
	return best
}

// Estimated is an estimated colour label with the shares of the winning
// colours in their regions.
type Estimated struct {
	Label
	BackgroundShare, ForegroundShare float64
}

// Estimate guesses the background and foreground colours of m: every
// pixel of the border (BorderFrac of the short side wide) and of the
// centre region (the middle half of each side) votes for the palette colour
// of its nearest prototype in CIELAB (Others beyond MaxDeltaE); a region's
// colour is the most voted palette colour when it has at least MinShare of
// the region's pixels, else Others. The group is t's (nil: built-in). It
// panics on an empty image.
func Estimate(m *imageio.Image, t *Table) Estimated {
	if m.Width < 1 || m.Height < 1 {
		panic("contrast: Estimate: empty image")
	}
	if t == nil {
		t = BuiltinTable()
	}
	w, h := m.Width, m.Height
	bw := max(1, int(math.Round(BorderFrac*float64(min(w, h)))))
	bv, cv := make([]int, len(Colours)), make([]int, len(Colours))
	var bn, cn int
	for y := range h {
		for x := range w {
			border := x < bw || y < bw || x >= w-bw || y >= h-bw
			centre := x >= w/4 && x < w-w/4 && y >= h/4 && y < h-h/4
			if !border && !centre {
				continue
			}
			i := y*w + x
			c := len(Colours) - 1 // others
			if p := nearest(Lab(float64(m.Ch[0][i]), float64(m.Ch[1][i]), float64(m.Ch[2][i]))); p >= 0 {
				c = slices.Index(Colours, prototypes[p].name)
			}
			if border {
				bv[c]++
				bn++
			} else {
				cv[c]++
				cn++
			}
		}
	}
	bg, bs := dominant(bv, bn)
	fg, fs := dominant(cv, cn)
	g, _ := t.Group(bg, fg)
	return Estimated{Label: Label{Background: bg, Foreground: fg, Group: g}, BackgroundShare: bs, ForegroundShare: fs}
}

// dominant returns the most voted palette colour (ties: the earlier in
// Colours) and its share, or Others when it has less than MinShare.
func dominant(votes []int, n int) (string, float64) {
	best := 0
	for i := range len(Colours) - 1 {
		if votes[i] > votes[best] {
			best = i
		}
	}
	if n == 0 {
		return Others, 0
	}
	s := float64(votes[best]) / float64(n)
	if s < MinShare {
		return Others, s
	}
	return Colours[best], s
}

// imageExt are the file name extensions EstimateDir reads.
var imageExt = []string{".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp", ".ppm", ".pgm"}

// EstimateDir estimates the labels of every image below dir (hidden
// folders skipped). The id of an image is its path relative to dir with
// forward slashes, as a test set's manifest records sources relative to
// the dataset root. An unreadable image is an error naming it.
func EstimateDir(dir string, t *Table) ([]Estimated, error) {
	var out []Estimated
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !slices.Contains(imageExt, strings.ToLower(filepath.Ext(p))) {
			return nil
		}
		m, err := imageio.Load(p, imageio.Options{})
		if err != nil {
			return fmt.Errorf("estimate colours: %w", err)
		}
		rel, _ := filepath.Rel(dir, p)
		e := Estimate(m, t)
		e.ID = filepath.ToSlash(rel)
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no images (%s) below %s", strings.Join(imageExt, ", "), dir)
	}
	return out, nil
}

// Agreement compares estimated labels with reference labels on the images
// both have.
type Agreement struct {
	// N counts the images compared; Unmatched the estimates without a
	// reference label.
	N         int `json:"n"`
	Unmatched int `json:"unmatched"`
	// Accuracies: share of images whose background, foreground, both, and
	// contrast group agree.
	Background float64 `json:"background_accuracy"`
	Foreground float64 `json:"foreground_accuracy"`
	Both       float64 `json:"both_accuracy"`
	Group      float64 `json:"group_accuracy"`
	// Confusion matrices: [reference][estimate] counts, indexed like
	// Colours (colours) and AllGroups (groups).
	BackgroundConfusion [][]int `json:"background_confusion"`
	ForegroundConfusion [][]int `json:"foreground_confusion"`
	GroupConfusion      [][]int `json:"group_confusion"`
}

func square(n int) [][]int {
	m := make([][]int, n)
	for i := range m {
		m[i] = make([]int, n)
	}
	return m
}

// Agree measures how well est agrees with ref. It returns an error when no
// estimate has a reference label.
func Agree(ref *Labels, est []Estimated) (*Agreement, error) {
	a := &Agreement{BackgroundConfusion: square(len(Colours)), ForegroundConfusion: square(len(Colours)), GroupConfusion: square(len(AllGroups))}
	var nb, nf, n2, ng int
	for _, e := range est {
		r, ok := ref.ByID[e.ID]
		if !ok {
			a.Unmatched++
			continue
		}
		a.N++
		a.BackgroundConfusion[slices.Index(Colours, r.Background)][slices.Index(Colours, e.Background)]++
		a.ForegroundConfusion[slices.Index(Colours, r.Foreground)][slices.Index(Colours, e.Foreground)]++
		a.GroupConfusion[groupIndex(r.Group)][groupIndex(e.Group)]++
		if r.Background == e.Background {
			nb++
		}
		if r.Foreground == e.Foreground {
			nf++
		}
		if r.Background == e.Background && r.Foreground == e.Foreground {
			n2++
		}
		if r.Group == e.Group {
			ng++
		}
	}
	if a.N == 0 {
		return nil, fmt.Errorf("none of the %d estimated images has a label in %s (ids must match)", len(est), ref.Name)
	}
	n := float64(a.N)
	a.Background, a.Foreground, a.Both, a.Group = float64(nb)/n, float64(nf)/n, float64(n2)/n, float64(ng)/n
	return a, nil
}
