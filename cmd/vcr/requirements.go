package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"
)

func init() {
	addCommand(&command{name: "requirements", summary: "human-derived reliability requirements: estimate t_c, t_p; check models against them", run: runRequirements})
}

const requirementsUsage = `
Usage: vcr requirements estimate [flags]
       vcr requirements check [flags]

Reliability requirements (Hu et al., ICSE 2022): "if a human can see it, so
should your system".

  estimate   turn human data into thresholds t_c (correctness preservation)
             and t_p (prediction preservation) on the Δv axis, written as a
             requirements file
  check      check a model against a requirements file with bootstrap
             confidence (exit 0: all hold, 1: one is violated, 2: error)

Run 'vcr requirements estimate --help' or 'vcr requirements check --help'
for their flags.
`

func runRequirements(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, strings.TrimSpace(requirementsUsage))
		return usagef("missing subcommand: estimate or check")
	}
	switch args[0] {
	case "estimate":
		return inSubcommand("estimate", runRequirementsEstimate(ctx, args[1:], stdout, stderr))
	case "check":
		return inSubcommand("check", runRequirementsCheck(ctx, args[1:], stdout, stderr))
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, strings.TrimSpace(requirementsUsage))
		return nil
	}
	return usageError{errors.New("unknown subcommand " + fmt.Sprintf("%q", args[0]) + ": want estimate or check")}
}

// flagName returns "--NAME" of the flag of set that stores into ptr (a
// pointer to the variable), so that messages stay right when a shared flag
// is renamed; def when no flag does.
func flagName(set *flag.FlagSet, ptr any, def string) string {
	name := def
	want := reflect.ValueOf(ptr).Pointer()
	set.VisitAll(func(f *flag.Flag) {
		if v := reflect.ValueOf(f.Value); v.Kind() == reflect.Pointer && v.Pointer() == want {
			name = "--" + f.Name
		}
	})
	return name
}
