package testset

import (
	"fmt"
	"os"

	"github.com/vcr-bench/vcr/internal/lock"
	"golang.org/x/sys/unix"
)

// syncEachImage is false on Linux: syncImages flushes the whole file system
// once per batch with syncfs(2).
const syncEachImage = false

// syncImages makes every image written under dir so far durable.
func syncImages(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		return fmt.Errorf("sync file system of %s: %w", dir, err)
	}
	return nil
}

// lockDir takes an exclusive lock on the folder dir (internal/lock.Dir),
// so that two processes never write one output folder.
func lockDir(dir string) (release func(), err error) { return lock.Dir(dir) }
