"""A vcr test set (the folder vcr generate writes) as a torch Dataset."""

import csv
import json
import os
from dataclasses import dataclass

import numpy as np
from PIL import Image
from torch.utils.data import Dataset
import torchvision.transforms.functional as TF


@dataclass(frozen=True)
class Item:
    """One image of a VCRTestSet: a corrupted image (kind "corrupted", a
    manifest row) or a clean source image (kind "clean", once per source)."""
    kind: str
    source: str
    label_index: int
    id: int = -1          # manifest id; -1 for a clean image
    path: str = ""        # image path relative to the test set; "" for a clean image
    corruption: str = ""
    params: str = ""      # the corruption's parameters, JSON
    dv: float = float("nan")  # visual change Δv of the corrupted image


def _int(s, default=-1):
    try:
        return int(s)
    except (TypeError, ValueError):
        return default


def read_manifest(root):
    """Returns the rows of root/manifest.csv as dicts (strings, as in the
    file). pandas users: pandas.read_csv(os.path.join(root, "manifest.csv"))."""
    with open(os.path.join(root, "manifest.csv"), newline="") as f:
        return list(csv.DictReader(f))


def resolve_images(root, override=None):
    """Returns the source dataset's path for the test set root as vcr eval
    finds it: override, else run.json's dataset.root_rel (relative to the
    test set), root_abs, then root as typed (relative to the working
    directory). Raises FileNotFoundError listing what was tried."""
    if override:
        return override
    with open(os.path.join(root, "run.json")) as f:
        ds = json.load(f)["dataset"]
    tried = []
    for p in (os.path.join(root, ds["root_rel"]) if ds.get("root_rel") else None, ds.get("root_abs"), ds.get("root")):
        if p:
            tried.append(p)
            if os.path.exists(p):
                return p
    raise FileNotFoundError(f"the source dataset of {root} is not at {', '.join(tried)}; pass images=PATH")


class VCRTestSet(Dataset):
    """The images of a vcr test set, with their labels.

    Items are the corrupted images of manifest.csv (in id order) and, with
    clean=True, each distinct clean source image once (before the first
    corrupted image made from it): exactly the images vcr eval scores. Clean
    images are read from the source dataset (run.json; images= overrides)
    and brought to the test set's size with the resize and crop vcr generate
    applied (run.json dataset.resize/crop, done with Pillow as vcr does), so
    the model sees the image the corrupted one was made from.

    __getitem__(i) returns (transform(PIL RGB image), label_index); items[i]
    is the Item describing it (kind, id, path, source, corruption, dv, …), and
    write_predictions takes the dataset to name the rows. corrupted=False
    leaves out the corrupted images (only the clean ones, e.g. for training
    on clean data). label_index is the dataset's label index (manifest
    label_index; -1 when the dataset has none).
    """

    def __init__(self, root, transform=None, clean=True, corrupted=True, images=None):
        self.root = root
        self.transform = transform
        rows = read_manifest(root)
        with open(os.path.join(root, "run.json")) as f:
            run = json.load(f)
        ds = run["dataset"]
        self.dataset_kind = ds.get("kind", "")
        self.resize, self.crop = int(ds.get("resize") or 0), int(ds.get("crop") or 0)
        self.classes = {}
        items, seen = [], set()
        for r in rows:
            li = _int(r.get("label_index"))
            if li >= 0 and r.get("label_name"):
                self.classes[li] = r["label_name"]
            if clean and r["source"] not in seen:
                seen.add(r["source"])
                items.append(Item("clean", r["source"], li))
            if corrupted:
                items.append(Item("corrupted", r["source"], li, id=int(r["id"]), path=r["path"],
                                  corruption=r.get("corruption", ""), params=r.get("params", ""),
                                  dv=float(r["dv"]) if r.get("dv") else float("nan")))
        self.items = items
        self._images = None
        if clean and items:
            self._images = resolve_images(root, images)

    def __len__(self):
        return len(self.items)

    def image(self, i):
        """Returns item i as a PIL RGB image, before the transform."""
        it = self.items[i]
        if it.kind == "corrupted":
            with Image.open(os.path.join(self.root, it.path)) as im:
                return im.convert("RGB")
        return self._clean(it.source)

    def __getitem__(self, i):
        img = self.image(i)
        if self.transform is not None:
            img = self.transform(img)
        return img, self.items[i].label_index

    def _clean(self, source):
        if self.dataset_kind in ("cifar10", "cifar100"):
            img = _cifar_image(self._images, source, self.dataset_kind)
        else:
            base = self._images
            if os.path.isfile(base):  # a list CSV: paths relative to its folder
                base = os.path.dirname(base)
            with Image.open(os.path.join(base, source)) as im:
                img = im.convert("RGB")
        if self.resize:
            img = TF.resize(img, self.resize)
        if self.crop:
            img = TF.center_crop(img, self.crop)
        return img


def _cifar_image(root, source, kind):
    """Reads record n of a CIFAR binary batch named "FILE#n"."""
    name, _, n = source.rpartition("#")
    path = root if os.path.isfile(root) and os.path.basename(root) == name else os.path.join(root, name)
    label_bytes = 1 if kind == "cifar10" else 2
    size = label_bytes + 3072
    with open(path, "rb") as f:
        f.seek(int(n) * size + label_bytes)
        data = f.read(3072)
    if len(data) != 3072:
        raise ValueError(f"{path} has no record {n}")
    a = np.frombuffer(data, dtype=np.uint8).reshape(3, 32, 32).transpose(1, 2, 0)
    return Image.fromarray(np.ascontiguousarray(a), "RGB")
