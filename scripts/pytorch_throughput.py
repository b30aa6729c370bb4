"""Throughput of vcr eval (ONNX Runtime) against a plain PyTorch CPU loop.

Run by scripts/pytorch-throughput.sh; see there. Both score the same files
(the corrupted images and clean sources of one test set, 224x224 PNG) with a
ResNet-50 of seeded weights and the ImageNet preprocessing (Resize(256),
CenterCrop(224), ToTensor, Normalize), batch 32:

  vcr      vcr eval --model resnet50.onnx --preset imagenet --threads T
           (decoding and preprocessing in --workers goroutines, ONNX Runtime
           with T intra-op threads)
  pytorch  DataLoader(num_workers=W, batch_size=32) over vcr_torch.VCRTestSet
           with torchvision's transforms, torch.set_num_threads(T), eval mode,
           torch.no_grad()

and vcr eval once more with a trivial model (global average pooling and a
linear layer: no measurable inference), whose time is vcr's time outside
the model: decoding, preprocessing, results. Runs alternate (vcr, pytorch,
vcr, …) --repeat times; the best time of each is reported.
"""

import argparse
import os
import subprocess
import sys
import time

import torch
import torch.nn as nn
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import vcr_torch  # noqa: E402


class Trivial(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 1000)

    def forward(self, x):
        return self.fc(x.mean((2, 3)))


def time_vcr(a, testset, onnx_path, cfg, out):
    t0 = time.perf_counter()
    p = subprocess.run([a.vcr, "eval", "--testset", testset, "--model", onnx_path, "--config", cfg, "--out", out,
                        "--force", "--progress", "never", "--threads", str(a.threads), "--workers", str(a.workers),
                        "--batch-size", "32"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"vcr eval failed:\n{p.stdout}")
    return dt


def time_torch(a, model, testset):
    ds = vcr_torch.VCRTestSet(testset, transform=vcr_torch.to_transform("imagenet"))
    t0 = time.perf_counter()
    loader = torch.utils.data.DataLoader(ds, batch_size=32, num_workers=a.workers)
    n = 0
    with torch.no_grad():
        for x, _ in loader:
            model(x)
            n += len(x)
    return time.perf_counter() - t0, n


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vcr", default=os.environ.get("VCR", "vcr"))
    ap.add_argument("--work", required=True)
    ap.add_argument("--sources", type=int, default=200, help="source images (vcr synth, 224x224 PNG)")
    ap.add_argument("--draws", type=int, default=800, help="corrupted images (brightness draws)")
    ap.add_argument("--threads", type=int, default=2, help="intra-op threads of ONNX Runtime and torch")
    ap.add_argument("--workers", type=int, default=2, help="vcr eval --workers and DataLoader num_workers")
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    w = lambda *p: os.path.join(a.work, *p)  # noqa: E731
    ts = w("ts")
    if not os.path.exists(ts):
        subprocess.run([a.vcr, "synth", "--out", w("src"), "--n", str(a.sources), "--size", "224", "--seed", "50"],
                       check=True, stdout=subprocess.DEVNULL)
        subprocess.run([a.vcr, "generate", "--images", w("src"), "--corruptions", "brightness", "--n", str(a.draws),
                        "--seed", "50", "--dv-methods", "vcr-py", "--out", ts], check=True, stdout=subprocess.DEVNULL)
    images = len(vcr_torch.VCRTestSet(ts))
    torch.manual_seed(0)
    model = torchvision.models.resnet50().eval()
    r50 = vcr_torch.export(model, w("resnet50.onnx"), "imagenet")
    triv = vcr_torch.export(Trivial().eval(), w("trivial.onnx"), "imagenet")
    tv, tt, tp = [], [], []
    for i in range(a.repeat):
        tv.append(time_vcr(a, ts, w("resnet50.onnx"), r50, w("r50.csv")))
        dt, n = time_torch(a, model, ts)
        assert n == images
        tt.append(dt)
        tp.append(time_vcr(a, ts, w("trivial.onnx"), triv, w("trivial.csv")))
        print(f"run {i + 1}: vcr {tv[-1]:.1f} s, pytorch {tt[-1]:.1f} s, vcr without the model {tp[-1]:.1f} s", file=sys.stderr, flush=True)
    v, t, p = min(tv), min(tt), min(tp)
    print(f"images={images} size=224x224 model=resnet50 threads={a.threads} workers={a.workers} cores={os.cpu_count()}")
    print(f"vcr_eval_images_per_s={images / v:.1f}")
    print(f"pytorch_images_per_s={images / t:.1f}")
    print(f"vcr_outside_model_share={p / v:.3f} (pipeline alone {p:.1f} s of {v:.1f} s)")


if __name__ == "__main__":
    main()
