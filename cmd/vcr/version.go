package main

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/vcr-bench/vcr/internal/version"
)

func init() {
	addCommand(&command{name: "version", summary: "print vcr's version (also: vcr --version)", run: runVersion})
}

const versionUsage = `
Usage: vcr version

Prints the version of this vcr build, the Go release that built it, and the
platform, e.g. "vcr (devel) 1a2b3c4d5e6f go1.26.8 linux/amd64". The same
version is recorded in every run.json, RESULTS.csv.json and summary.json.

Example:
  vcr version
`

func runVersion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", versionUsage, stderr)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected arguments %q", pos)
	}
	fmt.Fprintf(stdout, "vcr %s %s %s/%s\n", version.String(), version.GoVersion(), runtime.GOOS, runtime.GOARCH)
	return nil
}
