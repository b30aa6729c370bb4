package testset

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Shard selects part of a run: shard Index of Count (0 ≤ Index < Count)
// takes the draws g with g mod Count = Index. Draws are interleaved rather
// than cut into blocks so that every shard gets the same mix of corruptions
// and finishes at about the same time. The zero value is invalid; a whole
// run is Shard{0, 1}.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// Whole is the shard of an unsharded run.
var Whole = Shard{Index: 0, Count: 1}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Valid reports whether 0 ≤ Index < Count.
func (s Shard) Valid() bool { return s.Count >= 1 && s.Index >= 0 && s.Index < s.Count }

// ParseShard parses "i/n" (0 ≤ i < n).
func ParseShard(v string) (Shard, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(v), "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q is not of the form i/n, e.g. 0/4 (shards are numbered from 0)", v)
	}
	s := Shard{i, n}
	if !s.Valid() {
		return Shard{}, fmt.Errorf("shard %q: need n ≥ 1 and 0 ≤ i < n (shards are numbered from 0 to n−1)", v)
	}
	return s, nil
}

// ShardFromEnv returns the shard named by the environment, through getenv
// (os.Getenv), and whether one was named:
//
//   - Slurm job arrays: SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT; the
//     index is counted from SLURM_ARRAY_TASK_MIN when set, so --array=1-8
//     and --array=0-7 both give shards 0…7.
//   - Kubernetes Indexed Jobs: JOB_COMPLETION_INDEX, with the count in
//     VCR_SHARD_COUNT (Kubernetes does not export the completion count; set
//     it to the Job's spec.completions).
//
// It returns an error when the variables are present but inconsistent.
func ShardFromEnv(getenv func(string) string) (Shard, bool, error) {
	num := func(name string) (int, error) {
		v := getenv(name)
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return 0, fmt.Errorf("environment variable %s=%q is not an integer", name, v)
		}
		return n, nil
	}
	if getenv("SLURM_ARRAY_TASK_ID") != "" {
		id, err := num("SLURM_ARRAY_TASK_ID")
		if err != nil {
			return Shard{}, false, err
		}
		if getenv("SLURM_ARRAY_TASK_COUNT") == "" {
			return Shard{}, false, fmt.Errorf("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not; pass --shard i/n")
		}
		n, err := num("SLURM_ARRAY_TASK_COUNT")
		if err != nil {
			return Shard{}, false, err
		}
		if getenv("SLURM_ARRAY_TASK_MIN") != "" {
			lo, err := num("SLURM_ARRAY_TASK_MIN")
			if err != nil {
				return Shard{}, false, err
			}
			id -= lo
		}
		s := Shard{id, n}
		if !s.Valid() {
			return Shard{}, false, fmt.Errorf("Slurm array task %d of %d is not a valid shard; use a contiguous --array range (e.g. --array=0-%d) or pass --shard i/n", id, n, max(n-1, 0))
		}
		return s, true, nil
	}
	if getenv("JOB_COMPLETION_INDEX") != "" {
		id, err := num("JOB_COMPLETION_INDEX")
		if err != nil {
			return Shard{}, false, err
		}
		if getenv("VCR_SHARD_COUNT") == "" {
			return Shard{}, false, fmt.Errorf("JOB_COMPLETION_INDEX is set but VCR_SHARD_COUNT is not; set VCR_SHARD_COUNT to the Job's completions or pass --shard i/n")
		}
		n, err := num("VCR_SHARD_COUNT")
		if err != nil {
			return Shard{}, false, err
		}
		s := Shard{id, n}
		if !s.Valid() {
			return Shard{}, false, fmt.Errorf("JOB_COMPLETION_INDEX=%d with VCR_SHARD_COUNT=%d is not a valid shard (need index < count)", id, n)
		}
		return s, true, nil
	}
	return Shard{}, false, nil
}

// Dir returns the folder shard s of a run writes into: out itself for a
// whole run, out/shard-i-of-n otherwise (i zero-padded so that the folders
// sort in shard order).
func (s Shard) Dir(out string) string {
	if s.Count <= 1 {
		return out
	}
	w := len(strconv.Itoa(s.Count - 1))
	return filepath.Join(out, fmt.Sprintf("shard-%0*d-of-%d", w, s.Index, s.Count))
}

// draws returns how many of total draws belong to s.
func (s Shard) draws(total int) int {
	if s.Index >= total {
		return 0
	}
	return (total-s.Index-1)/s.Count + 1
}

// draw returns the global draw index of the shard's pos-th draw.
func (s Shard) draw(pos int) int { return s.Index + pos*s.Count }
