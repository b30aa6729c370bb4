"""Export a PyTorch classifier to ONNX with the config vcr eval reads."""

import json
import os

import torch

from . import preprocessing as pp

# The ONNX opset export uses by default: the highest torch 1.13 writes (17,
# which has LayerNormalization, so transformer blocks stay one node each).
# vcr runs models with ONNX Runtime 1.24 or later, which implements opsets up
# to 21 or more; any opset from 13 on works with vcr.
DEFAULT_OPSET = 17


def config_path_for(path):
    """Returns the config file export writes beside the ONNX file path:
    the same name with .json instead of .onnx (model.onnx → model.json)."""
    base, ext = os.path.splitext(path)
    return (base if ext.lower() == ".onnx" else path) + ".json"


def export(model, path, preprocessing="imagenet", *, task=None, class_names=None,
           probabilities=False, opset=DEFAULT_OPSET, input_size=None, config_path=None,
           input_name="input", output_name="logits"):
    """Exports model to the ONNX file path and writes the vcr model config
    beside it; returns the config file's path.

    preprocessing is what the model expects its input to have gone through:
    a vcr preset ("imagenet": torchvision's Resize(256), CenterCrop(224),
    ToTensor, Normalize(ImageNet mean, std); "imagenet-cropped" for images
    already 224x224; "cifar"; "none"), a dict of vcr config fields, or the
    torchvision evaluation transform itself (vcr_torch.preprocessing
    .from_transform translates it, refusing steps vcr cannot reproduce).

    The ONNX model takes one float32 input (input_name) shaped (N, 3, H, W)
    with a dynamic batch axis N, and returns output_name shaped (N, classes).
    H, W come from the preprocessing's crop or size; for a preprocessing
    whose size depends on the image ("none"), give input_size=(H, W) for the
    example input, and H and W are exported as dynamic too.

    The config (vcr eval --config FILE) holds the preprocessing and, when
    given, task (a vcr task name such as "imagenet16" or a mapping file),
    class_names (a class list file naming the outputs) and probabilities
    (the model ends in a softmax). Relative file names in it are relative to
    the config file, as vcr reads them.
    """
    cfg = pp.resolve(preprocessing)
    size = pp.input_size(cfg)
    dynamic_hw = size is None
    if dynamic_hw:
        if input_size is None:
            raise ValueError("this preprocessing gives each image its own size; pass input_size=(H, W) for the example input")
        size = tuple(input_size)
    elif input_size is not None and tuple(input_size) != tuple(size):
        raise ValueError(f"input_size {tuple(input_size)} differs from the preprocessing's {size}")
    if opset < 13:
        raise ValueError(f"opset {opset}: vcr's ONNX Runtime needs opset 13 or later")
    was_training = model.training
    model.eval()
    try:
        param = next(model.parameters(), None)
        device = param.device if param is not None else torch.device("cpu")
        dummy = torch.zeros(1, 3, size[0], size[1], device=device)
        axes = {input_name: {0: "batch"}, output_name: {0: "batch"}}
        if dynamic_hw:
            axes[input_name].update({2: "height", 3: "width"})
        # Traced with gradients enabled: under torch.no_grad() in eval mode,
        # nn.MultiheadAttention (torch ≥ 1.12) takes its fused fast path,
        # aten::_native_multi_head_attention, which ONNX export does not
        # support (torchvision's vit_b_16 then fails to export).
        with torch.enable_grad():
            torch.onnx.export(model, dummy, path, input_names=[input_name], output_names=[output_name],
                              dynamic_axes=axes, opset_version=opset, do_constant_folding=True)
    finally:
        model.train(was_training)

    out = {}
    if "preset" in cfg and cfg == {**pp.PRESETS[cfg["preset"]], "preset": cfg["preset"]}:
        out["preset"] = cfg["preset"]
    else:
        out = {k: v for k, v in cfg.items() if k != "preset"}
    if task:
        out["task"] = task
    if class_names:
        out["class_names"] = class_names
    if probabilities:
        out["probabilities"] = True
    cp = config_path or config_path_for(path)
    with open(cp, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    return cp
