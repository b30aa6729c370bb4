package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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

// requirementsOutputs checks, before any long work, that every named
// output file (flag name → path, "" for not given) can be written: it
// creates missing parent folders and writes and removes a probe file
// beside the output. A failure is a usage error naming the flag; it never
// names the probe file.
func requirementsOutputs(outs ...[2]string) error {
	seen := map[string]string{}
	for _, o := range outs {
		flagName, p := o[0], o[1]
		if p == "" {
			continue
		}
		abs, _ := filepath.Abs(p)
		if prev, ok := seen[abs]; ok {
			return usagef("%s and %s both name %s; give each output its own file", prev, flagName, p)
		}
		seen[abs] = flagName
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return usagef("%s %s is a folder; give a file name, e.g. %s", flagName, p, filepath.Join(p, "out"+filepath.Ext(p)))
		}
		dir := filepath.Dir(p)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return usagef("%s %s: cannot create the folder %s: %v", flagName, p, dir, pathErrText(err))
		}
		f, err := os.CreateTemp(dir, ".vcr-probe-*")
		if err != nil {
			return usagef("%s %s: cannot write in the folder %s: %v", flagName, p, dir, pathErrText(err))
		}
		f.Close()
		os.Remove(f.Name())
	}
	return nil
}

// pathErrText returns the reason of a file-system error without the path
// it carries (which may be a temporary name).
func pathErrText(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
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
