package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

func init() {
	addCommand(&command{name: "synth", summary: "write a synthetic class-folder dataset (to try vcr without data, and for benchmarks)", run: runSynth})
}

const synthUsage = `
Usage: vcr synth --out DIR [--n 500] [--size 224 | --size WxH] [--classes 10] [--seed 1]

Writes N procedurally generated, natural-looking images (1/f colour texture,
soft light, hard-edged objects) into DIR/class_XX/img_XXXXXX.png, spread
evenly over the classes: a dataset in the ImageFolder layout for trying
'vcr generate' without real data, and for timing whole runs on a fixed input.
The same flags write the same bytes.

Examples:
  vcr synth --out /tmp/synth --n 2000 --size 224
  vcr synth --out /tmp/native --n 500 --size 500x375 --format jpg
`

func runSynth(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("synth", synthUsage, stderr)
	out := fs.String("out", "", "output `folder` (required; must be empty or absent)")
	n := fs.Int("n", 500, "number of `images`")
	size := fs.String("size", "224", "image `size`: N for N×N, or WxH")
	classes := fs.Int("classes", 10, "number of class `folders`")
	seed := fs.Uint64("seed", 1, "`seed` of the first image; image i uses seed+i")
	format := fs.String("format", "png", "file `format`: png or jpg (quality 95)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "`number` of images generated in parallel")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("synth takes no positional arguments (got %s)", strings.Join(pos, " "))
	}
	if *out == "" {
		return usagef("--out is required, e.g. --out /tmp/synth")
	}
	if *n < 1 || *classes < 1 || *workers < 1 {
		return usagef("--n, --classes and --workers must be at least 1 (got %d, %d, %d)", *n, *classes, *workers)
	}
	w, h, err := parseSize(*size)
	if err != nil {
		return usageError{fmt.Errorf("--size: %w", err)}
	}
	ext := "." + *format
	if *format == "jpeg" {
		ext = ".jpg"
	}
	if ext != ".png" && ext != ".jpg" {
		return usagef("--format must be png or jpg (got %q)", *format)
	}
	if entries, err := os.ReadDir(*out); err == nil && len(entries) > 0 {
		return usagef("%s is not empty; choose a new folder", *out)
	}
	if err := checkOutDir("--out", *out); err != nil {
		return err
	}
	for c := range *classes {
		if err := os.MkdirAll(filepath.Join(*out, fmt.Sprintf("class_%02d", c)), 0o755); err != nil {
			return err
		}
	}
	jobs := make(chan int)
	errs := make(chan error, *workers)
	var wg sync.WaitGroup
	for range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				m := testimg.Natural(w, h, *seed+uint64(i))
				p := filepath.Join(*out, fmt.Sprintf("class_%02d", i%*classes), fmt.Sprintf("img_%06d%s", i, ext))
				if err := imageio.Save(p, m, imageio.EncodeOptions{}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	var ferr error
	for i := 0; i < *n && ferr == nil; i++ {
		select {
		case jobs <- i:
		case ferr = <-errs:
		case <-ctx.Done():
			ferr = ctx.Err()
		}
	}
	close(jobs)
	wg.Wait()
	if ferr == nil {
		select {
		case ferr = <-errs:
		default:
		}
	}
	if ferr != nil {
		return ferr
	}
	fmt.Fprintf(stdout, "%d images of %d×%d in %d classes under %s\n", *n, w, h, *classes, *out)
	return nil
}

// parseSize parses "N" or "WxH".
func parseSize(s string) (w, h int, err error) {
	a, b, two := strings.Cut(strings.ToLower(s), "x")
	w, err1 := strconv.Atoi(strings.TrimSpace(a))
	h, err2 := w, error(nil)
	if two {
		h, err2 = strconv.Atoi(strings.TrimSpace(b))
	}
	if err1 != nil || err2 != nil || w < 1 || h < 1 || w > 20000 || h > 20000 {
		return 0, 0, fmt.Errorf("%q is not a size; use N (N×N) or WxH, each 1…20000", s)
	}
	return w, h, nil
}
