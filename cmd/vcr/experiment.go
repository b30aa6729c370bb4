package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/vcr-bench/vcr/experiment"
	"github.com/vcr-bench/vcr/experiment/postgres"
	"github.com/vcr-bench/vcr/experiment/sqlite"
	"github.com/vcr-bench/vcr/experiment/web"
	"github.com/vcr-bench/vcr/internal/atomicfile"
)

// experimentCommands are the subcommands of 'vcr experiment'; other files
// add theirs from an init function.
var experimentCommands = map[string]*command{}

func init() {
	addCommand(&command{name: "experiment", summary: "run a human recognition experiment: serve the web app, export the trials", run: runExperiment})
	experimentCommands["serve"] = &command{name: "serve", summary: "serve the experiment's web app (participants and admin)", run: runExperimentServe}
	experimentCommands["export"] = &command{name: "export", summary: "write the answered trials as CSV for vcr analyze / vcr requirements", run: runExperimentExport}
	experimentCommands["distinguish"] = &command{name: "distinguish", summary: "binomial test report of a distinguishability experiment", run: runExperimentDistinguish}
}

const experimentUsage = `
Usage: vcr experiment <subcommand> [flags]

Runs a human recognition experiment on the images of a 'vcr generate' test
set, as the ICSE 2022 and VCR studies did (Geirhos et al.'s protocol): a
fixation point, the stimulus for 200 ms, a noise mask, then a forced
choice among the task's categories; practice, qualification and sanity
trials; batches of images shown to several participants each, no
participant seeing a source image twice. The design comes from a config
file (docs/experiment.md); participants and answers live in a database
(SQLite file, or PostgreSQL for several server instances).

Subcommands:
SUBCOMMANDS
Typical run:
  vcr generate --images images/ --corruptions gaussian_noise,frost --n 200 --out testset
  vcr experiment serve --config exp.yaml --db exp.sqlite --addr 127.0.0.1:8080
  vcr experiment export --db exp.sqlite --out trials.csv
  vcr analyze --results model/results.csv --human trials.csv --out report

Run 'vcr experiment <subcommand> --help' for its flags. How to run a study
(Prolific, MTurk, HTTPS, PostgreSQL): docs/experiment-serve.md.
`

// experimentNames returns the experiment subcommands in name order.
func experimentNames() []string {
	names := make([]string, 0, len(experimentCommands))
	for n := range experimentCommands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func experimentHelp(w io.Writer) {
	names := experimentNames()
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "  %-12s %s\n", n, experimentCommands[n].summary)
	}
	fmt.Fprintln(w, strings.TrimSpace(strings.Replace(experimentUsage, "SUBCOMMANDS\n", b.String(), 1)))
}

func runExperiment(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		experimentHelp(stderr)
		return usagef("a subcommand is required: %s", strings.Join(experimentNames(), ", "))
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if c, ok := experimentCommands[args[1]]; ok {
				return c.run(ctx, []string{"--help"}, stdout, stderr)
			}
		}
		experimentHelp(stdout)
		return flag.ErrHelp
	}
	c, ok := experimentCommands[args[0]]
	if !ok {
		experimentHelp(stderr)
		return usagef("unknown subcommand %q", args[0])
	}
	return inSubcommand(args[0], c.run(ctx, args[1:], stdout, stderr))
}

// openStore opens the experiment database: a PostgreSQL URL
// (postgres://… or postgresql://…) or the path of an SQLite file (created
// if missing).
func openStore(ctx context.Context, dsn string) (experiment.Store, error) {
	switch {
	case dsn == "":
		return nil, usagef("--db is required: an SQLite file (e.g. --db exp.sqlite) or a PostgreSQL URL (postgres://user@host/db)")
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		return postgres.Open(ctx, dsn)
	}
	return sqlite.Open(dsn)
}

// storeName is dsn without a password, for messages.
func storeName(dsn string) string {
	if i := strings.Index(dsn, "://"); i >= 0 {
		if j := strings.LastIndexByte(dsn, '@'); j > i {
			return dsn[:i+3] + "…" + dsn[j:]
		}
	}
	return dsn
}

// loadDesign builds the design from the config file, or, without one,
// reads the design the database recorded when it was first served.
func loadDesign(ctx context.Context, st experiment.Store, configPath string, stderr io.Writer) (*experiment.Design, error) {
	if configPath != "" {
		cfg, err := experiment.LoadConfig(configPath)
		if err != nil {
			return nil, err
		}
		cfg.Warn = func(msg string) { fmt.Fprintln(stderr, "warning:", msg) }
		return experiment.Build(ctx, cfg)
	}
	return storedDesign(ctx, st)
}

// storedDesign reads the design recorded in the store by Init.
func storedDesign(ctx context.Context, st experiment.Store) (*experiment.Design, error) {
	d, err := st.StoredDesign(ctx)
	switch {
	case errors.Is(err, experiment.ErrNotFound):
		return nil, errors.New("the database holds no experiment yet (serve it first, or pass --config)")
	case err != nil:
		return nil, fmt.Errorf("%w; pass --config", err)
	}
	return d, nil
}

const experimentServeUsage = `
Usage: vcr experiment serve --config exp.yaml --db exp.sqlite [--addr 127.0.0.1:8080]

Builds the experiment design from the config file and its 'vcr generate'
test set (preparing the images in the config's cache folder), records it
in the database, and serves the web app until interrupted (Ctrl-C or
SIGTERM stop accepting connections and let running requests finish).

--db is an SQLite file (created if missing; one server process) or a
PostgreSQL URL, postgres://user:password@host/db (several server processes
behind one load balancer, all with the same config). A database keeps one
design: serving a changed design (other images, batches, timing, …) with
an existing database is refused; use a new database for a new study.

The admin token comes from server.admin_token in the config or, taking
precedence, the environment variable VCR_ADMIN_TOKEN (at least 16
characters). The admin page (/admin) shows live progress and the human
accuracy-vs-Δv curves, and /admin/export.csv downloads the trials.

Participant links (paste into the recruiting platform):
  Prolific  URL/?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}
  MTurk     URL/?workerId=…&assignmentId=…&hitId=…&turkSubmitTo=… (a link that
            opens in a new tab; the app refuses to run inside a frame)
  other     URL/?pid=PARTICIPANT_ID, or URL/ (an id is made up)
With completion.platform set, its ids are required and checked (Prolific:
24 hex digits; MTurk: worker, assignment and HIT ids) unless
server.allow_anonymous; one address holds at most server.max_places_per_ip
places (default 2), and joins are rate limited (docs/experiment-serve.md,
"Threat model").

Participants who answer no trial for longer than the config's abandon time
are marked abandoned every minute (and on their next request), which frees
their batch for someone else; rejoining or reloading does not hold a place.
Behind a reverse proxy that terminates HTTPS, set server.secure_cookies
and server.trust_proxy, and pass --public-url https://study.example.org
so the printed links are right (docs/experiment-serve.md).

Examples:
  VCR_ADMIN_TOKEN=$(openssl rand -hex 16) vcr experiment serve --config exp.yaml --db exp.sqlite
  vcr experiment serve --config exp.yaml --db postgres://vcr@db.internal/study1 --addr 0.0.0.0:8080
`

func runExperimentServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("experiment serve", experimentServeUsage, stderr)
	configPath := fs.String("config", "", "experiment config `file` (YAML or JSON)")
	dsn := fs.String("db", "", "database: SQLite `file` or postgres:// URL")
	addr := fs.String("addr", "", "listen `address` host:port (default: server.addr of the config, else 127.0.0.1:8080; port 0 picks a free one)")
	publicURL := fs.String("public-url", "", "the `URL` participants reach the server at, for the printed links (default http://ADDR)")
	logJSON := fs.Bool("log-json", false, "log requests' errors as JSON lines (default text) to stderr")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return usagef("unexpected arguments %q", pos)
	case *configPath == "":
		return usagef("--config is required, e.g. --config exp.yaml (docs/experiment.md)")
	case *dsn == "":
		return usagef("--db is required: an SQLite file (e.g. --db exp.sqlite) or a PostgreSQL URL")
	case *publicURL != "" && !strings.HasPrefix(*publicURL, "http://") && !strings.HasPrefix(*publicURL, "https://"):
		return usagef("--public-url must start with http:// or https:// (got %q)", *publicURL)
	}
	cfg, err := experiment.LoadConfig(*configPath)
	if err != nil {
		return err
	}
	if tok := os.Getenv("VCR_ADMIN_TOKEN"); tok != "" {
		cfg.Server.AdminToken = tok
	}
	if len(cfg.Server.AdminToken) < web.MinAdminToken {
		return usagef("the admin token must have at least %d characters: set server.admin_token in %s or the environment variable VCR_ADMIN_TOKEN (e.g. VCR_ADMIN_TOKEN=$(openssl rand -hex 16))",
			web.MinAdminToken, *configPath)
	}
	listen := *addr
	if listen == "" {
		listen = cfg.Server.Addr
	}
	if listen == "" {
		listen = "127.0.0.1:8080"
	}

	cfg.Warn = func(msg string) { fmt.Fprintln(stderr, "warning:", msg) }
	fmt.Fprintf(stderr, "building the design from %s…\n", *configPath)
	d, sum, err := experiment.BuildWithSummary(ctx, cfg)
	if err != nil {
		return err
	}
	printBuildSummary(stdout, d, sum)

	st, err := openStore(ctx, *dsn)
	if err != nil {
		return fmt.Errorf("open %s: %w", storeName(*dsn), err)
	}
	defer st.Close()
	if err := st.Init(ctx, d); err != nil {
		if errors.Is(err, experiment.ErrDesignMismatch) {
			return fmt.Errorf("%s: %w\nThe config (or its test set) changed since this database was first served; use a new --db for a new study", storeName(*dsn), err)
		}
		return fmt.Errorf("%s: %w", storeName(*dsn), err)
	}

	var h slog.Handler = slog.NewTextHandler(stderr, nil)
	if *logJSON {
		h = slog.NewJSONHandler(stderr, nil)
	}
	log := slog.New(h)
	srv, err := web.New(cfg.Server, d, st, web.Options{Logger: log, Dir: cfg.Dir()})
	if err != nil {
		return err
	}
	defer srv.Close()

	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (is another server running? choose another --addr)", listen, err)
	}
	base := *publicURL
	if base == "" {
		base = "http://" + ln.Addr().String()
	}
	base = strings.TrimRight(base, "/")
	fmt.Fprintf(stdout, "serving %s on %s (database %s)\n", d.Name, ln.Addr(), storeName(*dsn))
	fmt.Fprintf(stdout, "participants: %s/?PROLIFIC_PID={{%%PROLIFIC_PID%%}}&STUDY_ID={{%%STUDY_ID%%}}&SESSION_ID={{%%SESSION_ID%%}} (Prolific)\n", base)
	fmt.Fprintf(stdout, "              %s/?workerId=…&assignmentId=…&hitId=…&turkSubmitTo=… (MTurk, opened in a new tab); %s/?pid=ID (your own ids)\n", base, base)
	fmt.Fprintf(stdout, "admin:        %s/admin\n", base)
	fmt.Fprintln(stdout, "Ctrl-C stops the server after the requests in flight.")

	hs := srv.HTTPServer(listen)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	every := time.Minute
	if d.Abandon > 0 && d.Abandon/2 < every {
		every = max(d.Abandon/2, time.Second)
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case err := <-served:
			return fmt.Errorf("serve: %w", err)
		case <-tick.C:
			abandonSilent(ctx, st, d, time.Now(), log)
		case <-ctx.Done():
			fmt.Fprintln(stderr, "shutting down: finishing the requests in flight…")
			sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := hs.Shutdown(sctx); err != nil {
				return fmt.Errorf("shutdown: %w", err)
			}
			if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
				return fmt.Errorf("serve: %w", err)
			}
			fmt.Fprintln(stderr, "stopped")
			return nil
		}
	}
}

// abandonSilent marks the active participants silent for longer than
// d.Abandon at now as abandoned (which frees their batches) and logs how
// many. A store error is logged; the next round tries again.
func abandonSilent(ctx context.Context, st experiment.Store, d *experiment.Design, now time.Time, log *slog.Logger) int {
	if d.Abandon <= 0 {
		return 0
	}
	n, err := st.Abandon(ctx, now.Add(-d.Abandon))
	if err != nil {
		log.Error("abandon silent participants", "err", err)
		return 0
	}
	if n > 0 {
		log.Info("participants abandoned", "n", n, "silent_for", d.Abandon.String())
	}
	return n
}

// printBuildSummary writes what Build made of the test set. Build's
// warnings are not repeated: serve prints them as they happen.
func printBuildSummary(w io.Writer, d *experiment.Design, sum *experiment.BuildSummary) {
	perParticipant := func(n, pool int) int {
		if n == 0 {
			return pool
		}
		return n
	}
	fmt.Fprintf(w, "design %s (%s, hash %.12s): %d batches × %d views, %d corrupted + %d clean main stimuli, %d practice, %d qualification (of a pool of %d), %d sanity (of a pool of %d) per participant\n",
		d.Name, d.Kind, d.Hash, sum.Batches, d.ViewsPerBatch, sum.Corrupted, sum.Clean, sum.Practice,
		perParticipant(d.QualificationTrials, sum.Qualification), sum.Qualification, perParticipant(d.SanityTrials, sum.Sanity), sum.Sanity)
	fmt.Fprintf(w, "test set: %d rows read; skipped %d (corruption not selected), %d (label outside the task), %d (test-set image missing), %d source images unreadable (not shown clean; see the warnings); clean originals %d written, %d cached\n",
		sum.Rows, sum.SkippedCorruption, sum.SkippedLabel, sum.SkippedMissing, len(sum.BrokenSources), sum.CleanWritten, sum.CleanCached)
}

const experimentExportUsage = `
Usage: vcr experiment export --db exp.sqlite --out trials.csv [--config exp.yaml] [--raw-csv]

Writes every answered trial of the experiment as one CSV row, in the
human-data format that 'vcr analyze --human' and 'vcr requirements' read
(docs/human-data.md, docs/experiment.md): participant, session, trial,
role, stimulus_id, source_id, source, corruption, params, dv, vif_method,
ground_truth, response, correct, rt_ms, shown_ms, refresh_hz, timing_ok,
is_original, excluded, exclusion_reason, timestamp, ….

Rows of excluded, screened-out and abandoned participants (and, if the
design says so, trials whose stimulus timing missed its target) are
written with excluded = 1 and the reason; the readers skip them and the
rows of practice, qualification and sanity trials.

Text cells that begin with = + - @, a tab or a carriage return (a session
id such as -2-3 or @A1:A9) get a leading single quote, so that a
spreadsheet shows them as text instead of running them as formulas
(OWASP's advice against CSV injection); numbers such as -0.5 stay as they
are, and 'vcr analyze --human' reads the file the same either way.
--raw-csv writes every cell as it is, for programs that want the exact
strings (do not open that file in a spreadsheet).

The design is the one recorded in the database; --config rebuilds it from
the config file instead (it must be the same design). The export can run
while the server is serving (SQLite WAL and PostgreSQL allow it).
--out - writes to standard output.

Example:
  vcr experiment export --db exp.sqlite --out trials.csv
  vcr analyze --results resnet50/results.csv --human trials.csv --out report
`

func runExperimentExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("experiment export", experimentExportUsage, stderr)
	dsn := fs.String("db", "", "database: SQLite `file` or postgres:// URL")
	out := fs.String("out", "", "output CSV `file` (- for standard output)")
	configPath := fs.String("config", "", "experiment config `file` (default: the design recorded in the database)")
	raw := fs.Bool("raw-csv", false, "write text cells as they are, without the leading ' that keeps spreadsheets from running cells beginning with = + - @ as formulas")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return usagef("unexpected arguments %q", pos)
	case *dsn == "":
		return usagef("--db is required, e.g. --db exp.sqlite")
	case *out == "":
		return usagef("--out is required, e.g. --out trials.csv (- for standard output)")
	}
	if *out != "-" {
		if err := atomicfile.CheckWritable(*out); err != nil {
			return usagef("--out: %v", err)
		}
		if err := checkNotForeign("--out", *out, "an earlier trials export", isTrialsExport); err != nil {
			return err
		}
	}
	st, d, err := openWithDesign(ctx, *dsn, *configPath, stderr)
	if err != nil {
		return err
	}
	defer st.Close()
	var sum experiment.ExportSummary
	write := func(w io.Writer) error {
		var err error
		sum, err = experiment.ExportWithOptions(ctx, st, d, w, experiment.ExportOptions{RawCSV: *raw})
		return err
	}
	msg := stderr
	if *out == "-" {
		err = write(stdout)
	} else {
		err = atomicfile.Write(*out, write)
		msg = stdout
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(msg, "%d trials of %d participants: %d main, %d of them included; %d rows excluded, %d timing misses",
		sum.Rows, sum.Participants, sum.Main, sum.Included, sum.Excluded, sum.TimingMisses)
	if *out != "-" {
		fmt.Fprintf(msg, " → %s", *out)
	}
	fmt.Fprintln(msg)
	return nil
}

// openWithDesign opens the store and initialises it with the design.
func openWithDesign(ctx context.Context, dsn, configPath string, stderr io.Writer) (experiment.Store, *experiment.Design, error) {
	if !strings.Contains(dsn, "://") {
		if _, err := os.Stat(dsn); err != nil {
			return nil, nil, fmt.Errorf("no database %s (the --db of 'vcr experiment serve'): %w", dsn, err)
		}
	}
	st, err := openStore(ctx, dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", storeName(dsn), err)
	}
	d, err := loadDesign(ctx, st, configPath, stderr)
	if err == nil {
		err = st.Init(ctx, d)
	}
	if err != nil {
		st.Close()
		return nil, nil, fmt.Errorf("%s: %w", storeName(dsn), err)
	}
	return st, d, nil
}

const experimentDistinguishUsage = `
Usage: vcr experiment distinguish --db exp.sqlite --out report.json [--config exp.yaml]

The report of a distinguishability experiment (kind: distinguish): per
corruption pair, how often participants answered "same corruption?"
correctly on the main trials, and the one-sided exact binomial test of
that rate against chance (0.5); a pair is distinguishable when p < 0.05.
Excluded, screened-out and abandoned participants (and timing misses, if
the design excludes them) are left out. Pairs that participants cannot
tell apart are the VCR study's visually similar corruptions, whose human
data can be shared.

The design is the one recorded in the database unless --config is given.
--out - writes the JSON to standard output; a table goes to the terminal.
An --out file ending in .csv gets one CSV row per pair instead (its text
cells escaped against spreadsheet formulas as 'vcr experiment export'
escapes them).

Example:
  vcr experiment distinguish --db distinguish.sqlite --out distinguish.json
`

func runExperimentDistinguish(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("experiment distinguish", experimentDistinguishUsage, stderr)
	dsn := fs.String("db", "", "database: SQLite `file` or postgres:// URL")
	out := fs.String("out", "", "output JSON `file` (- for standard output)")
	configPath := fs.String("config", "", "experiment config `file` (default: the design recorded in the database)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return usagef("unexpected arguments %q", pos)
	case *dsn == "":
		return usagef("--db is required, e.g. --db distinguish.sqlite")
	case *out == "":
		return usagef("--out is required, e.g. --out distinguish.json (- for standard output)")
	}
	if *out != "-" {
		if err := atomicfile.CheckWritable(*out); err != nil {
			return usagef("--out: %v", err)
		}
	}
	st, d, err := openWithDesign(ctx, *dsn, *configPath, stderr)
	if err != nil {
		return err
	}
	defer st.Close()
	if d.Kind != experiment.KindDistinguish {
		return fmt.Errorf("the experiment %q is a %s experiment; distinguish needs kind: distinguish (use 'vcr experiment export' for recognition data)", d.Name, d.Kind)
	}
	rep, err := experiment.DistinguishReport(ctx, st, d)
	if err != nil {
		return err
	}
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	js = append(js, '\n')
	write := func(w io.Writer) error { _, err := w.Write(js); return err }
	if strings.EqualFold(filepath.Ext(*out), ".csv") {
		write = rep.WriteCSV
	}
	table := stdout
	if *out == "-" {
		if _, err := stdout.Write(js); err != nil {
			return err
		}
		table = stderr
	} else if err := atomicfile.Write(*out, write); err != nil {
		return err
	}
	fmt.Fprintf(table, "%-40s %6s %6s %7s %9s  %s\n", "pair", "trials", "right", "rate", "p", "verdict")
	for _, p := range rep.Pairs {
		fmt.Fprintf(table, "%-40s %6d %6d %7.3f %9.3g  %s\n", p.CorruptionA+" vs "+p.CorruptionB, p.N, p.Correct, p.Rate, p.PValue, p.Verdict)
	}
	if rep.ExcludedTrials > 0 {
		fmt.Fprintf(table, "%d answered main trials left out (excluded participants or timing misses)\n", rep.ExcludedTrials)
	}
	return nil
}

// isTrialsExport reports whether head begins a trials CSV that vcr
// experiment export wrote (its header starts with the export's columns).
func isTrialsExport(head []byte) bool {
	return bytes.HasPrefix(head, []byte(strings.Join(experiment.ExportColumns[:3], ",")+","))
}
