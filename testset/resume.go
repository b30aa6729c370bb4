package testset

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// resumePoint finds where an interrupted run stopped, cuts the manifest and
// failures back to whole draws before that point, removes temporary files,
// and returns the shard position to continue from. The last draw found in the
// manifest is regenerated (it may have been cut), as is everything after it;
// generation is deterministic, so the regenerated rows and images equal the
// lost ones byte for byte.
func (st *runState) resumePoint() (int, error) {
	mpath, fpath := st.path(ManifestFile), st.path(FailuresFile)
	shard := st.cfg.Shard
	lastPos, lastStart := -1, int64(-1)
	prevID := -1
	rows, keptRows := 0, 0 // manifest rows read; those before lastPos's draw
	headerEnd, err := scanAppendLog(mpath, st.columns, func(id int, start, end int64) bool {
		if id <= prevID || id >= st.draws*st.perDraw {
			return false
		}
		g := id / st.perDraw
		if g%shard.Count != shard.Index {
			return false
		}
		prevID = id
		if pos := g / shard.Count; pos != lastPos {
			lastPos, lastStart, keptRows = pos, start, rows
		}
		rows++
		return true
	})
	switch {
	case errors.Is(err, fs.ErrNotExist) || (err == nil && headerEnd < 0):
		if err := writeHeader(mpath, st.columns); err != nil {
			return 0, err
		}
		lastPos = -1
	case err != nil:
		return 0, err
	default:
		cut := headerEnd
		if lastPos >= 0 {
			cut = lastStart
		}
		if err := truncateTo(mpath, cut); err != nil {
			return 0, err
		}
	}
	start := max(lastPos, 0)
	firstID := shard.draw(start) * st.perDraw // failures from here on are regenerated
	fcut := int64(-1)
	fRows := 0
	headerEnd, err = scanAppendLog(fpath, FailureColumns, func(id int, start, end int64) bool {
		if id >= firstID {
			return false
		}
		fcut = end
		fRows++
		return true
	})
	switch {
	case errors.Is(err, fs.ErrNotExist) || (err == nil && headerEnd < 0):
		if err := writeHeader(fpath, FailureColumns); err != nil {
			return 0, err
		}
	case err != nil:
		return 0, err
	default:
		if fcut < 0 {
			fcut = headerEnd
		}
		if err := truncateTo(fpath, fcut); err != nil {
			return 0, err
		}
	}
	removeTemps(st.cfg.Out, true)
	st.resumedRows = start * st.perDraw
	if start > 0 {
		st.warn("resuming %s at draw %d of %d (kept: %d rows of %s, %d of %s)", st.cfg.Out, start, st.shardDraws, keptRows, ManifestFile, fRows, FailuresFile)
	}
	return start, nil
}

// isTemp reports whether name is a temporary file of atomicfile or saveImage.
func isTemp(name string) bool { return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-") }

// removeTemps deletes the temporary files atomicfile leaves when a process
// is killed mid-write: in dir, and under dir/images when deep is set.
func removeTemps(dir string, deep bool) {
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if e.Type().IsRegular() && isTemp(e.Name()) {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	if !deep {
		return
	}
	filepath.WalkDir(filepath.Join(dir, ImagesDir), func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() && isTemp(e.Name()) {
			os.Remove(p)
		}
		return nil
	})
}
