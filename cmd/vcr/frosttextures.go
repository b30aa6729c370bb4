package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/imageio"
)

// frostTexturesFlagDoc is the --frost-textures flag's help, shared by
// vcr corrupt and vcr generate.
const frostTexturesFlagDoc = "frost's texture `set`: imagenet-c (default; ImageNet-C's frost1…frost5, built in), procedural (the generated look-alikes earlier vcr versions used), or a DIR whose first five image files (name order) are used"

// frostTextureCount is how many textures every reference implementation
// draws from (np.random.randint(5): frost6 of ImageNet-C is never used).
const frostTextureCount = 5

// frostFromFlag returns the frost corruption that a --frost-textures value
// asks for: the catalogue's (ImageNet-C textures) for "" or "imagenet-c",
// corrupt.NewProceduralFrost for "procedural", else the textures of the
// directory value (loadFrostTextures), with their paths. A directory that
// is literally named imagenet-c or procedural is given as ./imagenet-c.
func frostFromFlag(value string, maxPixels int, cmd string, stderr io.Writer) (*corrupt.Corruption, []string, error) {
	switch value {
	case "", corrupt.FrostImageNetC:
		c, err := corrupt.Lookup("frost")
		return c, nil, err
	case corrupt.FrostProcedural:
		return corrupt.NewProceduralFrost(), nil, nil
	}
	tex, files, err := loadFrostTextures(value, maxPixels, cmd, stderr)
	if err != nil {
		return nil, nil, err
	}
	c, err := corrupt.NewFrost(tex)
	if err != nil {
		return nil, nil, fmt.Errorf("--frost-textures %s: %w", value, err)
	}
	return c, files, nil
}

// loadFrostTextures reads the image files of dir (by extension, in name
// order), at most the first frostTextureCount of them, and returns them with
// their paths. A note on stderr, prefixed with "vcr cmd:", names files left
// out. Errors name the directory or the file.
func loadFrostTextures(dir string, maxPixels int, cmd string, stderr io.Writer) ([]*imageio.Image, []string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("--frost-textures: %w (the value is imagenet-c, procedural or a directory)", err)
	}
	var names []string
	for _, e := range entries {
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".webp":
			if !e.IsDir() {
				names = append(names, e.Name())
			}
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, nil, fmt.Errorf("--frost-textures %s: no image files (.png, .jpg, .jpeg, .gif, .bmp, .tif, .webp) in the directory", dir)
	}
	if len(names) > frostTextureCount {
		fmt.Fprintf(stderr, "vcr %s: using the first %d frost textures of %s (%s); ignoring %s\n",
			cmd, frostTextureCount, dir, strings.Join(names[:frostTextureCount], ", "), strings.Join(names[frostTextureCount:], ", "))
		names = names[:frostTextureCount]
	}
	tex := make([]*imageio.Image, len(names))
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = filepath.Join(dir, n)
		if tex[i], err = imageio.Load(paths[i], imageio.Options{MaxPixels: maxPixels}); err != nil {
			return nil, nil, fmt.Errorf("--frost-textures: texture %w", err)
		}
	}
	return tex, paths, nil
}
