#!/usr/bin/env bash
# Times 'vcr requirements check --testset' at its defaults (n = 200 batches of
# k = 50, with the reproducibility rerun) for one requirement on a 224×224
# test set, once with --predictions (no model) and once with a small ONNX model
# (onnxgen's tiny conv net, 1000 classes) run by ONNX Runtime, and prints the
# wall times and the check's own plan. The predictions are those 'vcr eval'
# makes with the same model, so both checks must print the same table.
#
# Usage: scripts/bench-requirements-testset.sh [ROWS]   (default 6000 frost rows)
# Env:   VCR_ONNXRUNTIME_LIB (the ONNX Runtime library, see docs/onnx.md);
#        SOURCES (default 500 synthetic 224×224 images); CORRUPTION (default
#        frost), TC and TP (default 0.4 and 0.3, on the vifvec axis).
# Needs /usr/bin/python3 (to turn eval's results into a predictions file).
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-6000}
sources=${SOURCES:-500}
corruption=${CORRUPTION:-frost}
tc=${TC:-0.4}
tp=${TP:-0.3}
tmp=${TMPDIR:-/tmp}/vcr-bench-req
mkdir -p "$tmp"
go build -o "$tmp/vcr" ./cmd/vcr
vcr="$tmp/vcr"
[ -f "$tmp/tiny.onnx" ] || go run ./model/onnx/onnxgen/cmd/onnxgen -arch conv -classes 1000 -size 224 -o "$tmp/tiny.onnx"
[ -d "$tmp/synth224-$sources" ] || "$vcr" synth --out "$tmp/synth224-$sources" --n "$sources" --size 224 >/dev/null
ts="$tmp/ts-$corruption-$rows"
if [ ! -f "$ts/status.json" ]; then
	echo "generating $rows rows of $corruption (once) …"
	"$vcr" generate --images "$tmp/synth224-$sources" --corruptions "$corruption" --n "$rows" --seed 1 \
		--dv-methods vcr-py,vifvec --out "$ts" --force --progress never >/dev/null
fi
cat >"$tmp/req.json" <<JSON
{"requirements": [{"transformation": "$corruption", "vif_method": "vifvec", "t_c": $tc, "t_p": $tp}]}
JSON
model=(--model "$tmp/tiny.onnx" --preset imagenet-cropped --task imagenet1k)
if [ ! -f "$tmp/preds-$corruption-$rows.csv" ]; then
	"$vcr" eval --testset "$ts" "${model[@]}" --out "$tmp/results.csv" --force --progress never 2>/dev/null
	/usr/bin/python3 - "$tmp/results.csv" "$tmp/preds-$corruption-$rows.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["id", "source", "kind", "pred"])
    seen = set()
    for r in rows:
        w.writerow([r["id"], r["source"], "corrupted", r["pred_corrupted"]])
        if r["source"] not in seen:
            seen.add(r["source"])
            w.writerow(["", r["source"], "clean", r["pred_clean"]])
PY
fi
echo "$(nproc) cores; $(date -u +%F); test set $ts ($rows rows of $corruption, $sources sources); t_c $tc, t_p $tp (vifvec)"
timed() { # label, then the command
	local label=$1 t0 t1
	shift
	t0=$(date +%s.%N)
	"$@" >"$tmp/table-$label.txt" 2>"$tmp/log-$label.txt" || [ $? -eq 1 ]
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" -v l="$label" 'BEGIN { printf "%s: %.1f s wall\n", l, b - a }'
}
check=("$vcr" requirements check --requirements "$tmp/req.json" --testset "$ts" --progress never)
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
timed predictions "${check[@]}" --predictions "$tmp/preds-$corruption-$rows.csv" --task imagenet1k
timed onnx "${check[@]}" "${model[@]}"
echo
sed -n '/ on dv_/,/model inputs/p' "$tmp/log-onnx.txt"
echo
cat "$tmp/table-onnx.txt"
cmp -s "$tmp/table-onnx.txt" "$tmp/table-predictions.txt" && echo "(the same table with --predictions)" || { echo "the tables differ:"; cat "$tmp/table-predictions.txt"; exit 1; }
