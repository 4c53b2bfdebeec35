#!/usr/bin/env python3
"""vireo_quantize: post-training static quantization of an ONNX model into QDQ form.

Min-max calibration on a directory of .npy inputs (or random data, with a warning), run on
Vireo itself; per-channel symmetric s8 weights; u8 asymmetric (or s8 symmetric) activations;
int32 biases. Writes QuantizeLinear/DequantizeLinear pairs the way ONNX Runtime's quantizer
does, so ORT and Vireo's CPU plugin run the same file:

- every Conv, Gemm and MatMul with constant weights gets its activation input quantized, its
  weights DequantizeLinear'd from s8 (per output channel) and its bias from int32 (scale
  x_scale * w_scale);
- its output is quantized too, unless it is a model output; a Relu or Clip(0, max) that is the
  output's only consumer is removed and its range used instead (a u8 zero point of 0 saturates
  exactly like the activation);
- MaxPool keeps its input's parameters (it commutes with dequantization), so the CPU runs it on
  the integers.
Every quantized tensor has one QuantizeLinear/DequantizeLinear pair that all its consumers read.

    python3 tools/quantize/vireo_quantize.py model.onnx model.int8.onnx --calib calib_dir/
"""
import argparse
import glob
import os
import sys
import tempfile
import warnings

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

TARGETS = ("Conv", "Gemm", "MatMul")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("input", help="f32 ONNX model")
    p.add_argument("output", help="QDQ ONNX model to write")
    p.add_argument("--calib", help="directory of .npy calibration inputs: <input name>_<k>.npy, or "
                   "<k>.npy for a one-input model (default: random data, with a warning)")
    p.add_argument("--samples", type=int, default=8, help="random calibration samples (default 8)")
    p.add_argument("--symmetric-activations", action="store_true",
                   help="s8 activations with zero point 0 instead of u8 asymmetric")
    p.add_argument("--per-tensor-weights", action="store_true", help="one weight scale per tensor")
    p.add_argument("--exclude", default="", help="comma-separated node names left in f32")
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


def plan(model, exclude):
    """Which tensors get a Q/DQ pair: {tensor: (calibrated tensor, removed activation or None)}."""
    inits = initializers(model)
    uses = consumers_of(model)
    outputs = {o.name for o in model.graph.output}
    quantized, shared = {}, {}
    targets = []
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
        y = node.output[0]
        if y in outputs:
            continue
        after = uses.get(y, [])
        if len(after) == 1 and after[0][0].op_type in ("Relu", "Clip"):
            act = after[0][0]
            bounds = (0.0, np.inf) if act.op_type == "Relu" else clip_bounds(act, inits)
            if bounds is not None and bounds[0] == 0.0 and act.output[0] not in outputs:
                quantized[y] = (act.output[0], act)
                continue
        quantized.setdefault(y, (y, None))
    # The output of a removed activation is no tensor of its own any more.
    removed = {a.output[0] for _, a in quantized.values() if a is not None}
    for name in removed:
        quantized.pop(name, None)
    # MaxPool of a quantized tensor: quantized with its input's parameters.
    for node in model.graph.node:
        if node.op_type == "MaxPool" and len(node.output) == 1 and node.output[0] not in outputs:
            src = node.input[0]
            if src in quantized or src in removed:
                quantized.pop(node.output[0], None)
                shared[node.output[0]] = src
    return targets, quantized, shared


def calibrate(model, tensors, samples, device):
    """Min and max of each tensor over the samples, from one Vireo run per sample."""
    import vireo  # noqa: E402 (the build's python module, PYTHONPATH=build/python)
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    known = {o.name for o in probe.graph.output}
    for name in tensors:
        if name not in known:
            probe.graph.output.append(helper.make_empty_tensor_value_info(name))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "probe.onnx")
        onnx.save(probe, path)
        core = vireo.Core()
        compiled = core.compile_model(path, device)
        request = compiled.create_infer_request()
        names = [o.name for o in probe.graph.output]
        lo = {n: np.inf for n in tensors}
        hi = {n: -np.inf for n in tensors}
        for sample in samples:
            results = request.infer(sample).to_tuple()
            for name, value in zip(names, results):
                if name in lo:
                    lo[name] = min(lo[name], float(np.min(value)))
                    hi[name] = max(hi[name], float(np.max(value)))
    return lo, hi


def load_samples(model, calib, count):
    inputs = [i for i in model.graph.input if i.name not in initializers(model)]
    if calib:
        files = sorted(glob.glob(os.path.join(calib, "*.npy")))
        if len(inputs) == 1:
            return [[np.load(f)] for f in files]
        per_input = [sorted(f for f in files if os.path.basename(f).startswith(i.name + "_")) for i in inputs]
        return [[np.load(f) for f in fs] for fs in zip(*per_input)]
    warnings.warn("vireo_quantize: no --calib directory: calibrating on random data (accuracy will suffer)")
    rng = np.random.default_rng(0)
    samples = []
    for _ in range(count):
        sample = []
        for i in inputs:
            shape = [d.dim_value if d.dim_value > 0 else 1 for d in i.type.tensor_type.shape.dim]
            sample.append(rng.standard_normal(shape).astype(np.float32))
        samples.append(sample)
    return samples


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


def weight_params(w, axis, per_tensor):
    reduce_axes = tuple(i for i in range(w.ndim) if per_tensor or i != axis)
    scale = np.max(np.abs(w), axis=reduce_axes) / 127.0
    scale = np.where(scale > 0, scale, 1.0).astype(np.float32)  # an all-zero channel: any scale
    shape = [1] * w.ndim
    if not per_tensor:
        shape[axis] = -1
    q = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
    return q, np.atleast_1d(scale)


def quantize_model(model, targets, quantized, shared, params, per_tensor):
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
        q, w_scale = weight_params(w, axis, per_tensor)
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
        bias_index = 2
        if len(node.input) > bias_index and node.input[bias_index] in inits and node.input[0] in params:
            b = numpy_helper.to_array(inits[node.input[bias_index]]).astype(np.float32)
            x_scale = params[node.input[0]][0]
            b_scale = (x_scale * w_scale).astype(np.float32)
            if b.shape == b_scale.shape or b_scale.size == 1:
                bq = np.round(b / b_scale).astype(np.int32)
                bbase = node.input[bias_index].replace("/", "_").replace(":", "_")
                add(bq, bbase + "_quantized")
                add(np.broadcast_to(b_scale, b.shape).astype(np.float32), bbase + "_scale")
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
    return model


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


def main(argv):
    args = parse_args(argv)
    model = onnx.load(args.input)
    fold_constant_nodes(model)
    exclude = set(filter(None, args.exclude.split(",")))
    targets, quantized, shared = plan(model, exclude)
    calibrated = sorted({c for c, _ in quantized.values()})
    samples = load_samples(model, args.calib, args.samples)
    lo, hi = calibrate(model, calibrated, samples, args.device)
    params = {}
    for tensor, (cal, act) in quantized.items():
        params[tensor] = activation_params(lo[cal], hi[cal], args.symmetric_activations)
    for name in calibrated:
        params.setdefault(name, activation_params(lo[name], hi[name], args.symmetric_activations))
    # Readers of the original tensor may need the source's parameters (MaxPool).
    for out, src in list(shared.items()):
        if src not in params:
            del shared[out]
    model = quantize_model(model, targets, quantized, shared, params, args.per_tensor_weights)
    onnx.checker.check_model(model)
    onnx.save(model, args.output)
    if args.check is not None:
        sample = [np.load(f) for f in args.check] if args.check else samples[0]
        for i, db in enumerate(check(args.input, args.output, sample, args.device)):
            print(f"vireo_quantize: output {i}: SQNR {db:.1f} dB against f32")
    print(f"vireo_quantize: {len(targets)} ops with int8 weights, {len(quantized) + len(shared)} "
          f"quantized activations -> {args.output}")


if __name__ == "__main__":
    main(sys.argv[1:])
