#!/usr/bin/env bash
# Throughput of vcr eval against PyTorch itself (issue 16): ResNet-50 with
# seeded weights on the same ~1,000 images at 224x224 (the corrupted images
# and clean sources of one generated test set: 200 vcr synth sources, 800
# brightness draws), vcr eval (ONNX Runtime, in-process, --threads 2,
# --workers 2) against a plain PyTorch CPU loop (DataLoader with 2 workers,
# torch.set_num_threads(2)), both with the ImageNet preprocessing and batch
# 32. Also runs vcr eval with a trivial model to measure vcr's time outside
# the model. Prints images/s of both and that share; runs alternate, best of
# --repeat (default 2). On a shared machine the numbers are noisy: compare
# only numbers from one run.
#
# Usage: scripts/pytorch-throughput.sh [--sources N] [--draws N] [--threads N] [--workers N] [--repeat N]
# Env:   VCR (default: builds ./cmd/vcr), VCR_ONNXRUNTIME_LIB, PYTHON (default /usr/bin/python3),
#        KEEP=1 keeps the temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-/usr/bin/python3}
if ! "$py" -c 'import torch, torchvision, onnx, PIL' 2>/dev/null; then
	echo "pytorch-throughput: installing Debian's python3-torch, python3-torchvision, python3-onnx, python3-pil" >&2
	sudo=(); [ "$(id -u)" = 0 ] || sudo=(sudo)
	"${sudo[@]}" apt-get update
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y python3-torch python3-torchvision python3-onnx python3-pil
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/vcr-pytorch-throughput.XXXXXX")
[ "${KEEP:-}" = 1 ] && echo "pytorch-throughput: keeping $work" >&2 || trap 'rm -rf "$work"' EXIT
vcr=${VCR:-}
if [ -z "$vcr" ]; then
	go build -o "$work/vcr" ./cmd/vcr
	vcr=$work/vcr
fi
case $vcr in /*) ;; */*) vcr=$PWD/$vcr ;; esac
"$py" scripts/pytorch_throughput.py --vcr "$vcr" --work "$work" "$@"
