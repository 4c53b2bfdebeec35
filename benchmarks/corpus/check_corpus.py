#!/usr/bin/python3
"""Runs one corpus model once on a Vireo device with its exported inputs and compares with PyTorch.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/corpus/check_corpus.py MODEL_DIR [--device CPU]
    /usr/bin/python3 benchmarks/corpus/check_corpus.py MODEL_DIR --hello-infer build/bin/hello_infer

MODEL_DIR is one folder written by export_corpus.py (model.onnx, input_<name>.npy, expected.npy, and
expected_<out>.npy per output when there are several). With the Python package (`import vireo`) it compiles
the model in-process; with --hello-infer it runs that sample (`-i name=input_<name>.npy -o DIR`) and reads
its outputs <out>.npy. Prints one line for a Markdown cell,

    <max abs error> of <max |expected|> ok|**off**

"ok" when the error is at most 1e-3 of the output's largest magnitude (plus 1e-5), "**off**" otherwise;
--precision bf16 compiles with INFERENCE_PRECISION_HINT bf16 (Python package only) and --tolerance sets the
fraction (bench_corpus.sh uses 1e-2 for bf16, which keeps 8 bits of mantissa).
With several outputs every one is compared and the line shows the worst (error relative to its scale),
prefixed by that output's name. When outputs are rows of one set of detections (every output has the same
first dimension, more than one output) and the rows match only in another order (ties or near-ties in the
scores sort them differently), the line says "ok (rows reordered)", else how many rows match in any
order ("**off** (K of N rows match)": with random weights many detections tie, and which of the tied ones
survive TopK and NMS is decided by rounding). On failure it prints
"failed: <first line of the error>" and exits 1.
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


def expected_of(model_dir):
    """{output name: expected array}, in output order (y, y1, y2, ...)."""
    files = glob.glob(os.path.join(model_dir, "expected_*.npy"))
    if not files:
        return {"y": np.load(os.path.join(model_dir, "expected.npy"))}
    names = [os.path.basename(f)[len("expected_"):-len(".npy")] for f in files]
    names.sort(key=lambda n: (len(n), n))
    return {n: np.load(os.path.join(model_dir, f"expected_{n}.npy")) for n in names}


def run_python(model_dir, device, names, precision="f32"):
    import vireo
    config = {"INFERENCE_PRECISION_HINT": precision} if precision != "f32" else {}
    compiled = vireo.Core().compile_model(os.path.join(model_dir, "model.onnx"), device, config)
    feeds = {name: np.load(path) for name, path in inputs_of(model_dir).items()}
    results = compiled.create_infer_request().infer(feeds)
    by_name = {compiled.outputs[i].any_name: np.array(results[i]) for i in range(len(compiled.outputs))}
    missing = [n for n in names if n not in by_name]
    if missing:
        raise RuntimeError(f"no output named {', '.join(missing)} (outputs: {', '.join(by_name)})")
    return {n: by_name[n] for n in names}


def run_hello_infer(model_dir, device, binary, names):
    with tempfile.TemporaryDirectory(prefix="vireo_corpus_check.") as out:
        spec = ",".join(f"{n}={p}" for n, p in inputs_of(model_dir).items())
        proc = subprocess.run([binary, "-m", os.path.join(model_dir, "model.onnx"), "-d", device, "-i", spec,
                               "-o", out, "-n", "1"], capture_output=True, text=True)
        if proc.returncode != 0:
            lines = [l for l in (proc.stderr + proc.stdout).splitlines() if l.strip()]
            errors = [l for l in lines if "ERROR" in l or "rror" in l]
            raise RuntimeError((errors or lines or [f"exit status {proc.returncode}"])[0].replace("[ ERROR ] ", ""))
        return {n: np.load(os.path.join(out, f"{n}.npy")) for n in names}


def compare(y, e):
    """(max abs error, max |expected|) of one output."""
    err = float(np.abs(y.astype(np.float64) - e.astype(np.float64)).max()) if e.size else 0.0
    return err, float(np.abs(e.astype(np.float64)).max()) if e.size else 0.0


TOLERANCE = 1e-3  # of the output's largest magnitude; --tolerance


def within(err, scale):
    return err <= TOLERANCE * scale + 1e-5


def rows_matched(ys, expected):
    """How many expected rows (dimension 0, shared by all outputs) have a matching row in the outputs, in any
    order: each expected row takes the nearest unused row and counts when every output is within
    tolerance."""
    n = next(iter(expected.values())).shape[0]
    scales = {k: compare(e, e)[1] for k, e in expected.items()}

    def row(arrs, i):
        return [arrs[k][i].astype(np.float64).ravel() for k in expected]

    used, matched = set(), 0
    for i in range(n):
        want = row(expected, i)
        best, best_cost = None, None
        for j in range(n):
            if j in used:
                continue
            got = row(ys, j)
            costs = [float(np.abs(g - w).max()) / (TOLERANCE * scales[k] + 1e-5) if w.size else 0.0
                     for k, g, w in zip(expected, got, want)]
            cost = max(costs) if costs else 0.0
            if best_cost is None or cost < best_cost:
                best, best_cost = j, cost
        if best is not None and best_cost <= 1.0:
            used.add(best)
            matched += 1
    return matched


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model_dir")
    parser.add_argument("--device", default="CPU")
    parser.add_argument("--hello-infer", help="path of the hello_infer sample; default: the Python package")
    parser.add_argument("--precision", choices=["f32", "bf16"], default="f32",
                        help="INFERENCE_PRECISION_HINT to compile with (Python package only)")
    parser.add_argument("--tolerance", type=float, default=1e-3,
                        help="'ok' when the error is at most this fraction of the output's largest magnitude")
    args = parser.parse_args()
    global TOLERANCE
    TOLERANCE = args.tolerance
    expected = expected_of(args.model_dir)
    if args.hello_infer and args.precision != "f32":
        print("not checked: hello_infer has no precision option")
        return 0
    try:
        if args.hello_infer:
            ys = run_hello_infer(args.model_dir, args.device, args.hello_infer, list(expected))
        else:
            ys = run_python(args.model_dir, args.device, list(expected), args.precision)
        for n, e in expected.items():
            if ys[n].shape != e.shape:
                label = "output shape" if len(expected) == 1 else f"output {n} shape"
                raise RuntimeError(f"{label} {list(ys[n].shape)}, expected {list(e.shape)}")
    except Exception as e:  # reported in the table, never fatal for the benchmark
        text = str(e).strip().splitlines()
        print(f"failed: {text[0] if text else type(e).__name__}")
        return 1
    results = {n: compare(ys[n], e) for n, e in expected.items()}
    if not all(np.isfinite(err) for err, _ in results.values()):
        print("**off** (non-finite output)")
        return 0
    worst = max(results, key=lambda n: results[n][0] / (1e-3 * results[n][1] + 1e-5))
    err, scale = results[worst]
    prefix = f"{worst}: " if len(expected) > 1 else ""
    verdict = "ok" if all(within(*r) for r in results.values()) else "**off**"
    rows = {e.shape[0] if e.ndim else None for e in expected.values()}
    if verdict != "ok" and len(expected) > 1 and len(rows) == 1 and None not in rows:
        n = rows.pop()
        matched = rows_matched(ys, expected)
        verdict = "ok (rows reordered)" if matched == n else f"**off** ({matched} of {n} rows match)"
    print(f"{prefix}{err:.2g} of {scale:.2g} {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
