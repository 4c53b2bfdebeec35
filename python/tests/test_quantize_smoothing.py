"""Tests of tools/quantize/vireo_smoothing (SmoothQuant in vireo_quantize, issue 34): the scales
follow the formula on a model with a planted outlier channel, the smoothed f32 model computes
what the original does (folded into a LayerNorm-like Mul/Add, or through an inserted Mul), the
"auto" mode smooths only activations with outlier channels, it is off by default, and on CPU it
brings the outlier model's int8 SQNR up.
"""
import pathlib
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools" / "quantize"))
import vireo_quantize  # noqa: E402
import vireo_smoothing  # noqa: E402
from vireo_quantize import quantize  # noqa: E402

SHAPE = [2, 8, 16]  # [batch, tokens, channels]
OUTLIER = 5  # the planted outlier channel
GAIN = 40.0


def ln_model(seed=7, gain=GAIN):
    """x -> Mul(gamma) -> Add(beta) -> Transpose(1, 0, 2) -> MatMul(wq) -> q, and the same
    activation -> MatMul(wk) -> k (two projections of one LayerNorm output); then
    Relu(q) -> MatMul(w2) -> y. gamma is 1 +- 0.1 except channel OUTLIER at `gain`."""
    rng = np.random.default_rng(seed)
    gamma = (1.0 + 0.1 * rng.standard_normal(16)).astype(np.float32)
    gamma[OUTLIER] = gain
    arrays = {"gamma": gamma, "beta": (0.05 * rng.standard_normal(16)).astype(np.float32),
              "wq": (0.25 * rng.standard_normal((16, 12))).astype(np.float32),
              "wk": (0.25 * rng.standard_normal((16, 12))).astype(np.float32),
              "w2": (0.25 * rng.standard_normal((12, 4))).astype(np.float32)}
    nodes = [helper.make_node("Mul", ["x", "gamma"], ["scaled"], name="ln_mul"),
             helper.make_node("Add", ["scaled", "beta"], ["ln"], name="ln_add"),
             helper.make_node("Transpose", ["ln"], ["t"], name="transpose", perm=[1, 0, 2]),
             helper.make_node("MatMul", ["t", "wq"], ["q"], name="proj_q"),
             helper.make_node("MatMul", ["t", "wk"], ["k"], name="proj_k"),
             helper.make_node("Relu", ["q"], ["r"], name="relu"),
             helper.make_node("MatMul", ["r", "w2"], ["y"], name="fc2")]
    graph = helper.make_graph(
        nodes, "ln", [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 2, 4]),
         helper.make_tensor_value_info("k", TensorProto.FLOAT, [8, 2, 12])],
        [numpy_helper.from_array(a, n) for n, a in arrays.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def relu_model(seed=8, gain=GAIN):
    """x -> Relu -> Gemm(w [12, 16], transB, bias): the activation's producer is no affine op,
    so smoothing inserts a Mul. Input channel OUTLIER of x is `gain` times larger."""
    rng = np.random.default_rng(seed)
    arrays = {"w": (0.25 * rng.standard_normal((12, 16))).astype(np.float32),
              "b": (0.1 * rng.standard_normal(12)).astype(np.float32)}
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("Gemm", ["r", "w", "b"], ["y"], name="fc", transB=1)]
    graph = helper.make_graph(
        nodes, "relu", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 12])],
        [numpy_helper.from_array(a, n) for n, a in arrays.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def samples(shape, count, seed=3, gain=1.0):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        x = rng.standard_normal(shape).astype(np.float32)
        x[..., OUTLIER] *= gain
        out.append(x)
    return out


def init(model, name):
    return numpy_helper.to_array(next(t for t in model.graph.initializer if t.name == name))


def smoothed(model, data, alpha):
    """The model smoothed in f32 by vireo_smoothing with statistics from `data` (computed here
    with numpy: the activation of every target is known in closed form for these models)."""
    m = vireo_quantize.load_model(model)
    targets = vireo_quantize.plan(m, set())[0]
    smoother = vireo_smoothing.SmoothQuant(m, targets, vireo_quantize.initializers(m), alpha)
    return m, smoother


def run_cpu(core, model, x):
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m.onnx")
        onnx.save(model, path)
        request = core.compile_model(path, "CPU").create_infer_request()
        return [np.array(v) for v in request.infer([x]).to_tuple()]


def sqnr_db(reference, test):
    noise = np.sum((reference.astype(np.float64) - test) ** 2)
    return 10 * np.log10(np.sum(reference.astype(np.float64) ** 2) / noise)


def ln_activation(model, x):
    return np.transpose(x * init(model, "gamma") + init(model, "beta"), (1, 0, 2))


def test_scales_follow_the_formula_and_fold_into_the_producer():
    model = ln_model()
    data = samples(SHAPE, 4)
    m, smoother = smoothed(model, data, 0.5)
    assert sorted(smoother.tensors()) == ["r", "t"]
    assert [n.name for n in smoother.groups["t"]] == ["proj_q", "proj_k"]  # one scale for both
    for x in data:
        smoother.add("t", ln_activation(model, x))
    changed = smoother.apply(m)  # "r" saw no sample: left as it is
    # By hand: per channel max |X_j| over every sample and token, max |W_j| over both weights.
    a = np.zeros(16)
    for x in data:
        v = ln_activation(model, x).astype(np.float64)
        for j in range(16):
            a[j] = max(a[j], np.abs(v[..., j]).max())
    w = np.array([max(np.abs(init(model, "wq")[j]).max(), np.abs(init(model, "wk")[j]).max()) for j in range(16)])
    s = a ** 0.5 / (w ** 0.5 + np.finfo(np.float32).eps)
    s = np.clip(s, np.quantile(s, 0.1), 100.0)
    assert s[OUTLIER] == s.max() and s[OUTLIER] > 5 * np.median(s)
    # X / s went into the Mul and Add constants (no new op), s into both weights' rows.
    assert sorted(n.op_type for n in m.graph.node) == sorted(n.op_type for n in model.graph.node)
    mul = next(n for n in m.graph.node if n.name == "ln_mul")
    add = next(n for n in m.graph.node if n.name == "ln_add")
    np.testing.assert_allclose(init(m, mul.input[1]), init(model, "gamma") / s, rtol=1e-6)
    np.testing.assert_allclose(init(m, add.input[1]), init(model, "beta") / s, rtol=1e-6)
    for name, proj in (("wq", "proj_q"), ("wk", "proj_k")):
        node = next(n for n in m.graph.node if n.name == proj)
        np.testing.assert_allclose(init(m, node.input[1]), init(model, name) * s[:, None], rtol=1e-6)
    assert set(changed) == {"t", "ln", "scaled"}
    assert smoother.report[0][3] == "folded"
    # The original model's constants are untouched.
    assert np.all(init(model, "gamma")[OUTLIER] == GAIN)


def test_smoothed_model_equals_the_original_in_f32(core):
    for model, shape in ((ln_model(), SHAPE), (relu_model(), [4, 16])):
        data = samples(shape, 3, gain=1.0 if shape == SHAPE else GAIN)
        m, smoother = smoothed(model, data, 0.95)
        vireo_quantize.run_model(model, smoother.tensors(), [[x] for x in data], "CPU", smoother.add)
        smoother.apply(m)
        held_out = samples(shape, 1, seed=11, gain=1.0 if shape == SHAPE else GAIN)[0]
        for ref, got in zip(run_cpu(core, model, held_out), run_cpu(core, m, held_out)):
            np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())


def test_a_producer_that_is_no_affine_op_gets_one_mul():
    model = relu_model()
    data = samples([4, 16], 3, gain=GAIN)
    q = quantize(model, calibration_data=data, smooth_quant="auto")
    muls = [n for n in q.graph.node if n.op_type == "Mul"]
    assert len(muls) == 1 and muls[0].input[0] == "r"
    # The Gemm reads the Mul's output through its Q/DQ pair: the smoothed tensor is quantized.
    gemm = next(n for n in q.graph.node if n.op_type == "Gemm")
    dq = next(n for n in q.graph.node if n.output[0] == gemm.input[0])
    qn = next(n for n in q.graph.node if n.output[0] == dq.input[0])
    assert qn.input[0] == muls[0].output[0]


def test_auto_smooths_only_activations_with_outliers():
    # ln_model with gain 1 has no outlier channel: nothing is smoothed; with GAIN, the
    # projections' shared input is (fc2's too: q's 12 channels are uneven then).
    for gain, expected in ((1.0, set()), (GAIN, {"proj_q", "proj_k", "fc2"})):
        model = ln_model(gain=gain)
        q = quantize(model, calibration_data=samples(SHAPE, 4), smooth_quant="auto")
        inits = vireo_quantize.initializers(q)
        smoothed_weights = {n.name for n in q.graph.node if n.op_type == "MatMul"
                            for d in q.graph.node if d.output[0] == n.input[1] and "_smoothed" in d.input[0]}
        assert smoothed_weights == expected, gain
        assert ("gamma_smoothed" in inits) == bool(expected)


def test_smoothing_can_be_turned_off():
    model = ln_model()
    data = samples(SHAPE, 4)
    for off in (None, "off", "default"):
        if off == "default":
            q = quantize(model, calibration_data=data)  # off unless asked for
        else:
            q = quantize(model, calibration_data=data, smooth_quant=off)
        assert not any("_smoothed" in t.name for t in q.graph.initializer)
    with pytest.raises(ValueError, match="alpha in"):
        quantize(model, calibration_data=data, smooth_quant=1.5)
    args = vireo_quantize.parse_args(["in.onnx", "out.onnx", "--smooth-quant", "off"])
    assert vireo_quantize.smooth_quant_from_arg(args.smooth_quant) == "off"
    assert vireo_quantize.smooth_quant_from_arg("0.5") == 0.5
    with pytest.raises(ValueError, match="--smooth-quant"):
        vireo_quantize.smooth_quant_from_arg("high")


@pytest.mark.parametrize("method", ["minmax", "percentile"])
def test_smoothing_raises_sqnr_on_cpu(core, method):
    model = ln_model()
    data = samples(SHAPE, 6)
    held_out = samples(SHAPE, 1, seed=12)[0]
    ref = run_cpu(core, model, held_out)
    db = {}
    for sq in ("off", "auto"):
        q = quantize(model, calibration_data=data, calibration=method, smooth_quant=sq)
        db[sq] = min(sqnr_db(r, g) for r, g in zip(ref, run_cpu(core, q, held_out)))
    assert db["auto"] > db["off"] + 6, db
