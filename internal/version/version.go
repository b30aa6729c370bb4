// Package version tells which vcr build is running, for run metadata and
// 'vcr version'.
package version

import (
	"runtime/debug"
	"strings"
)

// String returns the module version the binary was built from ("v1.2.3"),
// or "(devel)" with the VCS revision when built from a checkout
// ("(devel) 1a2b3c4d5e6f", "+dirty" when the tree had changes).
func String() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value[:min(12, len(s.Value))]
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	return strings.TrimSpace("(devel) " + rev + dirty)
}

// GoVersion returns the Go release that built the binary.
func GoVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.GoVersion
	}
	return ""
}
