package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
)

// update rewrites the golden files (testdata/help/*.txt) and the generated
// part of docs/cli.md: go test ./cmd/vcr -run 'TestHelpGolden|TestCLIReference' -update
var update = flag.Bool("update", false, "rewrite golden files and docs/cli.md's flag tables")

// subcommandNames lists the subcommands of the commands that have them.
func subcommandNames(cmd string) []string {
	switch cmd {
	case "requirements":
		return []string{"estimate", "check"}
	case "experiment":
		return experimentNames()
	}
	return nil
}

// invocation is one command line that has flags of its own.
type invocation struct {
	args []string // e.g. ["requirements", "check"]
}

func (v invocation) name() string { return strings.Join(v.args, " ") }

// allInvocations lists every command and subcommand in name order.
func allInvocations() []invocation {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []invocation
	for _, n := range names {
		subs := subcommandNames(n)
		if subs == nil {
			out = append(out, invocation{[]string{n}})
			continue
		}
		sorted := slices.Clone(subs)
		sort.Strings(sorted)
		for _, s := range sorted {
			out = append(out, invocation{[]string{n, s}})
		}
	}
	return out
}

// helpOf runs "vcr ARGS --help" and returns its exit code, output and the
// flag set the command made.
func helpOf(t *testing.T, v invocation) (int, string, *flag.FlagSet) {
	t.Helper()
	// Defaults such as --workers follow the machine; the golden files
	// are written for two cores.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var fs *flag.FlagSet
	flagSetHook = func(f *flag.FlagSet) { fs = f }
	defer func() { flagSetHook = nil }()
	var out, errb bytes.Buffer
	code := run(context.Background(), append(slices.Clone(v.args), "--help"), &out, &errb)
	return code, out.String() + errb.String(), fs
}

// TestEverySubcommandIsListed: the parent command's help names each
// subcommand the reference documents, so the lists cannot drift.
func TestEverySubcommandIsListed(t *testing.T) {
	for _, cmd := range []string{"requirements", "experiment"} {
		_, out, _ := runCLI(t, cmd, "--help")
		for _, s := range subcommandNames(cmd) {
			if !strings.Contains(out, "  "+s) {
				t.Errorf("vcr %s --help does not list %q:\n%s", cmd, s, out)
			}
		}
	}
}

// TestHelpGolden compares every command's --help with its golden file, so
// a change of flags or help text is a reviewed change (and docs/cli.md and
// README follow it).
func TestHelpGolden(t *testing.T) {
	dir := filepath.Join("testdata", "help")
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	for _, v := range allInvocations() {
		file := strings.ReplaceAll(v.name(), " ", "_") + ".txt"
		seen[file] = true
		code, out, fs := helpOf(t, v)
		if code != exitOK {
			t.Errorf("vcr %s --help: exit %d, want 0:\n%s", v.name(), code, out)
		}
		if fs == nil {
			t.Errorf("vcr %s --help made no flag set", v.name())
		}
		path := filepath.Join(dir, file)
		if *update {
			if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("vcr %s --help: %v (run go test ./cmd/vcr -run TestHelpGolden -update)", v.name(), err)
			continue
		}
		if out != string(want) {
			t.Errorf("vcr %s --help differs from %s (review, then -update):\n%s", v.name(), path, firstDiff(string(want), out))
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !seen[e.Name()] {
			t.Errorf("%s is the help of no command; remove it", filepath.Join(dir, e.Name()))
		}
	}
}

// firstDiff shows the first differing line of want and got.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(wl), len(gl)) {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n  want %q\n  got  %q", i+1, w, g)
		}
	}
	return "(equal)"
}

// TestMistypedFlag: a mistyped flag prints one error line and a pointer
// to --help, not the whole help text, and exits 2.
func TestMistypedFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "--testst", "x"}, "vcr eval: unknown flag --testst (did you mean --testset?)\nRun 'vcr eval --help' for usage.\n"},
		{[]string{"synth", "--zzzzzz"}, "vcr synth: unknown flag --zzzzzz\nRun 'vcr synth --help' for usage.\n"},
		{[]string{"synth", "--n", "many"}, "vcr synth: --n: invalid value \"many\": parse error\nRun 'vcr synth --help' for usage.\n"},
		{[]string{"synth", "--out"}, "vcr synth: flag --out needs a value\nRun 'vcr synth --help' for usage.\n"},
		{[]string{"requirements", "check", "--requirment", "r.json"}, "vcr requirements check: unknown flag --requirment (did you mean --requirements?)\nRun 'vcr requirements check --help' for usage.\n"},
		{[]string{"gnerate"}, "vcr: unknown command \"gnerate\" (did you mean generate?)\nRun 'vcr help' for the list of commands.\n"},
		// A prefix (--imagenet-c) and a one-letter typo (--images) are
		// equally near; the smaller edit distance wins.
		{[]string{"generate", "--image", "x"}, "vcr generate: unknown flag --image (did you mean --images?)\nRun 'vcr generate --help' for usage.\n"},
		{[]string{"generate", "--imagenet", "x"}, "vcr generate: unknown flag --imagenet (did you mean --imagenet-c?)\nRun 'vcr generate --help' for usage.\n"},
		// Renamed flags say what they are now and why.
		{[]string{"demo", "--images", "40"}, "vcr demo: --images is now --n-images here (--images is a dataset path in every other command; the demo makes its images, so it takes their number)\nRun 'vcr demo --help' for usage.\n"},
		{[]string{"analyze", "--family", "a=b"}, "vcr analyze: --family is now --model-family here (--family names a corruption family in vcr corruptions; this one names model families)\nRun 'vcr analyze --help' for usage.\n"},
	} {
		code, out, errOut := runCLI(t, c.args...)
		if code != exitUsage || out != "" || errOut != c.want {
			t.Errorf("vcr %s: exit %d, stdout %q, stderr\n%q\nwant exit 2 and stderr\n%q", strings.Join(c.args, " "), code, out, errOut, c.want)
		}
	}
}

// TestRepeatedFlag: a single-value flag given twice is an error naming
// both values (string, integer, boolean and function flags alike, in
// commands and subcommands; parseArgs guards every flag set); list flags
// stay repeatable.
func TestRepeatedFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "--testset", "a", "--predictions", "p1.csv", "--predictions", "p2.csv", "--out", "r.csv"}, `vcr eval: --predictions is given twice ("p1.csv", then "p2.csv"); it takes one value`},
		{[]string{"synth", "--out", "x", "--n", "1", "--n", "2"}, `vcr synth: --n is given twice ("1", then "2"); it takes one value`},
		{[]string{"generate", "--force", "--images", "x", "--force"}, `vcr generate: --force is given twice; give it once`},
		{[]string{"analyze", "--lambda", "1", "--lambda", "2"}, `vcr analyze: --lambda is given twice ("1", then "2"); it takes one value`},
		{[]string{"requirements", "check", "--seed", "1", "--seed=2"}, `vcr requirements check: --seed is given twice ("1", then "2"); it takes one value`},
	} {
		code, _, errOut := runCLI(t, c.args...)
		want := c.want + "\nRun 'vcr " + strings.TrimPrefix(strings.SplitN(c.want, ":", 2)[0], "vcr ") + " --help' for usage.\n"
		if code != exitUsage || errOut != want {
			t.Errorf("vcr %s: exit %d, stderr %q; want 2, %q", strings.Join(c.args, " "), code, errOut, want)
		}
	}
	// A list flag repeats.
	code, _, errOut := runCLI(t, "corrupt", "--param", "a=1", "--param", "b=2")
	if strings.Contains(errOut, "given twice") {
		t.Errorf("repeated --param refused: exit %d, %q", code, errOut)
	}
}

// TestVersion: vcr version and vcr --version print one line and exit 0.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, errOut := runCLI(t, args...)
		if code != exitOK || errOut != "" || !strings.HasPrefix(out, "vcr ") || strings.Count(out, "\n") != 1 || !strings.Contains(out, " go1.") {
			t.Errorf("vcr %s: exit %d, stdout %q, stderr %q", args[0], code, out, errOut)
		}
	}
}

const (
	cliBegin = "<!-- flags:begin (generated by go test ./cmd/vcr -run TestCLIReference -update) -->"
	cliEnd   = "<!-- flags:end -->"
)

// cliReference renders the flag tables of every command.
func cliReference(t *testing.T) string {
	var b strings.Builder
	for _, v := range allInvocations() {
		_, _, fs := helpOf(t, v)
		fmt.Fprintf(&b, "\n### vcr %s\n\n", v.name())
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n == 0 {
			b.WriteString("No flags.\n")
			continue
		}
		b.WriteString("| flag | value | default | meaning |\n|---|---|---|---|\n")
		fs.VisitAll(func(f *flag.Flag) {
			name, usage := flag.UnquoteUsage(f)
			def := f.DefValue
			switch {
			case isBoolFlag(f):
				name, def = "", map[string]string{"false": "", "true": "true"}[def]
			case def == "":
			default:
				def = "`" + def + "`"
			}
			usage = strings.ReplaceAll(strings.ReplaceAll(usage, "|", `\|`), "\n", " ")
			fmt.Fprintf(&b, "| `--%s` | %s | %s | %s |\n", f.Name, name, def, usage)
		})
	}
	return b.String()
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// TestCLIReference: docs/cli.md lists every flag of every command, as the
// code defines them.
func TestCLIReference(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "cli.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i, j := strings.Index(s, cliBegin), strings.Index(s, cliEnd)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers %q … %q", path, cliBegin, cliEnd)
	}
	got := s[:i+len(cliBegin)] + "\n" + cliReference(t) + "\n" + s[j:]
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != s {
		t.Errorf("%s is out of date with the commands' flags (run go test ./cmd/vcr -run TestCLIReference -update):\n%s", path, firstDiff(s, got))
	}
}

// helpExamples returns the example command lines of a help text: the
// lines that start with "vcr " after an "Example:" or "Examples:" line,
// with backslash continuations joined and "&" dropped.
func helpExamples(help string) []string {
	var out []string
	in := false
	pending := ""
	for _, line := range strings.Split(help, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "Example:" || trimmed == "Examples:":
			in = true
			continue
		case trimmed == "Flags:":
			in = false
		}
		if !in {
			continue
		}
		if pending != "" {
			trimmed = pending + " " + trimmed
			pending = ""
		}
		if s, ok := strings.CutSuffix(trimmed, `\`); ok {
			pending = strings.TrimSpace(s)
			continue
		}
		if strings.HasPrefix(trimmed, "vcr ") {
			trimmed = stripComment(trimmed)
			if i := strings.Index(trimmed, " | "); i >= 0 {
				trimmed = trimmed[:i] // a pipe into another program
			}
			trimmed = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(trimmed), "&"))
			out = append(out, trimmed)
		}
	}
	return out
}

// TestHelpExamplesParse: every example in every command's --help names an
// existing command and only flags that command defines, with values its
// flags accept. (The README's examples run for real in TestREADMEJourney.)
func TestHelpExamplesParse(t *testing.T) {
	total := 0
	for _, v := range allInvocations() {
		_, help, _ := helpOf(t, v)
		for _, ex := range helpExamples(help) {
			words := shellWords(t, ex, 0)[1:]
			var args []string
			for _, w := range words {
				if w != "…" && w != "..." {
					args = append(args, w)
				}
			}
			// The command and subcommand words, then its flags.
			inv := invocation{}
			for len(args) > 0 && !strings.HasPrefix(args[0], "-") && len(inv.args) < len(v.args) {
				inv.args, args = append(inv.args, args[0]), args[1:]
			}
			_, _, fs := helpOf(t, inv)
			if fs == nil {
				t.Errorf("vcr %s --help: example %q: no such command", v.name(), ex)
				continue
			}
			if _, err := parseArgs(fs, args); err != nil {
				t.Errorf("vcr %s --help: example %q: %v", v.name(), ex, err)
			}
			total++
		}
	}
	t.Logf("%d examples parsed", total)
	if total < 30 {
		t.Errorf("only %d examples found in the commands' help; the parser must have missed them", total)
	}
}
