package lock

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Dir takes an exclusive lock on the folder dir itself, so no lock file
// appears in the output. It returns an error wrapping ErrLocked when
// another process holds it. release drops the lock.
func Dir(dir string) (release func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if err == unix.EWOULDBLOCK {
			return nil, fmt.Errorf("%s: %w", dir, ErrLocked)
		}
		return func() {}, nil // no flock here: not locked
	}
	return func() { f.Close() }, nil
}

// File takes an exclusive lock for the output file out, on the lock file
// out+FileSuffix, which it creates and which release removes. It returns
// an error wrapping ErrLocked, naming out and the lock file, when another
// process holds it.
func File(out string) (release func(), err error) {
	path := out + FileSuffix
	for range 3 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", out, err)
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			if err == unix.EWOULDBLOCK {
				return nil, fmt.Errorf("%s (lock file %s): %w", out, path, ErrLocked)
			}
			return func() {}, nil // no flock here: not locked
		}
		// The holder before us may have removed the file between our open
		// and our flock; then we hold a lock on a name nobody else sees.
		fi, err1 := f.Stat()
		pi, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(fi, pi) {
			return func() {
				os.Remove(path)
				f.Close()
			}, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("%s (lock file %s): %w", out, path, ErrLocked)
}
