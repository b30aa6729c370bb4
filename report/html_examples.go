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

// ExampleDV are the Δv levels of an image strip beyond the source image
// itself (Δv = 0): one source image degrading as Δv grows, as the VCR
// papers show their corruptions.
var ExampleDV = []float64{0.2, 0.4, 0.6, 0.8, 1.0}

// exampleTolerance is how far from its level a strip's image may be.
const exampleTolerance = 0.1 + 1e-9

// ThumbSize is the longest side of an example thumbnail in pixels.
const ThumbSize = 144

// example is one image of a strip.
type example struct {
	target, dv float64
	params     string
	label      string
	source     string
	src        string // data: URI of the thumbnail
	clean      string // data: URI of the source image, "" when not found
}

// examples picks, per corruption of the test set in dir, the source image
// whose rows come nearest to the most levels of ExampleDV (within 0.1;
// ties: the smaller total distance, then the first source in name order),
// and returns the thumbnails of its rows nearest to each level. root is
// the dataset's folder (run.json) for the clean source, of the given kind;
// may be "". Only images inside the test set (testset.LocalPath) and
// sources inside the dataset (dataset.SourceFile) are embedded: an image a
// crafted manifest names elsewhere is an error naming its row.
func examples(dir, kind, root string) (map[string][]example, error) {
	type key struct{ corruption, source string }
	var dist [][]float32 // per key: the distance to each level
	index := map[key]int{}
	manifest := filepath.Join(dir, testset.ManifestFile)
	// First pass: how near each source comes to each level.
	err := testset.ReadManifest(manifest, func(r *testset.Record) error {
		k := key{r.Corruption, r.Source}
		i, ok := index[k]
		if !ok {
			i = len(dist)
			index[k] = i
			d := make([]float32, len(ExampleDV))
			for j := range d {
				d[j] = float32(math.Inf(1))
			}
			dist = append(dist, d)
		}
		for j, t := range ExampleDV {
			dist[i][j] = min(dist[i][j], float32(math.Abs(r.DV-t)))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	type score struct {
		n      int
		sum    float64
		source string
	}
	better := func(a, b score) bool {
		if a.n != b.n {
			return a.n > b.n
		}
		if a.sum != b.sum {
			return a.sum < b.sum
		}
		return a.source < b.source
	}
	chosen := map[string]score{}
	for k, i := range index {
		s := score{source: k.source}
		for _, d := range dist[i] {
			if float64(d) <= exampleTolerance {
				s.n++
				s.sum += float64(d)
			}
		}
		if c, ok := chosen[k.corruption]; !ok || better(s, c) {
			chosen[k.corruption] = s
		}
	}
	// Second pass: the chosen source's rows nearest to each level.
	type pick struct {
		rec  testset.Record
		dist float64
	}
	best := map[string][]pick{}
	err = testset.ReadManifest(manifest, func(r *testset.Record) error {
		if c, ok := chosen[r.Corruption]; !ok || c.source != r.Source {
			return nil
		}
		p, ok := best[r.Corruption]
		if !ok {
			p = make([]pick, len(ExampleDV))
			for i := range p {
				p[i].dist = math.Inf(1)
			}
			best[r.Corruption] = p
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
	for c, picks := range best {
		used := map[int]bool{}
		clean := ""
		for i, p := range picks {
			if p.dist > exampleTolerance || used[p.rec.ID] {
				continue
			}
			used[p.rec.ID] = true
			img, err := testset.LocalPath(dir, p.rec.Path)
			if err != nil {
				return nil, fmt.Errorf("%s row with id %d: %w", manifest, p.rec.ID, err)
			}
			src, err := thumbnail(img)
			if err != nil {
				continue // a missing image leaves its cell out
			}
			ex := example{target: ExampleDV[i], dv: p.rec.DV, params: p.rec.Params, label: p.rec.LabelName, source: p.rec.Source, src: src}
			if ex.label == "" {
				ex.label = p.rec.Label
			}
			if root != "" && clean == "" {
				f, err := dataset.SourceFile(kind, root, p.rec.Source)
				if err != nil {
					return nil, fmt.Errorf("%s row with id %d: %w", manifest, p.rec.ID, err)
				}
				clean, _ = thumbnail(f)
			}
			ex.clean = clean
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
