"""PyTorch helpers for vcr (https://github.com/vcr-bench/vcr).

export             a model to ONNX, with the vcr config vcr eval --config reads
VCRTestSet         a vcr test set (manifest rows, clean source images) as a torch Dataset
write_predictions  the CSV vcr eval --predictions reads
read_logits        a vcr eval --logits file
to_transform       the torchvision transform equal to a vcr preprocessing

See docs/pytorch.md.
"""

from .data import Item, VCRTestSet, read_manifest, resolve_images
from .export import DEFAULT_OPSET, config_path_for, export
from .predictions import read_logits, write_predictions
from .preprocessing import PRESETS, from_transform, resolve, to_transform

__all__ = ["Item", "VCRTestSet", "read_manifest", "resolve_images", "DEFAULT_OPSET", "config_path_for",
           "export", "read_logits", "write_predictions", "PRESETS", "from_transform", "resolve", "to_transform"]
