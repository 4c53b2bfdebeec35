"""SmoothQuant for vireo_quantize: per-input-channel activation scale moved into the weights.

For a MatMul or Gemm with constant weights W reading an activation X, X W = (X / s) (s W) for
any positive per-input-channel s; with s_j = max|X_j|^alpha / max|W_j|^(1 - alpha) (SmoothQuant,
Xiao et al. 2022; NNCF's default alpha for MatMul is 0.95) the channels of X / s have nearly
equal ranges, so one per-tensor activation scale fits them all, and the per-output-channel
weight scales take the difference. X / s is folded into X's producer when that is a per-channel
affine op (a Mul/Div by a constant, with Adds/Subs of constants and channel-keeping Transposes
after it: a decomposed LayerNorm's scale and bias; LayerNormalization's scale and bias), else
a constant Mul is inserted before the MatMuls (one f32 op at run time).

    smoother = SmoothQuant(model, targets, inits, alpha="auto")   # or an alpha in [0, 1]
    run the model, smoother.add(name, value) for name in smoother.tensors()
    changed = smoother.apply(model)   # {tensor whose values changed: s} (X / s, per channel)
"""
import numpy as np
from onnx import helper, numpy_helper

# NNCF's default alpha for MatMul (AdvancedSmoothQuantParameters.matmul).
DEFAULT_ALPHA = 0.95
# "auto" tries these alphas (NNCF's first) on each activation and keeps the one whose estimated
# output noise (estimated_noise) is lowest, if it is below ACCEPT times the unsmoothed one's.
AUTO_ALPHAS = (DEFAULT_ALPHA, 0.75, 0.5)
ACCEPT = 0.5
# Scales are clipped to [their 10 % quantile, SCALE_MAX], as NNCF does: a near-zero channel
# would otherwise get a huge weight multiplier, an outlier one a tiny one.
SCALE_QUANTILE = 0.1
SCALE_MAX = 100.0


class ChannelRange:
    """Per-channel min and max of a tensor along its last axis, over all samples."""

    def __init__(self):
        self.lo = self.hi = None
        self.square_sum, self.count = 0.0, 0
        self.finite = True

    def add(self, x):
        x = np.asarray(x, np.float64)
        x = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
        if not np.all(np.isfinite(x)):
            self.finite = False
            return
        lo, hi = x.min(axis=0), x.max(axis=0)
        self.lo = lo if self.lo is None else np.minimum(self.lo, lo)
        self.hi = hi if self.hi is None else np.maximum(self.hi, hi)
        self.square_sum = self.square_sum + np.sum(x * x, axis=0)
        self.count += x.shape[0]

    def absmax(self):
        return np.maximum(np.abs(self.lo), np.abs(self.hi))


def estimated_noise(stat, weights, s):
    """Output noise power of int8 X W with X / s per tensor u8 and s W per output channel s8,
    from the statistics: rounding X adds (step_x^2 / 12) * sum W'^2, rounding W' adds
    sum_n (step_n^2 / 12) * sum_j E[x'_j^2] (uniform rounding errors, independent)."""
    lo, hi = min(0.0, float(np.min(stat.lo / s))), max(0.0, float(np.max(stat.hi / s)))
    step_x = (hi - lo) / 255.0
    mean_square = stat.square_sum / max(stat.count, 1) / (s * s)
    total = 0.0
    for w in weights:  # [K, N], input channels first
        ws = w * s[:, None]
        step_w = np.abs(ws).max(axis=0) / 127.0
        total += step_x ** 2 / 12.0 * float(np.sum(ws * ws)) + float(np.sum(step_w ** 2 / 12.0)) * float(np.sum(mean_square))
    return total


def outlier_ratio(absmax):
    """Largest per-channel |x| over the median channel's (inf when the median is 0)."""
    median = float(np.median(absmax))
    return float(np.max(absmax)) / median if median > 0 else float("inf")


def smoothing_scales(act_absmax, weight_absmax, alpha):
    """s_j = max|X_j|^alpha / max|W_j|^(1 - alpha), clipped to [10 % quantile, SCALE_MAX]."""
    eps = np.finfo(np.float32).eps
    s = np.power(act_absmax, alpha) / (np.power(weight_absmax, 1.0 - alpha) + eps)
    s = np.clip(s, np.quantile(s, SCALE_QUANTILE), SCALE_MAX)
    return np.where(s > 0, s, 1.0)


def input_channel_axis(node):
    """The axis of a MatMul's [K, N] or a Gemm's weights along which the input channels run."""
    trans_b = node.op_type == "Gemm" and any(a.name == "transB" and a.i for a in node.attribute)
    return 1 if trans_b else 0


class SmoothQuant:
    """SmoothQuant of the MatMuls/Gemms `targets` (constant weights) of `model`.

    alpha: a float in [0, 1] smooths every candidate activation with that alpha; "auto" smooths
    only where the statistics say it pays: for each activation, the alpha of AUTO_ALPHAS whose
    estimated output noise is lowest, when that is under ACCEPT times the noise unsmoothed (an
    activation with outlier channels; on evenly spread ones the weights' rounding would grow
    more than the activation's shrinks).
    An activation read by several targets (Q, K and V projections) gets one scale for all, from
    the largest |W_j| among them."""

    def __init__(self, model, targets, inits, alpha="auto"):
        if alpha != "auto" and not (isinstance(alpha, (int, float)) and 0.0 <= alpha <= 1.0):
            raise ValueError(f"smooth_quant must be 'auto', None or an alpha in [0, 1], got {alpha!r}")
        self.alpha = alpha
        self.groups = {}
        for node in targets:
            if node.op_type in ("MatMul", "Gemm") and node.input[0] not in inits:
                self.groups.setdefault(node.input[0], []).append(node)
        self.stats = {x: ChannelRange() for x in self.groups}
        self.report = []  # (activation, readers, outlier ratio, "folded" | "multiply" | "skipped")
        self.source = {}  # smoothed tensor -> the activation whose channel ranges it has, over s

    def tensors(self):
        return list(self.groups)

    def add(self, name, value):
        if name in self.stats:
            self.stats[name].add(value)

    def apply(self, model):
        """Smooths `model` in place; returns {tensor: s} for every tensor whose values became
        x / s (per last-axis channel). Tensors left as they were are not in it."""
        inits = {t.name: t for t in model.graph.initializer}
        changed = {}
        for x, nodes in self.groups.items():
            stat = self.stats[x]
            if stat.lo is None or not stat.finite:
                continue
            absmax = stat.absmax()
            ratio = outlier_ratio(absmax)
            weights = [numpy_helper.to_array(inits[n.input[1]]).astype(np.float64) for n in nodes]
            if any(w.shape[input_channel_axis(n)] != absmax.size for w, n in zip(weights, nodes)):
                continue
            w_absmax = np.max([np.abs(w).max(axis=1 - input_channel_axis(n)) for w, n in zip(weights, nodes)], axis=0)
            if self.alpha == "auto":
                kn = [w if input_channel_axis(n) == 0 else w.T for w, n in zip(weights, nodes)]
                base = estimated_noise(stat, kn, np.ones_like(absmax))
                tried = [(estimated_noise(stat, kn, smoothing_scales(absmax, w_absmax, a)), a) for a in AUTO_ALPHAS]
                noise, alpha = min(tried)
                if not noise < ACCEPT * base:
                    self.report.append((x, [n.name for n in nodes], ratio, "skipped"))
                    continue
            else:
                alpha = float(self.alpha)
            s = smoothing_scales(absmax, w_absmax, alpha)
            for node, w in zip(nodes, weights):
                shape = [-1, 1] if input_channel_axis(node) == 0 else [1, -1]
                name = unique_name(inits, node.input[1] + "_smoothed")
                add_init(model, inits, (w * s.reshape(shape)).astype(np.float32), name)
                node.input[1] = name
            folded = fold_into_producer(model, inits, x, nodes, s)
            if folded is not None:
                for t in folded:
                    changed[t] = s
                self.source[x] = x
                self.report.append((x, [n.name for n in nodes], ratio, "folded"))
            else:
                y = unique_name(inits, x + "_smoothed")
                inv = unique_name(inits, x + "_smooth_scale")
                add_init(model, inits, (1.0 / s).astype(np.float32), inv)
                mul = helper.make_node("Mul", [x, inv], [y], name=y + "_Mul")
                position = min(list(model.graph.node).index(n) for n in nodes)
                model.graph.node.insert(position, mul)
                for n in nodes:
                    n.input[0] = y
                changed[y] = s
                self.source[y] = x
                self.report.append((x, [n.name for n in nodes], ratio, "multiply"))
        return changed

    def summary(self):
        done = [r for r in self.report if r[3] != "skipped"]
        muls = sum(1 for r in done if r[3] == "multiply")
        return (f"{len(done)} of {len(self.report)} activations smoothed ({len(done) - muls} folded into their "
                f"producer, {muls} by an inserted Mul)")


def unique_name(inits, name):
    while name in inits:
        name += "_"
    return name


def add_init(model, inits, array, name):
    t = numpy_helper.from_array(array, name)
    model.graph.initializer.append(t)
    inits[name] = t


def fold_into_producer(model, inits, x, readers, s):
    """Divides x by s per last-axis channel by rewriting the ops that produce it, or returns
    None when they are no per-channel affine chain. The chain, from x back: channel-keeping
    Transposes and Adds/Subs of a constant (its constant divided by s), ended by a Mul or Div by
    a constant or a LayerNormalization over the last axis (its scale and bias divided by s).
    Every tensor of the chain must be read only by the next op of it (x: only by `readers`)."""
    producers = {o: n for n in model.graph.node for o in n.output}
    uses = {}
    for n in model.graph.node:
        for i in n.input:
            uses.setdefault(i, []).append(n)
    outputs = {o.name for o in model.graph.output}
    k = s.size
    edits, tensors = [], []
    t, expected = x, {id(n) for n in readers}
    while True:
        if t in outputs or {id(n) for n in uses.get(t, [])} != expected or len(uses.get(t, [])) != len(expected):
            return None
        tensors.append(t)
        p = producers.get(t)
        if p is None:
            return None
        expected = {id(p)}
        if p.op_type == "Transpose":
            perm = next((list(a.ints) for a in p.attribute if a.name == "perm"), None)
            if perm is None or perm[-1] != len(perm) - 1:
                return None
            t = p.input[0]
            continue
        if p.op_type == "LayerNormalization":
            axis = next((a.i for a in p.attribute if a.name == "axis"), -1)
            if axis != -1 or any(i and i not in inits for i in p.input[1:]):
                return None
            for i in range(1, len(p.input)):
                if p.input[i]:
                    edits.append((p, i, "divide"))
            break
        consts = [i for i, name in enumerate(p.input) if name in inits]
        if p.op_type not in ("Mul", "Div", "Add", "Sub") or len(p.input) != 2 or len(consts) != 1:
            return None
        c = numpy_helper.to_array(inits[p.input[consts[0]]])
        if not (c.size == 1 or (c.shape[-1] == k and c.size == k)):
            return None
        if p.op_type == "Div" and consts[0] != 1:
            return None  # c / t is no scaling of t
        edits.append((p, consts[0], "multiply" if p.op_type == "Div" else "divide"))
        if p.op_type in ("Mul", "Div"):
            break
        t = p.input[1 - consts[0]]
    for node, i, how in edits:
        c = numpy_helper.to_array(inits[node.input[i]]).astype(np.float64)
        shape = list(c.shape) if c.size == k else [k]
        v = c.reshape(-1)[0] if c.size == 1 else c.reshape(-1)
        v = v * s if how == "multiply" else v / s
        name = unique_name(inits, node.input[i] + "_smoothed")
        add_init(model, inits, v.reshape(shape).astype(np.float32), name)
        node.input[i] = name
    return tensors
