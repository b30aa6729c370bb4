"""Logit parity between vcr eval (ONNX Runtime) and PyTorch, model by model.

Run by scripts/pytorch-parity.sh; see there and docs/pytorch.md. Makes its own
data in --work: PNG and JPEG source images (vcr synth), a test set from each
(vcr generate, corrupted images are PNG), seeded models, and for each model
compares vcr eval --logits with the same model run by PyTorch on the same
files through torchvision's transforms. Prints one line per model and source
format, and a line for the input tensor itself (an identity model whose
outputs are its input). Exits 1 when any line (PNG or JPEG sources) fails its bound.
"""

import argparse
import os
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import vcr_torch  # noqa: E402

LOGIT_BOUND = 1e-3    # max |logit difference|, PNG and JPEG sources
TENSOR_BOUND = 1e-5   # max |input tensor difference| per element, PNG and JPEG sources


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        sys.exit(f"parity: {' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}")
    return p.stdout


def calibrate_bn(model, seed):
    """Sets BatchNorm running statistics from a few seeded random batches (a
    freshly initialised network has mean 0, variance 1, which lets the
    activations of deep networks grow or vanish); then eval mode."""
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return model.eval()
    for m in bns:
        m.reset_running_stats()
        m.momentum = None  # cumulative average
    g = torch.Generator().manual_seed(seed)
    model.train()
    with torch.no_grad():
        for _ in range(4):
            model(torch.randn(8, 3, 224, 224, generator=g))
    return model.eval()


def make_vit(full):
    """A ViT-B/16-shaped model: 224x224 input cut into 16x16 patches (196
    tokens and a class token), pre-norm transformer encoder blocks, class-token
    head; torchvision's VisionTransformer. full=True is ViT-B/16 itself (12
    layers, width 768, 12 heads of 64 dimensions, MLP 3072); the default is 4
    layers of width 256 with 4 heads of 64 dimensions and MLP 1024, the same
    graph with fewer, narrower blocks, so CI runs it in seconds."""
    if full:
        m = torchvision.models.vit_b_16()
    else:
        m = torchvision.models.VisionTransformer(image_size=224, patch_size=16, num_layers=4, num_heads=4,
                                                 hidden_dim=256, mlp_dim=1024, num_classes=1000)
    # torchvision initialises the head to zero (all logits 0, nothing to
    # compare); seeded weights of variance 1/width give logits of about unit scale.
    nn.init.normal_(m.heads.head.weight, std=m.hidden_dim ** -0.5)
    return m.eval()


class SmallCNN(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.f = nn.Sequential(
            nn.Conv2d(3, 16, 5, stride=2, padding=2), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, classes))

    def forward(self, x):
        return self.f(x)


def train_small_cnn(folder, epochs, seed):
    """Trains SmallCNN on the images of an image folder (vcr synth output;
    one class per sub-folder), with the ImageNet preprocessing, and returns it
    in eval mode."""
    torch.manual_seed(seed)
    ds = torchvision.datasets.ImageFolder(folder, transform=vcr_torch.to_transform("imagenet"))
    model = SmallCNN(len(ds.classes))
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    loader = torch.utils.data.DataLoader(ds, batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(seed))
    losses = []
    for _ in range(epochs):
        model.train()
        total = 0.0
        for x, y in loader:
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            total += float(loss) * len(y)
        losses.append(total / len(ds))
    print(f"small_cnn: trained {epochs} epochs on {len(ds)} images, loss {losses[0]:.3f} -> {losses[-1]:.3f}", file=sys.stderr)
    return model.eval()


class Identity(nn.Module):
    """Outputs its input, flattened: vcr eval --logits then holds vcr's input tensor."""

    def forward(self, x):
        return x.flatten(1)


def torch_logits(model, testset, batch=16):
    ds = vcr_torch.VCRTestSet(testset, transform=vcr_torch.to_transform("imagenet"))
    loader = torch.utils.data.DataLoader(ds, batch_size=batch)
    outs = []
    with torch.no_grad():
        for x, _ in loader:
            outs.append(model(x).numpy())
    keys = [("clean", it.source) if it.kind == "clean" else ("corrupted", it.id) for it in ds.items]
    return keys, np.concatenate(outs).astype(np.float32)


def vcr_logits(vcr, testset, onnx_path, config, work, name):
    out, logits = os.path.join(work, f"{name}.results.csv"), os.path.join(work, f"{name}.logits.csv")
    run([vcr, "eval", "--testset", testset, "--model", onnx_path, "--config", config, "--out", out,
         "--logits", logits, "--force", "--progress", "never", "--threads", "2"])
    return vcr_torch.read_logits(logits)


def compare(vcr_keys, vcr_out, pt_keys, pt_out):
    idx = {k: i for i, k in enumerate(pt_keys)}
    if set(vcr_keys) != set(pt_keys):
        sys.exit(f"parity: vcr scored {len(vcr_keys)} images, PyTorch {len(pt_keys)}; the sets differ")
    order = [idx[k] for k in vcr_keys]
    p = pt_out[order]
    diff = float(np.max(np.abs(p - vcr_out)))
    agree = float(np.mean(p.argmax(1) == vcr_out.argmax(1)))
    return diff, agree


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--vcr", default=os.environ.get("VCR", "vcr"))
    ap.add_argument("--work", required=True)
    ap.add_argument("--images", type=int, default=6, help="source images per format")
    ap.add_argument("--n", type=int, default=3, help="draws per corruption")
    ap.add_argument("--full-vit", action="store_true", help="ViT-B/16 itself instead of the narrower ViT-B/16-shaped model")
    ap.add_argument("--epochs", type=int, default=3, help="training epochs of the small CNN")
    ap.add_argument("--train-images", type=int, default=48, help="training images of the small CNN")
    a = ap.parse_args()
    torch.set_num_threads(2)
    work = a.work
    t0 = time.time()
    sets = {}
    for fmt in ("png", "jpg"):
        src, ts = os.path.join(work, f"src-{fmt}"), os.path.join(work, f"ts-{fmt}")
        if not os.path.exists(ts):
            # 300x240: Resize(256) upscales to 320x256, then the 224x224
            # centre crop; the clean sources go through both steps.
            run([a.vcr, "synth", "--out", src, "--n", str(a.images), "--size", "300x240", "--classes", "3",
                 "--format", fmt, "--seed", "16"])
            run([a.vcr, "generate", "--images", src, "--corruptions", "gaussian_noise,brightness,defocus_blur",
                 "--n", str(a.n), "--seed", "16", "--out", ts, "--dv-methods", "vcr-py"])
        sets["png" if fmt == "png" else "jpeg"] = ts
    print(f"data: {time.time() - t0:.0f} s", file=sys.stderr)

    models = []
    torch.manual_seed(0)
    models.append(("resnet18", calibrate_bn(torchvision.models.resnet18(), 1)))
    torch.manual_seed(0)
    models.append(("mobilenet_v3_small", calibrate_bn(torchvision.models.mobilenet_v3_small(), 2)))
    torch.manual_seed(0)
    models.append(("vit_b16" if a.full_vit else "vit_b16_shaped", make_vit(a.full_vit)))
    train = os.path.join(work, "train")
    if not os.path.exists(train):
        run([a.vcr, "synth", "--out", train, "--n", str(a.train_images), "--size", "96", "--classes", "3", "--seed", "1000"])
    models.append(("small_cnn", train_small_cnn(train, a.epochs, 3)))

    failed = False
    # The input tensor itself: an identity model's logits are vcr's tensor.
    onnx_path = os.path.join(work, "identity.onnx")
    cfg = vcr_torch.export(Identity(), onnx_path, "imagenet")
    for src, ts in sets.items():
        vk, vo = vcr_logits(a.vcr, ts, onnx_path, cfg, work, f"identity-{src}")
        pk, po = torch_logits(Identity(), ts)
        diff, _ = compare(vk, vo, pk, po)
        over = float(np.mean(np.abs(po[[pk.index(k) for k in vk]] - vo) > TENSOR_BOUND))
        # vcr decodes JPEG exactly as Pillow's libjpeg-turbo does
        # (imageio/jpeg), so JPEG sources are held to the same bound.
        ok = diff <= TENSOR_BOUND
        failed |= not ok
        print(f"tensor=imagenet source={src} max_abs_diff={diff:.3g} elements_over_1e-5={over:.4f}{'' if ok else '  FAIL'}")

    for name, model in models:
        onnx_path = os.path.join(work, f"{name}.onnx")
        cfg = vcr_torch.export(model, onnx_path, "imagenet")
        for src, ts in sets.items():
            t1 = time.time()
            vk, vo = vcr_logits(a.vcr, ts, onnx_path, cfg, work, f"{name}-{src}")
            pk, po = torch_logits(model, ts)
            diff, agree = compare(vk, vo, pk, po)
            ok = diff <= LOGIT_BOUND and agree == 1.0
            failed |= not ok
            where = "" if src == "png" else f" source={src}"
            print(f"model={name}{where} max_abs_logit_diff={diff:.3g} top1_agreement={agree:.4f}{'' if ok else '  FAIL'}", flush=True)
            print(f"{name} {src}: {len(vk)} images, {time.time() - t1:.0f} s", file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
