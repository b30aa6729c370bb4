package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/atomicfile"
	"github.com/vcr-bench/vcr/internal/progress"
	"github.com/vcr-bench/vcr/iqa"
)

func init() {
	addCommand(&command{name: "vif", summary: "measure the visual change Δv of image pairs (VIF)", run: runVIF})
}

const vifUsage = `
Usage: vcr vif [--vif-method M] [--json] REF DIST
       vcr vif --pairs PAIRS.csv [--out SCORED.csv] [--workers N] [--vif-method M]
               [--ref-col NAME] [--dist-col NAME] [--progress auto|always|never]

Measures how much DIST changed visually from REF: Sheikh & Bovik's Visual
Information Fidelity (VIF) and the visual change Δv = max(0, 1 − VIF), which
is 0 for no perceived change and 1 when all visual information is gone.
Both images are converted to grey as the VCR toolbox does (8-bit channels,
OpenCV's RGB→GRAY) and must have the same size.

Methods (--vif-method); record the method with every Δv, values of different
methods are not comparable:
  vcr-py            steerable-pyramid VIF as the VCR toolbox computes it (default)
  vifvec            Sheikh's MATLAB vifvec release (labelled the ICSE 2022
                    ImageNet human data)
  vifvec2-layers    vifvec on at most two pyramid levels (labelled the ICSE 2022
                    CIFAR-10 human data; reconstructed, see docs/vif.md)
  pixel             single-scale pixel-domain VIF, 11×11 windows (fast)
  pixel-multiscale  pixel-domain VIF over up to 5 scales

Pairs mode (--pairs) reads a CSV whose header names the reference and
distorted image columns ("reference" and "distorted", or "ref" and "dist";
see --ref-col and --dist-col). Relative paths are relative to the CSV's
directory. It writes the same CSV, every column kept in order, with the
columns vif, dv, vif_method and error appended, rows in input order, to --out
(atomically; its folder is checked before scoring) or to standard output. A
missing or broken image, or a size mismatch, does not stop the run: its row
gets empty vif and dv and the reason in error, and the command exits with
status 1 at the end. Pairs are scored in parallel (--workers).

Examples:
  vcr vif ref.png dist.png
  vcr vif --vif-method vifvec --json ref.png dist.png
  vcr vif --pairs pairs.csv --out scored.csv --workers 8
`

func runVIF(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	names := make([]string, len(iqa.Methods))
	for i, m := range iqa.Methods {
		names[i] = string(m)
	}
	fs := newFlagSet("vif", vifUsage, stderr)
	methodName := fs.String("vif-method", string(iqa.Methods[0]), "VIF `method`: "+strings.Join(names, ", "))
	asJSON := fs.Bool("json", false, `print {"vif": …, "dv": …, "method": …} as JSON`)
	maxPixels := fs.Int("max-pixels", imageio.DefaultMaxPixels, "refuse images with more `pixels` than this (decompression-bomb guard)")
	pairs := fs.String("pairs", "", "score every pair listed in this CSV `file`")
	out := fs.String("out", "", "pairs: write the scored CSV to this `file` (default: standard output)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "pairs: score this many `pairs` in parallel")
	refCol := fs.String("ref-col", "reference", "pairs: `name` of the reference path column (\"ref\" is also accepted)")
	distCol := fs.String("dist-col", "distorted", "pairs: `name` of the distorted path column (\"dist\" is also accepted)")
	prog := fs.String("progress", "auto", "pairs: progress bar on stderr: auto (when stderr is a terminal), always or never")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	method, err := iqa.ParseMethod(*methodName)
	if err != nil {
		return usageError{fmt.Errorf("--vif-method: %w", err)}
	}
	opt := imageio.Options{MaxPixels: *maxPixels}

	if *pairs == "" {
		var batchOnly []string
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "out", "workers", "ref-col", "dist-col", "progress":
				batchOnly = append(batchOnly, "--"+f.Name)
			}
		})
		if len(batchOnly) > 0 {
			verb := "applies"
			if len(batchOnly) > 1 {
				verb = "apply"
			}
			return usagef("%s %s only with --pairs", strings.Join(batchOnly, ", "), verb)
		}
		if len(pos) != 2 {
			return usagef("need exactly two arguments, REF and DIST (got %d), or --pairs PAIRS.csv", len(pos))
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		r, err := scorePair(iqa.NewScorer(method), pos[0], pos[1], pos[0], pos[1], opt)
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(stdout).Encode(r)
		}
		levels := ""
		if r.Levels > 0 {
			levels = fmt.Sprintf(", %d levels", r.Levels)
		}
		_, err = fmt.Fprintf(stdout, "VIF %.6f  Δv %.6f  (%s%s)\n", r.VIF, r.DV, r.Method, levels)
		return err
	}

	if len(pos) != 0 {
		return usagef("--pairs takes no positional arguments (got %s)", strings.Join(pos, " "))
	}
	if *asJSON {
		return usagef("--json applies to a single pair; --pairs writes CSV")
	}
	if *workers < 1 {
		return usagef("--workers must be at least 1 (got %d), e.g. --workers %d", *workers, runtime.GOMAXPROCS(0))
	}
	var showBar bool
	switch *prog {
	case "auto":
		showBar = progress.IsTerminal(stderr)
	case "always":
		showBar = true
	case "never":
	default:
		return usagef("--progress must be auto, always or never (got %q)", *prog)
	}
	if *out != "" {
		if err := checkOutFile("--out", *out); err != nil {
			return err
		}
	}
	refSet, distSet := false, false
	fs.Visit(func(f *flag.Flag) {
		refSet = refSet || f.Name == "ref-col"
		distSet = distSet || f.Name == "dist-col"
	})
	return runVIFBatch(ctx, vifBatch{
		in: *pairs, out: *out, method: method, workers: *workers, opt: opt, showBar: showBar,
		refCol: *refCol, distCol: *distCol, refAlias: !refSet, distAlias: !distSet,
	}, stdout, stderr)
}

// scorePair loads the images at refPath and distPath (named refName and
// distName in messages) and scores them with s.
func scorePair(s *iqa.Scorer, refPath, distPath, refName, distName string, opt imageio.Options) (iqa.Result, error) {
	ref, err := loadImage("reference", refPath, refName, opt)
	if err != nil {
		return iqa.Result{}, err
	}
	dist, err := loadImage("distorted image", distPath, distName, opt)
	if err != nil {
		return iqa.Result{}, err
	}
	if !ref.SameSize(dist) {
		return iqa.Result{}, fmt.Errorf("%s is %d×%d but %s is %d×%d; sizes must match",
			refName, ref.Width, ref.Height, distName, dist.Width, dist.Height)
	}
	r, err := s.Score(iqa.GrayFrom(ref), iqa.GrayFrom(dist))
	if err != nil {
		return iqa.Result{}, fmt.Errorf("%s vs %s: %w", refName, distName, err)
	}
	if math.IsNaN(r.VIF) {
		return iqa.Result{}, fmt.Errorf("%s vs %s: VIF is undefined for these images", refName, distName)
	}
	return r, nil
}

func loadImage(role, path, name string, opt imageio.Options) (*imageio.Image, error) {
	m, err := imageio.Load(path, opt)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s %s does not exist", role, name)
	}
	return m, err
}

// vifBatch is the configuration of a batch run.
type vifBatch struct {
	in, out             string
	method              iqa.Method
	workers             int
	opt                 imageio.Options
	showBar             bool
	refCol, distCol     string
	refAlias, distAlias bool // also accept "ref" / "dist"
}

// Columns the batch mode adds (or overwrites, if the input has them).
var vifBatchCols = []string{"vif", "dv", "vif_method", "error"}

type vifJob struct {
	idx int
	rec []string
}

type vifRow struct {
	idx int
	rec []string
	res iqa.Result
	err error
}

func runVIFBatch(ctx context.Context, b vifBatch, stdout, stderr io.Writer) error {
	f, err := os.Open(b.in)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("pairs file %s does not exist", b.in)
		}
		return err
	}
	defer f.Close()
	cr := csv.NewReader(bufio.NewReader(f))
	cr.FieldsPerRecord = -1 // a short row is that row's error, not the run's
	header, err := cr.Read()
	if err == io.EOF {
		return fmt.Errorf("%s is empty; it needs a header row naming the %q and %q columns", b.in, b.refCol, b.distCol)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", b.in, err)
	}
	refIdx, err := findColumn(header, b.in, b.refCol, "ref", b.refAlias, "--ref-col")
	if err != nil {
		return err
	}
	distIdx, err := findColumn(header, b.in, b.distCol, "dist", b.distAlias, "--dist-col")
	if err != nil {
		return err
	}
	outHeader := append([]string(nil), header...)
	var addIdx [4]int // positions of vif, dv, vif_method, error in the output
	for i, name := range vifBatchCols {
		addIdx[i] = -1
		for j, h := range header {
			if h == name && j != refIdx && j != distIdx {
				addIdx[i] = j
			}
		}
		if addIdx[i] < 0 {
			addIdx[i] = len(outHeader)
			outHeader = append(outHeader, name)
		}
	}

	var bar *progress.Bar
	if b.showBar {
		n, err := countRecords(b.in)
		if err != nil {
			return err
		}
		bar = progress.New(stderr, n, progress.Options{Label: "scoring"})
	}
	dir := filepath.Dir(b.in)
	var scored, failed int
	fill := func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		cw := csv.NewWriter(bw)
		if err := cw.Write(outHeader); err != nil {
			return err
		}
		err := scoreRows(ctx, cr, b, dir, refIdx, distIdx, func(r vifRow) error {
			row := make([]string, len(outHeader))
			copy(row, r.rec)
			if r.err == nil && len(r.rec) != len(header) {
				r.err = fmt.Errorf("row has %d fields but the header has %d", len(r.rec), len(header))
			}
			if r.err != nil {
				failed++
				row[addIdx[0]], row[addIdx[1]] = "", ""
				row[addIdx[3]] = r.err.Error()
			} else {
				scored++
				row[addIdx[0]] = strconv.FormatFloat(r.res.VIF, 'g', -1, 64)
				row[addIdx[1]] = strconv.FormatFloat(r.res.DV, 'g', -1, 64)
				row[addIdx[3]] = ""
			}
			row[addIdx[2]] = string(b.method)
			bar.Add(1)
			return cw.Write(row)
		})
		bar.Finish()
		if err != nil {
			return err
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
		return bw.Flush()
	}
	if b.out == "" {
		err = fill(stdout)
	} else {
		err = atomicfile.Write(b.out, fill)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%d pairs scored, %d failed\n", scored, failed)
	if failed > 0 {
		where := "standard output"
		if b.out != "" {
			where = b.out
		}
		return fmt.Errorf("%d of %d pairs failed; the error column of %s says why", failed, scored+failed, where)
	}
	return nil
}

// findColumn returns the index of column name in header, or of alias if
// allowed and name is absent.
func findColumn(header []string, file, name, alias string, allowAlias bool, flagName string) (int, error) {
	for _, try := range []string{name, alias} {
		for i, h := range header {
			if strings.TrimSpace(h) == try {
				return i, nil
			}
		}
		if !allowAlias {
			break
		}
	}
	return -1, usagef("%s has no column %q (its columns are %s); name the column with %s",
		file, name, strings.Join(header, ", "), flagName)
}

// countRecords returns the number of data rows of the CSV file at path.
func countRecords(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	cr := csv.NewReader(bufio.NewReader(f))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	n := -1 // header
	for {
		_, err := cr.Read()
		if err == io.EOF {
			return max(n, 0), nil
		}
		if err != nil {
			return 0, fmt.Errorf("%s: %w", path, err)
		}
		n++
	}
}

// scoreRows reads the data rows of cr, scores them with b.workers goroutines
// (one iqa.Scorer each) and calls emit for every row in input order. At most
// a fixed window of rows is in flight, so memory does not grow with the file.
// It stops early, returning the context's error, when ctx is cancelled.
func scoreRows(ctx context.Context, cr *csv.Reader, b vifBatch, dir string, refIdx, distIdx int, emit func(vifRow) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	window := 4*b.workers + 16
	tokens := make(chan struct{}, window) // one per row read but not yet emitted
	jobs := make(chan vifJob)
	rows := make(chan vifRow, window) // never blocks: ≤ window rows in flight
	var readErr error
	go func() {
		defer close(jobs)
		for i := 0; ; i++ {
			rec, err := cr.Read()
			if err == io.EOF {
				return
			}
			if err != nil {
				readErr = fmt.Errorf("%s: %w", b.in, err)
				return
			}
			select {
			case tokens <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- vifJob{i, rec}:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range b.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := iqa.NewScorer(b.method)
			for j := range jobs {
				r := vifRow{idx: j.idx, rec: j.rec}
				if err := ctx.Err(); err != nil {
					r.err = err
				} else {
					r.res, r.err = scoreRecord(s, j.rec, dir, refIdx, distIdx, b.opt)
				}
				rows <- r
			}
		}()
	}
	go func() {
		wg.Wait()
		close(rows)
	}()

	pending := make(map[int]vifRow)
	next := 0
	var emitErr error
	for r := range rows {
		if emitErr != nil || ctx.Err() != nil {
			continue // drain so that the workers can finish
		}
		pending[r.idx] = r
		for {
			p, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			if err := emit(p); err != nil {
				emitErr = err
				cancel()
				break
			}
			next++
			<-tokens
		}
	}
	switch {
	case emitErr != nil:
		return emitErr
	case readErr != nil:
		return readErr
	}
	return ctx.Err()
}

// scoreRecord scores the pair named in one CSV row.
func scoreRecord(s *iqa.Scorer, rec []string, dir string, refIdx, distIdx int, opt imageio.Options) (iqa.Result, error) {
	if max(refIdx, distIdx) >= len(rec) {
		return iqa.Result{}, fmt.Errorf("row has only %d fields", len(rec))
	}
	refName, distName := strings.TrimSpace(rec[refIdx]), strings.TrimSpace(rec[distIdx])
	if refName == "" || distName == "" {
		return iqa.Result{}, errors.New("empty image path")
	}
	resolve := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	return scorePair(s, resolve(refName), resolve(distName), refName, distName, opt)
}
