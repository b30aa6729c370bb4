"""Retraining on vcr-generated corrupted images, then re-measuring robustness.

The VCR study's retraining experiment in miniature, on vcr's demo data (four
shape classes over natural-looking backgrounds, 64x64), on CPU in a few
minutes:

  1. vcr demo writes two disjoint image sets (seeds 3 and 2) and, for the
     second, a test set of six corruptions with Δv measured by vifvec
     (the flavour of the built-in human data);
  2. a small CNN is trained on the clean training images (the baseline);
  3. vcr generate makes corrupted training images from the training set
     (the same six corruptions, other draws), and a copy of the baseline is
     fine-tuned on clean plus corrupted images (the retrained model);
  4. both are exported (vcr_torch.export), scored with vcr eval on the
     evaluation test set, and compared with the humans by vcr analyze
     (R̂a, HMRI against builtin:icse2022-imagenet);
  5. a table of R̂a and HMRI per corruption, before and after, is printed.

The humans judged car / not car on ImageNet, the CNN tells shapes apart: the
numbers show the workflow, not a human comparison (see vcr demo --help).

Usage: python3 python/examples/finetune.py --work DIR [--vcr PATH] [--epochs N]
"""

import argparse
import csv
import os
import subprocess
import sys

import torch
import torch.nn as nn
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import vcr_torch  # noqa: E402

CORRUPTIONS = "frost,brightness,contrast,gaussian_noise,defocus_blur,jpeg_compression"
# The model's input: the 64x64 demo images as they are, ImageNet normalisation.
PREPROCESSING = {"width": 64, "height": 64, "exact_size": True,
                 "mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225]}


def vcr(args, *a):
    print("$ vcr " + " ".join(a), file=sys.stderr, flush=True)
    p = subprocess.run([args.vcr, *a], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        sys.exit(f"vcr {' '.join(a)} failed:\n{p.stdout}")
    return p.stdout


class SmallCNN(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.f = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(64, 96, 3, padding=1), nn.BatchNorm2d(96), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(96, classes))

    def forward(self, x):
        return self.f(x)


def train(model, dataset, epochs, lr, seed):
    g = torch.Generator().manual_seed(seed)
    loader = torch.utils.data.DataLoader(dataset, batch_size=32, shuffle=True, generator=g, num_workers=2)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    for e in range(epochs):
        model.train()
        total, correct, n = 0.0, 0, 0
        for x, y in loader:
            opt.zero_grad()
            out = model(x)
            loss = nn.functional.cross_entropy(out, y)
            loss.backward()
            opt.step()
            total += float(loss) * len(y)
            correct += int((out.argmax(1) == y).sum())
            n += len(y)
        print(f"  epoch {e + 1}: loss {total / n:.3f}, training accuracy {correct / n:.3f}", file=sys.stderr, flush=True)
    return model.eval()


def evaluate(args, model, name, testset):
    d = os.path.join(args.work, name)
    os.makedirs(d, exist_ok=True)
    onnx_path = os.path.join(d, "model.onnx")
    cfg = vcr_torch.export(model, onnx_path, PREPROCESSING)
    results = os.path.join(d, "results.csv")
    print(vcr(args, "eval", "--testset", testset, "--model", onnx_path, "--config", cfg, "--out", results,
              "--force", "--progress", "never").strip(), file=sys.stderr)
    analysis = os.path.join(d, "analysis")
    vcr(args, "analyze", "--results", results, "--model-name", name, "--human", "builtin:icse2022-imagenet",
        "--bootstrap", "50", "--bins", "8", "--min-per-bin", "5", "--out", analysis)
    with open(os.path.join(analysis, "summary.csv"), newline="") as f:
        return {r["corruption"]: r for r in csv.DictReader(f) if r["subject"] == name}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", required=True, help="working folder (created)")
    ap.add_argument("--vcr", default=os.environ.get("VCR", "vcr"))
    ap.add_argument("--epochs", type=int, default=15, help="training epochs of the baseline")
    ap.add_argument("--finetune-epochs", type=int, default=4, help="fine-tuning epochs of the retrained model")
    ap.add_argument("--train-images", type=int, default=320)
    ap.add_argument("--n", type=int, default=120, help="corrupted training draws per corruption")
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(2)
    os.makedirs(args.work, exist_ok=True)
    w = lambda *p: os.path.join(args.work, *p)  # noqa: E731

    small = ["--size", "64", "--n", "60", "--bootstrap", "20", "--bins", "8", "--min-per-bin", "5"]
    if not os.path.exists(w("demo-train")):
        vcr(args, "demo", "--out", w("demo-train"), "--images", str(args.train_images), "--seed", "3", *small)
    if not os.path.exists(w("demo-eval")):
        vcr(args, "demo", "--out", w("demo-eval"), "--n-images", "120", "--seed", "2", *small)
    if not os.path.exists(w("train-corrupted")):
        vcr(args, "generate", "--images", w("demo-train", "images"), "--corruptions", CORRUPTIONS, "--n", str(args.n),
            "--seed", "11", "--sampling", "targeted", "--vif-method", "vifvec", "--dv-methods", "vifvec",
            "--out", w("train-corrupted"))
    tf = vcr_torch.to_transform(PREPROCESSING)
    clean = torchvision.datasets.ImageFolder(w("demo-train", "images"), transform=tf)

    print("baseline: clean training images", file=sys.stderr)
    base = train(SmallCNN(len(clean.classes)), clean, args.epochs, 3e-3, seed=1)
    before = evaluate(args, base, "baseline", w("demo-eval", "testset"))

    print("retrained: fine-tuned on clean and vcr-generated corrupted images", file=sys.stderr)
    corrupted = vcr_torch.VCRTestSet(w("train-corrupted"), transform=tf, clean=False)
    retrained = SmallCNN(len(clean.classes))
    retrained.load_state_dict(base.state_dict())
    retrained = train(retrained, torch.utils.data.ConcatDataset([clean, corrupted]), args.finetune_epochs, 1e-3, seed=2)
    after = evaluate(args, retrained, "retrained", w("demo-eval", "testset"))

    print(f"{'corruption':<18} {'Ra before':>9} {'Ra after':>9} {'HMRI_a before':>13} {'HMRI_a after':>13}")
    for c in sorted(before):
        b, a = before[c], after[c]
        print(f"{c:<18} {float(b['ra']):9.3f} {float(a['ra']):9.3f} {float(b['hmri_a'] or 'nan'):13.3f} {float(a['hmri_a'] or 'nan'):13.3f}")
    print(f"clean accuracy: {float(next(iter(before.values()))['clean_accuracy']):.3f} before, "
          f"{float(next(iter(after.values()))['clean_accuracy']):.3f} after; reports in {w('baseline', 'analysis')} and {w('retrained', 'analysis')}")


if __name__ == "__main__":
    main()
