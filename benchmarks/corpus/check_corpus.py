#!/usr/bin/python3
"""Runs one corpus model once on a Vireo device with its exported inputs and compares with PyTorch.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/corpus/check_corpus.py MODEL_DIR [--device CPU]
    /usr/bin/python3 benchmarks/corpus/check_corpus.py MODEL_DIR --hello-infer build/bin/hello_infer

MODEL_DIR is one folder written by export_corpus.py (model.onnx, input_<name>.npy, expected.npy). With the
Python package (`import vireo`) it compiles the model in-process; with --hello-infer it runs that sample
(`-i name=input_<name>.npy -o DIR`) and reads its output y.npy. Prints one line for a Markdown cell,

    <max abs error> of <max |expected|> ok|**off**

"ok" when the error is at most 1e-3 of the output's largest magnitude (plus 1e-5), "**off**" otherwise;
on failure it prints "failed: <first line of the error>" and exits 1.
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np


def inputs_of(model_dir):
    files = sorted(glob.glob(os.path.join(model_dir, "input_*.npy")))
    return {os.path.basename(f)[len("input_"):-len(".npy")]: f for f in files}


def run_python(model_dir, device):
    import vireo
    compiled = vireo.Core().compile_model(os.path.join(model_dir, "model.onnx"), device)
    feeds = {name: np.load(path) for name, path in inputs_of(model_dir).items()}
    results = compiled.create_infer_request().infer(feeds)
    return np.array(results[0])


def run_hello_infer(model_dir, device, binary):
    with tempfile.TemporaryDirectory(prefix="vireo_corpus_check.") as out:
        spec = ",".join(f"{n}={p}" for n, p in inputs_of(model_dir).items())
        proc = subprocess.run([binary, "-m", os.path.join(model_dir, "model.onnx"), "-d", device, "-i", spec,
                               "-o", out, "-n", "1"], capture_output=True, text=True)
        if proc.returncode != 0:
            lines = [l for l in (proc.stderr + proc.stdout).splitlines() if l.strip()]
            errors = [l for l in lines if "ERROR" in l or "rror" in l]
            raise RuntimeError((errors or lines or [f"exit status {proc.returncode}"])[0].replace("[ ERROR ] ", ""))
        return np.load(os.path.join(out, "y.npy"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model_dir")
    parser.add_argument("--device", default="CPU")
    parser.add_argument("--hello-infer", help="path of the hello_infer sample; default: the Python package")
    args = parser.parse_args()
    expected = np.load(os.path.join(args.model_dir, "expected.npy"))
    try:
        if args.hello_infer:
            y = run_hello_infer(args.model_dir, args.device, args.hello_infer)
        else:
            y = run_python(args.model_dir, args.device)
        if y.shape != expected.shape:
            raise RuntimeError(f"output shape {list(y.shape)}, expected {list(expected.shape)}")
    except Exception as e:  # reported in the table, never fatal for the benchmark
        text = str(e).strip().splitlines()
        print(f"failed: {text[0] if text else type(e).__name__}")
        return 1
    err = float(np.abs(y.astype(np.float64) - expected).max()) if y.size else 0.0
    scale = float(np.abs(expected).max()) if expected.size else 0.0
    if not np.isfinite(err):
        print("**off** (non-finite output)")
        return 0
    verdict = "ok" if err <= 1e-3 * scale + 1e-5 else "**off**"
    print(f"{err:.2g} of {scale:.2g} {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
