package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/vcr-bench/vcr/contrast"
	"github.com/vcr-bench/vcr/internal/atomicfile"
	"github.com/vcr-bench/vcr/results"
)

func init() {
	addCommand(&command{name: "contrast", summary: "accuracy by colour contrast of object and background (CIFAR-CoCo), × severity", run: runContrast})
}

const contrastUsage = `
Usage: vcr contrast --color-labels COLORS.csv --results FILE[,FILE…] --out DIR [flags]
       vcr contrast --estimate-colors --images DIR --out COLORS.csv [--color-labels REF.csv]
       vcr contrast --estimate-colors --images DIR --results FILE[,FILE…] --out DIR

Measures how a classifier's accuracy depends on the colour contrast between
an object and its background, as the CIFAR-CoCo study does, joined with
corruption severity (docs/contrast.md).

COLORS.csv has the columns id, background, foreground; colours are red,
green, blue, brown, gray, white, black, others. A results row of 'vcr eval'
takes the label of its source image (the label id equals the row's source
column), else of its id. The unordered (background, foreground) pair
gives the contrast group low, low-mid, high-mid, high (ordered) or others,
from the published table or --groups TABLE.csv (columns background,
foreground, group; its pairs replace the built-in ones).

Per model (a results file, named by --model-name, else by its model
column, else by the file's name, for DIR/results.csv DIR's name) it computes the accuracy of every group on
the clean and the corrupted images, per corruption and per level (the
rows' severity when every row has one, else --dv-bins equal Δv bins; --by
chooses), the slope of the ordinary least-squares line of the ordered
groups' accuracies on their index 0…3 (unweighted, one point per group)
with a 95% percentile interval from --bootstrap replicates that resample
images within each group, the weighted standard deviation of the ordered
groups' accuracies (weights: rows per group; sensitivity to contrast) and
of the levels' accuracies (weights: rows per level; sensitivity to
severity), the contrast × level grid, and the change of every later model
from the first.

--estimate-colors labels the images below --images itself: the dominant
palette colour (nearest prototype in CIELAB) of the border is the
background, of the centre region the foreground; "others" when no colour
has 40% of the region. Ids are paths relative to --images. These are
estimates, marked so in every output. With --color-labels REF.csv the agreement
with REF.csv is printed and written next to the estimates
(COLORS.csv.agreement.json).

DIR receives contrast.json (per model the group accuracies, slope,
slope_ci, weighted_std, severity_std, per corruption and level),
groups.csv, measures.csv, comparisons.csv (two or more models), plots as
SVG and PNG (groups_clean, groups_corrupted: accuracy per group with each
model's regression line; sensitivity: contrast vs severity sensitivity;
heatmap_MODEL: contrast × level), and a table is printed.
'vcr report DIR --out report.html' shows them.

Examples:
  vcr contrast --color-labels colors.csv --results resnet/results.csv,vit/results.csv --out contrast
  vcr contrast --estimate-colors --images cifar10/test --out colors.csv --color-labels hand.csv
`

func runContrast(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("contrast", contrastUsage, stderr)
	var files, names stringList
	fs.Var(&files, "results", "results `FILE`s of 'vcr eval', comma-separated or repeated")
	fs.Var(&names, "model-name", "model `NAME`s of the results files, in order")
	labelsPath := fs.String("color-labels", "", "colour labels `CSV` (id, background, foreground); with --estimate-colors the reference for agreement")
	out := fs.String("out", "", "output `folder` (created); with --estimate-colors and no --results the labels CSV to write")
	groups := fs.String("groups", "", "pair→group table `CSV` (background, foreground, group) overriding the built-in one")
	by := fs.String("by", "auto", "levels: `severity`, dv (Δv bins) or auto")
	dvBins := fs.Int("dv-bins", contrast.DefaultDVBins, "number of equal Δv bins `N` with --by dv")
	boot := fs.Int("bootstrap", contrast.DefaultReplicates, "bootstrap replicates `B` of the slope interval (0: none)")
	seed := fs.Uint64("seed", 1, "bootstrap seed")
	skip := fs.Bool("skip-unlabelled", false, "skip results rows whose image has no label (default: an error)")
	estimate := fs.Bool("estimate-colors", false, "estimate the colour labels of the images below --images")
	images := fs.String("images", "", "image `folder` for --estimate-colors")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	var paths, models []string
	for _, l := range []struct {
		in  stringList
		dst *[]string
	}{{files, &paths}, {names, &models}} {
		for _, v := range l.in {
			for _, p := range strings.Split(v, ",") {
				if p = strings.TrimSpace(p); p != "" {
					*l.dst = append(*l.dst, p)
				}
			}
		}
	}
	level := *by
	switch {
	case len(pos) > 0:
		return usagef("unexpected arguments %q", pos)
	case *out == "":
		return usagef("--out is required, e.g. --out contrast")
	case *estimate && *images == "":
		return usagef("--estimate-colors needs --images DIR, the folder of the images to label")
	case !*estimate && *images != "":
		return usagef("--images is only used with --estimate-colors")
	case !*estimate && *labelsPath == "":
		return usagef("--color-labels is required (or --estimate-colors --images DIR), e.g. --color-labels colors.csv")
	case !*estimate && len(paths) == 0:
		return usagef("--results is required, e.g. --results resnet50/results.csv")
	case len(models) > 0 && len(models) != len(paths):
		return usagef("%d --model-name values for %d results files", len(models), len(paths))
	case *boot < 0:
		return usagef("--bootstrap must be 0 (none) or positive (got %d), e.g. --bootstrap 1000", *boot)
	case *dvBins < 1 || *dvBins > 1000:
		return usagef("--dv-bins must be in 1…1000 (got %d), e.g. --dv-bins 5", *dvBins)
	case level != "auto" && level != contrast.LevelSeverity && level != contrast.LevelDV:
		return usagef("--by must be severity, dv or auto (got %q)", level)
	}
	if level == "auto" {
		level = ""
	}
	// Outputs first: a labels file alone, or a folder.
	if *estimate && len(paths) == 0 {
		err = checkOutFile("--out", *out)
	} else {
		err = checkOutDir("--out", *out)
	}
	if err != nil {
		return err
	}

	table := contrast.BuiltinTable()
	tableName := "built-in"
	if *groups != "" {
		f, err := os.Open(*groups)
		if err != nil {
			return err
		}
		table, err = contrast.ReadTable(f, *groups)
		f.Close()
		if err != nil {
			return err
		}
		tableName = *groups
	}
	readLabels := func(p string) (*contrast.Labels, error) {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return contrast.ReadLabels(f, p, table)
	}

	if *estimate {
		est, err := contrast.EstimateDir(*images, table)
		if err != nil {
			return err
		}
		labelsOut := *out
		if len(paths) > 0 {
			if err := os.MkdirAll(*out, 0o755); err != nil {
				return err
			}
			labelsOut = filepath.Join(*out, "colors_estimated.csv")
		}
		if err := atomicfile.Write(labelsOut, func(w io.Writer) error { return contrast.WriteLabels(w, est) }); err != nil {
			return fmt.Errorf("write %s: %w", labelsOut, err)
		}
		fmt.Fprintf(stdout, "estimated the colours of %d images → %s (estimates, not judgements)\n", len(est), labelsOut)
		if *labelsPath != "" {
			ref, err := readLabels(*labelsPath)
			if err != nil {
				return err
			}
			a, err := contrast.Agree(ref, est)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "agreement with %s on %d images (%d without a reference label): background %.3f, foreground %.3f, both %.3f, contrast group %.3f\n",
				*labelsPath, a.N, a.Unmatched, a.Background, a.Foreground, a.Both, a.Group)
			ap := labelsOut + ".agreement.json"
			if err := atomicfile.Write(ap, func(w io.Writer) error {
				e := json.NewEncoder(w)
				e.SetIndent("", "  ")
				return e.Encode(struct {
					Reference string   `json:"reference"`
					Colours   []string `json:"colours"`
					Groups    []string `json:"groups"`
					*contrast.Agreement
				}{*labelsPath, contrast.Colours, contrast.AllGroups, a})
			}); err != nil {
				return fmt.Errorf("write %s: %w", ap, err)
			}
		}
		if len(paths) == 0 {
			return nil
		}
		*labelsPath = labelsOut
	}

	labels, err := readLabels(*labelsPath)
	if err != nil {
		return err
	}
	var ms []contrast.Model
	for i, p := range paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := results.DefaultModel(p)
		if len(models) > 0 {
			name = models[i]
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		rows, skipped, err := contrast.ReadResults(f, p)
		f.Close()
		if err != nil {
			return err
		}
		if skipped > 0 {
			fmt.Fprintf(stderr, "vcr contrast: warning: %s: %d rows skipped (errors or labels outside the task)\n", p, skipped)
		}
		// A table with a model column may hold several models.
		byModel := map[string][]contrast.Row{}
		var order []string
		for _, r := range rows {
			n := name
			if r.Model != "" && len(models) == 0 {
				n = r.Model
			}
			if _, ok := byModel[n]; !ok {
				order = append(order, n)
			}
			byModel[n] = append(byModel[n], r)
		}
		for _, n := range order {
			ms = append(ms, contrast.Model{Name: n, Rows: byModel[n]})
		}
	}
	for i := range ms {
		for j := range i {
			if ms[i].Name == ms[j].Name {
				return usagef("two results files are both model %q; name them with --model-name", ms[i].Name)
			}
		}
	}
	res, err := contrast.Analyse(ms, labels, contrast.Options{Level: level, DVBins: *dvBins, Replicates: *boot, Seed: *seed, SkipUnlabelled: *skip})
	if err != nil {
		return err
	}
	file := &contrast.File{Version: contrast.Version, Labels: *labelsPath, LabelsEstimated: labels.Estimated, GroupTable: tableName, Results: paths, Result: res}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	if _, err := file.WriteDir(*out); err != nil {
		return err
	}
	if err := file.WriteTable(stdout); err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "vcr contrast: warning: %s\n", w)
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(*out, contrast.FileName))
	return nil
}
