package testset

import (
	"fmt"
	"os"

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

// lockDir takes an exclusive lock on the folder dir (flock on the folder
// itself, so no lock file appears in the output), so that two processes
// never write one output folder. It returns ErrLocked (wrapped) when another
// process holds it. File systems without flock (some network file systems)
// are not locked. release drops the lock.
func lockDir(dir string) (release func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if err == unix.EWOULDBLOCK {
			return nil, fmt.Errorf("%s: %w", dir, ErrLocked)
		}
		return func() {}, nil
	}
	return func() { f.Close() }, nil
}
