package testset

import (
	"fmt"
	"os"
	"path/filepath"
)

// saveImage writes an image file's bytes to path atomically: into a temporary
// file in the same folder (one write), which is renamed to path when complete, so a
// killed run never leaves a partial image under a listed name (resume
// deletes the temporary files). Unlike imageio.Save it does not sync each
// file where syncImages can sync them all at once: Generate syncs the file
// system before it syncs the manifest rows that list the images (see
// syncImages), so a listed image is on disk even after a power loss, at the
// cost of one sync per batch instead of one per image (an fsync costs
// milliseconds, as long as the rest of the pipeline).
func saveImage(path string, data []byte) (err error) {
	dir, base := filepath.Split(path)
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if syncEachImage {
		if err = tmp.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", path, err)
		}
	}
	if err = tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("chmod %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("rename to %s: %w", path, err)
	}
	return nil
}
