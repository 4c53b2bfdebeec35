"""The Python samples run end to end on a golden model and give ONNX Runtime's values."""
import os
import pathlib
import subprocess
import sys

import numpy as np

from conftest import GOLDEN

SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "samples" / "python"


def run(*args):
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, env=os.environ,
                          timeout=120)


def test_hello_infer_writes_the_golden_output(tmp_path):
    model = GOLDEN / "cnn"
    done = run(SAMPLES / "hello_infer.py", model / "model.onnx", "-i", f"x={model / 'input_x.npy'}",
               "-o", tmp_path)
    assert done.returncode == 0, done.stderr
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), np.load(model / "output_y.npy"), rtol=1e-4, atol=1e-5)
    bad = run(SAMPLES / "hello_infer.py", model / "model.xml", "-d", "NO_SUCH_DEVICE", "--zero_inputs")
    assert bad.returncode == 1 and "NotFound" in bad.stderr
    # An input not given is refused (exit 2, naming it), unless --zero_inputs asks for zeros.
    refused = run(SAMPLES / "hello_infer.py", model / "model.xml", "-d", "TEMPLATE", "-o", tmp_path)
    assert refused.returncode == 2 and "no values for input(s) x" in refused.stderr
    zeros = run(SAMPLES / "hello_infer.py", model / "model.xml", "-d", "TEMPLATE", "--zero_inputs",
                "-o", tmp_path / "zeros")
    assert zeros.returncode == 0, zeros.stderr
    assert np.load(tmp_path / "zeros" / "y.npy").shape == np.load(model / "output_y.npy").shape


def test_async_queue_reports_no_mismatch():
    done = run(SAMPLES / "async_queue.py", GOLDEN / "tiny" / "model.xml", "-d", "TEMPLATE", "-n", "16", "-j", "3")
    assert done.returncode == 0, done.stderr
    assert "16 inferences on TEMPLATE with 3 requests" in done.stdout and "0 mismatches" in done.stdout
