package testset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/iqa"
)

// drawSeed returns the seed of draw k of corruption ci.
func (st *runState) drawSeed(ci, k int) uint64 {
	return corrupt.NewRand(st.nameSeed[ci], uint64(k)).Uint64()
}

// pilotSalt separates the pilot draws' streams from the draws'.
const pilotSalt = 0x5049_4c4f_5421_0001

// makeSamplers builds one parameter sampler per corruption; targeted
// sampling first runs the pilot draws.
func (st *runState) makeSamplers(ctx context.Context) error {
	st.samplers = make([]ParamSampler, len(st.cs))
	for ci, c := range st.cs {
		if st.cfg.Sampling != SamplingTargeted {
			st.samplers[ci] = Uniform{c}
			continue
		}
		// The two-stage pilot of LearnTargeted, with the draws of each stage
		// run in parallel: the first half uniform over the target ranges
		// (Explore), the second half from a first fit (which puts draws where
		// Δv changes fast), then a fit to all.
		half := st.cfg.Pilot / 2
		pts, err := st.pilot(ctx, ci, Explore{c}, 0, half)
		if err != nil {
			return err
		}
		s, err := NewTargeted(c, pts)
		if err != nil {
			return fmt.Errorf("targeted sampling for %s: %w", c.Name, err)
		}
		more, err := st.pilot(ctx, ci, s, half, st.cfg.Pilot)
		if err != nil {
			return err
		}
		if s, err = NewTargeted(c, append(pts, more...)); err != nil {
			return fmt.Errorf("targeted sampling for %s: %w", c.Name, err)
		}
		st.samplers[ci] = s
	}
	return nil
}

// pilot runs pilot draws from … to−1 of corruption ci with sampler s
// (without saving images) and returns their parameters and Δv in draw
// order; failed draws are left out. Pilot draw j is seeded from (Seed,
// corruption name, pilotSalt, j).
func (st *runState) pilot(ctx context.Context, ci int, s ParamSampler, from, to int) ([]PilotPoint, error) {
	n := to - from
	pts := make([]PilotPoint, n)
	ok := make([]bool, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(st.cfg.Workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := st.newWorker(ctx)
			defer w.drop()
			for {
				j, more := receive(w, next)
				if !more {
					break
				}
				ps := corrupt.NewRand(st.nameSeed[ci]^pilotSalt, uint64(from+j)).Uint64()
				sel := corrupt.NewRand(ps, 1)
				idx := sel.IntN(st.cfg.Source.Len())
				p := s.Sample(sel)
				img, err := w.load(idx)
				if err == nil {
					var res iqa.Result
					if res, err = w.score(st.cs[ci], img, p, ps); err == nil {
						pts[j], ok[j] = PilotPoint{Params: p, DV: res.DV}, true
					}
				}
				w.yield()
			}
		}()
	}
	for j := 0; j < n && ctx.Err() == nil; j++ {
		next <- j
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []PilotPoint
	for j := range pts {
		if ok[j] {
			out = append(out, pts[j])
		}
	}
	if len(out) < n/2 {
		return nil, fmt.Errorf("targeted sampling for %s: only %d of %d pilot draws could be scored", st.cs[ci].Name, len(out), n)
	}
	return out, nil
}

// load decodes and preprocesses source image idx.
func (st *runState) load(idx int) (*imageio.Image, error) {
	img, err := st.cfg.Source.Load(idx)
	if err != nil {
		return nil, err
	}
	if st.cfg.Preprocess != nil {
		img = st.cfg.Preprocess(img)
	}
	return img, nil
}

// worker owns the scratch memory of one goroutine, and the part of the
// run's memory budget that covers it (held).
type worker struct {
	st   *runState
	ctx  context.Context
	held int64 // bytes reserved from st.mem
	// multi scores the primary flavour (first) and the other per-flavour
	// Δv methods; one scores the primary alone (the pilot draws).
	multi     *iqa.MultiScorer
	dvIndex   []int // per st.dvMethods: its index among multi's methods
	res       []iqa.Result
	one       *iqa.Scorer
	png       imageio.PNGEncoder
	dst       *imageio.Image
	ref, dist *iqa.Gray
	rgb       []byte       // w.dst in 8 bit, interleaved RGB
	out       bytes.Buffer // the encoded image file, written in one go
	// prep is w.ref prepared for multi (iqa.Reference) when a draw scores
	// several images of one source (--imagenet-c's five severities), and
	// prepErr what preparing it returned.
	prep    iqa.Reference
	prepErr error
}

func (st *runState) newWorker(ctx context.Context) *worker {
	w := &worker{st: st, ctx: ctx}
	w.newScorers()
	return w
}

// newScorers gives w fresh VIF scorers (their workspaces grow to the
// largest image scored and stay).
func (w *worker) newScorers() {
	st := w.st
	methods := []iqa.Method{st.cfg.Method}
	for _, m := range st.dvMethods {
		if m != st.cfg.Method {
			methods = append(methods, m)
		}
	}
	w.multi, w.one, w.dvIndex = iqa.NewMultiScorer(methods...), iqa.NewScorer(st.cfg.Method), nil
	for _, m := range st.dvMethods {
		w.dvIndex = append(w.dvIndex, slices.Index(methods, m))
	}
}

// drop lets go of w's scratch memory and gives its reservation back to
// the budget.
func (w *worker) drop() {
	if w.st.mem == nil || w.held == 0 {
		return
	}
	w.dst, w.ref, w.dist, w.rgb, w.res = nil, nil, nil, nil, nil
	w.png, w.prep, w.out = imageio.PNGEncoder{}, iqa.Reference{}, bytes.Buffer{}
	w.newScorers()
	w.st.mem.release(w.held)
	w.held = 0
}

// yield drops w's scratch when another worker waits for memory: a worker
// keeps its scratch (and reservation) from draw to draw only while no one
// else needs the memory.
func (w *worker) yield() {
	if w.st.mem != nil && w.held > 0 && w.st.mem.contended() {
		w.drop()
	}
}

// receive receives the next job from jobs. A worker waiting for a job
// keeps its scratch memory until another worker waits for memory, and then
// drops it, so that an idle worker holds nothing another needs.
func receive[T any](w *worker, jobs <-chan T) (T, bool) {
	if w.st.mem != nil && w.held > 0 {
		select {
		case t, ok := <-jobs:
			return t, ok
		case <-w.st.mem.waiting():
			w.drop()
		}
	}
	t, ok := <-jobs
	return t, ok
}

// reserve makes w hold at least n bytes of the budget: it takes the
// difference at once when it is free and no one waits, else it drops its
// scratch and waits for n in turn.
func (w *worker) reserve(n int64) error {
	if w.st.mem == nil || n <= w.held {
		return nil
	}
	if w.st.mem.tryAcquire(n - w.held) {
		w.held = n
		return nil
	}
	w.drop()
	if err := w.st.mem.acquire(w.ctx, n); err != nil {
		return err
	}
	w.held = n
	return nil
}

// load decodes and preprocesses source image idx within the memory
// budget: it reads the image's header, refuses (ErrOverBudget) an image
// that needs more than the budget holds for one image, and reserves what
// it needs before decoding it. It returns w.ctx's error when the run is
// cancelled while w waits for memory.
func (w *worker) load(idx int) (*imageio.Image, error) {
	st := w.st
	if st.mem == nil {
		return st.load(idx)
	}
	n, px, err := st.need(idx)
	if err != nil {
		return nil, err
	}
	if err := w.reserve(n); err != nil {
		return nil, err
	}
	img, err := st.load(idx)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		// A Source without headers: checked after decoding.
		h := imageio.Header{Width: img.Width, Height: img.Height}
		if n = imageNeed(h, img.Width, img.Height); n > st.mem.cap {
			return nil, st.overBudget(h, img.Width, img.Height, n)
		}
		if err := w.reserve(n); err != nil {
			return nil, err
		}
	} else if int64(img.Pixels()) > px {
		// Config.Preprocess made more pixels than Resize and Crop say.
		return nil, fmt.Errorf("preprocessing gave a %dx%d image, more pixels than Config.Resize and Crop foretold (%d)", img.Width, img.Height, px)
	}
	return img, nil
}

// prepare sizes the scratch images for img and computes its grey version.
func (w *worker) prepare(img *imageio.Image) {
	if w.dst == nil || !w.dst.SameSize(img) {
		w.dst, w.ref, w.dist, w.rgb = nil, nil, nil, nil // the old size's go before the new are made
		w.dst = imageio.New(img.Width, img.Height)
		w.ref = iqa.NewGray(img.Width, img.Height)
		w.dist = iqa.NewGray(img.Width, img.Height)
		w.rgb = make([]byte, 3*img.Pixels())
	}
	// The grey levels of img as img.Luma computes them (8-bit samples
	// rounded), by way of w.rgb, which corrupt overwrites.
	imageio.ToRGB8Luma(w.rgb, w.ref.Pix, img, imageio.Round)
}

// score corrupts img with c at p (randomness from seed) into w.dst,
// quantises it to 8 bit (w.rgb) and scores it against img with the primary
// flavour alone (the pilot of targeted sampling).
func (w *worker) score(c *corrupt.Corruption, img *imageio.Image, p []float64, seed uint64) (iqa.Result, error) {
	w.prepare(img)
	w.corrupt(c, img, p, seed)
	res, err := w.one.Score(w.ref, w.dist)
	if err != nil {
		return res, fmt.Errorf("VIF (%s): %w", w.st.cfg.Method, err)
	}
	if math.IsNaN(res.VIF) || math.IsNaN(res.DV) {
		return res, fmt.Errorf("VIF (%s) is undefined for this image", w.st.cfg.Method)
	}
	return res, nil
}

// corrupt applies c at p to img into w.dst and quantises it to 8 bit
// (w.rgb, and its grey w.dist): the 8-bit samples are what is scored and saved.
func (w *worker) corrupt(c *corrupt.Corruption, img *imageio.Image, p []float64, seed uint64) {
	c.Apply(w.dst, img, p, corrupt.NewRand(seed, 0))
	imageio.ToRGB8Luma(w.rgb, w.dist.Pix, w.dst, w.st.cfg.Rounding)
}

// prepareRef prepares w.ref (after prepare(img)) for the draw's images to
// be scored against it with scoreCorrupted(…, true): the reference's share
// of the wavelet VIF (its pyramid and Gaussian scale mixture model) is then
// computed once per draw instead of once per image.
func (w *worker) prepareRef() {
	w.prepErr = w.multi.PrepareTo(&w.prep, w.ref)
}

// scoreCorrupted corrupts as score does (after prepare(img)) and scores
// the result with every flavour of the run: the primary's Result, and Δv
// per flavour of st.dvMethods (NaN where undefined). An undefined primary
// VIF is an error. With prepared (after prepareRef) it scores against
// w.prep, bit for bit what scoring against w.ref gives.
func (w *worker) scoreCorrupted(c *corrupt.Corruption, img *imageio.Image, p []float64, seed uint64, prepared bool) (iqa.Result, map[iqa.Method]float64, error) {
	w.corrupt(c, img, p, seed)
	var err error
	switch {
	case !prepared:
		w.res, err = w.multi.Score(w.res[:0], w.ref, w.dist)
	case w.prepErr != nil:
		err = w.prepErr
	default:
		w.res, err = w.multi.ScoreRef(w.res[:0], &w.prep, w.dist)
	}
	if err != nil {
		return iqa.Result{}, nil, fmt.Errorf("VIF (%s): %w", w.st.cfg.Method, err)
	}
	res := w.res[0]
	if math.IsNaN(res.VIF) || math.IsNaN(res.DV) {
		return res, nil, fmt.Errorf("VIF (%s) is undefined for this image", w.st.cfg.Method)
	}
	dvs := make(map[iqa.Method]float64, len(w.st.dvMethods))
	for i, m := range w.st.dvMethods {
		dvs[m] = w.res[w.dvIndex[i]].DV
	}
	return res, dvs, nil
}

// encode writes w.dst in the run's format. PNG files use the fast
// encoder (Paeth filter, Huffman-only deflate): PNG encoding was the largest
// cost of the pipeline with imageio.Encode.
func (w *worker) encode(out io.Writer) error {
	if w.st.format == imageio.PNG {
		return w.png.EncodeRGB8(out, w.rgb, w.dst.Width, w.dst.Height)
	}
	return imageio.Encode(out, w.dst, w.st.format, w.st.enc)
}

// task is one draw to process; result is what came of it.
type task struct{ pos, draw int }

type result struct {
	pos     int
	rows    []Row
	fails   []Failure
	err     error // fatal: stops the run
	skipped bool  // not processed (cancelled)
}

// process runs one draw: picks the image and parameters, corrupts, scores
// and saves every row of the draw.
func (w *worker) process(t task) result {
	st := w.st
	r := result{pos: t.pos}
	ci, k := t.draw/st.cfg.N, t.draw%st.cfg.N
	c := st.cs[ci]
	ds := st.drawSeed(ci, k)
	sel := corrupt.NewRand(ds, 1)
	idx := sel.IntN(st.cfg.Source.Len())
	item := st.cfg.Source.Item(idx)
	params := make([][]float64, st.perDraw)
	seeds := make([]uint64, st.perDraw)
	if st.cfg.ImageNetC {
		for s := range params {
			params[s] = c.Severities[s]
			seeds[s] = corrupt.NewRand(ds, uint64(2+s)).Uint64()
		}
	} else {
		params[0], seeds[0] = st.samplers[ci].Sample(sel), ds
		// Targeted sampling may use the wider target ranges (Param.TargetMin).
		check := c.Check
		if st.cfg.Sampling == SamplingTargeted {
			check = c.CheckTarget
		}
		if err := check(params[0]); err != nil {
			r.err = fmt.Errorf("%s sampler drew invalid parameters: %w", st.samplers[ci].Mode(), err)
			return r
		}
	}
	firstID := t.draw * st.perDraw
	img, err := w.load(idx)
	if err != nil && w.ctx.Err() != nil && errors.Is(err, w.ctx.Err()) {
		r.skipped = true
		return r
	}
	if err != nil {
		msg := st.relError(err)
		for s := range st.perDraw {
			r.fails = append(r.fails, Failure{ID: firstID + s, Source: item.Source, Corruption: c.Name, Err: msg})
		}
		return r
	}
	w.prepare(img)
	// The severities of a draw (--imagenet-c) share their source image.
	prepared := st.perDraw > 1
	if prepared {
		w.prepareRef()
	}
	for s := range st.perDraw {
		id := firstID + s
		res, dvs, err := w.scoreCorrupted(c, img, params[s], seeds[s], prepared)
		if err != nil {
			r.fails = append(r.fails, Failure{ID: id, Source: item.Source, Corruption: c.Name, Err: err.Error()})
			continue
		}
		rel, err := st.imagePath(id, c, item)
		if err == nil {
			w.out.Reset()
			if err = w.encode(&w.out); err != nil {
				err = fmt.Errorf("encode %s: %w", st.path(rel), err)
			} else {
				err = saveImage(st.path(rel), w.out.Bytes())
			}
		}
		if err != nil {
			r.err = err
			return r
		}
		row := Row{
			ID: id, Item: item, Corruption: c, Params: params[s], Seed: seeds[s],
			VIF: res.VIF, DV: res.DV, DVs: dvs, Path: rel, Sampling: st.cfg.Sampling, Method: string(st.cfg.Method),
			Width: img.Width, Height: img.Height,
		}
		if st.cfg.ImageNetC {
			row.Severity = s + 1
		} else {
			row.Sampling = st.samplers[ci].Mode()
		}
		r.rows = append(r.rows, row)
	}
	return r
}

// relError returns err's message with the dataset root taken out of the
// paths it names, so that failures.csv does not depend on where the
// dataset is mounted (shards on other machines merge byte for byte).
func (st *runState) relError(err error) string {
	msg := err.Error()
	if root := st.cfg.Source.Root(); root != "" {
		msg = strings.ReplaceAll(msg, filepath.Clean(root)+string(filepath.Separator), "")
	}
	return msg
}

// imagePath returns the slash-separated path of row id's image relative to
// Out, creating its folder.
func (st *runState) imagePath(id int, c *corrupt.Corruption, item Item) (string, error) {
	dir := ImagesDir + "/" + c.Name
	if st.cfg.Layout == LayoutImageFolder {
		dir += "/" + classDir(item)
		if err := st.mkdir(filepath.FromSlash(dir)); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("%s/%0*d%s", dir, st.idWidth, id, st.ext), nil
}

// classDir names an item's class folder: the class name made safe for a
// file name, the class index when unnamed, "unlabelled" without a label.
func classDir(it Item) string {
	if it.Label < 0 {
		return "unlabelled"
	}
	name := it.LabelName
	if name == "" {
		return strconv.Itoa(it.Label)
	}
	safe := strings.Map(func(r rune) rune {
		if r < 32 || strings.ContainsRune(`/\:*?"<>|`, r) {
			return '_'
		}
		return r
	}, name)
	if safe == "." || safe == ".." {
		safe = strings.Repeat("_", len(safe))
	}
	return safe
}
