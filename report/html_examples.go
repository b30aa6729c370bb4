package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"path/filepath"

	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/testset"
)

// ExampleDV are the Δv levels the report shows an example image at.
var ExampleDV = []float64{0.1, 0.3, 0.5, 0.7, 0.9}

// ThumbSize is the longest side of an example thumbnail in pixels.
const ThumbSize = 144

// example is one example image of a corruption.
type example struct {
	target, dv float64
	params     string
	label      string
	src        string // data: URI of the thumbnail
	clean      string // data: URI of the source image, "" when not found
}

// examples picks, per corruption of the test set in dir, the manifest row
// nearest to each level of ExampleDV (a row at most once) and returns
// their thumbnails. root is the dataset's folder (run.json) for the clean
// sources, of the given kind; may be "". Only images inside the test set
// (testset.LocalPath) and sources inside the dataset (dataset.SourceFile)
// are embedded: an image a crafted manifest names elsewhere is an error
// naming its row.
func examples(dir, kind, root string) (map[string][]example, error) {
	type pick struct {
		rec  testset.Record
		dist float64
	}
	best := map[string][]pick{}
	var order []string
	err := testset.ReadManifest(filepath.Join(dir, testset.ManifestFile), func(r *testset.Record) error {
		p, ok := best[r.Corruption]
		if !ok {
			p = make([]pick, len(ExampleDV))
			for i := range p {
				p[i].dist = math.Inf(1)
			}
			best[r.Corruption] = p
			order = append(order, r.Corruption)
		}
		for i, t := range ExampleDV {
			if d := math.Abs(r.DV - t); d < p[i].dist {
				p[i] = pick{rec: *r, dist: d}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := map[string][]example{}
	for _, c := range order {
		used := map[int]bool{}
		for i, p := range best[c] {
			if math.IsInf(p.dist, 1) || used[p.rec.ID] || p.dist > 0.1 {
				continue
			}
			used[p.rec.ID] = true
			img, err := testset.LocalPath(dir, p.rec.Path)
			if err != nil {
				return nil, fmt.Errorf("%s row with id %d: %w", filepath.Join(dir, testset.ManifestFile), p.rec.ID, err)
			}
			src, err := thumbnail(img)
			if err != nil {
				continue // a missing image leaves its cell out
			}
			ex := example{target: ExampleDV[i], dv: p.rec.DV, params: p.rec.Params, label: p.rec.LabelName, src: src}
			if ex.label == "" {
				ex.label = p.rec.Label
			}
			if root != "" {
				f, err := dataset.SourceFile(kind, root, p.rec.Source)
				if err != nil {
					return nil, fmt.Errorf("%s row with id %d: %w", filepath.Join(dir, testset.ManifestFile), p.rec.ID, err)
				}
				ex.clean, _ = thumbnail(f)
			}
			out[c] = append(out[c], ex)
		}
	}
	return out, nil
}

// thumbnail loads the image at path, shrinks it (box filter) so that its
// longer side is at most ThumbSize, and returns it as a JPEG data: URI.
func thumbnail(path string) (string, error) {
	m, err := imageio.Load(path, imageio.Options{})
	if err != nil {
		return "", err
	}
	rgba := shrink(m, ThumbSize)
	var b bytes.Buffer
	if err := jpeg.Encode(&b, rgba, &jpeg.Options{Quality: 85}); err != nil {
		return "", err
	}
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(b.Bytes()), nil
}

// shrink returns m reduced by the smallest integer factor s that brings
// its longer side to at most size, each pixel the mean of an s×s block
// (of s × height for an image less than s pixels high, and likewise for width).
func shrink(m *imageio.Image, size int) *image.RGBA {
	w, h := m.Width, m.Height
	s := max(1, int(math.Ceil(float64(max(w, h))/float64(size))))
	sx, sy := min(s, w), min(s, h) // an image thinner than s: blocks as thick as it
	tw, th := w/sx, h/sy
	rgba := image.NewRGBA(image.Rect(0, 0, tw, th))
	inv := 1 / float32(sx*sy)
	for y := range th {
		for x := range tw {
			o := rgba.PixOffset(x, y)
			for c := range 3 {
				var sum float32
				for dy := range sy {
					row := m.Ch[c][(y*sy+dy)*w+x*sx : (y*sy+dy)*w+x*sx+sx]
					for _, v := range row {
						sum += v
					}
				}
				rgba.Pix[o+c] = imageio.To8(sum*inv, imageio.Round)
			}
			rgba.Pix[o+3] = 255
		}
	}
	return rgba
}
