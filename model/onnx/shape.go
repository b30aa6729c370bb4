package onnx

import (
	"runtime"
	"strconv"
	"strings"
)

// fmtShape writes a per-image shape as "3×224×224" ("?" for a dynamic
// dimension).
func fmtShape(s []int64) string {
	if len(s) == 0 {
		return "a scalar"
	}
	parts := make([]string, len(s))
	for i, d := range s {
		if d < 0 {
			parts[i] = "?" // a dynamic dimension
		} else {
			parts[i] = strconv.FormatInt(d, 10)
		}
	}
	return strings.Join(parts, "×")
}

// fmtDims writes a model shape as "[N 3 224 224]", with "?" for dynamic
// dimensions.
func fmtDims(s []int64) string {
	parts := make([]string, len(s))
	for i, d := range s {
		if d < 0 {
			parts[i] = "?"
		} else {
			parts[i] = strconv.FormatInt(d, 10)
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func equalShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func platform() string { return runtime.GOOS + "/" + runtime.GOARCH }
