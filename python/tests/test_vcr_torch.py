"""Tests of vcr_torch against torchvision, Pillow, ONNX and the vcr binary.

Run: /usr/bin/python3 -m unittest discover -s python/tests  (VCR=./vcr, or go
builds one; ONNX Runtime as vcr finds it, e.g. VCR_ONNXRUNTIME_LIB)."""

import csv
import json
import os
import unittest

import numpy as np
import onnx
import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T
from PIL import Image

import helpers
import vcr_torch


def tearDownModule():
    helpers.cleanup()


class TinyNet(nn.Module):
    def __init__(self, classes=3):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, stride=2)
        self.fc = nn.Linear(4, classes)

    def forward(self, x):
        return self.fc(self.conv(x).mean((2, 3)))


class Identity(nn.Module):
    def forward(self, x):
        return x.flatten(1)


IMAGENET_EVAL = T.Compose([T.Resize(256), T.CenterCrop(224), T.ToTensor(),
                           T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))])


class PreprocessingTest(unittest.TestCase):
    def test_from_transform_imagenet(self):
        self.assertEqual(vcr_torch.from_transform(IMAGENET_EVAL), {
            "resize": 256, "crop_height": 224, "crop_width": 224,
            "mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225]})

    def test_from_transform_refuses_what_vcr_cannot_do(self):
        for t in [T.Compose([T.RandomResizedCrop(224), T.ToTensor()]),
                  T.Compose([T.Resize(256, interpolation=T.InterpolationMode.BICUBIC), T.ToTensor()]),
                  T.Compose([T.Resize(256), T.CenterCrop(224)])]:
            with self.assertRaises(ValueError):
                vcr_torch.from_transform(t)

    def test_to_transform_is_torchvision_imagenet(self):
        rng = np.random.default_rng(1)
        img = Image.fromarray(rng.integers(0, 256, (97, 131, 3), dtype=np.uint8))
        a, b = vcr_torch.to_transform("imagenet")(img), IMAGENET_EVAL(img)
        self.assertTrue(torch.equal(a, b))



class ExportTest(unittest.TestCase):
    def test_export_onnx_and_config(self):
        d = helpers.tmpdir()
        path = os.path.join(d, "tiny.onnx")
        torch.manual_seed(0)
        net = TinyNet().train()
        cfg = vcr_torch.export(net, path, "imagenet", task="identity")
        self.assertTrue(net.training, "export must restore the training mode")
        self.assertEqual(cfg, os.path.join(d, "tiny.json"))
        with open(cfg) as f:
            self.assertEqual(json.load(f), {"preset": "imagenet", "task": "identity"})
        m = onnx.load(path)
        onnx.checker.check_model(m)
        dims = m.graph.input[0].type.tensor_type.shape.dim
        self.assertEqual(dims[0].dim_param, "batch")
        self.assertEqual([d.dim_value for d in dims[1:]], [3, 224, 224])
        self.assertEqual(m.opset_import[0].version, vcr_torch.DEFAULT_OPSET)

    def test_export_from_transform_and_dynamic_size(self):
        d = helpers.tmpdir()
        cfg = vcr_torch.export(TinyNet(), os.path.join(d, "t2.onnx"),
                               T.Compose([T.Resize(40), T.CenterCrop(32), T.ToTensor(), T.Normalize((0.5,) * 3, (0.25,) * 3)]))
        with open(cfg) as f:
            self.assertEqual(json.load(f), {"resize": 40, "crop_height": 32, "crop_width": 32,
                                            "mean": [0.5] * 3, "std": [0.25] * 3})
        with self.assertRaises(ValueError):
            vcr_torch.export(TinyNet(), os.path.join(d, "t3.onnx"), "none")
        vcr_torch.export(TinyNet(), os.path.join(d, "t3.onnx"), "none", input_size=(20, 30))
        dims = onnx.load(os.path.join(d, "t3.onnx")).graph.input[0].type.tensor_type.shape.dim
        self.assertEqual([x.dim_param for x in dims], ["batch", "", "height", "width"])


class DatasetTest(unittest.TestCase):
    def test_items_are_the_images_vcr_eval_scores(self):
        ts = helpers.testset()
        ds = vcr_torch.VCRTestSet(ts)
        rows = vcr_torch.read_manifest(ts)
        sources = []
        for r in rows:
            if r["source"] not in sources:
                sources.append(r["source"])
        self.assertEqual(len(ds), len(rows) + len(sources))
        self.assertEqual([it.source for it in ds.items if it.kind == "clean"], sources)
        self.assertEqual([it.id for it in ds.items if it.kind == "corrupted"], [int(r["id"]) for r in rows])
        src_root = vcr_torch.resolve_images(ts)
        for i, it in enumerate(ds.items):
            img, label = ds[i]
            self.assertEqual(img.size, (56, 56))
            if it.kind == "corrupted":
                r = rows[[int(x["id"]) for x in rows].index(it.id)]
                self.assertEqual(label, int(r["label_index"]))
                self.assertEqual(it.path, r["path"])
                self.assertAlmostEqual(it.dv, float(r["dv"]))
                want = np.asarray(Image.open(os.path.join(ts, r["path"])).convert("RGB"))
            else:
                # generate's --resize 64 --crop 56, done by Pillow.
                want = np.asarray(T.CenterCrop(56)(T.Resize(64)(Image.open(os.path.join(src_root, it.source)).convert("RGB"))))
            self.assertTrue(np.array_equal(np.asarray(img), want), it)

    def test_clean_images_equal_vcr_generate_resize(self):
        # An identity model's logits are vcr's input tensor: for the clean
        # images, vcr generate's --resize/--crop (imageio, Pillow's 8-bit
        # resampler) must equal the Pillow resize VCRTestSet does.
        ts = helpers.testset()
        d = helpers.tmpdir()
        cfg = vcr_torch.export(Identity(), os.path.join(d, "id56.onnx"), {"width": 56, "height": 56, "mean": [0] * 3, "std": [1] * 3})
        out = os.path.join(d, "id56.csv")
        helpers.run("eval", "--testset", ts, "--model", os.path.join(d, "id56.onnx"), "--config", cfg,
                    "--out", os.path.join(d, "id56-results.csv"), "--logits", out, "--force", "--progress", "never")
        keys, logits = vcr_torch.read_logits(out)
        ds = vcr_torch.VCRTestSet(ts, transform=T.ToTensor())
        by_key = {("clean", it.source) if it.kind == "clean" else ("corrupted", it.id): i for i, it in enumerate(ds.items)}
        self.assertEqual(set(keys), set(by_key))
        for k, v in zip(keys, logits):
            t = ds[by_key[k]][0].flatten().numpy()
            self.assertLessEqual(float(np.abs(t - v).max()), 1e-7, k)


class EvalParityTest(unittest.TestCase):
    def test_imagenet_tensor_and_logits_match_pytorch(self):
        # vcr eval's input tensor (an identity model) and a small model's
        # logits equal torchvision + PyTorch on the same PNG files.
        d = helpers.tmpdir()
        src = os.path.join(d, "src300")
        helpers.run("synth", "--out", src, "--n", "3", "--size", "300x240", "--classes", "2", "--seed", "9")
        ts = os.path.join(d, "ts300")
        helpers.run("generate", "--images", src, "--corruptions", "defocus_blur", "--n", "2", "--seed", "9", "--out", ts, "--dv-methods", "vcr-py")
        ds = vcr_torch.VCRTestSet(ts, transform=IMAGENET_EVAL)
        x = torch.stack([ds[i][0] for i in range(len(ds))])
        keys = [("clean", it.source) if it.kind == "clean" else ("corrupted", it.id) for it in ds.items]
        torch.manual_seed(3)
        # A transformer with an even number of heads: in eval mode under
        # no_grad, torch's MultiheadAttention fast path cannot be exported,
        # which export must avoid.
        vit = torchvision.models.VisionTransformer(image_size=224, patch_size=16, num_layers=1, num_heads=2,
                                                   hidden_dim=32, mlp_dim=64, num_classes=7)
        nn.init.normal_(vit.heads.head.weight)
        for name, net, bound in [("identity", Identity(), 1e-5), ("tiny", TinyNet(5), 1e-4), ("vit", vit, 1e-4)]:
            path = os.path.join(d, name + ".onnx")
            with torch.no_grad():
                cfg = vcr_torch.export(net, path, "imagenet")
            out = os.path.join(d, name + "-logits.csv")
            helpers.run("eval", "--testset", ts, "--model", path, "--config", cfg, "--out", os.path.join(d, name + "-r.csv"),
                        "--logits", out, "--force", "--progress", "never")
            vk, vo = vcr_torch.read_logits(out)
            with torch.no_grad():
                po = net.eval()(x).numpy()
            po = po[[keys.index(k) for k in vk]]
            self.assertLessEqual(float(np.abs(po - vo).max()), bound, name)
            self.assertTrue(np.array_equal(po.argmax(1), vo.argmax(1)), name)


class PredictionsTest(unittest.TestCase):
    def test_vcr_eval_reads_write_predictions(self):
        ts = helpers.testset()
        d = helpers.tmpdir()
        ds = vcr_torch.VCRTestSet(ts)
        rng = np.random.default_rng(2)
        logits = rng.normal(size=(len(ds), 3)).astype(np.float32)
        path = os.path.join(d, "preds.csv")
        vcr_torch.write_predictions(path, ds, logits=torch.from_numpy(logits))
        out = os.path.join(d, "from-preds.csv")
        helpers.run("eval", "--testset", ts, "--predictions", path, "--out", out, "--force", "--progress", "never")
        names = {int(r["label_index"]): r["label_name"] for r in vcr_torch.read_manifest(ts)}
        want = {}
        for it, l in zip(ds.items, logits):
            want[("clean", it.source) if it.kind == "clean" else ("corrupted", it.id)] = names.get(int(l.argmax()), str(int(l.argmax())))
        with open(out, newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), len(vcr_torch.read_manifest(ts)))
        for r in rows:
            self.assertEqual(r["pred_corrupted"], want[("corrupted", int(r["id"]))], r)
            self.assertEqual(r["pred_clean"], want[("clean", r["source"])], r)

    def test_write_predictions_checks_lengths(self):
        ds = vcr_torch.VCRTestSet(helpers.testset())
        with self.assertRaises(ValueError):
            vcr_torch.write_predictions(os.path.join(helpers.tmpdir(), "x.csv"), ds, preds=[0])


if __name__ == "__main__":
    unittest.main()
