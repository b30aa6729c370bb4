#!/usr/bin/env bash
# Times the VCR toolbox's Python wavelet VIF (`vif` in vif_utils.py, with
# pyrtools' steerable pyramid) and vcr's vcr-py VIF side by side in one run,
# on the same image pairs, and prints a Markdown table of min / median
# milliseconds per pair and the ratio Python ÷ vcr, plus the VIF values of
# both and their relative difference (docs/vif.md: within 3e-13 on its test
# cases). It exits 1 if any pair differs by more than 1e-10 (relative).
#
# The reference is set up as shared/reference/perf-baseline.md §1 describes:
# Debian's python3 and packages; pyrtools' C convolution library compiled with
# gcc -O2 -fPIC -shared (the flags its setup.py and Python's sysconfig give)
# into a temporary copy of the package; vif_utils.py imported unchanged. The
# checkouts are read only, never modified, and nothing is downloaded.
#
# Pairs (perf-baseline.md §1): the photo resized to N×N with PIL's bicubic
# filter, OpenCV COLOR_RGB2GRAY, distorted = gray + Gaussian noise σ 0.1 on
# [0, 1], clipped, uint8; written as PNG, which vcr reads. Both sides run one
# thread (OPENBLAS/OMP threads 1, cv2.setNumThreads(1); GOMAXPROCS=1), time
# each call on its own after 2 warm-up calls, and alternate in ROUNDS rounds
# (Python, then vcr); the table shows the smallest per-round minimum and the
# median of the per-round medians. Python refuses sizes below 72 (a height-4
# pyramid); its cells then say "fails".
#
# Usage: scripts/bench-vs-python.sh --vcr-checkout DIR --pyrtools DIR
#            [--photo FILE] [--sizes "32 72 224 512"] [--reps "400 100 40 15"]
#            [--rounds 3]
#   --vcr-checkout  HuakunShen/VCR at b2b6586 (env VCR_PY_CHECKOUT):
#                   git clone https://github.com/HuakunShen/VCR && git -C VCR checkout b2b6586
#   --pyrtools      LabForComputationalVision/pyrtools (env PYRTOOLS_CHECKOUT), e.g. d2ef019
#                   (v1.0.9 + 2 commits) or tag v1.0.1 (VCR's pin):
#                   git clone https://github.com/LabForComputationalVision/pyrtools
#   --photo         source photo (default: the VCR checkout's tests/sample.JPEG,
#                   the ImageNet photo perf-baseline.md used)
#   --reps          timed calls per size and round, one number or one per size
#                   (default perf-baseline.md's 400/100/40/15 at 32/72/224/512)
# Env:   PYTHON (default /usr/bin/python3), GOEXPERIMENT (e.g. simd, passed to
#        go), TMPDIR; KEEP=1 keeps the work folder.
# Needs: gcc, Go, and Debian's python3-numpy python3-scipy python3-skimage
#        python3-opencv python3-pil python3-matplotlib (matplotlib: imported by
#        pyrtools).
set -euo pipefail
cd "$(dirname "$0")/.."
me=bench-vs-python
vcrco=${VCR_PY_CHECKOUT:-}
pyrco=${PYRTOOLS_CHECKOUT:-}
photo=
sizes="32 72 224 512"
reps=
rounds=3
die() { echo "$me: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--vcr-checkout) vcrco=${2:?}; shift 2 ;;
	--pyrtools) pyrco=${2:?}; shift 2 ;;
	--photo) photo=${2:?}; shift 2 ;;
	--sizes) sizes=${2:?}; shift 2 ;;
	--reps) reps=${2:?}; shift 2 ;;
	--rounds) rounds=${2:?}; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument $1; see --help" ;;
	esac
done
case $rounds in '' | *[!0-9]* | 0) die "--rounds must be a positive whole number (got '$rounds')" ;; esac
for n in $sizes; do
	case $n in '' | *[!0-9]*) die "--sizes must list whole numbers, e.g. \"72 224\" (got '$n')" ;; esac
done
if [ -z "$reps" ]; then
	reps=
	for n in $sizes; do
		case $n in 32) r=400 ;; 72) r=100 ;; 224) r=40 ;; 512) r=15 ;; *) r=$((2000000 / (n * n) + 5)) ;; esac
		reps="$reps $r"
	done
fi
set -- $reps
[ $# = 1 ] || [ $# = "$(echo $sizes | wc -w)" ] || die "--reps needs one number or one per size (sizes: $sizes; got: $reps)"
for r in $reps; do
	case $r in '' | *[!0-9]* | 0) die "--reps must be positive whole numbers (got '$r')" ;; esac
done

[ -n "$vcrco" ] || die "missing the VCR toolbox checkout: pass --vcr-checkout DIR (or set VCR_PY_CHECKOUT);
  get it with: git clone https://github.com/HuakunShen/VCR && git -C VCR checkout b2b6586"
vifpy=$vcrco/reliabilitycli/src/utils/vif_utils.py
[ -f "$vifpy" ] || die "$vcrco has no reliabilitycli/src/utils/vif_utils.py; is it HuakunShen/VCR at b2b6586?
  (git clone https://github.com/HuakunShen/VCR && git -C VCR checkout b2b6586)"
[ -n "$pyrco" ] || die "missing the pyrtools checkout: pass --pyrtools DIR (or set PYRTOOLS_CHECKOUT);
  get it with: git clone https://github.com/LabForComputationalVision/pyrtools"
if [ -d "$pyrco/src/pyrtools" ]; then pyrpkg=$pyrco/src/pyrtools; else pyrpkg=$pyrco/pyrtools; fi
[ -f "$pyrpkg/pyramids/c/convolve.c" ] || die "$pyrco has neither src/pyrtools/pyramids/c/convolve.c nor pyrtools/pyramids/c/convolve.c; is it a LabForComputationalVision/pyrtools checkout?"
[ -n "$photo" ] || photo=$vcrco/tests/sample.JPEG
[ -f "$photo" ] || die "no photo at $photo; pass --photo FILE (any JPEG or PNG photograph)"
py=${PYTHON:-/usr/bin/python3}
load0=$(cut -d" " -f1-3 /proc/loadavg)
cores=$(nproc --all) # before OMP_NUM_THREADS=1, which nproc obeys
command -v "$py" >/dev/null || die "no Python at $py; install Debian's python3 or set PYTHON"
command -v gcc >/dev/null || die "gcc is needed to compile pyrtools' C convolutions: apt-get install gcc"
missing=
for m in numpy:python3-numpy scipy:python3-scipy skimage:python3-skimage cv2:python3-opencv PIL:python3-pil matplotlib:python3-matplotlib; do
	"$py" -c "import ${m%%:*}" 2>/dev/null || missing="$missing ${m#*:}"
done
[ -z "$missing" ] || die "$py lacks Python packages; install them with: apt-get install$missing"

work=$(mktemp -d "${TMPDIR:-/tmp}/vcr-bench-vs-python.XXXXXX")
[ "${KEEP:-}" = 1 ] && echo "$me: keeping $work" >&2 || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/py" "$work/pairs"

# pyrtools: a copy of the package with wrapConv.so next to wrapper.py, where
# its ctypes loader looks, compiled from its C sources as setup.py lists them
# (with Python's sysconfig CFLAGS, -O2, plus setup.py's -fPIC -shared).
cp -R "$pyrpkg" "$work/py/pyrtools"
c=$work/py/pyrtools/pyramids/c
srcs=()
for f in py.c convolve.c edges.c wrap.c internal_pointOp.c; do [ -f "$c/$f" ] && srcs+=("$c/$f"); done
gcc -O2 -fPIC -shared -o "$c/wrapConv.so" "${srcs[@]}" -lm
# setuptools-scm writes pyrtools/version.py when it builds a wheel; a source
# checkout has none (1.0.9 imports it, 1.0.1 does not).
if [ ! -f "$work/py/pyrtools/version.py" ]; then
	v=$(git -C "$pyrco" describe --tags 2>/dev/null || echo source)
	echo "version = '$v'" >"$work/py/pyrtools/version.py"
fi
export PYTHONPATH=$work/py:$(dirname "$vifpy")
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
"$py" -c 'import pyrtools, pyrtools.pyramids.c.wrapper as w; assert hasattr(w, "lib")' 2>"$work/import.err" ||
	die "pyrtools from $pyrco does not import: $(cat "$work/import.err")"

echo "$me: making pairs from $photo at sizes $sizes" >&2
"$py" scripts/bench_vs_python.py make "$photo" "$work/pairs" $sizes >"$work/py-values"

go build -o "$work/vcr" ./cmd/vcr
go test -c -o "$work/iqa.test" ./iqa
for n in $sizes; do
	"$work/vcr" vif --json "$work/pairs/ref-$n.png" "$work/pairs/dist-$n.png" |
		sed -n 's/.*"vif": *\([^,}]*\).*/vcrvalue '"$n"' \1/p'
done >"$work/vcr-values"

set -- $reps
for i in $(seq "$rounds"); do
	echo "$me: round $i of $rounds" >&2
	"$py" scripts/bench_vs_python.py time "$work/pairs" "$(echo $reps | tr ' ' ,)" $sizes
	j=0
	for n in $sizes; do
		j=$((j + 1))
		r=${!j:-$1}
		(cd iqa && VCR_VIF_BENCH_PAIRS=$work/pairs VCR_VIF_BENCH_SIZES=$n GOMAXPROCS=1 \
			"$work/iqa.test" -test.run '^$' -test.bench 'ScoreVCRPyPairs' -test.benchtime "${r}x" -test.count 1) |
			awk -v n="$n" '/^BenchmarkScoreVCRPyPairs/ { for (i = 2; i < NF; i++) { if ($(i + 1) == "min-ms/op") a = $i; if ($(i + 1) == "median-ms/op") b = $i }; print "go", n, a, b }'
	done
done >"$work/times"

echo "Wavelet VIF (vcr-py) per gray pair, one thread, ms min / median over $rounds interleaved rounds"
echo "of $(echo $reps | tr ' ' /) calls per size (sizes $(echo $sizes | tr ' ' /));"
echo "photo $(basename "$photo"); pyrtools $(git -C "$pyrco" describe --tags --always 2>/dev/null || echo "(not a git checkout)");"
echo "$("$py" -c 'import numpy, scipy, cv2; print("numpy", numpy.__version__, "scipy", scipy.__version__, "OpenCV", cv2.__version__)');" \
	"$(go version | cut -d' ' -f3) GOEXPERIMENT=${GOEXPERIMENT:-none}; $cores cores; load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end; $(date -u '+%F %H:%M') UTC"
echo
echo "| size | Python min / median ms | vcr min / median ms | Python ÷ vcr (median) | Python ÷ vcr (min) | VIF Python | VIF vcr | relative difference |"
echo "|---|---|---|---|---|---|---|---|"
cat "$work/py-values" "$work/vcr-values" "$work/times" | awk -v sizes="$sizes" '
function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }; return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
function mn(s,   a, n, i, m) { n = split(s, a, " "); m = a[1]; for (i = 2; i <= n; i++) if (a[i] + 0 < m + 0) m = a[i]; return m }
$1 == "value" { pv[$2] = $3; if ($3 == "fails") { why[$2] = $0; sub(/^value [0-9]+ fails /, "", why[$2]) } }
$1 == "vcrvalue" { gv[$2] = $3 }
$1 == "py" || $1 == "go" { lo[$1, $2] = lo[$1, $2] " " $3; md[$1, $2] = md[$1, $2] " " $4 }
END {
	bad = 0
	n = split(sizes, S, " ")
	for (k = 1; k <= n; k++) {
		s = S[k]
		gmin = mn(lo["go", s]); gmed = med(md["go", s])
		if (pv[s] == "fails" || lo["py", s] == "") { pcell = "fails"; rmed = "–"; rmin = "–"; diff = "–"; pval = "fails" }
		else {
			pmin = mn(lo["py", s]); pmed = med(md["py", s])
			pcell = sprintf("%.3g / %.3g", pmin, pmed)
			rmed = sprintf("%.1f×", pmed / gmed); rmin = sprintf("%.1f×", pmin / gmin)
			pval = pv[s]; d = gv[s] - pv[s]; if (d < 0) d = -d
			rel = d / (pv[s] < 0 ? -pv[s] : pv[s]); diff = sprintf("%.1e", rel)
			if (rel > 1e-10) bad = 1
		}
		printf "| %s×%s | %s | %.3g / %.3g | %s | %s | %s | %s | %s |\n", s, s, pcell, gmin, gmed, rmed, rmin, pval, gv[s], diff
	}
	for (k = 1; k <= n; k++) if (pv[S[k]] == "fails") { if (!note++) print ""; print "Python at " S[k] "×" S[k] ": " why[S[k]] }
	if (bad) { print "\nbench-vs-python: VIF values differ by more than 1e-10 (relative)" > "/dev/stderr"; exit 1 }
}'
