//go:build !linux

package testset

import "github.com/vcr-bench/vcr/internal/lock"

// syncEachImage is true where syncfs(2) is missing: every image is synced
// before it is renamed into place.
const syncEachImage = true

// syncImages does nothing: saveImage synced each image already.
func syncImages(dir string) error { return nil }

// lockDir does not lock where flock is not used (internal/lock.Dir).
func lockDir(dir string) (release func(), err error) { return lock.Dir(dir) }
