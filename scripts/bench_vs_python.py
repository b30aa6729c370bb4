"""Python side of scripts/bench-vs-python.sh (read that script first).

Runs the VCR toolbox's wavelet VIF (`vif` from vif_utils.py, HuakunShen/VCR
b2b6586) unmodified from a user's checkout, on gray image pairs made as
shared/reference/perf-baseline.md §1 describes: PIL resize((N, N), BICUBIC)
of a photo, OpenCV COLOR_RGB2GRAY, and as the distorted image the gray image
plus Gaussian noise of σ 0.1 on the [0, 1] scale (numpy default_rng seeded
with N), clipped and cast to uint8.

  make  PHOTO OUTDIR SIZES...   write OUTDIR/ref-N.png and dist-N.png and print
                                "value N VIF" (full precision; "value N fails
                                MESSAGE" where the reference refuses the size)
  time  OUTDIR REPS SIZES...    time `vif` on those files: each size gets
                                2 warm-up calls, then its REPS calls (one number
                                per size, or one for all), each timed on its own
                                with time.perf_counter; prints
                                "py N MIN_MS MEDIAN_MS"
The caller puts vif_utils.py's folder and a built pyrtools on PYTHONPATH and
sets the thread variables (one thread, as perf-baseline.md's "1T").
"""
import statistics
import sys
import time

import cv2
import numpy as np
from PIL import Image

import vif_utils

cv2.setNumThreads(1)


def make(photo, out, sizes):
    rgb = Image.open(photo).convert("RGB")
    for n in sizes:
        rng = np.random.default_rng(n)  # the same pair at N whatever the size list
        small = np.asarray(rgb.resize((n, n), Image.BICUBIC))
        ref = cv2.cvtColor(small, cv2.COLOR_RGB2GRAY)
        noisy = ref / 255.0 + rng.normal(0, 0.1, ref.shape)
        dist = (np.clip(noisy, 0, 1) * 255).astype(np.uint8)
        Image.fromarray(ref, "L").save(f"{out}/ref-{n}.png")
        Image.fromarray(dist, "L").save(f"{out}/dist-{n}.png")
        try:
            print(f"value {n} {float(vif_utils.vif(ref, dist))!r}")
        except Exception as e:  # pyrtools refuses small images
            print(f"value {n} fails {type(e).__name__}: {e}".replace("\n", " "))


def timeit(out, reps, sizes):
    for n, r in zip(sizes, reps):
        ref = np.asarray(Image.open(f"{out}/ref-{n}.png"))
        dist = np.asarray(Image.open(f"{out}/dist-{n}.png"))
        try:
            for _ in range(2):
                vif_utils.vif(ref, dist)
        except Exception:
            continue  # "make" has reported why
        calls = []
        for _ in range(r):
            t0 = time.perf_counter()
            vif_utils.vif(ref, dist)
            calls.append(time.perf_counter() - t0)
        print(f"py {n} {min(calls) * 1e3:.4f} {statistics.median(calls) * 1e3:.4f}", flush=True)


def main(argv):
    if len(argv) >= 4 and argv[1] == "make":
        make(argv[2], argv[3], [int(n) for n in argv[4:]])
    elif len(argv) >= 5 and argv[1] == "time":
        sizes = [int(n) for n in argv[4:]]
        reps = [int(r) for r in argv[3].split(",")]
        timeit(argv[2], reps * len(sizes) if len(reps) == 1 else reps, sizes)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
