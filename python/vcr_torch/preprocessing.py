"""vcr preprocessing configs and the torchvision transforms that equal them.

A vcr preprocessing (docs/eval-models.md) is, in order: resize the shorter
side to ``resize`` (Pillow's bilinear, as torchvision's Resize on PIL images),
centre crop ``crop_width`` x ``crop_height``, resize to exactly ``width`` x
``height``, then ``(v * scale - mean) / std`` per channel on values v in [0, 1].
"""

import numbers

import torchvision.transforms as T

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
CIFAR_MEAN = (0.4914, 0.4822, 0.4465)
CIFAR_STD = (0.2470, 0.2435, 0.2616)

# The presets of vcr's model.Preset, field for field.
PRESETS = {
    "imagenet": {"resize": 256, "crop_width": 224, "crop_height": 224,
                 "mean": list(IMAGENET_MEAN), "std": list(IMAGENET_STD)},
    "imagenet-cropped": {"width": 224, "height": 224, "exact_size": True,
                         "mean": list(IMAGENET_MEAN), "std": list(IMAGENET_STD)},
    "cifar": {"width": 32, "height": 32, "mean": list(CIFAR_MEAN), "std": list(CIFAR_STD)},
    "none": {"mean": [0.0, 0.0, 0.0], "std": [1.0, 1.0, 1.0]},
}

_FIELDS = {"preset", "resize", "crop_width", "crop_height", "width", "height", "mean", "std",
           "scale", "layout", "bgr", "exact_size"}


def resolve(preprocessing):
    """Returns the preprocessing as a dict of vcr config fields.

    preprocessing is a preset name ("imagenet", "imagenet-cropped", "cifar",
    "none"), a dict of vcr config fields (it may name a "preset" and override
    fields), or a torchvision transform (see from_transform). Raises
    ValueError naming what is not understood.
    """
    if isinstance(preprocessing, str):
        if preprocessing not in PRESETS:
            raise ValueError(f"unknown vcr preset {preprocessing!r}; use one of {', '.join(PRESETS)}")
        out = dict(PRESETS[preprocessing])
        out["preset"] = preprocessing
        return out
    if isinstance(preprocessing, dict):
        unknown = set(preprocessing) - _FIELDS
        if unknown:
            raise ValueError(f"unknown vcr preprocessing fields {sorted(unknown)}; known: {sorted(_FIELDS)}")
        out = {}
        if "preset" in preprocessing:
            out = resolve(preprocessing["preset"])
        out.update(preprocessing)
        return out
    return from_transform(preprocessing)


def from_transform(transform):
    """Translates a torchvision evaluation transform into vcr config fields.

    Understood, in this order: Resize(int) (shorter side, bilinear),
    CenterCrop, Resize((h, w)) as the last resize, ToTensor (or
    PILToTensor + ConvertImageDtype(float)), Normalize. Anything else (random
    augmentations, another interpolation, max_size) raises ValueError: vcr
    could not reproduce it, and silently dropping it would make vcr's
    accuracy differ from PyTorch's.
    """
    steps = list(transform.transforms) if isinstance(transform, T.Compose) else [transform]
    cfg = {}
    tensor = False
    for s in steps:
        name = type(s).__name__
        if isinstance(s, T.Resize):
            interp = getattr(s.interpolation, "value", s.interpolation)
            if interp not in ("bilinear", 2):
                raise ValueError(f"Resize with interpolation {s.interpolation}: vcr resizes with bilinear only")
            if getattr(s, "max_size", None) is not None:
                raise ValueError("Resize with max_size is not supported by vcr")
            size = s.size
            if isinstance(size, numbers.Number) or (isinstance(size, (list, tuple)) and len(size) == 1):
                if "resize" in cfg or "crop_width" in cfg or "width" in cfg or tensor:
                    raise ValueError("vcr supports one shorter-side Resize, before CenterCrop")
                cfg["resize"] = int(size if isinstance(size, numbers.Number) else size[0])
            else:
                if "width" in cfg or tensor:
                    raise ValueError("vcr supports one exact-size Resize((h, w)), after Resize and CenterCrop")
                cfg["height"], cfg["width"] = int(size[0]), int(size[1])
        elif isinstance(s, T.CenterCrop):
            if "crop_width" in cfg or "width" in cfg or tensor:
                raise ValueError("vcr supports one CenterCrop, before an exact-size Resize and ToTensor")
            h, w = s.size if len(s.size) == 2 else (s.size[0], s.size[0])
            cfg["crop_height"], cfg["crop_width"] = int(h), int(w)
        elif isinstance(s, (T.ToTensor, T.PILToTensor)):
            tensor = True
            if isinstance(s, T.PILToTensor):
                cfg["scale"] = 255.0  # uint8 values until ConvertImageDtype
        elif isinstance(s, T.ConvertImageDtype):
            cfg.pop("scale", None)  # back to [0, 1]
        elif isinstance(s, T.Normalize):
            if not tensor:
                raise ValueError("Normalize before ToTensor")
            cfg["mean"] = [float(v) for v in s.mean]
            cfg["std"] = [float(v) for v in s.std]
        else:
            raise ValueError(f"vcr cannot reproduce the transform {name}; "
                             "give the evaluation transform (Resize, CenterCrop, ToTensor, Normalize)")
    if not tensor:
        raise ValueError("the transform has no ToTensor: vcr feeds float tensors")
    cfg.setdefault("mean", [0.0, 0.0, 0.0])
    cfg.setdefault("std", [1.0, 1.0, 1.0])
    return cfg


def to_transform(preprocessing):
    """Returns the torchvision transform (on PIL RGB images) that computes
    the same tensor as vcr's preprocessing: Resize(resize), CenterCrop,
    Resize((height, width)) where the size still differs, ToTensor,
    Normalize. Only the NCHW RGB layout has such a transform; NHWC or BGR
    raise ValueError."""
    cfg = resolve(preprocessing)
    if cfg.get("layout", "NCHW") != "NCHW" or cfg.get("bgr"):
        raise ValueError("to_transform supports NCHW RGB preprocessing only")
    steps = []
    if cfg.get("resize"):
        steps.append(T.Resize(cfg["resize"]))
    cw, ch = cfg.get("crop_width", 0), cfg.get("crop_height", 0)
    if cw or ch:
        steps.append(T.CenterCrop((ch or cw, cw or ch)))
    if cfg.get("width"):
        steps.append(_ExactSize(cfg["width"], cfg["height"], cfg.get("exact_size", False)))
    steps.append(T.ToTensor())
    scale = float(cfg.get("scale") or 1)
    mean = [float(m) / scale for m in cfg["mean"]]
    std = [float(s or 1) / scale for s in cfg["std"]]
    steps.append(T.Normalize(mean, std))
    return T.Compose(steps)


class _ExactSize:
    """vcr's width/height step: resize to exactly w x h (bilinear) when the
    image has another size; with exact_size, another size is an error."""

    def __init__(self, w, h, exact):
        self.w, self.h, self.exact = w, h, exact

    def __call__(self, img):
        if img.size == (self.w, self.h):
            return img
        if self.exact:
            raise ValueError(f"the image is {img.size[0]}x{img.size[1]} but must be exactly {self.w}x{self.h} (exact_size)")
        return T.functional.resize(img, [self.h, self.w])

    def __repr__(self):
        return f"ExactSize({self.w}x{self.h}, exact={self.exact})"


def input_size(preprocessing):
    """Returns (height, width) of the tensors the preprocessing produces, or
    None when it depends on the image."""
    cfg = resolve(preprocessing)
    if cfg.get("width"):
        return cfg["height"], cfg["width"]
    cw, ch = cfg.get("crop_width", 0), cfg.get("crop_height", 0)
    if cw or ch:
        return ch or cw, cw or ch
    return None
