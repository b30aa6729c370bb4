#!/usr/bin/env bash
# Times vcr's JPEG codec (imageio/jpeg) against Pillow/libjpeg-turbo on the
# same pixels in one run: Pillow with libjpeg-turbo's SIMD off
# (JSIMD_FORCENONE=1, its portable C code) and on, encode (save quality 75
# to memory) and decode (open + load) at 224×224 and 500×375, and decode of
# photographs (BenchmarkDecodePhoto's, imageio/jpeg/photo_test.go: ImageNet-C's
# frost5.jpeg, 660×495 baseline 4:2:0; the same picture as baseline 4:4:4;
# ImageNet-C's frost4.jpeg, 527×350 progressive 4:4:4; a 660×495 grayscale
# file), and prints medians in milliseconds and the ratios. Both sides are timed in process
# CPU time on one thread (Python's time.process_time over batches of calls;
# the Go benchmarks' cpu-ms/op with GOMAXPROCS=1), which a shared machine
# disturbs far less than wall time. Pillow's figures include its Python call
# overhead (a few tens of µs per call).
#
# Usage: scripts/bench-jpeg.sh [ROUNDS]   (default 3; each round runs Pillow
#        without SIMD, vcr, and Pillow with SIMD, interleaved)
#        GOFLAGS=-tags=purego scripts/bench-jpeg.sh [ROUNDS] times vcr's
#        pure-Go build (no assembly).
# Needs: /usr/bin/python3 with PIL (Debian: apt-get install python3-pil).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
VCR_JPEG_BENCH_DIR=$tmp go test -count=1 -run TestWriteBenchInputs ./imageio/jpeg >/dev/null
go test -c -o "$tmp/jpeg.test" ./imageio/jpeg
cat >"$tmp/pil.py" <<'PY'
import io, os, sys, time
from PIL import Image
d, label = sys.argv[1], sys.argv[2]
jobs = []
for name in ("420", "444", "progressive444", "gray"):
    photo = open(os.path.join(d, f"photo-{name}.jpg"), "rb").read()
    def dec_photo(photo=photo):
        Image.open(io.BytesIO(photo)).load()
    jobs.append((f"DecodePhoto/{name}", dec_photo))
for w, h in ((224, 224), (500, 375)):
    im = Image.frombytes("RGB", (w, h), open(os.path.join(d, f"{w}x{h}.rgb"), "rb").read())
    def enc(im=im):
        f = io.BytesIO(); im.save(f, "JPEG", quality=75); return f.getvalue()
    data = enc()
    def dec(data=data):
        Image.open(io.BytesIO(data)).load()
    jobs += [(f"Encode/{w}x{h}", enc), (f"Decode/{w}x{h}", dec)]
for name, fn in jobs:
    for _ in range(20): fn()
    n, t0 = 0, time.process_time()
    while time.process_time() - t0 < 1:
        fn(); n += 1
    print(f"{label} {name} {(time.process_time() - t0) / n * 1e3:.4f}")
PY
for _ in $(seq "$rounds"); do
	JSIMD_FORCENONE=1 /usr/bin/python3 "$tmp/pil.py" "$tmp" pil-nosimd
	(cd imageio/jpeg && GOMAXPROCS=1 "$tmp/jpeg.test" -test.run '^$' -test.bench . -test.benchtime 1s |
		awk '/^Benchmark/ { n = $1; sub(/^Benchmark/, "", n); sub(/-[0-9]+$/, "", n); for (i = 2; i < NF; i++) if ($(i + 1) == "cpu-ms/op") printf "vcr %s %.4f\n", n, $i }')
	/usr/bin/python3 "$tmp/pil.py" "$tmp" pil-simd
done >"$tmp/times"
echo "JPEG codec, CPU ms per image (one thread), medians over $rounds rounds; $(nproc) cores; $(date -u +%F)"
echo
echo "| operation | vcr (Go) | Pillow, libjpeg-turbo C (SIMD off) | Pillow, SIMD on | C ÷ vcr | SIMD ÷ vcr |"
echo "|---|---|---|---|---|---|"
awk '{ k = $2; v[$1, k] = v[$1, k] " " $3; keys[k] = 1 }
function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
END { n = split("Encode/224x224 Encode/500x375 Decode/224x224 Decode/500x375 DecodePhoto/420 DecodePhoto/444 DecodePhoto/progressive444 DecodePhoto/gray", order, " ")
	for (i = 1; i <= n; i++) { k = order[i]; g = med(v["vcr", k]); c = med(v["pil-nosimd", k]); s = med(v["pil-simd", k])
		printf "| %s | %.3f | %.3f | %.3f | %.2f | %.2f |\n", k, g, c, s, c / g, s / g } }' "$tmp/times"
