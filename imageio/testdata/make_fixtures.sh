#!/bin/sh
# Regenerates the fixtures made with external tools from blocks.png (which
# `go test ./imageio -run GenerateFixtures -gen` writes). Needs the Debian
# packages imagemagick, webp and libjpeg-turbo-progs. See README.md.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
IM=/usr/bin/convert
$IM blocks.png "$tmp/blocks.ppm"
cjpeg -quality 95 -sample 1x1 -outfile jpeg_444.jpg "$tmp/blocks.ppm"
cjpeg -quality 95 -sample 2x2 -outfile jpeg_420.jpg "$tmp/blocks.ppm"
cjpeg -quality 95 -progressive -sample 2x2 -outfile jpeg_progressive.jpg "$tmp/blocks.ppm"
cjpeg -quality 95 -grayscale -outfile jpeg_gray.jpg "$tmp/blocks.ppm"
$IM blocks.png -colorspace CMYK -quality 95 -sampling-factor 1x1 jpeg_ycck.jpg
cwebp -quiet -lossless blocks.png -o webp_lossless.webp
cwebp -quiet -q 90 blocks.png -o webp_lossy.webp
cwebp -quiet -lossless -exact rgba.png -o webp_rgba_lossless.webp
# Lossy WebP of odd size and with alpha, and libwebp's own decoding of every
# lossy WebP (dwebp, default fancy upsampling) as the expected pixels.
$IM blocks.png -crop 37x21+5+3 +repage "$tmp/odd.png"
cwebp -quiet -q 80 "$tmp/odd.png" -o webp_lossy_odd.webp
cwebp -quiet -q 80 -exact rgba.png -o webp_lossy_alpha.webp
for f in webp_lossy webp_lossy_odd webp_lossy_alpha; do
	dwebp -quiet "$f.webp" -o "$f.dwebp.png"
done
# JPEGs of a natural-like image (4:2:0 and 4:2:2), and libjpeg's own decoding
# (djpeg defaults: fancy upsampling, islow IDCT) of these and of the Go-written
# DC-only JPEGs, as the expected pixels.
$IM natural.png "$tmp/natural.ppm"
cjpeg -quality 90 -sample 2x2 -outfile jpeg_natural_420.jpg "$tmp/natural.ppm"
cjpeg -quality 90 -sample 2x1 -outfile jpeg_natural_422.jpg "$tmp/natural.ppm"
for f in jpeg_dc_420 jpeg_dc_422 jpeg_dc_444 jpeg_natural_420 jpeg_natural_422 jpeg_444 jpeg_420 jpeg_progressive; do
	djpeg -pnm "$f.jpg" > "$tmp/$f.ppm"
	$IM "$tmp/$f.ppm" "$f.djpeg.png"
done
