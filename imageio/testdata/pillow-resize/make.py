# Regenerates the Pillow reference images of resize8_test.go:
#   /usr/bin/python3 make.py   (Pillow 9.4.0, Debian bookworm python3-pil)
# src.png is a seeded 61x47 RGB image (smooth pattern plus noise, full 0..255
# range); each NAME_WxH.png is src.resize((W, H), Image.BILINEAR).
import numpy as np, PIL
from PIL import Image
rng = np.random.default_rng(16)
h, w = 47, 61
y, x = np.mgrid[0:h, 0:w]
base = np.stack([128 + 120 * np.sin(x / (3 + c) + c) * np.cos(y / (5 + c)) for c in range(3)], -1)
a = np.clip(base + rng.normal(0, 40, base.shape), 0, 255).astype(np.uint8)
a[0, :5] = 0; a[1, :5] = 255
src = Image.fromarray(a, "RGB")
src.save("src.png")
for W, H in [(30, 23), (17, 40), (61, 20), (122, 94), (7, 5), (1, 1), (200, 13), (60, 47), (90, 69)]:
    src.resize((W, H), Image.BILINEAR).save(f"bilinear_{W}x{H}.png")
print("Pillow", PIL.__version__)
