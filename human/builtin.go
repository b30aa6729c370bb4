package human

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"math"
	"path"
	"sort"
	"strings"

	"github.com/vcr-bench/vcr/robustness"
)

// The ICSE 2022 artifact's estimating/ folder (origin: data/icse2022/README.md).
//
//go:embed data/icse2022
var icseFS embed.FS

const icseRoot = "data/icse2022/estimating"

// ICSE 2022 clean-image human accuracy constants (requirements-method.md
// A.4): CIFAR-10 = 10,046/10,386 original trials; ImageNet = 0.970 (the
// raw ImageNet file is lost, so neither its count nor the clean
// consistency can be re-derived).
const (
	icseCIFARCleanCorrect = 10046
	icseCIFARCleanN       = 10386
	icseImageNetClean     = 0.970
)

var icseTransforms = map[string][]string{
	"cifar10":  {"brightness", "contrast", "frost", "jpeg_compression"},
	"imagenet": {"Color_jitter", "RGB", "brightness", "contrast", "defocus_blur", "frost", "gaussian_noise", "jpeg_compression"},
}

// BuiltinNames lists the names Builtin accepts.
func BuiltinNames() []string {
	n := []string{"icse2022-cifar10", "icse2022-cifar10-bins", "icse2022-imagenet",
		"icse2022-imagenet-sixty1", "icse2022-imagenet-sixty2"}
	sort.Strings(n)
	return n
}

// Builtin returns an embedded published dataset:
//
//	icse2022-cifar10          the per-trial CIFAR-10 file (VIFVec2Layers), paired as the study did
//	icse2022-cifar10-bins     the published CIFAR-10 per-bin files (VIFVec2Layers)
//	icse2022-imagenet         the published ImageNet per-bin files (VIFVec)
//	icse2022-imagenet-sixty1  the first RQ1 subsample (60 % of each accuracy bin, 90 % of each preservation bin)
//	icse2022-imagenet-sixty2  the second, independent subsample
//
// CIFAR-10 series are anchored at the pooled clean accuracy
// 10,046/10,386 and the leave-one-out clean consistency of the originals,
// both with CleanN = 10,386; ImageNet accuracy is anchored at the study's
// constant 0.970 (CleanN 0: its count is unknown) and ImageNet consistency
// is left unanchored (NaN: the raw originals are lost).
func Builtin(name string) (*Dataset, error) {
	switch name {
	case "icse2022-cifar10":
		b, err := icseFS.ReadFile(path.Join(icseRoot, "cifar10_experiment_results.csv"))
		if err != nil {
			return nil, err
		}
		d, err := ReadICSETrials(bytes.NewReader(b), name, VIFVec2Layers)
		if err != nil {
			return nil, err
		}
		d.Source = icseSource + ", estimating/cifar10_experiment_results.csv"
		return d, nil
	case "icse2022-cifar10-bins":
		raw, err := Builtin("icse2022-cifar10")
		if err != nil {
			return nil, err
		}
		return icseBins(icseFS, name, "cifar10", path.Join(icseRoot, "cifar10"), icseTransforms["cifar10"], VIFVec2Layers,
			raw.Series[0].CleanAccuracy, raw.Series[0].CleanConsistency, raw.Series[0].CleanN)
	case "icse2022-imagenet":
		return icseBins(icseFS, name, "imagenet", path.Join(icseRoot, "imagenet"), icseTransforms["imagenet"], VIFVec, icseImageNetClean, math.NaN(), 0)
	case "icse2022-imagenet-sixty1", "icse2022-imagenet-sixty2":
		dir := "sixty_percent_" + name[len(name)-1:]
		return icseBins(icseFS, name, "imagenet", path.Join(icseRoot, "sixty_percent", dir), icseTransforms["imagenet"], VIFVec, icseImageNetClean, math.NaN(), 0)
	}
	return nil, fmt.Errorf("human: no built-in dataset %q (have %s)", name, strings.Join(BuiltinNames(), ", "))
}

const icseSource = "Hu et al., ICSE 2022, github.com/carolineeeeeee/automating_requirements"

// icseBins reads the per-bin files <ds>_c_p_<T>.csv and <ds>_p_p_<T>.csv
// of the transformations ts from the folder dir of fsys.
func icseBins(fsys fs.FS, name, ds, dir string, ts []string, vif string, cleanAcc, cleanCons float64, cleanN int) (*Dataset, error) {
	d := &Dataset{Name: name, Task: TaskCar, VIFMethod: vif, Source: icseSource + ", " + strings.TrimPrefix(dir, "data/icse2022/")}
	for _, t := range ts {
		var bins robustness.Bins
		for _, p := range []struct {
			kind string
			dst  *robustness.Counts
		}{{"c_p", &bins.Accuracy}, {"p_p", &bins.Consistency}} {
			f := path.Join(dir, ds+"_"+p.kind+"_"+t+".csv")
			b, err := fs.ReadFile(fsys, f)
			if err != nil {
				return nil, err
			}
			if *p.dst, err = ReadICSEBins(bytes.NewReader(b), path.Base(f)); err != nil {
				return nil, err
			}
		}
		d.Series = append(d.Series, robustness.Series{Subject: Subject, Corruption: catalogueName(t), VIFMethod: vif, Human: true,
			Binned: &bins, CleanAccuracy: cleanAcc, CleanConsistency: cleanCons, CleanN: cleanN})
	}
	return d, nil
}
