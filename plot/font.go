package plot

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// Text sizes of every chart, in pixels of the chart's own canvas. Charts
// are drawn at the size they are meant to be shown (about ChartWidth
// pixels wide), so that text stays at least 11 px on screen and on paper.
const (
	FontSize  = 13
	TitleSize = 15
)

// The Go fonts (proportional sans-serif, BSD licence, embedded by
// golang.org/x/image/font/gofont) draw PNG text, Greek letters and
// mathematical symbols such as Δ, ≥ and − included. SVG text names them
// first and falls back to the reader's sans-serif font; layouts measure
// text with them in both formats.
var (
	fontsOnce      sync.Once
	regular, bold  *opentype.Font
	measureMu      sync.Mutex
	measureRegular font.Face
	measureBold    font.Face
)

func loadFonts() {
	fontsOnce.Do(func() {
		var err error
		if regular, err = opentype.Parse(goregular.TTF); err != nil {
			panic("plot: embedded Go Regular font: " + err.Error())
		}
		if bold, err = opentype.Parse(gobold.TTF); err != nil {
			panic("plot: embedded Go Bold font: " + err.Error())
		}
		measureRegular = faceOf(regular, FontSize)
		measureBold = faceOf(bold, TitleSize)
	})
}

func faceOf(f *opentype.Font, size float64) font.Face {
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		panic("plot: font face: " + err.Error())
	}
	return face
}

// newFace returns a new face of the regular or bold Go font at FontSize
// or TitleSize. Faces are not safe for concurrent use; each PNG canvas
// has its own.
func newFace(isBold bool) font.Face {
	loadFonts()
	f, size := regular, float64(FontSize)
	if isBold {
		f, size = bold, TitleSize
	}
	return faceOf(f, size)
}

// textWidth returns the width of s in pixels as drawn in a chart (bold:
// the title's font).
func textWidth(s string, isBold bool) float64 {
	loadFonts()
	measureMu.Lock()
	defer measureMu.Unlock()
	f := measureRegular
	if isBold {
		f = measureBold
	}
	return float64(font.MeasureString(f, s)) / 64
}

// maxTextWidth returns the width of the widest of ss.
func maxTextWidth(ss ...string) float64 {
	w := 0.0
	for _, s := range ss {
		w = max(w, textWidth(s, false))
	}
	return w
}

// fontFaces holds a PNG canvas's faces.
type fontFaces struct{ regular, bold font.Face }

func newFontFaces() *fontFaces { return &fontFaces{newFace(false), newFace(true)} }

func (f *fontFaces) face(isBold bool) font.Face {
	if isBold {
		return f.bold
	}
	return f.regular
}

// drawText draws s with its baseline at y, anchored at x as a says.
func (f *fontFaces) drawText(img draw.Image, s string, x, y float64, a align, c color.RGBA, isBold bool) {
	face := f.face(isBold)
	wd := float64(font.MeasureString(face, s)) / 64
	switch a {
	case alignCentre:
		x -= wd / 2
	case alignRight:
		x -= wd
	}
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: face,
		Dot: fixed.Point26_6{X: fixed.Int26_6(math.Round(x * 64)), Y: fixed.I(round(y))}}
	d.DrawString(s)
}

// drawVerticalText draws s rotated by −90° (reading upwards), the top of
// its letters at x and centred on y.
func (f *fontFaces) drawVerticalText(img *image.RGBA, s string, x, y float64, c color.RGBA) {
	face := f.face(false)
	m := face.Metrics()
	tw := int(math.Ceil(float64(font.MeasureString(face, s))/64)) + 2
	th := (m.Ascent + m.Descent).Ceil() + 1
	tmp := image.NewRGBA(image.Rect(0, 0, tw, th))
	f.drawText(tmp, s, 0, float64(m.Ascent.Ceil()), alignLeft, c, false)
	x0, y0 := round(x), round(y)+tw/2
	for ty := range th {
		for tx := range tw {
			p := tmp.RGBAAt(tx, ty)
			if p.A == 0 {
				continue
			}
			// Blend the anti-aliased, premultiplied text over the canvas.
			q := img.RGBAAt(x0+ty, y0-tx)
			inv := 255 - uint32(p.A)
			img.SetRGBA(x0+ty, y0-tx, color.RGBA{
				uint8(uint32(p.R) + uint32(q.R)*inv/255), uint8(uint32(p.G) + uint32(q.G)*inv/255),
				uint8(uint32(p.B) + uint32(q.B)*inv/255), uint8(uint32(p.A) + uint32(q.A)*inv/255)})
		}
	}
}
