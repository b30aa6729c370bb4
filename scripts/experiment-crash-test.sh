#!/usr/bin/env bash
# Crash test of `vcr experiment serve`, by hand (the automated version is
# `go test ./experiment/e2e -run TestCrash -v`): serve a small experiment
# on SQLite, run `vcr experiment loadtest` against it, kill -9 the server
# in the middle, restart it on the same database, let the simulated
# participants carry on (they retry with backoff), and check the database:
# every acknowledged response stored, no trial answered twice, every
# participant finished its run.
#
# Usage: scripts/experiment-crash-test.sh [WORKDIR]
# Environment: N participants (default 200), ADDR (default 127.0.0.1:18080),
# THINK per-trial pause of the simulated participants (default 400ms, so the
# run lasts a few seconds), KILL_AFTER seconds before the kill (default 2).
# Exit status 0 when every check passed. See docs/experiment-testing.md.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
n=${N:-200}
addr=${ADDR:-127.0.0.1:18080}
think=${THINK:-400ms}
kill_after=${KILL_AFTER:-2}
views=5
batches=$(( (n + views - 1) / views ))

echo "crash test in $work: $n participants, server on $addr"
go build -o "$work/vcr" ./cmd/vcr
vcr=$work/vcr
rm -rf "$work/data" "$work/testset" "$work/exp.sqlite"* "$work/exp.cache"
"$vcr" synth --out "$work/data" --n 64 --size 96 --classes 4 --seed 5 >/dev/null
"$vcr" generate --images "$work/data" --corruptions gaussian_noise,gaussian_blur \
	--n $(( batches * 2 + 8 )) --seed 5 --out "$work/testset" --progress never >/dev/null
cat >"$work/exp.yaml" <<EOF
name: crash test
seed: 3
testset: testset
task:
  categories:
    - {name: class_00, label: "Zero", key: "1"}
    - {name: class_01, label: "One", key: "2"}
    - {name: class_02, label: "Two", key: "3"}
    - {name: class_03, label: "Three", key: "4"}
trials_per_batch: 4
clean_per_batch: 1
views_per_batch: $views
batches: $batches
practice: 1
qualification: 2
qualification_min_correct: 0
sanity: 1
sanity_max_failures: 1
masks: 4
server:
  admin_token: crash-test-admin-token-0123456789
  rate_per_ip: 1000000
  burst_per_ip: 1000000
  rate_per_session: 10000
  burst_per_session: 10000
  max_places_per_ip: -1
  joins_per_minute: 1000000
  joins_per_minute_per_ip: 1000000
EOF

server=
serve() {
	"$vcr" experiment serve --config "$work/exp.yaml" --db "$work/exp.sqlite" --addr "$addr" >>"$work/serve.log" 2>&1 &
	server=$!
	for _ in $(seq 600); do
		if curl -fsS "http://$addr/healthz" >/dev/null 2>&1; then return 0; fi
		kill -0 "$server" 2>/dev/null || { echo "the server exited; see $work/serve.log" >&2; exit 1; }
		sleep 0.1
	done
	echo "the server did not come up; see $work/serve.log" >&2
	exit 1
}
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null || true; }
trap cleanup EXIT

serve
"$vcr" experiment loadtest --url "http://$addr" --participants "$n" --concurrency "$n" --think "$think" \
	--retry-for 60s --db "$work/exp.sqlite" --config "$work/exp.yaml" --json "$work/report.json" \
	>"$work/loadtest.txt" 2>&1 &
load=$!
sleep "$kill_after"
echo "kill -9 the server (pid $server)"
kill -9 "$server"
wait "$server" 2>/dev/null || true
server=
sleep 1
echo "restarting it"
serve
status=0
wait "$load" || status=$?
kill "$server"
wait "$server" 2>/dev/null || true
server=
cat "$work/loadtest.txt"
if ! grep -q "network [1-9]" "$work/loadtest.txt"; then
	echo "warning: the load test saw no network errors: the kill came after it finished (raise THINK or lower KILL_AFTER)" >&2
	status=1
fi
if [ "$status" -eq 0 ]; then
	echo "crash test passed"
else
	echo "crash test FAILED (status $status); files in $work" >&2
fi
exit "$status"
