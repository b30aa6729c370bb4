package demo

import (
	"math"
)

// TrainConfig says how Train fits the weights.
type TrainConfig struct {
	// N images of Size×Size pixels drawn with Seed (ItemSeed, ItemClass).
	N    int    `json:"n"`
	Size int    `json:"size"`
	Seed uint64 `json:"seed"`
	// Iterations of full-batch gradient descent with step Rate and L2
	// penalty Lambda on the weights.
	Iterations int     `json:"iterations"`
	Rate       float64 `json:"rate"`
	Lambda     float64 `json:"lambda"`
}

// DefaultTrain is the configuration of the embedded weights. Its seed
// differs from the one 'vcr demo' draws its images with, so the demo
// evaluates the model on images it was not fitted on.
var DefaultTrain = TrainConfig{N: 2000, Size: 96, Seed: 1, Iterations: 800, Rate: 0.5, Lambda: 1e-3}

// About is the description written into the weights file.
const About = "Demonstration model of 'vcr demo': HOG-like edge-orientation features and a linear softmax layer, fitted on the procedurally generated demo shapes. Not a real image classifier. Regenerate with: go run ./internal/demo/cmd/train"

// FeatureSet returns the features and classes of cfg's training images.
func FeatureSet(cfg TrainConfig) (x [][]float64, y []int) {
	grey := make([]float64, featSide*featSide)
	for i := range cfg.N {
		c := ItemClass(i)
		m := Image(c, cfg.Size, ItemSeed(cfg.Seed, i))
		t, _ := Preprocess{}.Apply(m)
		f := make([]float64, NumFeatures)
		Features(f, t.Data, m.Width, m.Height, grey)
		x = append(x, f)
		y = append(y, c)
	}
	return x, y
}

// Train fits softmax-regression weights (multinomial logistic regression
// by full-batch gradient descent from zero, deterministic) on the images
// cfg describes.
func Train(cfg TrainConfig) *Weights {
	x, y := FeatureSet(cfg)
	return Fit(x, y, cfg)
}

// Fit fits the weights on features x with classes y.
func Fit(x [][]float64, y []int, cfg TrainConfig) *Weights {
	k, d, n := len(Classes), NumFeatures, len(x)
	w := &Weights{About: About, Classes: Classes, Mean: make([]float64, d), Std: make([]float64, d),
		W: make([][]float64, k), B: make([]float64, k), Train: cfg}
	for j := range d {
		s := 0.0
		for _, f := range x {
			s += f[j]
		}
		w.Mean[j] = s / float64(n)
		v := 0.0
		for _, f := range x {
			v += (f[j] - w.Mean[j]) * (f[j] - w.Mean[j])
		}
		w.Std[j] = math.Max(math.Sqrt(v/float64(n)), 1e-9)
	}
	z := make([][]float64, n)
	for i, f := range x {
		z[i] = make([]float64, d)
		for j := range d {
			z[i][j] = (f[j] - w.Mean[j]) / w.Std[j]
		}
	}
	for c := range k {
		w.W[c] = make([]float64, d)
	}
	gw := make([][]float64, k)
	for c := range gw {
		gw[c] = make([]float64, d)
	}
	gb := make([]float64, k)
	p := make([]float64, k)
	for range cfg.Iterations {
		for c := range k {
			clear(gw[c])
		}
		clear(gb)
		for i, f := range z {
			mx := math.Inf(-1)
			for c := range k {
				s := w.B[c]
				for j, v := range f {
					s += w.W[c][j] * v
				}
				p[c] = s
				mx = math.Max(mx, s)
			}
			tot := 0.0
			for c := range k {
				p[c] = math.Exp(p[c] - mx)
				tot += p[c]
			}
			for c := range k {
				g := p[c] / tot
				if c == y[i] {
					g--
				}
				gb[c] += g
				for j, v := range f {
					gw[c][j] += g * v
				}
			}
		}
		for c := range k {
			w.B[c] -= cfg.Rate * gb[c] / float64(n)
			for j := range d {
				w.W[c][j] -= cfg.Rate * (gw[c][j]/float64(n) + cfg.Lambda*w.W[c][j])
			}
		}
	}
	return w
}

// Accuracy returns the fraction of images of cfg (N, Size, Seed) that c
// classifies correctly.
func Accuracy(c *Classifier, cfg TrainConfig) float64 {
	right := 0
	for i := range cfg.N {
		cl := ItemClass(i)
		if c.Predict(Image(cl, cfg.Size, ItemSeed(cfg.Seed, i))) == cl {
			right++
		}
	}
	return float64(right) / float64(cfg.N)
}
