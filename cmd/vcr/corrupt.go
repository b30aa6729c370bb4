package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/imageio"
)

func init() {
	addCommand(&command{name: "corrupt", summary: "apply one corruption to one image", run: runCorrupt})
}

const corruptUsage = `
Usage: vcr corrupt --corruption NAME [--param name=value]... [--seed N]
                   [--extended] [--frost-textures SET|DIR] IN OUT

Applies one corruption to the image IN and writes the result to OUT (.png or
.jpg). Parameters not given with --param are drawn uniformly from their domain
(see 'vcr corruptions'); every random draw — parameters, noise, textures —
comes from --seed, so the same command writes the same bytes. With --extended,
the domains are the wider target ranges of Δv-targeted sampling where a
corruption has them (shown as "targeted" by 'vcr corruptions'), e.g. shot noise
up to lambda=1e6, and --param also accepts every value of the corruption's
ImageNet-C severities (e.g. glass_blur iterations=3, fog decay=1.4): every
parameter a targeted or --imagenet-c test set's manifest may record.

IN may be JPEG, PNG, GIF, BMP, TIFF or WebP. Alpha is discarded (the stored
colour is kept, as Pillow's convert("RGB") does). OUT is written atomically:
on any error no file is left behind.

frost draws from ImageNet-C's own five frost textures (frost1.png …
frost5.jpeg, Apache-2.0, built into vcr), so on 224×224 images it is
ImageNet-C's frost. --frost-textures procedural uses the generated look-alike
textures of earlier vcr versions instead (their Δv is about 0.02 lower); to use
your own, pass their directory: the image files in it are read in name order
and, as in every reference implementation, at most the first five are used.
One texture is drawn uniformly per image and a random crop of the image's size
is taken (a smaller texture is first enlarged).

Examples:
  vcr corrupt --corruption frost --frost-textures my-frost/ in.png out.png
  vcr corrupt --corruption frost --frost-textures procedural in.png out.png
  vcr corrupt --corruption glass_blur --extended --param sigma=1.5 --param max_delta=4 --param iterations=2 in.png out.png
  vcr corrupt --corruption gaussian_noise --seed 7 in.png out.png
  vcr corrupt --corruption defocus_blur --param radius=4 --param alias=0.5 in.jpg out.png
  vcr corrupt --corruption frost --json in.png out.png
  vcr corrupt --corruption shot_noise --extended --param lambda=20000 in.png out.png
`

func runCorrupt(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("corrupt", corruptUsage, stderr)
	name := fs.String("corruption", "", "corruption `name` (required; see 'vcr corruptions')")
	var params stringList
	fs.Var(&params, "param", "set a parameter, `name=value` (repeatable); others are sampled")
	seed := fs.Uint64("seed", 0, "master seed for parameter sampling and the corruption's own randomness")
	asJSON := fs.Bool("json", false, "print what was applied as JSON")
	truncate := fs.Bool("truncate", false, "cast to 8 bit by truncation, as the VCR toolbox does (default: round to nearest)")
	quality := fs.Int("quality", 95, "JPEG `quality` 1–100 when OUT is .jpg")
	maxPixels := fs.Int("max-pixels", imageio.DefaultMaxPixels, "refuse input images with more `pixels` than this (decompression-bomb guard)")
	extended := fs.Bool("extended", false, "accept (and sample from) the wider target ranges of Δv-targeted sampling")
	frostDir := fs.String("frost-textures", "", frostTexturesFlagDoc+" (--corruption frost only)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if *name == "" {
		return usagef("--corruption is required; 'vcr corruptions' lists the names")
	}
	if len(pos) != 2 {
		return usagef("need exactly two arguments, IN and OUT (got %d)%s", len(pos), jsonTakesNoFile(*asJSON, pos, 2))
	}
	if *quality < 1 || *quality > 100 {
		return usagef("--quality must be in 1…100 (got %d)", *quality)
	}
	in, out := pos[0], pos[1]
	c, err := corrupt.Lookup(*name)
	if err != nil {
		return usageError{err}
	}
	if _, err := imageio.FormatFromPath(out); err != nil {
		return usageError{err}
	}
	var textureFiles []string
	if *frostDir != "" {
		if c.Name != "frost" {
			return usagef("--frost-textures only applies to --corruption frost (got %s)", c.Name)
		}
		if c, textureFiles, err = frostFromFlag(*frostDir, *maxPixels, "corrupt", stderr); err != nil {
			return err
		}
	}
	if *extended {
		c = c.Extended()
	}
	rng := corrupt.NewRand(*seed, 0)
	p, err := c.ParseParams(params, rng)
	if err != nil {
		return usageError{err}
	}
	src, err := imageio.Load(in, imageio.Options{MaxPixels: *maxPixels})
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("input %s does not exist", in)
		}
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	dst := imageio.New(src.Width, src.Height)
	c.Apply(dst, src, p, rng)
	enc := imageio.EncodeOptions{JPEGQuality: *quality}
	if *truncate {
		enc.Rounding = imageio.Truncate
	}
	if err := imageio.Save(out, dst, enc); err != nil {
		return err
	}
	if *asJSON {
		e := json.NewEncoder(stdout)
		e.SetIndent("", "  ")
		rec := map[string]any{
			"corruption": c.Name,
			"family":     c.Family,
			"params":     c.Named(p),
			"seed":       *seed,
			"input":      in,
			"output":     out,
			"width":      src.Width,
			"height":     src.Height,
		}
		if c.Textures != "" {
			rec["textures"] = c.Textures
		}
		if textureFiles != nil {
			rec["frost_textures"] = textureFiles
		}
		return e.Encode(rec)
	}
	return nil
}
