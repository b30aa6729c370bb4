// Package lock keeps two vcr processes from writing one output: an
// exclusive, non-blocking flock(2) on the output folder (vcr generate) or
// on a lock file beside an output file (vcr eval). The kernel drops the
// lock when the process dies, so a killed run never leaves a stale lock.
// Where flock is missing (other systems, some network file systems)
// nothing is locked.
package lock

import "errors"

// ErrLocked is returned (wrapped, with the path) when another process holds
// the lock.
var ErrLocked = errors.New("another vcr process is writing it")

// FileSuffix is appended to an output file's name to make the name of its
// lock file (File).
const FileSuffix = ".lock"
