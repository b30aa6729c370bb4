#!/usr/bin/env bash
# Logit parity between vcr eval and PyTorch (issue 16): exports torchvision's
# ResNet-18 and MobileNetV3-Small, a ViT-B/16-shaped model (16x16 patches of a
# 224x224 input; 4 layers of width 256, 4 heads, unless --full-vit) with seeded weights,
# and a small CNN trained here on generated images, then scores the same
# files with `vcr eval --logits` (ONNX Runtime, in-process, the imagenet
# preset) and with PyTorch (torchvision's Resize(256), CenterCrop(224),
# ToTensor, Normalize on PIL images). Data (vcr synth, vcr generate) and models
# go to a temporary folder, removed at the end (KEEP=1 keeps it).
#
# Prints per model `model=NAME max_abs_logit_diff=X top1_agreement=Y` for the
# PNG-source test set, the same with source=jpeg for a JPEG-source test set
# (vcr decodes JPEG as Pillow's libjpeg-turbo does, so it is held to the same
# bounds), and `tensor=imagenet …` for the input tensor itself. Exits 0 only
# if every line has top-1 agreement 1 and a logit difference of at most 1e-3
# (and the tensor differs by at most 1e-5 per element).
#
# Usage: scripts/pytorch-parity.sh [--images N] [--n N] [--full-vit] [--epochs N]
# Env:   VCR (default: builds ./cmd/vcr), VCR_ONNXRUNTIME_LIB (see docs/onnx.md),
#        PYTHON (default /usr/bin/python3: Debian's python3 with python3-torch).
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-/usr/bin/python3}
if ! "$py" -c 'import torch, torchvision, onnx, PIL' 2>/dev/null; then
	echo "pytorch-parity: installing Debian's python3-torch, python3-torchvision, python3-onnx, python3-pil" >&2
	sudo=(); [ "$(id -u)" = 0 ] || sudo=(sudo)
	"${sudo[@]}" apt-get update
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y python3-torch python3-torchvision python3-onnx python3-pil
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/vcr-pytorch-parity.XXXXXX")
[ "${KEEP:-}" = 1 ] && echo "pytorch-parity: keeping $work" >&2 || trap 'rm -rf "$work"' EXIT
vcr=${VCR:-}
if [ -z "$vcr" ]; then
	go build -o "$work/vcr" ./cmd/vcr
	vcr=$work/vcr
fi
case $vcr in /*) ;; */*) vcr=$PWD/$vcr ;; esac
"$py" scripts/pytorch_parity.py --vcr "$vcr" --work "$work" "$@"
