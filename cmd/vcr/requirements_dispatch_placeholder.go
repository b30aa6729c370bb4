// TEMPORARY: registers "vcr requirements" with only its "check" subcommand so
// that the check can be tested on this branch. The lead deletes this file
// when merging with the branch that adds cmd/vcr/requirements.go.

package main

import (
	"context"
	"io"
)

func init() {
	addCommand(&command{name: "requirements", summary: "check models against reliability requirements", run: func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if len(args) == 0 || args[0] != "check" {
			return usagef("usage: vcr requirements check [flags]")
		}
		return runRequirementsCheck(ctx, args[1:], stdout, stderr)
	}})
}
