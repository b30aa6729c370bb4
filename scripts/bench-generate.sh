#!/usr/bin/env bash
# Times the whole 'vcr generate' pipeline (decode, corrupt, 8-bit conversion,
# VIF, PNG encode, manifest) for every corruption on synthetic datasets, at
# 224×224 and at ImageNet's typical native size (500×375 JPEG sources), and
# prints a Markdown table of images per second and peak resident memory.
#
# Usage: scripts/bench-generate.sh [N224] [NNATIVE]   (defaults 1000 and 200)
# Env:   GOEXPERIMENT=simd to time the vectorised build; WORKERS (default: all cores);
#        VIF_METHOD (default vcr-py); CORRUPTIONS (default: all, space-separated);
#        OUT, the output folder (default $TMPDIR/vcr-bench/out, on the disk). With
#        OUT=/dev/shm/vcr-bench-out (tmpfs) the images still go through the write
#        system calls but not to the disk: that times vcr's pipeline apart from the
#        disk's writeback, which on a small VM can take a fifth of the time.
#        Every run writes into a folder of its own under OUT (CORRUPTION-DATASET),
#        kept until the next invocation removes them (about 1.5 GB for all
#        corruptions at the default sizes; remove OUT by hand). SETTLE (default 90 seconds) is how long the
#        script waits after removing a previous invocation's folders on a disk
#        file system: ext4 skips inodes freed within the last ~30 s
#        (recently_deleted()) when it allocates new ones, and after thousands of
#        deletions that scan cost ~1 ms of kernel time per new file, which is
#        the file system's, not vcr's (docs/generate.md, "Writing to a disk after
#        deleting many files").
set -euo pipefail
cd "$(dirname "$0")/.."
n224=${1:-1000}
nnative=${2:-200}
tmp=${TMPDIR:-/tmp}/vcr-bench
mkdir -p "$tmp"
out=${OUT:-$tmp/out}
go build -o "$tmp/vcr" ./cmd/vcr
vcr="$tmp/vcr"
[ -d "$tmp/synth224" ] || "$vcr" synth --out "$tmp/synth224" --n 500 --size 224 >/dev/null
[ -d "$tmp/native" ] || "$vcr" synth --out "$tmp/native" --n 200 --size 500x375 --format jpg >/dev/null
corruptions=${CORRUPTIONS:-$("$vcr" corruptions --json | sed -n 's/^    "name": "\(.*\)",$/\1/p')}
workers=${WORKERS:-$(nproc)}
method=${VIF_METHOD:-vcr-py}
echo "build: GOEXPERIMENT=${GOEXPERIMENT:-none}; workers $workers; VIF $method; $(nproc) cores; output $out ($(df --output=fstype "$(dirname "$out")" | tail -1)), a fresh folder per run; $(date -u +%F)"
echo
echo "| corruption | 224×224 img/s | 224×224 max RSS | 500×375 img/s | 500×375 max RSS |"
echo "|---|---|---|---|---|"
# A previous invocation's output is removed before any clock starts, and on
# a disk file system the script then waits SETTLE seconds (see Env above).
if [ -e "$out" ]; then
	rm -rf "$out"
	case $(df --output=fstype "$(dirname "$out")" | tail -1) in
	tmpfs | ramfs) ;;
	*) sync; sleep "${SETTLE:-90}" ;;
	esac
fi
mkdir -p "$out"
run() { # dataset n → "img/s rss"
	local t0 t1 rss dir
	# Each run writes a fresh folder: nothing is deleted between runs, so
	# no run pays for the previous one's deletions.
	dir="$out/$c-$(basename "$1")"
	t0=$(date +%s.%N)
	rss=$( { /usr/bin/time -f "%M" "$vcr" generate --images "$1" --corruptions "$c" --n "$2" --seed 1 \
		--vif-method "$method" --workers "$workers" --out "$dir" --progress never >/dev/null; } 2>&1 | tail -1)
	t1=$(date +%s.%N)
	awk -v n="$2" -v a="$t0" -v b="$t1" -v r="$rss" 'BEGIN { printf "%.0f | %.0f MiB", n / (b - a), r / 1024 }'
}
for c in $corruptions; do
	echo "| $c | $(run "$tmp/synth224" "$n224") | $(run "$tmp/native" "$nnative") |"
done
