"""Shared fixtures of the vcr_torch tests: the vcr binary and one small test set."""

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "python"))

_tmp = None
_vcr = None
_testset = None


def tmpdir():
    global _tmp
    if _tmp is None:
        _tmp = tempfile.mkdtemp(prefix="vcr-torch-test.")
    return _tmp


def cleanup():
    if _tmp is not None:
        shutil.rmtree(_tmp, ignore_errors=True)


def vcr():
    """The vcr binary: $VCR, else built from this checkout with go build."""
    global _vcr
    if _vcr is None:
        v = os.environ.get("VCR")
        if v:
            _vcr = os.path.abspath(v) if os.sep in v else v
        else:
            _vcr = os.path.join(tmpdir(), "vcr")
            subprocess.run(["go", "build", "-o", _vcr, "./cmd/vcr"], cwd=REPO, check=True)
    return _vcr


def run(*args):
    p = subprocess.run([vcr(), *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise AssertionError(f"vcr {' '.join(args)} failed ({p.returncode}):\n{p.stdout}")
    return p.stdout


def testset():
    """A test set of 4 PNG sources (3 classes, 150x120) with 2 draws each of
    two corruptions, made with --resize 64 --crop 56 so that the clean images
    go through generate's resize and crop."""
    global _testset
    if _testset is None:
        d = tmpdir()
        run("synth", "--out", os.path.join(d, "src"), "--n", "4", "--size", "150x120", "--classes", "3", "--seed", "5")
        _testset = os.path.join(d, "ts")
        run("generate", "--images", os.path.join(d, "src"), "--corruptions", "gaussian_noise,brightness", "--n", "2",
            "--seed", "5", "--resize", "64", "--crop", "56", "--out", _testset, "--dv-methods", "vcr-py")
    return _testset
