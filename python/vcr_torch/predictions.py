"""Predictions files for vcr eval --predictions, and vcr eval --logits files."""

import csv

import numpy as np


def _array(x):
    if x is None:
        return None
    if hasattr(x, "detach"):
        x = x.detach().cpu().numpy()
    return np.asarray(x)


def write_predictions(path, items, logits=None, preds=None, confidence=None, write_logits=True):
    """Writes the predictions CSV that vcr eval --predictions reads.

    items names the rows: a VCRTestSet (its .items) or a list of
    vcr_torch.data.Item, one per prediction, in the same order as logits /
    preds. Corrupted images are keyed by manifest id and path, clean images
    by source with kind "clean", so one file holds both.

    logits: an (N, K) tensor or array of the model's scores; with
    write_logits the file gets logit_0 … logit_{K-1} columns (vcr then maps
    them to the task, e.g. --task imagenet16 needs them), and pred is their
    arg-max unless preds is given. preds: N class indices (without logits,
    or to override the arg-max). confidence: N optional values.
    """
    items = list(getattr(items, "items", items))
    scores = _array(logits)
    p = _array(preds)
    if scores is None and p is None:
        raise ValueError("give logits or preds")
    if scores is not None:
        if scores.ndim != 2 or len(scores) != len(items):
            raise ValueError(f"logits shape {scores.shape}: want ({len(items)}, classes)")
        if p is None:
            p = scores.argmax(axis=1)
    if len(p) != len(items):
        raise ValueError(f"{len(p)} predictions for {len(items)} items")
    conf = _array(confidence)
    if conf is not None and len(conf) != len(items):
        raise ValueError(f"{len(conf)} confidence values for {len(items)} items")
    header = ["id", "path", "source", "kind", "pred"]
    if conf is not None:
        header.append("confidence")
    k = scores.shape[1] if scores is not None and write_logits else 0
    header += [f"logit_{i}" for i in range(k)]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for i, it in enumerate(items):
            if it.kind == "clean":
                row = ["", "", it.source, "clean"]
            else:
                row = [str(it.id), it.path, it.source, "corrupted"]
            row.append(str(int(p[i])))
            if conf is not None:
                row.append(repr(float(conf[i])))
            if k:
                # repr of the float32 value read back gives the same float32.
                row += [repr(float(v)) for v in scores[i].astype(np.float32)]
            w.writerow(row)


def read_logits(path):
    """Reads a vcr eval --logits file (or a predictions file with logit_
    columns). Returns (keys, logits): keys[i] is ("clean", source) or
    ("corrupted", id), logits an (N, K) float32 array."""
    keys, rows = [], []
    with open(path, newline="") as f:
        r = csv.reader(f)
        header = next(r)
        cols = [i for i, h in enumerate(header) if h.startswith("logit_")]
        cols.sort(key=lambda i: int(header[i][len("logit_"):]))
        ki, si, ii = header.index("kind"), header.index("source"), header.index("id")
        for rec in r:
            if rec[ki] == "clean":
                keys.append(("clean", rec[si]))
            else:
                keys.append(("corrupted", int(rec[ii])))
            rows.append([float(rec[i]) for i in cols])
    return keys, np.asarray(rows, dtype=np.float32)
