package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/vcr-bench/vcr/experiment/loadtest"
	"github.com/vcr-bench/vcr/internal/atomicfile"
	"github.com/vcr-bench/vcr/internal/version"
)

func init() {
	experimentCommands["loadtest"] = &command{
		name:    "loadtest",
		summary: "simulate participants against a running server and check the database",
		run:     runExperimentLoadtest,
	}
}

const experimentLoadtestUsage = `
Usage: vcr experiment loadtest [--url URL] [--participants N] [--concurrency N] [--db DSN [--config exp.yaml]] [--json report.json]

Simulates participants against a running 'vcr experiment serve', over HTTP
as a browser does: the consent page and its form, the app page, then for
every trial the state, the images and the noise mask, and the answer, until
the completion page. Each participant has its own cookie jar and id
(PREFIX-N with --id-prefix, passed as the pid parameter; with --platform
prolific or mturk, well-formed platform ids derived from it, as a server
whose config sets completion.platform requires). Answers and response times
are random (seeded by --seed). A 409 makes a participant refetch its state,
a 429 waits Retry-After, and network errors and 5xx are retried with
backoff for --retry-for, so a server that is killed and restarted during
the run is survived (scripts/experiment-crash-test.sh).

It prints trials/s, latency percentiles per endpoint and errors by kind.
With --db it then checks the database: every acknowledged response is
stored with the same answer, no trial is answered twice, answered trials
are a prefix of each plan, every plan is the design's (from --config, or
the design the database recorded), no batch has more than its views, no
participant saw a source image twice, and every participant with
acknowledged answers completed its run (or was screened out).

Give the server high rate and join limits for a load test
(server.rate_per_ip, server.joins_per_minute_per_ip, server.max_places_per_ip: -1
and friends in the config): 500 participants share one client address.

It exits 1 when a participant gave up or the check fails.

Examples:
  vcr experiment serve --config exp.yaml --db exp.sqlite &
  vcr experiment loadtest --url http://127.0.0.1:8080 --participants 500 --concurrency 500 \
      --db exp.sqlite --config exp.yaml --json report.json
`

func runExperimentLoadtest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("experiment loadtest", experimentLoadtestUsage, stderr)
	url := fs.String("url", "http://127.0.0.1:8080", "the server's base `URL`")
	participants := fs.Int("participants", 500, "participants to simulate")
	concurrency := fs.Int("concurrency", 0, "participants running at once (0: all)")
	prefix := fs.String("id-prefix", "", "participant id `prefix` (default: load + the start time)")
	platform := fs.String("platform", "", "the participants' ids: `name` prolific, mturk, or empty for the pid parameter (match the server's completion.platform)")
	think := fs.Duration("think", 0, "pause before each answer")
	skipImages := fs.Bool("skip-images", false, "do not download the trial images and masks")
	seed := fs.Uint64("seed", 1, "seed of the simulated answers and response times")
	retryFor := fs.Duration("retry-for", 60*time.Second, "how long to retry network errors and 5xx")
	timeout := fs.Duration("timeout", 30*time.Second, "limit of each HTTP request")
	db := fs.String("db", "", "check this `database` afterwards (SQLite file or postgres:// URL)")
	config := fs.String("config", "", "the experiment config `file` for --db's checks (default: the design the database recorded)")
	jsonOut := fs.String("json", "", "write the report (and the check) as JSON to this `file`")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	if *participants <= 0 {
		return usagef("--participants must be positive (got %d), e.g. --participants 500", *participants)
	}
	if *config != "" && *db == "" {
		return usagef("--config is for checking the database: give --db too")
	}
	if *platform != "" && *platform != "prolific" && *platform != "mturk" {
		return usagef("--platform must be prolific, mturk or empty (got %q)", *platform)
	}
	if *retryFor <= 0 || *timeout <= 0 {
		return usagef("--retry-for and --timeout must be positive (got %v and %v)", *retryFor, *timeout)
	}
	if *jsonOut != "" {
		if err := atomicfile.CheckWritable(*jsonOut); err != nil {
			return usagef("--json: %v", err)
		}
	}
	rep, err := loadtest.Run(ctx, loadtest.Config{
		URL:            *url,
		Participants:   *participants,
		Concurrency:    *concurrency,
		IDPrefix:       *prefix,
		Platform:       *platform,
		Think:          *think,
		SkipImages:     *skipImages,
		RequestTimeout: *timeout,
		RetryFor:       *retryFor,
		Seed:           *seed,
	})
	if rep == nil {
		return err
	}
	if werr := rep.WriteText(stdout); werr != nil {
		return werr
	}
	if err != nil {
		return err
	}
	out := struct {
		Tool    string                 `json:"tool"`
		Version string                 `json:"version"`
		Report  *loadtest.Report       `json:"report"`
		Check   *loadtest.Verification `json:"check,omitempty"`
	}{Tool: "vcr experiment loadtest", Version: version.String(), Report: rep}
	var checkErr error
	if *db != "" {
		out.Check, checkErr = verifyLoadtest(ctx, *db, *config, rep.Acked, stderr)
		if out.Check != nil {
			c := out.Check
			fmt.Fprintf(stdout, "database check: %d participants, %d completed, %d answered trials; %d acknowledged: lost %d, mismatched %d, duplicated %d; not a prefix %d, plan mismatch %d, repeated source %d, overfull batches %d (max holders %d)\n",
				c.Participants, c.Completed, c.Answered, c.Acked, c.Lost, c.Mismatched, c.Duplicated, c.NotPrefix, c.PlanMismatch, c.RepeatedSource, c.OverfullBatches, c.MaxBatchHolders)
		}
	}
	if *jsonOut != "" {
		if err := atomicfile.Write(*jsonOut, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", " ")
			return enc.Encode(out)
		}); err != nil {
			return err
		}
	}
	if checkErr != nil {
		return checkErr
	}
	if err := rep.Err(); err != nil && nothingAnswered(rep) {
		return fmt.Errorf("%w\nno request to %s succeeded, all failed in the network: is vcr experiment serve running there? Start it, or check --url", err, *url)
	} else if err != nil {
		return err
	}
	return nil
}

// verifyLoadtest opens the database and checks it against the
// acknowledged responses, with the design of config (built again) or, without
// one, the design the database recorded.
func verifyLoadtest(ctx context.Context, dsn, config string, acked []loadtest.Ack, stderr io.Writer) (*loadtest.Verification, error) {
	s, err := openStore(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	d, err := loadDesign(ctx, s, config, stderr)
	if err != nil {
		return nil, err
	}
	// Init with the recorded design changes nothing; with another one it
	// fails, as a check against the wrong config should.
	if err := s.Init(ctx, d); err != nil {
		return nil, fmt.Errorf("check %s: %w", storeName(dsn), err)
	}
	return loadtest.VerifyAll(ctx, s, d, acked)
}

// nothingAnswered reports whether every participant of rep failed without
// one successful request and with network errors only: no server listens
// at the URL, whatever the participants' error lines say one by one.
func nothingAnswered(rep *loadtest.Report) bool {
	if rep.Participants == 0 || rep.Outcomes["failed"] != rep.Participants {
		return false
	}
	for _, l := range rep.Endpoints {
		if l.N > 0 {
			return false
		}
	}
	for kind, n := range rep.Errors {
		if kind != "network" && n > 0 {
			return false
		}
	}
	return rep.Errors["network"] > 0
}
