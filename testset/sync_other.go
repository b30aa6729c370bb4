//go:build !linux

package testset

// syncEachImage is true where syncfs(2) is missing: every image is synced
// before it is renamed into place.
const syncEachImage = true

// syncImages does nothing: saveImage synced each image already.
func syncImages(dir string) error { return nil }

// lockDir does not lock where flock is not used.
func lockDir(dir string) (release func(), err error) { return func() {}, nil }
