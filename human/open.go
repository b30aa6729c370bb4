package human

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vcr-bench/vcr/corrupt"
)

// BuiltinPrefix marks a built-in dataset in a data spec: "builtin:icse2022-imagenet".
const BuiltinPrefix = "builtin:"

// ErrNotFound: a data spec that names neither a built-in dataset nor an
// existing file or folder.
var ErrNotFound = errors.New("human: no such data")

// ErrNeedVIFMethod: an ICSE 2022 per-trial file, which does not record its
// VIF flavour, opened without one.
var ErrNeedVIFMethod = errors.New("human: the file does not record its VIF flavour")

// openError is an error of Open whose message stands alone and which
// matches its sentinel with errors.Is.
type openError struct {
	kind error
	msg  string
}

func (e *openError) Error() string        { return e.msg }
func (e *openError) Is(target error) bool { return target == e.kind }

func openErrorf(kind error, format string, a ...any) error {
	return &openError{kind, fmt.Sprintf(format, a...)}
}

// Open returns the human dataset a user names by spec, the one way every
// command reads --human:
//
//   - "builtin:NAME" or a bare NAME of BuiltinNames: the embedded dataset
//     (Builtin). A bare name that is also an existing file or folder is
//     read from disk; the prefix always means the built-in dataset.
//   - a folder: the ICSE 2022 per-bin files <ds>_c_p_<T>.csv and
//     <ds>_p_p_<T>.csv (ReadICSEFolder).
//   - a file whose header has image_link and IQA: the ICSE 2022 per-trial
//     CSV (ReadICSETrials), whose flavour vifMethod must name, since the
//     file does not record it; without it Open returns an error wrapping
//     ErrNeedVIFMethod that names the flavours of the published data.
//   - any other file: the project's trial CSV (ReadTrials); vifMethod is
//     ignored, the file records its flavour per row.
//
// An unknown name that is no file either returns an error wrapping
// ErrNotFound that lists the built-in names.
func Open(spec, vifMethod string) (*Dataset, error) {
	if name, ok := strings.CutPrefix(spec, BuiltinPrefix); ok {
		if !slices.Contains(BuiltinNames(), name) {
			return nil, openErrorf(ErrNotFound, "no built-in dataset %q (built-in: %s)", name, strings.Join(BuiltinNames(), ", "))
		}
		return Builtin(name)
	}
	st, err := os.Stat(spec)
	if err != nil {
		if slices.Contains(BuiltinNames(), spec) {
			return Builtin(spec)
		}
		if errors.Is(err, os.ErrNotExist) {
			return nil, openErrorf(ErrNotFound, "%s is no file or folder, and not a built-in dataset (built-in: %s, also as builtin:NAME)",
				spec, strings.Join(BuiltinNames(), ", "))
		}
		return nil, err
	}
	if st.IsDir() {
		return ReadICSEFolder(spec)
	}
	data, err := os.ReadFile(spec)
	if err != nil {
		return nil, err
	}
	head, _, _ := bytes.Cut(data, []byte("\n"))
	if bytes.Contains(head, []byte("image_link")) && bytes.Contains(head, []byte("IQA")) {
		if vifMethod == "" {
			return nil, openErrorf(ErrNeedVIFMethod, "%s is an ICSE 2022 per-trial file, which does not record its VIF flavour; name it with --human-vif-method (%q for the published ImageNet data, %q for CIFAR-10)",
				spec, VIFVec, VIFVec2Layers)
		}
		return ReadICSETrials(bytes.NewReader(data), spec, vifMethod)
	}
	return ReadTrials(bytes.NewReader(data), spec)
}

// ReadICSEFolder reads a folder of the ICSE 2022 per-bin files, as the
// study's estimating/imagenet and estimating/cifar10 folders hold them:
// <ds>_c_p_<T>.csv (accuracy) and <ds>_p_p_<T>.csv (preservation) per
// transformation T, ds being imagenet or cifar10. The series are anchored
// as the built-in datasets of the same ds (Builtin): ImageNet accuracy at
// the study's 0.970, consistency unanchored; CIFAR-10 at the published
// per-trial file's clean accuracy and consistency. It returns an error
// naming the file when a transformation lacks one of its two files, the
// folder holds no such files, or mixes data sets.
func ReadICSEFolder(dir string) (*Dataset, error) {
	var ts []string
	ds := ""
	for _, kind := range []string{"_c_p_", "_p_p_"} {
		m, err := filepath.Glob(filepath.Join(dir, "*"+kind+"*.csv"))
		if err != nil {
			return nil, err
		}
		for _, f := range m {
			d, t, _ := strings.Cut(strings.TrimSuffix(filepath.Base(f), ".csv"), kind)
			if d != "imagenet" && d != "cifar10" {
				return nil, fmt.Errorf("%w: %s: unknown data set %q (want imagenet_… or cifar10_…)", ErrFormat, f, d)
			}
			if ds == "" {
				ds = d
			} else if d != ds {
				return nil, fmt.Errorf("%w: %s mixes data sets (%s and %s)", ErrFormat, dir, ds, d)
			}
			if !slices.Contains(ts, t) {
				ts = append(ts, t)
			}
		}
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("%w: %s has no per-bin files <dataset>_c_p_<T>.csv / <dataset>_p_p_<T>.csv", ErrFormat, dir)
	}
	slices.Sort(ts)
	fsys := os.DirFS(dir)
	var d *Dataset
	var err error
	if ds == "imagenet" {
		d, err = icseBins(fsys, "icse2022-imagenet", ds, ".", ts, VIFVec, icseImageNetClean, math.NaN(), 0)
	} else {
		raw, rerr := Builtin("icse2022-cifar10")
		if rerr != nil {
			return nil, rerr
		}
		r := raw.Series[0]
		d, err = icseBins(fsys, "icse2022-cifar10", ds, ".", ts, VIFVec2Layers, r.CleanAccuracy, r.CleanConsistency, r.CleanN)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	d.Name, d.Source = dir, icseSource+" (per-bin files in "+dir+")"
	return d, nil
}

// CanonicalCorruption maps a corruption name to its catalogue name when the
// catalogue knows it (so that the ICSE data's "RGB" meets "rgb_shift"),
// else to its lower-case form with '-' and ' ' as '_'. Model and human
// series are matched by this name.
func CanonicalCorruption(name string) string {
	if n, ok := ICSENames[name]; ok {
		name = n
	}
	if c, err := corrupt.Lookup(name); err == nil {
		return c.Name
	}
	return strings.ToLower(strings.NewReplacer("-", "_", " ", "_").Replace(name))
}
