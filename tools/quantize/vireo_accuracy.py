"""vireo_accuracy: accuracy-aware mixed precision for vireo_quantize (issue 34).

NNCF's accuracy-aware mode, done on Vireo: quantize everything, measure a metric on validation
samples, and when it dropped more than `max_drop` below the f32 model's, return the quantization
points that cost the most to f32, one at a time, until the drop is within the bound (or the
`max_excluded` / `max_evaluations` budget is spent).

A quantization point is a node that vireo_quantize's `exclude` can name: a Conv, Gemm or MatMul
with constant weights, or an Add of two activations, a GlobalAveragePool or a Concat whose
inputs get Q/DQ pairs. Every candidate model is built from the same calibrated parameters
(`build(exclude)`): nothing is recalibrated, excluding a point only removes Q/DQ pairs.

Ranking (`ranking="excluded"`). Each point is scored by the SQNR (dB) of all the model's
outputs against the f32 outputs, over the first `rank_samples` validation samples, with
*that point alone left in f32* and everything else quantized; the points whose exclusion
raises the SQNR most come first.
Why this proxy and this direction:
- "Left in f32" measures what the greedy step will actually gain from excluding the point in
  the presence of the others' noise (what NNCF's ranking does too); "only this point quantized"
  misses interactions (a noisy tensor amplified by a later op's range).
- The SQNR is continuous; the task metric usually is not (a fraction of unchanged decodings on
  a few samples moves by whole samples and ties most points), so it cannot order ~100 points
  that each change little alone. The user's metric decides when to stop.
- `ranking="isolated"` (the default, from the PP-OCR measurements) scores the other way,
  with *that point alone quantized* and every other point in f32 (lowest SQNR first): what
  each point costs on its own. When the noise is spread over many points, every single
  exclusion gains little and the "excluded" order is flat; on PP-OCR's recognizer it ranks
  the early convolutions, which decide the decoding, last, and "isolated" finds them first
  (docs/quantization.md has the numbers).
Cost: one compile on Vireo (`vireo.Core().compile_model`) per evaluation: 1 for the f32
reference, 1 for the all-quantized model, one per candidate to rank (skipped when the
quantized model is already within the bound), then one per exclusion step. `max_evaluations`
bounds the total: the ranking needs (candidates + 2) of it, which is a ValueError when it does
not fit, so the bound is never passed silently.

The metric is a `validate(compiled_model, validation_samples) -> float` callable (higher is
better), the way NNCF's `quantize_with_accuracy_control(validation_fn=...)` frames it: the
user runs the compiled Vireo model on the samples however the task needs (each sample is a
list of arrays in the model's input order) and returns a number. `sqnr_metric` and
`argmax_metric` build the two generic ones the CLI offers (`--accuracy-metric`).
"""
import os
import tempfile

import numpy as np
import onnx

from vireo_quantize import TARGETS, checked_samples, graph_inputs, np_type, plan, sqnr_db

METRICS = ("sqnr", "argmax")
RANKINGS = ("excluded", "isolated")
# Float slack when comparing a drop with max_drop (0.99 below 1.0 is 0.010000000000000009).
TOLERANCE = 1e-9
# The built-in SQNR metric clips each sample's SQNR at this level and takes it as the f32
# model's value (f32 against itself is infinite; f32 CPU against the original model measures
# 125-170 dB), so `max_drop` in dB reads as "at least SQNR_CEILING - max_drop dB".
SQNR_CEILING = 100.0


class AccuracyReport:
    """What the accuracy-aware search did: the metric of the f32 model, of the fully quantized
    model (`before`) and of the returned one (`after`), the points left in f32 in the order
    they were excluded, `history` (the metric after each of those steps), the ranking
    ((name, proxy SQNR dB), most harmful first), the number of evaluations (Vireo compiles)
    and whether the drop is within max_drop."""

    def __init__(self):
        self.f32 = None
        self.before = None
        self.after = None
        self.excluded = []
        self.history = []  # the metric after each exclusion step, in order
        self.ranking = []
        self.candidates = 0
        self.evaluations = 0
        self.met = False
        self.max_drop = None

    def __repr__(self):
        return (f"AccuracyReport(f32={self.f32:.4g}, before={self.before:.4g}, after={self.after:.4g}, "
                f"excluded={len(self.excluded)} of {self.candidates}, evaluations={self.evaluations}, "
                f"met={self.met})")

    def summary(self):
        return (f"metric f32 {self.f32:.4g}, int8 {self.before:.4g} -> {self.after:.4g} with "
                f"{len(self.excluded)} of {self.candidates} points in f32 "
                f"({', '.join(self.excluded) or 'none'}); {self.evaluations} evaluations; drop "
                f"{self.f32 - self.after:.4g} {'within' if self.met else 'NOT within'} {self.max_drop:g}"
                + (f"; metric after each step: {' '.join(f'{v:.4g}' for v in self.history)}"
                   if self.history else ""))


def check_arguments(metric=None, max_drop=0.0, max_excluded=None, max_evaluations=None, ranking="isolated"):
    """ValueError naming the argument (and its CLI flag) at fault."""
    if ranking not in RANKINGS:
        raise ValueError(f"--ranking (ranking) must be one of {', '.join(RANKINGS)}, not {ranking!r}")
    if metric is not None and metric not in METRICS:
        raise ValueError(f"--accuracy-metric (accuracy_metric) must be one of {', '.join(METRICS)}, "
                         f"not {metric!r}")
    if max_drop is None or not np.isfinite(max_drop) or max_drop < 0:
        raise ValueError(f"--max-drop (max_drop) must be a finite number >= 0, not {max_drop!r}")
    if max_excluded is not None and max_excluded < 0:
        raise ValueError(f"--max-excluded (max_excluded) must be >= 0, not {max_excluded!r}")
    if max_evaluations is not None and max_evaluations < 2:
        raise ValueError(f"--max-evaluations (max_evaluations) must be >= 2 (f32 and int8), "
                         f"not {max_evaluations!r}")


def held_out_random_samples(model, count, seed=1000):
    """`count` standard-normal samples from another seed than vireo_quantize's random
    calibration data (seed 0), so validation never sees a calibration sample."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        sample = []
        for i in graph_inputs(model):
            shape = [d.dim_value if d.dim_value > 0 else 1 for d in i.type.tensor_type.shape.dim]
            sample.append(rng.standard_normal(shape).astype(np_type(i.type.tensor_type.elem_type)))
        out.append(sample)
    return out


def run_outputs(compiled, samples):
    """Every output of `compiled` for each sample: a list (per sample) of lists of arrays."""
    request = compiled.create_infer_request()
    return [[np.array(v) for v in request.infer(list(s)).to_tuple()] for s in samples]


def sqnr_metric(reference):
    """validate(compiled, samples): the mean over samples of the SQNR (dB, clipped at
    SQNR_CEILING) of all outputs together against `reference` (the f32 outputs per sample)."""
    def validate(compiled, samples):
        values = []
        for ref, out in zip(reference, run_outputs(compiled, samples)):
            r = np.concatenate([a.astype(np.float64).ravel() for a in ref])
            q = np.concatenate([a.astype(np.float64).ravel() for a in out])
            values.append(min(sqnr_db(r, q), SQNR_CEILING))
        return float(np.mean(values))
    return validate


def argmax_metric(reference):
    """validate(compiled, samples): the fraction of samples whose argmax over the last axis of
    output 0 equals the reference's at every position (classifiers, CTC / sequence models)."""
    def validate(compiled, samples):
        same = [np.array_equal(np.argmax(ref[0], axis=-1), np.argmax(out[0], axis=-1))
                for ref, out in zip(reference, run_outputs(compiled, samples))]
        return float(np.mean(same))
    return validate


def builtin_metric(name, reference):
    check_arguments(metric=name)
    return sqnr_metric(reference) if name == "sqnr" else argmax_metric(reference)


def quantization_points(model, exclude, symmetric, all_outputs):
    """Names of the nodes whose exclusion removes Q/DQ pairs: the quantized Conv/Gemm/MatMul
    the Adds whose sum is quantized, the GlobalAveragePool / Concat nodes whose inputs are
    quantized, in graph order."""
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    targets, quantized, _, _ = plan(probe, exclude, not symmetric, all_outputs)
    inits = {t.name for t in probe.graph.initializer}
    target_names = {n.name for n in targets}
    points = []
    for node in probe.graph.node:
        if not node.name or node.name in exclude:
            continue
        if node.op_type in TARGETS and node.name in target_names:
            points.append(node.name)
        elif node.op_type == "Add":
            # Only a quantized sum: an Add of a constant (a MatMul's bias) or one no quantized
            # op reads stays f32 whatever its inputs are.
            if node.output[0] in quantized and not any(i in inits for i in node.input):
                points.append(node.name)
        elif node.op_type in ("GlobalAveragePool", "Concat") and any(i in quantized for i in node.input):
            points.append(node.name)
    return points


class Evaluator:
    """Compiles models on a Vireo device and counts the compiles."""

    def __init__(self, device, max_evaluations):
        import vireo  # noqa: E402 (the build's python module)
        self.core = vireo.Core()
        self.device = device
        self.max_evaluations = max_evaluations
        self.count = 0
        self.tmp = tempfile.TemporaryDirectory()

    def compile(self, model):
        self.count += 1
        path = os.path.join(self.tmp.name, f"candidate_{self.count}.onnx")
        onnx.save(model, path)
        compiled = self.core.compile_model(path, self.device)
        os.remove(path)
        return compiled

    def left(self):
        return None if self.max_evaluations is None else self.max_evaluations - self.count


def select_exclusions(f32_model, build, points, validation, validate, max_drop, max_excluded=None,
                      max_evaluations=None, rank_samples=8, device="CPU", ranking="isolated"):
    """The accuracy-aware search. build(extra_exclude: set) -> QDQ ModelProto from the
    calibrated parameters; points: candidate node names; validation: samples (lists of arrays
    in input order); validate(compiled, samples) -> float, higher is better, or None for the
    default (sqnr_metric against the f32 outputs). ranking: "excluded" scores each point by the
    output SQNR with it alone in f32 (highest first), "isolated" with it alone quantized and
    every other point in f32 (lowest first). Returns (QDQ model, AccuracyReport)."""
    check_arguments(max_drop=max_drop, max_excluded=max_excluded, max_evaluations=max_evaluations,
                    ranking=ranking)
    validation = list(validation)
    if not validation:
        raise ValueError("validation_data gave no sample: the accuracy-aware mode needs at least one")
    report = AccuracyReport()
    report.max_drop = max_drop
    report.candidates = len(points)
    ev = Evaluator(device, max_evaluations)
    f32_compiled = ev.compile(f32_model)
    reference = run_outputs(f32_compiled, validation)
    if validate is None:
        validate = sqnr_metric(reference)
    report.f32 = float(validate(f32_compiled, validation))
    del f32_compiled
    excluded = []
    q = build(set())
    report.before = report.after = float(validate(ev.compile(q), validation))
    report.met = report.f32 - report.after <= max_drop + TOLERANCE
    if report.met or not points or max_excluded == 0:
        report.evaluations = ev.count
        return q, report

    left = ev.left()
    if left is not None and left < len(points):
        raise ValueError(f"--max-evaluations (max_evaluations) {max_evaluations} is too small: ranking "
                         f"{len(points)} quantization points needs {len(points) + 2} evaluations "
                         f"(f32, int8 and one per point) before any exclusion")
    ranked_on = validation[:max(1, rank_samples)]
    ref_on = reference[:len(ranked_on)]
    proxy = sqnr_metric(ref_on)
    scores = []
    for k, name in enumerate(points):
        try:
            # a point whose exclusion needs a tensor never calibrated is no candidate
            candidate = alone_f32 = build({name})
            if ranking == "isolated":
                candidate = build(set(points) - {name})
        except KeyError:
            continue
        del alone_f32
        score = proxy(ev.compile(candidate), ranked_on)
        scores.append((score if ranking == "excluded" else -score, -k, name))
    scores.sort(reverse=True)
    report.ranking = [(name, score if ranking == "excluded" else -score) for score, _, name in scores]

    budget = len(scores) if max_excluded is None else min(max_excluded, len(scores))
    for _, _, name in scores[:budget]:
        if ev.left() is not None and ev.left() <= 0:
            break
        trial = excluded + [name]
        try:
            candidate = build(set(trial))
        except KeyError:
            continue  # this set needs a tensor that was never calibrated: the next point
        value = float(validate(ev.compile(candidate), validation))
        excluded, q, report.after = trial, candidate, value
        report.history.append(value)
        if report.f32 - value <= max_drop + TOLERANCE:
            report.met = True
            break
    report.excluded = excluded
    report.evaluations = ev.count
    return q, report


class AccuracyControl:
    """The accuracy-aware settings vireo_quantize.quantize(accuracy_control=...) runs after
    calibration; `report` holds the AccuracyReport afterwards."""

    def __init__(self, validation_data=None, validate=None, metric=None, max_drop=0.01,
                 max_excluded=None, max_evaluations=300, rank_samples=8, validation_count=16,
                 ranking="isolated"):
        check_arguments(metric, max_drop, max_excluded, max_evaluations, ranking)
        self.ranking = ranking
        if validate is not None and metric is not None:
            raise ValueError("give either validate (a callable) or accuracy_metric (a built-in name), not both")
        if validate is not None and not callable(validate):
            raise ValueError(f"validate must be a callable validate(compiled_model, samples) -> float, "
                             f"not {type(validate).__name__}")
        self.validation_data = validation_data
        self.validate = validate
        self.metric = metric
        self.max_drop = max_drop
        self.max_excluded = max_excluded
        self.max_evaluations = max_evaluations
        self.rank_samples = rank_samples
        self.validation_count = validation_count
        self.report = None

    def run(self, f32_model, build, points, device):
        data = self.validation_data
        if data is None:
            data = held_out_random_samples(f32_model, self.validation_count)
        samples = list(checked_samples(f32_model, data))
        validate = self.validate
        if validate is None and self.metric == "argmax":
            # the reference outputs are the f32 model's, computed by select_exclusions
            validate = _LazyReference(argmax_metric)
        q, self.report = select_exclusions(f32_model, build, points, samples, validate, self.max_drop,
                                           self.max_excluded, self.max_evaluations, self.rank_samples, device,
                                           self.ranking)
        return q


class _LazyReference:
    """A built-in metric whose f32 reference outputs are computed on first use, from the
    compiled model select_exclusions evaluates first (the f32 one)."""

    def __init__(self, factory):
        self.factory = factory
        self.metric = None

    def __call__(self, compiled, samples):
        if self.metric is None:
            self.metric = self.factory(run_outputs(compiled, samples))
        return self.metric(compiled, samples)


def quantize_with_accuracy_control(model_or_path, output_path=None, calibration_data=None,
                                   validation_data=None, validate=None, max_drop=0.01,
                                   max_excluded=None, max_evaluations=300, accuracy_metric=None,
                                   rank_samples=8, ranking="isolated", **quantize_options):
    """vireo_quantize.quantize, then the accuracy-aware search; returns (QDQ ModelProto,
    AccuracyReport) and saves the model to output_path when given.

    validate(compiled_model, validation_samples) -> float, higher is better: the compiled Vireo
    model and the samples (each a list of arrays in input order); default (and
    accuracy_metric="sqnr"): mean SQNR in dB of all outputs against f32, clipped at 100 dB;
    accuracy_metric="argmax": the fraction of samples whose output-0 argmax over the last axis
    is unchanged. max_drop: the largest drop allowed, absolute, in the metric's unit.
    validation_data: samples like calibration_data (default 16 random ones, other than the
    calibration ones). max_excluded: at most this many points returned to f32 (default all);
    max_evaluations: at most this many compiles in all (a ValueError when ranking does not fit).
    ranking: "isolated" (default) or "excluded", see select_exclusions.
    Other keyword arguments go to quantize (calibration, exclude, device, ...)."""
    import vireo_quantize
    control = AccuracyControl(validation_data, validate, accuracy_metric, max_drop, max_excluded,
                              max_evaluations, rank_samples, ranking=ranking)
    q = vireo_quantize.quantize(model_or_path, output_path, calibration_data,
                                accuracy_control=control, **quantize_options)
    return q, control.report
