#!/usr/bin/env python3
"""vireo_quantize: post-training static quantization of an ONNX model into QDQ form.

Calibration (min-max, percentile, entropy or least squared error) on samples from a data
iterator, a directory of .npy inputs or random data (with a warning), run on Vireo itself;
per-channel symmetric s8 weights; u8 asymmetric (or s8 symmetric) activations; int32 biases,
optionally bias-corrected.
Writes QuantizeLinear/DequantizeLinear pairs the way ONNX Runtime's quantizer does, so ORT and
Vireo's CPU plugin run the same file:

- every Conv, Gemm and MatMul with constant weights gets its activation input quantized, its
  weights DequantizeLinear'd from s8 (per output channel) and its bias from int32 (scale
  x_scale * w_scale);
- its output is quantized too, unless it is a model output (or, with --quantize-outputs
  int8-read, only f32 ops read it); a Relu or Clip(0, max) that is the output's only consumer is
  removed and its range used instead (a u8 zero point of 0 saturates exactly like the activation);
- MaxPool keeps its input's parameters (it commutes with dequantization), so the CPU runs it on
  the integers; a Concat's inputs that only it reads share its output's parameters.
Every quantized tensor has one QuantizeLinear/DequantizeLinear pair that all its consumers read.
Models below opset 13 are converted to 13 first; a BatchNormalization after a Conv is folded in.

    python3 tools/quantize/vireo_quantize.py model.onnx model.int8.onnx --calib calib_dir/ \
        --calibration entropy --bias-correction

or from Python, with tools/quantize on sys.path:

    from vireo_quantize import quantize
    qmodel = quantize("model.onnx", "model.int8.onnx", calibration_data=batches(),
                      calibration="percentile", percentile=99.99)
"""
import argparse
import glob
import itertools
import os
import sys
import tempfile
import warnings

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

from vireo_calibration import DEFAULT_BINS, METHODS, RangeCollector, check_method
import vireo_smoothing

TARGETS = ("Conv", "Gemm", "MatMul")
# Ops besides the targets that read a quantized tensor's integers on the way to a target (an Add
# of activations is quantized only when one of these, or a target, reads its output; another
# Add does not count: a pre-LN transformer's residual sums read each other and LayerNorms).
INTEGER_READERS = ("Concat", "GlobalAveragePool", "MaxPool")
# DequantizeLinear per channel (the `axis` attribute) needs opset 13 of the default domain.
QDQ_OPSET = 13
# Largest |int32 bias| the quantizer writes before bias correction (2^30: room for its shift).
BIAS_LIMIT = float(2 ** 30)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("input", help="f32 ONNX model")
    p.add_argument("output", help="QDQ ONNX model to write")
    p.add_argument("--calib", help="directory of .npy calibration inputs: <input name>_<k>.npy, or "
                   "<k>.npy for a one-input model (default: random data, with a warning)")
    p.add_argument("--samples", type=int, default=8, help="random calibration samples (default 8)")
    p.add_argument("--calibration", default="minmax", choices=METHODS,
                   help="how activation ranges are chosen (default minmax)")
    p.add_argument("--percentile", type=float, default=99.999,
                   help="with --calibration percentile: the %% of values kept (default 99.999)")
    p.add_argument("--bias-correction", action="store_true",
                   help="shift int32 biases so each op's mean output per channel matches f32")
    p.add_argument("--symmetric-activations", action="store_true",
                   help="s8 activations with zero point 0 instead of u8 asymmetric")
    p.add_argument("--per-tensor-weights", action="store_true", help="one weight scale per tensor")
    p.add_argument("--quantize-outputs", default="all", choices=("all", "int8-read"),
                   help="all (default, ONNX Runtime's layout): every quantized op's output gets a Q/DQ "
                   "pair; int8-read: only outputs some integer op reads (Vireo's CPU then runs an int8 "
                   "op followed by f32 ops with an f32 output, one rounding and two steps fewer)")
    p.add_argument("--exclude", default="", help="comma-separated node names left in f32")
    p.add_argument("--smooth-quant", default="off", metavar="off|auto|ALPHA",
                   help="SmoothQuant: move per-input-channel activation range into the weights of MatMuls and "
                   "Gemms (into the producing LayerNorm/Mul when it is per-channel affine, else by an inserted Mul); "
                   "off (default); auto: where the calibration statistics estimate at least half the output noise gone, "
                   f"with the best of alpha {', '.join(map(str, vireo_smoothing.AUTO_ALPHAS))} (NNCF's is "
                   f"{vireo_smoothing.DEFAULT_ALPHA}); ALPHA in [0, 1]: every MatMul/Gemm input with that alpha")
    p.add_argument("--accuracy-metric", help="accuracy-aware mixed precision: sqnr (mean SQNR in dB of "
                   "all outputs against f32) or argmax (fraction of samples whose output-0 argmax over the "
                   "last axis is unchanged); the most sensitive ops go back to f32 until the drop is "
                   "within --max-drop")
    p.add_argument("--max-drop", type=float, default=None,
                   help="with --accuracy-metric: the largest drop allowed, absolute (dB for sqnr, measured "
                   "from 100 dB: 70 asks for 30 dB; a fraction for argmax; default 70 / 0.01)")
    p.add_argument("--validation", help="with --accuracy-metric: directory of .npy validation inputs (the "
                   "--calib layout; default: 16 random samples other than the calibration ones)")
    p.add_argument("--max-excluded", type=int, default=None,
                   help="with --accuracy-metric: at most this many ops returned to f32 (default: no limit)")
    p.add_argument("--max-evaluations", type=int, default=300,
                   help="with --accuracy-metric: at most this many compiles on the device (default 300)")
    p.add_argument("--ranking", default=None,
                   help="with --accuracy-metric: isolated (default: each op scored with it alone quantized) or "
                   "excluded (with it alone in f32)")
    p.add_argument("--device", default="CPU", help="Vireo device that runs calibration")
    p.add_argument("--check", nargs="*", metavar="NPY",
                   help="after writing, run the f32 and the quantized model on these inputs (one "
                   ".npy per model input; default: the first calibration sample) and print the "
                   "signal-to-quantization-noise ratio of each output in dB")
    return p.parse_args(argv)


def initializers(model):
    return {t.name: t for t in model.graph.initializer}


def consumers_of(model):
    uses = {}
    for node in model.graph.node:
        for i, name in enumerate(node.input):
            uses.setdefault(name, []).append((node, i))
    return uses


def clip_bounds(node, inits):
    """(min, max) of a Clip, attributes (opset < 11) or constant inputs; None when unknown."""
    lo, hi = -np.inf, np.inf
    for a in node.attribute:
        if a.name == "min":
            lo = a.f
        if a.name == "max":
            hi = a.f
    for i, bound in ((1, "lo"), (2, "hi")):
        if len(node.input) > i and node.input[i]:
            if node.input[i] not in inits:
                return None
            v = float(numpy_helper.to_array(inits[node.input[i]]))
            lo, hi = (v, hi) if bound == "lo" else (lo, v)
    return lo, hi


def fold_constant_nodes(model):
    """Constant nodes become initializers (exporters write Clip bounds as Constant nodes)."""
    kept = []
    for node in model.graph.node:
        if node.op_type == "Constant" and len(node.attribute) == 1 and node.attribute[0].name == "value":
            t = onnx.TensorProto()
            t.CopyFrom(node.attribute[0].t)
            t.name = node.output[0]
            model.graph.initializer.append(t)
        else:
            kept.append(node)
    del model.graph.node[:]
    model.graph.node.extend(kept)


def fold_batch_norms(model):
    """A BatchNormalization that is the only reader of a Conv with constant weights (and bias)
    is folded into them, as ONNX Runtime's pre-processing and NNCF do before quantizing: the
    weights are then quantized with the normalization's per-channel scale in them, and the
    quantized Conv's output is the normalized value, not an intermediate one the f32
    BatchNormalization reads through a Dequantize step. PaddlePaddle's exports keep them apart."""
    inits = initializers(model)
    uses = consumers_of(model)
    producers = {o: n for n in model.graph.node for o in n.output}
    outputs = {o.name for o in model.graph.output}
    folded = set()
    for bn in model.graph.node:
        if bn.op_type != "BatchNormalization" or len(bn.output) != 1 or len(bn.input) != 5:
            continue
        conv = producers.get(bn.input[0])
        if (conv is None or conv.op_type != "Conv" or len(uses.get(bn.input[0], [])) != 1
                or bn.input[0] in outputs or any(i not in inits for i in bn.input[1:])
                or len(conv.input) < 2 or conv.input[1] not in inits
                or (len(conv.input) > 2 and conv.input[2] and conv.input[2] not in inits)):
            continue
        eps = next((a.f for a in bn.attribute if a.name == "epsilon"), 1e-5)
        gamma, beta, mean, var = (numpy_helper.to_array(inits[i]).astype(np.float64) for i in bn.input[1:])
        w = numpy_helper.to_array(inits[conv.input[1]]).astype(np.float64)
        b = (numpy_helper.to_array(inits[conv.input[2]]).astype(np.float64)
             if len(conv.input) > 2 and conv.input[2] else np.zeros(w.shape[0]))
        scale = gamma / np.sqrt(var + eps)
        base = conv.output[0].replace("/", "_").replace(":", "_")
        model.graph.initializer.extend([
            numpy_helper.from_array((w * scale.reshape([-1] + [1] * (w.ndim - 1))).astype(np.float32),
                                    base + "_bn_folded_w"),
            numpy_helper.from_array(((b - mean) * scale + beta).astype(np.float32), base + "_bn_folded_b")])
        del conv.input[1:]
        conv.input.extend([base + "_bn_folded_w", base + "_bn_folded_b"])
        conv.output[0] = bn.output[0]
        folded.add(id(bn))
    kept = [n for n in model.graph.node if id(n) not in folded]
    del model.graph.node[:]
    model.graph.node.extend(kept)
    referenced = {i for n in model.graph.node for i in n.input}
    keep = [t for t in model.graph.initializer if t.name in referenced]
    del model.graph.initializer[:]
    model.graph.initializer.extend(keep)
    return len(folded)


def default_opset(model):
    return next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), None)


def upgrade_opset(model, sample, device):
    """A copy of `model` converted to opset QDQ_OPSET by onnx's version converter when it is
    older (PaddlePaddle and older PyTorch exports are at opset 9-11, where QuantizeLinear is
    missing or has no axis).

    The converter's adapters need each converted op's input rank (Softmax 12 -> 13 changes its
    axis semantics and is rewritten when the axis is not the last), which ONNX shape inference
    cannot give past a Reshape to a computed shape; so the model runs once on `sample` and every
    tensor's type and rank are written into value_info (symbolic dimensions: nothing is fixed to
    this sample)."""
    from onnx import version_converter
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    names = [o for n in probe.graph.node for o in n.output if o]
    ranks = {}
    run_model(probe, names, [sample], device, lambda name, value: ranks.setdefault(name, value))
    del probe.graph.value_info[:]
    outputs = {o.name for o in probe.graph.output}
    for name, value in ranks.items():
        if name in outputs:
            continue
        try:
            elem = helper.np_dtype_to_tensor_dtype(value.dtype)
        except AttributeError:  # onnx < 1.13
            elem = onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[value.dtype]
        probe.graph.value_info.append(helper.make_tensor_value_info(
            name, elem, [f"{name}_d{i}" for i in range(value.ndim)]))
    try:
        converted = version_converter.convert_version(probe, QDQ_OPSET)
    except Exception as e:  # the converter raises RuntimeError or its own C++ errors
        raise ValueError(f"the model is at opset {default_opset(model)}; QDQ needs {QDQ_OPSET} and onnx's "
                         f"version converter failed: {e}") from e
    del converted.graph.value_info[:]
    fold_constant_nodes(converted)
    return converted


def plan(model, exclude, remove_relu=True, all_outputs=True):
    """Which tensors get a Q/DQ pair: {tensor: (calibrated tensor, removed activation or None)}.

    remove_relu: only with u8 activations, whose zero point 0 saturates like Relu; an s8 zero
    point of 0 keeps the negative values, so with symmetric activations every Relu stays.
    Also returns `shared` ({MaxPool output: its input}) and `groups`: lists of tensors of
    `quantized` that must get one scale and zero point (a Concat's output and its inputs).
    all_outputs: False leaves a quantized op's output in f32 when no reader of it runs on the
    integers (every reader is an f32 op: the pair would only add a rounding and two steps)."""
    inits = initializers(model)
    floats = float_tensors(model)
    uses = consumers_of(model)
    outputs = {o.name for o in model.graph.output}
    quantized, shared = {}, {}
    targets = []
    needed, produced = set(), []  # tensors a quantized op reads; outputs quantize_output gave a pair

    def quantize_output(y):
        """y gets a Q/DQ pair unless it is a model output; a Relu or Clip(0, max) that is its
        only reader is removed and calibrated instead."""
        if y in outputs:
            return
        produced.append(y)
        after = uses.get(y, [])
        if (remove_relu and len(after) == 1 and after[0][0].op_type in ("Relu", "Clip")
                and after[0][0].name not in exclude):
            act = after[0][0]
            bounds = (0.0, np.inf) if act.op_type == "Relu" else clip_bounds(act, inits)
            if bounds is not None and bounds[0] == 0.0 and act.output[0] not in outputs:
                quantized[y] = (act.output[0], act)
                return
        quantized.setdefault(y, (y, None))

    for node in model.graph.node:
        if node.op_type not in TARGETS or node.name in exclude:
            continue
        if len(node.input) < 2 or node.input[1] not in inits:
            continue
        w = numpy_helper.to_array(inits[node.input[1]])
        if node.op_type == "MatMul" and w.ndim != 2:
            continue
        if node.op_type == "Gemm" and any(a.name == "transA" and a.i for a in node.attribute):
            continue
        targets.append(node)
        if node.input[0] not in inits:
            quantized.setdefault(node.input[0], (node.input[0], None))
            needed.add(node.input[0])
        quantize_output(node.output[0])
    # Add of two activations and GlobalAveragePool: inputs and output quantized, the QDQ form
    # ONNX Runtime fuses into QLinearAdd / QLinearGlobalAveragePool; Vireo's CPU runs the Add
    # in int8 (docs/quantization.md) and the pooling on the dequantized values. An Add only when
    # integers go on from it (a residual block's sum read by the next convolution): a
    # transformer's residual sum, read only by a LayerNorm, would gain a rounding of the whole
    # residual stream (5 dB of the corpus encoder's output) and run no faster.
    weighted = {n.name for n in targets}

    def integer_reader(y):
        for reader, _ in uses.get(y, []):
            if reader.op_type in ("Relu", "Clip") and len(reader.output) == 1:
                if any(r.name in weighted or r.op_type in INTEGER_READERS for r, _ in uses.get(reader.output[0], [])):
                    return True
            elif reader.name in weighted or reader.op_type in INTEGER_READERS:
                return True
        return False

    for node in model.graph.node:
        if node.name in exclude:
            continue
        if (node.op_type == "Add" and len(node.input) == 2 and not any(i in inits for i in node.input)
                and all(i in floats for i in node.input) and integer_reader(node.output[0])):
            sources = list(node.input)
        elif node.op_type == "GlobalAveragePool":
            sources = [node.input[0]]
        else:
            continue
        for src in sources:
            quantized.setdefault(src, (src, None))
            needed.add(src)
        quantize_output(node.output[0])
    # Concat of float activations: its inputs and its output quantized (its Relu removed), all
    # with one scale and zero point where an input has no other reader, so a runtime can
    # concatenate the integers (see `groups`). ONNX Runtime's quantizer gives each its own
    # parameters and its QLinearConcat requantizes the inputs that differ; NNCF and TFLite
    # unify them as done here. Like an Add, only when integers go on from it (a CNN's branches
    # read by the next convolution or pooling): ViT's class token joined to the patch
    # embeddings, read by an Add and a LayerNorm, shared one scale with tokens 50x larger,
    # rounded to a step or two, and the LayerNorm blew that up.
    concats = []
    for node in model.graph.node:
        if (node.op_type != "Concat" or node.name in exclude or node.output[0] in outputs
                or any(i in inits or i not in floats for i in node.input)
                or not integer_reader(node.output[0])):
            continue
        for src in node.input:
            quantized.setdefault(src, (src, None))
            needed.add(src)
        quantize_output(node.output[0])
        concats.append(node)
    if not all_outputs:
        for y in produced:
            if y not in quantized or y in needed:
                continue
            act = quantized[y][1]
            read = act.output[0] if act is not None else y
            if read not in needed and not any(n.op_type == "MaxPool" for n, _ in uses.get(read, [])):
                del quantized[y]  # an activation it was to replace stays
    # The output of a removed activation is no tensor of its own any more.
    removed = {a.output[0]: t for t, (_, a) in quantized.items() if a is not None}
    for name in removed:
        quantized.pop(name, None)
    groups = []
    for node in concats:
        members = [node.output[0]] if node.output[0] in quantized else []
        for src in node.input:
            key = removed.get(src, src)
            # An input read elsewhere too keeps its own parameters: the Concat's range (and a
            # Relu removed after it) must not change what its other readers see.
            if key in quantized and len(uses.get(src, [])) == 1 and (key == src or len(uses.get(key, [])) == 1):
                members.append(key)
        groups.append(members)
    groups = merge_groups(groups)
    # MaxPool of a quantized tensor: quantized with its input's parameters.
    for node in model.graph.node:
        if node.op_type == "MaxPool" and len(node.output) == 1 and node.output[0] not in outputs:
            src = node.input[0]
            if src in quantized or src in removed:
                quantized.pop(node.output[0], None)
                shared[node.output[0]] = src
                for g in groups:
                    if node.output[0] in g:
                        g.remove(node.output[0])
    return targets, quantized, shared, [g for g in groups if len(g) > 1]


def nodes_touching(model, tensors):
    """Names of the nodes that write or read any of `tensors` (to leave them out of the plan)."""
    return {node.name for node in model.graph.node
            if any(t in tensors for t in list(node.input) + list(node.output))}


def merge_groups(groups):
    """Groups that share a tensor become one (a Concat of a Concat's output)."""
    merged = []
    for g in groups:
        g = list(dict.fromkeys(g))
        for other in [m for m in merged if set(m) & set(g)]:
            merged.remove(other)
            g = list(dict.fromkeys(other + g))
        merged.append(g)
    return merged


def float_tensors(model):
    """Names of the tensors ONNX type inference finds to be float (the graph's inputs, its
    initializers and what the ops compute from them); empty when inference fails."""
    kinds = (TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.BFLOAT16, TensorProto.DOUBLE)
    try:
        inferred = onnx.shape_inference.infer_shapes(model)
    except Exception:  # a model the checker rejects: no Concat or Add of activations is quantized
        return set()
    infos = list(inferred.graph.input) + list(inferred.graph.value_info) + list(inferred.graph.output)
    names = {i.name for i in infos if i.type.tensor_type.elem_type in kinds}
    return names | {t.name for t in model.graph.initializer if t.data_type in kinds}


def graph_inputs(model):
    inits = initializers(model)
    return [i for i in model.graph.input if i.name not in inits]


def np_type(elem_type):
    try:
        return helper.tensor_dtype_to_np_dtype(elem_type)
    except AttributeError:  # onnx < 1.13
        return onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[elem_type]


def checked_samples(model, data):
    """Each calibration sample as a list of arrays in the model's input order, checked.

    A sample is a dict {input name: array}, a list or tuple in input order, or (one-input
    models) one array. Static dimensions must match; values are converted to the input's type.
    """
    inputs = graph_inputs(model)
    names = [i.name for i in inputs]
    for k, sample in enumerate(data):
        if isinstance(sample, dict):
            unknown = sorted(set(sample) - set(names))
            if unknown:
                raise ValueError(f"calibration sample {k} has {unknown[0]!r}, which is no model input "
                                 f"(inputs: {', '.join(names)})")
            missing = [n for n in names if n not in sample]
            if missing:
                raise ValueError(f"calibration sample {k} has no value for input {missing[0]!r} "
                                 f"(inputs: {', '.join(names)})")
            values = [sample[n] for n in names]
        elif isinstance(sample, (list, tuple)):
            if len(sample) != len(names):
                raise ValueError(f"calibration sample {k} has {len(sample)} values for a model with "
                                 f"{len(names)} inputs ({', '.join(names)})")
            values = list(sample)
        elif len(names) == 1:
            values = [sample]
        else:
            raise ValueError(f"calibration sample {k} is one value for a model with {len(names)} "
                             f"inputs ({', '.join(names)}): give a dict name -> array")
        checked = []
        for value, info in zip(values, inputs):
            value = np.ascontiguousarray(value, dtype=np_type(info.type.tensor_type.elem_type))
            dims = [d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else None
                    for d in info.type.tensor_type.shape.dim]
            if len(dims) != value.ndim or any(d is not None and d != v for d, v in zip(dims, value.shape)):
                shown = ["?" if d is None else d for d in dims]
                raise ValueError(f"calibration sample {k}: input {info.name!r} has shape "
                                 f"{list(value.shape)}, the model expects {shown}")
            checked.append(value)
        yield checked


def random_samples(model, count):
    """`count` standard-normal samples (seeded), free dimensions set to 1."""
    rng = np.random.default_rng(0)
    for _ in range(count):
        sample = []
        for i in graph_inputs(model):
            shape = [d.dim_value if d.dim_value > 0 else 1 for d in i.type.tensor_type.shape.dim]
            sample.append(rng.standard_normal(shape).astype(np_type(i.type.tensor_type.elem_type)))
        yield sample


def directory_samples(model, calib):
    """The .npy files of a directory: <input name>_<k>.npy, or <k>.npy for a one-input model."""
    inputs = graph_inputs(model)
    files = sorted(glob.glob(os.path.join(calib, "*.npy")))
    if len(inputs) == 1:
        for f in files:
            yield [np.load(f)]
        return
    per_input = [sorted(f for f in files if os.path.basename(f).startswith(i.name + "_")) for i in inputs]
    for fs in zip(*per_input):
        yield [np.load(f) for f in fs]


def run_model(model, tensors, samples, device, visit):
    """Runs `model` on each sample on Vireo and calls visit(tensor, value) for each of `tensors`
    (model inputs are read from the sample, the others made extra outputs); returns the count
    of samples."""
    import vireo  # noqa: E402 (the build's python module, PYTHONPATH=build/python)
    inputs = [i.name for i in graph_inputs(model)]
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    known = {o.name for o in probe.graph.output}
    for name in tensors:
        if name not in known and name not in inputs:
            probe.graph.output.append(helper.make_empty_tensor_value_info(name))
    outputs = [o.name for o in probe.graph.output]
    wanted = set(tensors)
    count = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "probe.onnx")
        onnx.save(probe, path)
        request = vireo.Core().compile_model(path, device).create_infer_request()
        for sample in samples:
            for name, value in zip(inputs, sample):
                if name in wanted:
                    visit(name, value)
            results = request.infer(list(sample)).to_tuple()
            for name, value in zip(outputs, results):
                if name in wanted:
                    visit(name, np.asarray(value))
            count += 1
    return count


class ChannelMeans:
    """Mean of each channel (along `axis`) of one tensor over all samples, kept as running sums."""

    def __init__(self, axis):
        self.axis = axis
        self.sum = None
        self.count = 0

    def add(self, value):
        v = np.moveaxis(np.asarray(value, np.float64), self.axis, 0)
        v = v.reshape(v.shape[0], -1)
        self.sum = v.sum(axis=1) if self.sum is None else self.sum + v.sum(axis=1)
        self.count += v.shape[1]

    def mean(self):
        return self.sum / self.count


def activation_params(lo, hi, symmetric):
    if symmetric:
        scale = max(abs(lo), abs(hi)) / 127.0
        return (scale if scale > 0 else 1.0), 0, TensorProto.INT8
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / 255.0
    if scale == 0:
        return 1.0, 0, TensorProto.UINT8
    zp = int(np.clip(np.round(-lo / scale), 0, 255))
    return scale, zp, TensorProto.UINT8


def weight_params(w, axis, per_tensor, floor=None):
    """s8 weights (symmetric, per channel along `axis` or per tensor) and their scales; `floor`
    (per channel, or one value) is the smallest scale each may get."""
    reduce_axes = tuple(i for i in range(w.ndim) if per_tensor or i != axis)
    scale = np.max(np.abs(w), axis=reduce_axes) / 127.0
    if floor is not None:
        scale = np.maximum(scale, np.max(floor) if per_tensor else floor)
    scale = np.where(scale > 0, scale, 1.0).astype(np.float32)  # an all-zero channel: any scale
    shape = [1] * w.ndim
    if not per_tensor:
        shape[axis] = -1
    q = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
    return q, np.atleast_1d(scale)


def quantize_model(model, targets, quantized, shared, params, per_tensor, bias_shift=None):
    """Rewrites `model` in place into QDQ form. bias_shift: {target output: int32 per channel}
    added to the quantized biases (bias correction). Returns {target output: bias scale} of the
    targets whose bias became int32."""
    bias_shift = bias_shift or {}
    bias_scales = {}
    graph = model.graph
    inits = initializers(model)
    new_inits, new_nodes = [], []
    dq_name = {}
    add = lambda arr, name: new_inits.append(numpy_helper.from_array(arr, name))  # noqa: E731

    def qdq(tensor, source, scale, zp, ztype):
        base = tensor.replace("/", "_").replace(":", "_")
        add(np.array(scale, np.float32), base + "_scale")
        add(np.array(zp, np.uint8 if ztype == TensorProto.UINT8 else np.int8), base + "_zp")
        new_nodes.append(helper.make_node("QuantizeLinear", [source, base + "_scale", base + "_zp"],
                                          [base + "_q"], name=base + "_QuantizeLinear"))
        new_nodes.append(helper.make_node("DequantizeLinear", [base + "_q", base + "_scale", base + "_zp"],
                                          [base + "_dq"], name=base + "_DequantizeLinear"))
        return base + "_dq"

    removed = set()
    for tensor, (calibrated, act) in quantized.items():
        scale, zp, ztype = params[calibrated]
        dq = qdq(tensor, tensor, scale, zp, ztype)
        if act is not None:
            removed.add(act.output[0])
            dq_name[act.output[0]] = dq  # the activation's readers read the dequantized output
            params[tensor] = params[calibrated]
        else:
            dq_name[tensor] = dq
    for out, src in shared.items():
        source_key = src if src in params else None
        if source_key is None:
            continue
        scale, zp, ztype = params[source_key]
        dq_name[out] = qdq(out, out, scale, zp, ztype)

    for node in targets:
        w = numpy_helper.to_array(inits[node.input[1]]).astype(np.float32)
        trans_b = any(a.name == "transB" and a.i for a in node.attribute)
        axis = 0 if node.op_type == "Conv" or (node.op_type == "Gemm" and trans_b) else 1
        bias_index = 2
        has_bias = len(node.input) > bias_index and node.input[bias_index] in inits and node.input[0] in params
        floor = None
        if has_bias:
            b = numpy_helper.to_array(inits[node.input[bias_index]]).astype(np.float32)
            if b.shape == (w.shape[axis],):
                # The int32 bias is b / (x_scale * w_scale): a channel whose weights are all
                # (nearly) zero but whose bias is not would overflow it and be clipped, wrong by
                # orders of magnitude (PP-OCR has such channels), so its weight scale is raised
                # until the bias fits, with room left for bias correction's shift. ONNX Runtime's
                # quantizer adjusts weight scales for int32 biases the same way.
                floor = np.abs(b.astype(np.float64)) / (params[node.input[0]][0] * BIAS_LIMIT)
        q, w_scale = weight_params(w, axis, per_tensor, floor)
        base = node.input[1].replace("/", "_").replace(":", "_")
        add(q, base + "_quantized")
        add(w_scale, base + "_scale")
        add(np.zeros(w_scale.shape, np.int8), base + "_zp")
        attrs = [helper.make_attribute("axis", axis)] if w_scale.size > 1 else []
        dq = helper.make_node("DequantizeLinear", [base + "_quantized", base + "_scale", base + "_zp"],
                              [base + "_dq"], name=base + "_DequantizeLinear")
        dq.attribute.extend(attrs)
        new_nodes.append(dq)
        node.input[1] = base + "_dq"
        if has_bias:
            x_scale = params[node.input[0]][0]
            b_scale = (x_scale * w_scale).astype(np.float32)
            if b.shape == b_scale.shape or b_scale.size == 1:
                b_scale = np.broadcast_to(b_scale, b.shape).astype(np.float32)
                bq = np.round(b.astype(np.float64) / b_scale) + bias_shift.get(node.output[0], 0)
                bq = np.clip(bq, np.iinfo(np.int32).min, np.iinfo(np.int32).max).astype(np.int32)
                bias_scales[node.output[0]] = b_scale
                bbase = node.input[bias_index].replace("/", "_").replace(":", "_")
                add(bq, bbase + "_quantized")
                add(b_scale, bbase + "_scale")
                add(np.zeros(b.shape, np.int32), bbase + "_zp")
                bdq = helper.make_node("DequantizeLinear", [bbase + "_quantized", bbase + "_scale", bbase + "_zp"],
                                       [bbase + "_dq"], name=bbase + "_DequantizeLinear")
                bdq.attribute.extend([helper.make_attribute("axis", 0)])
                new_nodes.append(bdq)
                node.input[bias_index] = bbase + "_dq"

    # Readers of a quantized tensor read its DequantizeLinear (not the QuantizeLinear itself).
    kept = []
    for node in graph.node:
        if node.output[0] in removed:
            continue
        for i, name in enumerate(node.input):
            if name in dq_name:
                node.input[i] = dq_name[name]
        kept.append(node)
    used_weights = {t.name for t in new_inits}
    order = topological(kept + new_nodes, [i.name for i in graph.input] + [t.name for t in graph.initializer] +
                        list(used_weights))
    del graph.node[:]
    graph.node.extend(order)
    referenced = {name for n in order for name in n.input}
    keep_inits = [t for t in graph.initializer if t.name in referenced]
    del graph.initializer[:]
    graph.initializer.extend(keep_inits + [t for t in new_inits if t.name in referenced])
    for o in graph.output:
        if o.name in dq_name:
            raise RuntimeError("a model output was quantized: " + o.name)
    del graph.value_info[:]
    return bias_scales


def topological(nodes, available):
    ready = set(available) | {""}
    order, pending = [], list(nodes)
    while pending:
        rest = []
        for n in pending:
            if all(i in ready for i in n.input):
                order.append(n)
                ready.update(n.output)
            else:
                rest.append(n)
        if len(rest) == len(pending):
            raise RuntimeError("cycle or missing input at " + rest[0].name)
        pending = rest
    return order


def sqnr_db(reference, quantized):
    noise = np.sum((reference.astype(np.float64) - quantized.astype(np.float64)) ** 2)
    signal = np.sum(reference.astype(np.float64) ** 2)
    return float("inf") if noise == 0 else 10.0 * np.log10(signal / noise)


def check(f32_path, qdq_path, sample, device):
    """SQNR of each output of the quantized model against the f32 one, on one sample."""
    import vireo  # noqa: E402
    core = vireo.Core()
    outs = []
    for path in (f32_path, qdq_path):
        request = core.compile_model(path, device).create_infer_request()
        outs.append([np.array(v) for v in request.infer(sample).to_tuple()])
    return [sqnr_db(r, q) for r, q in zip(outs[0], outs[1])]


def load_model(model_or_path):
    """The model to quantize (a copy of a ModelProto), every node of its main graph named: the
    plan leaves nodes out by name (`exclude`, accuracy control, non-finite tensors)."""
    if isinstance(model_or_path, onnx.ModelProto):
        model = onnx.ModelProto()
        model.CopyFrom(model_or_path)  # the caller's model is left as it is
    else:
        model = onnx.load(os.fspath(model_or_path))
    taken = {node.name for node in model.graph.node}
    for i, node in enumerate(model.graph.node):
        if not node.name:
            name = f"{node.op_type}_{i}"
            while name in taken:
                name += "_"
            node.name = name
            taken.add(name)
    return model


def build(model, exclude, params, symmetric, per_tensor, all_outputs, bias_shift=None):
    """A QDQ copy of the (constant-folded) f32 model and {target output: bias scale}."""
    q = onnx.ModelProto()
    q.CopyFrom(model)
    targets, quantized, shared, _ = plan(q, exclude, not symmetric, all_outputs)
    shared = {out: src for out, src in shared.items() if src in params}
    return q, quantize_model(q, targets, quantized, shared, params, per_tensor, bias_shift)


def quantize(model_or_path, output_path=None, calibration_data=None, calibration="minmax",
             percentile=99.999, bias_correction=False, symmetric_activations=False,
             per_tensor_weights=False, exclude=(), device="CPU", random_samples_count=8,
             histogram_bins=DEFAULT_BINS, quantize_all_outputs=True, accuracy_control=None,
             smooth_quant=None):
    """Post-training static quantization of an f32 ONNX model into QDQ form; returns the
    quantized onnx.ModelProto and, with output_path, also saves it there.

    model_or_path: an onnx.ModelProto (not modified) or a path to an .onnx file.
    calibration_data: an iterable (a list, a generator, any data iterator) of samples, each a
        dict {input name: ndarray}, a list of arrays in input order, or for a one-input model
        one ndarray. It is read once; with bias_correction a one-shot iterator's samples are
        kept in memory for the second pass (a list is read again instead). None calibrates on
        random_samples_count random normal inputs, with a warning.
    calibration: "minmax", "percentile" (clip at `percentile` % of |x|, or of each tail for a
        u8 tensor of both signs), "entropy" (the KL-divergence threshold) or "mse" (the range
        of least expected squared quantization error, for tensors with a light tail); the
        histogram methods keep one `histogram_bins`-bin histogram per tensor, not the activations.
    bias_correction: shift each int32 bias so the quantized op's mean output per channel over
        the calibration samples equals the f32 model's (one extra run per biased op).
    exclude: node names left in f32. device: the Vireo device the calibration runs on.
    smooth_quant: None / "off" (default), "auto" (SmoothQuant on the MatMul/Gemm inputs where
        the calibration statistics estimate it halves the output noise, vireo_smoothing) or an
        alpha in [0, 1] (on every such input); statistics from the calibration run.
    quantize_all_outputs: True (ONNX Runtime's layout) quantizes every quantized op's output;
        False only those that an op running on the integers reads (a quantized op, MaxPool,
        Concat): an output only f32 ops read stays f32.
    accuracy_control: a vireo_accuracy.AccuracyControl: after calibration, the most sensitive
        quantization points go back to f32 until a metric is within its bound (the simpler
        entry point is vireo_accuracy.quantize_with_accuracy_control).
    A model below opset 13 is converted to 13 first (onnx's version converter, after one run
    on the first sample for the tensors' ranks); BatchNormalization after a Conv is folded.
    Raises ValueError for an unknown method, a percentile outside (0, 100], a sample that
    does not fit the model's inputs, or no sample at all.
    """
    check_method(calibration, percentile)
    if isinstance(exclude, str):
        exclude = exclude.split(",")
    exclude = set(filter(None, exclude))
    model = load_model(model_or_path)
    fold_constant_nodes(model)
    if calibration_data is None:
        warnings.warn("vireo_quantize: no calibration data: calibrating on random data (accuracy will suffer)")
        calibration_data = random_samples(model, random_samples_count)
    if smooth_quant == "off":
        smooth_quant = None
    one_shot = iter(calibration_data) is calibration_data
    # Kept for a second pass: bias correction, and smoothing with a histogram method (the
    # smoothed tensors' histograms are taken again; min-max ranges follow from the channels').
    again = bias_correction or (smooth_quant is not None and calibration != "minmax")
    cached = [] if again and one_shot else None

    def samples():
        for sample in checked_samples(model, calibration_data):
            if cached is not None:
                cached.append(sample)
            yield sample

    stream = samples()
    first = next(stream, None)
    if first is None:
        raise ValueError("calibration_data gave no sample: at least one is needed")
    stream = itertools.chain([first], stream)
    if default_opset(model) is not None and default_opset(model) < QDQ_OPSET:
        model = upgrade_opset(model, first, device)
    fold_batch_norms(model)

    f32 = onnx.ModelProto()
    f32.CopyFrom(model)
    targets, quantized, _, groups = plan(f32, exclude, not symmetric_activations, quantize_all_outputs)
    calibrated = sorted({c for c, _ in quantized.values()})
    ranges = {n: RangeCollector(calibration, percentile, histogram_bins) for n in calibrated}
    means = {n.output[0]: ChannelMeans(1) for n in targets if len(n.input) > 2 and n.input[2]} if bias_correction else {}
    smoother = None
    if smooth_quant is not None:
        smoother = vireo_smoothing.SmoothQuant(f32, [n for n in targets if n.name not in exclude],
                                               initializers(f32), smooth_quant)

    def visit(name, value):
        if name in ranges:
            ranges[name].add(value)
        if name in means:
            means[name].add(value)
        if smoother is not None:
            smoother.add(name, value)

    run_model(model, sorted(set(calibrated) | set(means) | set(smoother.tensors() if smoother else ())),
              stream, device, visit)
    if smoother is not None and smoother.groups:
        model, f32, targets, quantized, groups, calibrated = smooth(
            model, f32, smoother, ranges, (exclude, not symmetric_activations, quantize_all_outputs),
            lambda m, names, visit: run_model(m, names, checked_samples(m, cached if cached is not None
                                                                        else calibration_data), device, visit),
            lambda: RangeCollector(calibration, percentile, histogram_bins))
    biased = [n for n in targets if len(n.input) > 2 and n.input[2]]
    # A tensor that held an infinity or a NaN (an attention mask of -inf, scores with the mask
    # added) stays f32: the ops that would read or write it as integers are left out, and the
    # plan is made again without them.
    unsafe = {name for name in calibrated if ranges[name].nonfinite}
    if unsafe:
        exclude = exclude | nodes_touching(f32, unsafe)
        while True:
            targets, quantized, _, groups = plan(f32, exclude, not symmetric_activations, quantize_all_outputs)
            calibrated = sorted({c for c, _ in quantized.values()})
            missing = {c for c in calibrated if c not in ranges or ranges[c].nonfinite}
            if not missing:
                break
            exclude = exclude | nodes_touching(f32, missing)
        warnings.warn(f"vireo_quantize: {len(unsafe)} tensor(s) held infinities or NaNs in calibration "
                      f"and stay f32: {', '.join(sorted(unsafe)[:4])}{' ...' if len(unsafe) > 4 else ''}")
        biased = [n for n in biased if n in targets]
    bounds = {name: ranges[name].range(symmetric_activations) for name in calibrated}
    # A Concat's group: one range, the union of its members' (for min-max, the output's own).
    for group in groups:
        cals = [quantized[t][0] for t in group]
        union = (min(bounds[c][0] for c in cals), max(bounds[c][1] for c in cals))
        for c in cals:
            bounds[c] = union
    params = {}
    for tensor, (cal, _) in quantized.items():
        params[tensor] = activation_params(*bounds[cal], symmetric_activations)
    for name in calibrated:
        params.setdefault(name, activation_params(*bounds[name], symmetric_activations))

    shift = {}
    options = (exclude, params, symmetric_activations, per_tensor_weights, quantize_all_outputs)
    q, bias_scales = build(model, *options)
    if bias_correction:
        again = cached if cached is not None else calibration_data
        # One op at a time in graph order, each measured with the ops before it corrected: an
        # op's mean error depends on the inputs they give it.
        for name in [n.output[0] for n in biased if n.output[0] in bias_scales]:
            current = ChannelMeans(1)
            run_model(q, [name], checked_samples(model, again), device, lambda _, v: current.add(v))
            delta = (means[name].mean() - current.mean()) / bias_scales[name].astype(np.float64)
            shift[name] = np.round(delta).astype(np.int64)
            q, bias_scales = build(model, *options, shift)
    if accuracy_control is not None:
        from vireo_accuracy import quantization_points  # noqa: E402
        points = quantization_points(model, exclude, symmetric_activations, quantize_all_outputs)
        q = accuracy_control.run(model, lambda extra: build(model, exclude | extra, *options[1:], shift)[0],
                                 points, device)
    onnx.checker.check_model(q)
    if output_path is not None:
        onnx.save(q, os.fspath(output_path))
    return q


def smooth(model, f32, smoother, ranges, plan_options, rerun, collector):
    """Applies `smoother` (SmoothQuant) to the f32 model and brings the calibration up to date:
    a smoothed tensor's min-max range follows from its per-channel ranges (x / s); with a
    histogram method, its histogram is taken again in one more run. Returns the smoothed model,
    its copy for planning, and the new plan (targets, quantized, groups, calibrated)."""
    changed = smoother.apply(f32)
    if not changed:
        return (model, f32) + plan_and_calibrated(f32, plan_options)
    model = onnx.ModelProto()
    model.CopyFrom(f32)
    targets, quantized, groups, calibrated = plan_and_calibrated(f32, plan_options)
    stale = [name for name in calibrated if name in changed or name not in ranges]
    derivable = {x: st for x, st in smoother.stats.items() if st.lo is not None}
    for name in stale:
        source = smoother.source.get(name)
        if collector().method == "minmax" and source in derivable:
            s = changed[name]
            lo, hi = derivable[source].lo / s, derivable[source].hi / s
            ranges[name] = collector()
            ranges[name].add(np.array([lo.min(), hi.max()]))
        else:
            ranges[name] = collector()
    rerun_names = [n for n in stale if ranges[n].lo > ranges[n].hi]
    if rerun_names:
        rerun(model, rerun_names, lambda name, value: ranges[name].add(value))
    return model, f32, targets, quantized, groups, calibrated


def plan_and_calibrated(f32, plan_options):
    targets, quantized, _, groups = plan(f32, *plan_options)
    return targets, quantized, groups, sorted({c for c, _ in quantized.values()})


def accuracy_control_from_args(args, model):
    """The CLI's accuracy-aware settings, or None without --accuracy-metric."""
    extra = [f for f, v in (("--max-drop", args.max_drop), ("--validation", args.validation),
                            ("--max-excluded", args.max_excluded), ("--ranking", args.ranking)) if v is not None]
    if args.accuracy_metric is None:
        if extra:
            raise ValueError(f"{extra[0]} needs --accuracy-metric (sqnr or argmax)")
        return None
    import vireo_accuracy  # noqa: E402
    default_drop = 70.0 if args.accuracy_metric == "sqnr" else 0.01
    if args.validation is not None and not os.path.isdir(args.validation):
        raise ValueError(f"--validation {args.validation!r} is no directory")
    validation = directory_samples(model, args.validation) if args.validation else None
    return vireo_accuracy.AccuracyControl(validation, metric=args.accuracy_metric,
                                          max_drop=default_drop if args.max_drop is None else args.max_drop,
                                          max_excluded=args.max_excluded, max_evaluations=args.max_evaluations,
                                          ranking=args.ranking or "isolated")


def smooth_quant_from_arg(value):
    if value in ("auto", "off"):
        return value
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"--smooth-quant {value!r}: expected auto, off or an alpha in [0, 1]") from None


def main(argv):
    args = parse_args(argv)
    try:
        model = onnx.load(args.input)
        data = directory_samples(model, args.calib) if args.calib else None
        control = accuracy_control_from_args(args, model)
        q = quantize(model, args.output, data, calibration=args.calibration, percentile=args.percentile,
                     bias_correction=args.bias_correction,
                     symmetric_activations=args.symmetric_activations,
                     per_tensor_weights=args.per_tensor_weights, exclude=args.exclude,
                     device=args.device, random_samples_count=args.samples,
                     quantize_all_outputs=args.quantize_outputs == "all",
                     accuracy_control=control, smooth_quant=smooth_quant_from_arg(args.smooth_quant))
    except ValueError as e:
        sys.exit(f"vireo_quantize: {e}")
    if control is not None:
        print(f"vireo_quantize: accuracy-aware ({args.accuracy_metric}): {control.report.summary()}")
    if args.check is not None:
        if args.check:
            sample = [np.load(f) for f in args.check]
        else:
            fold_constant_nodes(model)
            sample = next(directory_samples(model, args.calib) if args.calib else random_samples(model, 1))
        for i, db in enumerate(check(args.input, args.output, sample, args.device)):
            print(f"vireo_quantize: output {i}: SQNR {db:.1f} dB against f32")
    inits = initializers(q)
    weight_dq = {n.output[0] for n in q.graph.node if n.op_type == "DequantizeLinear" and n.input[0] in inits}
    weights = sum(1 for n in q.graph.node if n.op_type in TARGETS and len(n.input) > 1 and n.input[1] in weight_dq)
    ops = [n.op_type for n in q.graph.node]
    print(f"vireo_quantize: {args.calibration} calibration: {weights} ops with int8 weights, "
          f"{ops.count('QuantizeLinear')} quantized activations -> {args.output}")


if __name__ == "__main__":
    main(sys.argv[1:])
