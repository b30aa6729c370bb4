// Package pairs scores image pairs with VIF: one pair, or a CSV of pairs
// scored in parallel with the rows kept in order and a broken row reported
// in the row, not fatal ('vcr vif' and 'vcr vif --pairs').
package pairs

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/iqa"
)

// ScoreFiles loads the images at refPath and distPath (named refName and
// distName in messages) and scores them with s.
func ScoreFiles(s *iqa.Scorer, refPath, distPath, refName, distName string, opt imageio.Options) (iqa.Result, error) {
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

// Options configures Score.
type Options struct {
	// In is the pairs CSV; relative image paths are relative to its folder.
	In string
	// Method is the VIF flavour; Workers score pairs in parallel (at least 1).
	Method  iqa.Method
	Workers int
	// Image limits decoding.
	Image imageio.Options
	// RefCol and DistCol name the reference and distorted path columns;
	// with RefAlias (DistAlias) "ref" ("dist") is accepted when RefCol
	// (DistCol) is absent.
	RefCol, DistCol     string
	RefAlias, DistAlias bool
	// Progress, when not nil, is called once per scored row.
	Progress func()
}

// Summary counts the rows Score wrote.
type Summary struct {
	Scored, Failed int
}

// ColumnError is returned when the CSV lacks a named column.
type ColumnError struct {
	File, Column, Flag string
	Header             []string
}

func (e *ColumnError) Error() string {
	return fmt.Sprintf("%s has no column %q (its columns are %s); name the column with %s",
		e.File, e.Column, strings.Join(e.Header, ", "), e.Flag)
}

// Columns Score adds (or overwrites, if the input has them).
var Columns = []string{"vif", "dv", "vif_method", "error"}

type job struct {
	idx int
	rec []string
}

type row struct {
	idx int
	rec []string
	res iqa.Result
	err error
}

// Score reads the pairs CSV opt.In and writes it to w, every column kept in
// order, with Columns appended (or overwritten), rows in input order,
// scored in parallel. A missing or broken image, or a size mismatch, is
// that row's error (empty vif and dv, the reason in error), not the run's:
// Summary.Failed counts them. It returns an error for an unreadable or
// malformed CSV (a *ColumnError for a missing column), a write error, or
// ctx's error when cancelled. Memory does not grow with the file.
func Score(ctx context.Context, opt Options, w io.Writer) (Summary, error) {
	b := opt
	var sum Summary
	f, err := os.Open(b.In)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return sum, fmt.Errorf("pairs file %s does not exist", b.In)
		}
		return sum, err
	}
	defer f.Close()
	cr := csv.NewReader(bufio.NewReader(f))
	cr.FieldsPerRecord = -1 // a short row is that row's error, not the run's
	header, err := cr.Read()
	if err == io.EOF {
		return sum, fmt.Errorf("%s is empty; it needs a header row naming the %q and %q columns", b.In, b.RefCol, b.DistCol)
	}
	if err != nil {
		return sum, fmt.Errorf("%s: %w", b.In, err)
	}
	refIdx, err := findColumn(header, b.In, b.RefCol, "ref", b.RefAlias, "--ref-col")
	if err != nil {
		return sum, err
	}
	distIdx, err := findColumn(header, b.In, b.DistCol, "dist", b.DistAlias, "--dist-col")
	if err != nil {
		return sum, err
	}
	outHeader := append([]string(nil), header...)
	var addIdx [4]int // positions of vif, dv, vif_method, error in the output
	for i, name := range Columns {
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

	dir := filepath.Dir(b.In)
	bw := bufio.NewWriter(w)
	cw := csv.NewWriter(bw)
	if err := cw.Write(outHeader); err != nil {
		return sum, err
	}
	err = scoreRows(ctx, cr, b, dir, refIdx, distIdx, func(r row) error {
		out := make([]string, len(outHeader))
		copy(out, r.rec)
		if r.err == nil && len(r.rec) != len(header) {
			r.err = fmt.Errorf("row has %d fields but the header has %d", len(r.rec), len(header))
		}
		if r.err != nil {
			sum.Failed++
			out[addIdx[0]], out[addIdx[1]] = "", ""
			out[addIdx[3]] = r.err.Error()
		} else {
			sum.Scored++
			out[addIdx[0]] = strconv.FormatFloat(r.res.VIF, 'g', -1, 64)
			out[addIdx[1]] = strconv.FormatFloat(r.res.DV, 'g', -1, 64)
			out[addIdx[3]] = ""
		}
		out[addIdx[2]] = string(b.Method)
		if b.Progress != nil {
			b.Progress()
		}
		return cw.Write(out)
	})
	if err != nil {
		return sum, err
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return sum, err
	}
	return sum, bw.Flush()
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
	return -1, &ColumnError{File: file, Column: name, Flag: flagName, Header: header}
}

// CountRows returns the number of data rows of the CSV file at path.
func CountRows(path string) (int, error) {
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
func scoreRows(ctx context.Context, cr *csv.Reader, b Options, dir string, refIdx, distIdx int, emit func(row) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	window := 4*b.Workers + 16
	tokens := make(chan struct{}, window) // one per row read but not yet emitted
	jobs := make(chan job)
	rows := make(chan row, window) // never blocks: ≤ window rows in flight
	var readErr error
	go func() {
		defer close(jobs)
		for i := 0; ; i++ {
			rec, err := cr.Read()
			if err == io.EOF {
				return
			}
			if err != nil {
				readErr = fmt.Errorf("%s: %w", b.In, err)
				return
			}
			select {
			case tokens <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- job{i, rec}:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range b.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := iqa.NewScorer(b.Method)
			for j := range jobs {
				r := row{idx: j.idx, rec: j.rec}
				if err := ctx.Err(); err != nil {
					r.err = err
				} else {
					r.res, r.err = scoreRecord(s, j.rec, dir, refIdx, distIdx, b.Image)
				}
				rows <- r
			}
		}()
	}
	go func() {
		wg.Wait()
		close(rows)
	}()

	pending := make(map[int]row)
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
	return ScoreFiles(s, resolve(refName), resolve(distName), refName, distName, opt)
}
