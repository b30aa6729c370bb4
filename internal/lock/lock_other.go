//go:build !linux

package lock

// Dir does not lock where flock is not used.
func Dir(dir string) (release func(), err error) { return func() {}, nil }

// File does not lock where flock is not used.
func File(out string) (release func(), err error) { return func() {}, nil }
