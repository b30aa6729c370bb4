// Command vcr tests image classifiers against the whole continuous range of
// visual corruption, measured by the visual change Δv = max(0, 1 − VIF).
//
// Run "vcr help" for the list of subcommands and "vcr CMD --help" for each.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/vcr-bench/vcr/internal/suggest"
)

// Exit codes, decided here only.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands is filled by the init functions of the subcommand files.
var commands = map[string]*command{}

func addCommand(c *command) { commands[c.name] = c }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// usageError marks errors caused by how the command was called (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// subcommandError marks an error of a subcommand (vcr experiment serve,
// vcr requirements check) so that the message and the --help hint name it.
type subcommandError struct {
	sub string
	err error
}

func (e subcommandError) Error() string { return e.err.Error() }
func (e subcommandError) Unwrap() error { return e.err }

// inSubcommand wraps a non-nil err of subcommand sub.
func inSubcommand(sub string, err error) error {
	if err == nil {
		return nil
	}
	return subcommandError{sub, err}
}

// exitError asks for a specific exit code (e.g. 1 for "requirements
// violated" from a command whose other errors exit 2).
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

// run executes the command line args and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				return run(ctx, []string{c.name, "--help"}, stdout, stderr)
			}
		}
		printUsage(stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	if args[0] == "--version" || args[0] == "-version" {
		args = []string{"version"}
	}
	c, ok := commands[args[0]]
	if !ok {
		if strings.HasPrefix(args[0], "-") {
			fmt.Fprintf(stderr, "vcr: unknown flag %s before the command\nRun 'vcr help' for the list of commands.\n", args[0])
			return exitUsage
		}
		fmt.Fprintf(stderr, "vcr: unknown command %q%s\nRun 'vcr help' for the list of commands.\n", args[0], nearestCommand(args[0]))
		return exitUsage
	}
	err := c.run(ctx, args[1:], stdout, stderr)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		fmt.Fprintf(stderr, "vcr %s: interrupted\n", c.name)
		return exitInterrupted
	}
	name := c.name
	var se subcommandError
	if errors.As(err, &se) {
		name += " " + se.sub
	}
	fmt.Fprintf(stderr, "vcr %s: %v\n", name, err)
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "Run 'vcr %s --help' for usage.\n", name)
		return exitUsage
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitFailure
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `vcr — visually-continuous corruption robustness for image classifiers.

Corrupt images across each corruption's whole continuous parameter domain,
measure how much a human would see them change (Δv = max(0, 1 − VIF)), and
compare models with humans along that axis.

Usage:
  vcr <command> [flags] [arguments]

Commands:
`)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprint(w, `
Run 'vcr <command> --help' for the flags and examples of a command.
`)
}

// nearestCommand returns " (did you mean NAME?)" for the command closest
// to a mistyped name, or "".
func nearestCommand(name string) string {
	best, bestD := "", 3
	for n := range commands {
		if d := suggest.Distance(name, n); d < bestD || d == bestD && n < best {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// newFlagSet returns a flag set whose --help prints the given usage text
// followed by the flag defaults. Parse it with parseArgs.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("vcr "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), strings.TrimSpace(usage))
		fmt.Fprintln(fs.Output(), "\nFlags:")
		printFlags(fs)
	}
	if flagSetHook != nil {
		flagSetHook(fs)
	}
	return fs
}

// printFlags writes the flags of fs like flag.PrintDefaults, but in the
// double-dash form the rest of vcr's help and docs use.
func printFlags(fs *flag.FlagSet) {
	w := fs.Output()
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		fmt.Fprintln(w, line)
		usage = strings.ReplaceAll(usage, "\n", "\n    \t")
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			if f.DefValue == "true" {
				usage += " (default true)"
			}
		} else if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "[]" {
			v := f.Value
			switch o := v.(type) {
			case *onceValue:
				v = o.Value
			case onceBool:
				v = o.Value
			}
			if g, ok := v.(flag.Getter); ok && isString(g.Get()) {
				usage += fmt.Sprintf(" (default %q)", f.DefValue)
			} else {
				usage += fmt.Sprintf(" (default %s)", f.DefValue)
			}
		}
		fmt.Fprintf(w, "    \t%s\n", usage)
	})
}

func isString(v any) bool { _, ok := v.(string); return ok }

// flagSetHook, when set (by tests), sees every flag set a command makes.
var flagSetHook func(*flag.FlagSet)

// parseArgs parses flags that may appear before, between or after the
// positional arguments, and returns the positional arguments. A lone "--"
// ends flag parsing. --help prints the usage; any other flag error is
// returned as a usage error of one line (the caller prints it once, with a
// pointer to --help), not followed by the whole usage text. A flag given
// twice is an error unless its value is a list (stringList).
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	out := fs.Output()
	fs.SetOutput(io.Discard)
	defer fs.SetOutput(out)
	var repeated error
	orig := map[string]flag.Value{}
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := f.Value.(*stringList); ok {
			return
		}
		orig[f.Name] = f.Value
		o := &onceValue{Value: f.Value, name: f.Name, err: &repeated}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			o.isBool = true
			f.Value = onceBool{o}
		} else {
			f.Value = o
		}
	})
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				// The flag package prints defaults by comparing with a
				// zero value of each flag's type: show it the originals.
				fs.VisitAll(func(f *flag.Flag) {
					if v, ok := orig[f.Name]; ok {
						f.Value = v
					}
				})
				fs.SetOutput(out)
				fs.Usage()
				return nil, err
			}
			return nil, usageError{flagError(fs, err)}
		}
		if repeated != nil {
			return nil, usageError{repeated}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// onceValue refuses a second value for a single-value flag: with
// "--out a --out b" the last one would otherwise win without a word.
type onceValue struct {
	flag.Value
	name   string
	first  string
	set    bool
	isBool bool
	err    *error
}

func (v *onceValue) Set(s string) error {
	if v.set {
		switch {
		case *v.err != nil:
		case v.isBool:
			*v.err = fmt.Errorf("--%s is given twice; give it once", v.name)
		default:
			*v.err = fmt.Errorf("--%s is given twice (%q, then %q); it takes one value", v.name, v.first, s)
		}
		return nil
	}
	v.set, v.first = true, s
	return v.Value.Set(s)
}

// onceBool is an onceValue of a boolean flag (one that takes no value).
type onceBool struct{ *onceValue }

func (onceBool) IsBoolFlag() bool { return true }

// flagError rewrites the flag package's errors in the double-dash form the
// help uses, and suggests the nearest defined flag for a mistyped one.
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	const undefined = "flag provided but not defined: -"
	if name, ok := strings.CutPrefix(msg, undefined); ok {
		name = strings.TrimLeft(name, "-")
		if r, ok := renamedFlags[fs.Name()+" --"+name]; ok {
			return fmt.Errorf("--%s is now --%s here (%s)", name, r[0], r[1])
		}
		if near := nearestFlag(fs, name); near != "" {
			return fmt.Errorf("unknown flag --%s (did you mean --%s?)", name, near)
		}
		return fmt.Errorf("unknown flag --%s", name)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return fmt.Errorf("flag --%s needs a value", strings.TrimLeft(name, "-"))
	}
	if i := strings.Index(msg, " for flag -"); i >= 0 && strings.HasPrefix(msg, "invalid ") {
		// invalid value "x" for flag -n: parse error → --n: invalid value "x": parse error
		rest := msg[i+len(" for flag -"):]
		name, why, _ := strings.Cut(rest, ": ")
		return fmt.Errorf("--%s: %s: %s", name, msg[:i], why)
	}
	return err
}

// renamedFlags maps "COMMAND --OLD" (the flag set's name and a flag it no
// longer has) to the new name and why it changed, so that a script using
// the old name gets told rather than "unknown flag".
var renamedFlags = map[string][2]string{
	"vcr demo --images":    {"n-images", "--images is a dataset path in every other command; the demo makes its images, so it takes their number"},
	"vcr analyze --family": {"model-family", "--family names a corruption family in vcr corruptions; this one names model families"},
}

// nearestFlag returns the defined flag closest to name (edit distance at
// most 2, or name a prefix of it), or "". A prefix counts as distance 1;
// among equally near flags the smaller edit distance wins (--image:
// --images, not --imagenet-c), then the first in alphabetical order.
func nearestFlag(fs *flag.FlagSet, name string) string {
	best, bestD, bestRaw := "", 3, 0
	fs.VisitAll(func(f *flag.Flag) {
		raw := suggest.Distance(name, f.Name)
		d := raw
		if strings.HasPrefix(f.Name, name) && len(name) >= 3 {
			d = min(d, 1)
		}
		if d < bestD || (d == bestD && raw < bestRaw) {
			best, bestD, bestRaw = f.Name, d, raw
		}
	})
	return best
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }
