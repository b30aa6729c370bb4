package experiment

import "testing"

// OpenTestStore opens an empty real Store (SQLite, in a temporary folder)
// for this package's tests, closed when the test ends. The store packages
// import this one, so this package's own test files cannot import them;
// the external test file sqlite_hook_test.go sets it in its init.
var OpenTestStore func(t *testing.T) Store
