package testset

import (
	"bufio"
	"container/heap"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/vcr-bench/vcr/internal/atomicfile"
	"github.com/vcr-bench/vcr/iqa"
)

// How Merge brings the shards' images into the merged folder.
const (
	// ImagesMove renames each image into place (copying across file
	// systems); the shard folders are left without images.
	ImagesMove = "move"
	// ImagesCopy copies each image; the shard folders stay complete.
	ImagesCopy = "copy"
	// ImagesLink hard-links each image (same file system only).
	ImagesLink = "link"
)

// MergeOptions configures Merge.
type MergeOptions struct {
	// Images is ImagesMove (default), ImagesCopy or ImagesLink.
	Images string
	// Force replaces a finished merge (status.json complete) or another
	// run's manifest in the output folder. An interrupted merge of the same
	// shards is continued without it.
	Force bool
	// Progress, if not nil, is called after each row with rows done and total.
	Progress func(done, total int)
	// CoveragePlots, if not nil, draws the coverage plots into the merged
	// run's CoverageDir, as Config.CoveragePlots does for one run.
	CoveragePlots PlotWriter
}

// ShardDirs returns the shard folders (shard-*-of-*) inside out, sorted.
func ShardDirs(out string) ([]string, error) {
	m, err := filepath.Glob(filepath.Join(out, "shard-*-of-*"))
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, d := range m {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			dirs = append(dirs, d)
		}
	}
	return dirs, nil
}

// Merge joins the folders of the n shards of one run into out, so that out
// holds exactly what a single run with the same settings writes: the same
// manifest.csv, failures.csv, coverage.json, run.json and status.json bytes,
// and the images at the same paths. Every shard must be complete (its
// status.json says so) and all must come from the same command (their
// run.json differ only in the shard index, and in the dataset root, which
// may be mounted elsewhere on another machine). A merge that was interrupted
// (cancelled or killed) is continued by running it again, without Force:
// the images already in place are kept and the temporary files it left are
// removed. Merge locks out while it runs (ErrLocked).
func Merge(ctx context.Context, out string, dirs []string, opt MergeOptions) (*Summary, error) {
	switch opt.Images {
	case "":
		opt.Images = ImagesMove
	case ImagesMove, ImagesCopy, ImagesLink:
	default:
		return nil, fmt.Errorf("unknown image handling %q; choose %s, %s or %s", opt.Images, ImagesMove, ImagesCopy, ImagesLink)
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("no shard folders given, and %s holds no shard-*-of-* folders", out)
	}
	infos := make([]*RunInfo, len(dirs))
	byIndex := map[int]string{}
	total := 0
	absOut, _ := filepath.Abs(out)
	for i, d := range dirs {
		if a, _ := filepath.Abs(d); a == absOut {
			return nil, fmt.Errorf("shard folder %s is the output folder; merge into another folder", d)
		}
		ri, err := readRunInfo(filepath.Join(d, RunFile))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s has no %s; is it a shard folder written by vcr generate --shard?", d, RunFile)
		}
		if err != nil {
			return nil, err
		}
		var stat Status
		if err := readJSON(filepath.Join(d, StatusFile), &stat); err != nil || !stat.Complete {
			return nil, fmt.Errorf("shard %s in %s is not complete; finish it with the same vcr generate command and --resume", ri.Shard, d)
		}
		if prev, dup := byIndex[ri.Shard.Index]; dup {
			return nil, fmt.Errorf("%s and %s are both shard %s", prev, d, ri.Shard)
		}
		byIndex[ri.Shard.Index] = d
		infos[i] = ri
		total += stat.Rows + stat.Failures
		if i > 0 {
			if diffs := diffRunInfo(ri, infos[0], "shard.index", "dataset.root", "dataset.root_abs", "dataset.root_rel"); len(diffs) > 0 {
				return nil, &MismatchError{Path: filepath.Join(d, RunFile), Diffs: diffs}
			}
		}
	}
	n := infos[0].Shard.Count
	if len(dirs) != n {
		var missing []string
		for i := range n {
			if _, ok := byIndex[i]; !ok {
				missing = append(missing, strconv.Itoa(i))
			}
		}
		return nil, fmt.Errorf("the run has %d shards but %d folders were given; missing shard(s) %s", n, len(dirs), strings.Join(missing, ", "))
	}

	if total != infos[0].Rows {
		return nil, fmt.Errorf("the shards hold %d rows and failures together, but the run has %d; was a shard folder edited?", total, infos[0].Rows)
	}
	merged := *infos[0]
	merged.Shard = Whole
	// The shards recorded the dataset relative to their own folders.
	if err := merged.Dataset.setRoot(merged.Dataset.Root, out); err != nil {
		return nil, err
	}
	if infos[0].Dataset.RootAbs != "" {
		merged.Dataset.RootAbs = infos[0].Dataset.RootAbs
		if outAbs, err := filepath.Abs(out); err == nil {
			if rel, err := filepath.Rel(outAbs, merged.Dataset.RootAbs); err == nil {
				merged.Dataset.RootRel = filepath.ToSlash(rel)
			}
		}
	}

	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	release, err := lockDir(out)
	if err != nil {
		return nil, fmt.Errorf("%w; wait for the other vcr merge or generate to finish", err)
	}
	defer release()
	if _, err := os.Stat(filepath.Join(out, ManifestFile)); err == nil {
		// An interrupted merge of these shards wrote run.json first and
		// status.json last: it continues without Force. A finished merge,
		// or another run's files, need Force.
		var st Status
		stErr := readJSON(filepath.Join(out, StatusFile), &st)
		have, riErr := readRunInfo(filepath.Join(out, RunFile))
		interrupted := (stErr != nil || !st.Complete) && riErr == nil && len(diffRunInfo(have, &merged)) == 0
		if !interrupted && !opt.Force {
			return nil, fmt.Errorf("%s already holds a %s: %w; pass --force to merge again", out, ManifestFile, ErrExists)
		}
		for _, name := range []string{ManifestFile, FailuresFile, RunFile, CoverageFile, StatusFile} {
			if err := os.Remove(filepath.Join(out, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
		}
	}
	removeTemps(out, true) // a killed merge's; we hold the lock
	// run.json first: it marks the folder as this merge's (see above).
	if err := writeJSON(filepath.Join(out, RunFile), &merged); err != nil {
		return nil, err
	}
	dvMethods := make([]iqa.Method, len(merged.DVMethods))
	for i, m := range merged.DVMethods {
		dvMethods[i] = iqa.Method(m)
	}
	rb := newReportBuilder(merged.Corruptions, merged.Coverage.Bins, merged.Coverage.MinPerBin)
	done := 0
	progress := func() {
		done++
		if opt.Progress != nil {
			opt.Progress(done, total)
		}
	}
	made := map[string]bool{}
	err = atomicfile.Write(filepath.Join(out, ManifestFile), func(w io.Writer) error {
		return mergeCSV(ctx, w, dirs, ManifestFile, ManifestColumns(dvMethods), func(dir string, rec []string) error {
			if err := rb.addRecord(rec, filepath.Join(dir, ManifestFile)); err != nil {
				return err
			}
			if err := placeImage(dir, out, rec[colPath], opt.Images, made); err != nil {
				return err
			}
			progress()
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	nf := 0
	err = atomicfile.Write(filepath.Join(out, FailuresFile), func(w io.Writer) error {
		return mergeCSV(ctx, w, dirs, FailuresFile, FailureColumns, func(string, []string) error {
			nf++
			progress()
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	rep := rb.report(merged.VIFMethod, merged.Sampling)
	if err := writeJSON(filepath.Join(out, CoverageFile), rep); err != nil {
		return nil, err
	}
	if opt.CoveragePlots != nil {
		if err := opt.CoveragePlots(rep, filepath.Join(out, CoverageDir)); err != nil {
			return nil, err
		}
	}
	if err := writeJSON(filepath.Join(out, StatusFile), Status{Complete: true, Rows: rep.Overall.N, Failures: nf}); err != nil {
		return nil, err
	}
	return &Summary{Out: out, Rows: rep.Overall.N, Failures: nf, Corruptions: merged.Corruptions, Coverage: rep}, nil
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// mergeCSV writes to w the header and the rows of dir/name for every dir,
// in id order (each file is sorted by id), calling each for every row. Ids
// that occur twice are an error.
func mergeCSV(ctx context.Context, w io.Writer, dirs []string, name string, header []string, each func(dir string, rec []string) error) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	cw := csv.NewWriter(bw)
	cw.Write(header)
	h := &recHeap{}
	for _, d := range dirs {
		path := filepath.Join(d, name)
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		cr := csv.NewReader(bufio.NewReader(f))
		cr.FieldsPerRecord = len(header)
		hd, err := cr.Read()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if !slices.Equal(hd, header) {
			return fmt.Errorf("%s has columns %s, want %s", path, strings.Join(hd, ","), strings.Join(header, ","))
		}
		s := &csvStream{dir: d, path: path, r: cr}
		ok, err := s.advance()
		if err != nil {
			return err
		}
		if ok {
			heap.Push(h, s)
		}
	}
	lastID := -1
	for h.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		s := (*h)[0]
		if s.id <= lastID {
			return fmt.Errorf("%s: id %d occurs twice or out of order", s.path, s.id)
		}
		lastID = s.id
		if err := each(s.dir, s.rec); err != nil {
			return err
		}
		if err := cw.Write(s.rec); err != nil {
			return err
		}
		ok, err := s.advance()
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

// csvStream is one shard's file being merged: its current record and id.
type csvStream struct {
	dir, path string
	r         *csv.Reader
	rec       []string
	id        int
}

func (s *csvStream) advance() (bool, error) {
	rec, err := s.r.Read()
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s: %w", s.path, err)
	}
	id, err := strconv.Atoi(rec[0])
	if err != nil {
		return false, fmt.Errorf("%s: id %q is not a number", s.path, rec[0])
	}
	s.rec, s.id = rec, id
	return true, nil
}

type recHeap []*csvStream

func (h recHeap) Len() int           { return len(h) }
func (h recHeap) Less(i, j int) bool { return h[i].id < h[j].id }
func (h recHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *recHeap) Push(x any)        { *h = append(*h, x.(*csvStream)) }
func (h *recHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// placeImage brings the image at rel (slash-separated, relative to the
// shard folder dir) to the same place under out. An image already in place
// (from an interrupted merge) is kept.
func placeImage(dir, out, rel, mode string, made map[string]bool) error {
	src, err := LocalPath(dir, rel)
	if err != nil {
		return fmt.Errorf("%s: image path: %w", filepath.Join(dir, ManifestFile), err)
	}
	dst := filepath.Join(out, filepath.FromSlash(rel))
	if d := filepath.Dir(dst); !made[d] {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		made[d] = true
	}
	_, srcErr := os.Stat(src)
	if _, err := os.Stat(dst); err == nil && (mode != ImagesCopy || srcErr != nil) {
		return nil
	}
	if srcErr != nil {
		return fmt.Errorf("image %s, listed in %s, is missing", src, filepath.Join(dir, ManifestFile))
	}
	switch mode {
	case ImagesMove:
		err := os.Rename(src, dst)
		if errors.Is(err, syscall.EXDEV) {
			if err := copyFile(dst, src); err != nil {
				return err
			}
			return os.Remove(src)
		}
		return err
	case ImagesLink:
		return os.Link(src, dst)
	}
	return copyFile(dst, src)
}

// copyFile copies src to dst atomically.
func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return atomicfile.Write(dst, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}
