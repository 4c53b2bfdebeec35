"""Tests of tools/quantize (vireo_quantize): the QDQ layout it writes, the three calibration
methods, bias correction, the Python API over a data iterator, its errors, and the accuracy of
the quantized model on Vireo's CPU plugin.

The models are built here with onnx.helper (random weights, a few samples each).
"""
import os
import pathlib
import sys
import tempfile

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools" / "quantize"))
import vireo_calibration  # noqa: E402
import vireo_quantize  # noqa: E402
from vireo_quantize import quantize  # noqa: E402

METHODS = ("minmax", "percentile", "entropy")
CNN_INPUT = [1, 3, 12, 12]


def cnn_model(seed=0):
    """x -> Conv(3->8, 3x3, pad 1, bias) -> Relu -> MaxPool 2x2 -> Flatten -> Gemm(288->10, bias)."""
    rng = np.random.default_rng(seed)
    w1 = (rng.standard_normal((8, 3, 3, 3)) * 0.3).astype(np.float32)
    b1 = (rng.standard_normal(8) * 0.2).astype(np.float32)
    w2 = (rng.standard_normal((10, 288)) * 0.06).astype(np.float32)
    b2 = (rng.standard_normal(10) * 0.2).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1],
                         kernel_shape=[3, 3]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p1"], ["f1"], name="flatten1"),
        helper.make_node("Gemm", ["f1", "w2", "b2"], ["y"], name="fc", transB=1),
    ]
    graph = helper.make_graph(
        nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, CNN_INPUT)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        [numpy_helper.from_array(a, n) for a, n in ((w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2"))])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def matmul_model(seed=1):
    """x[2, 16] -> MatMul(16x32) -> Add(b) -> Relu -> MatMul(32x8) -> y."""
    rng = np.random.default_rng(seed)
    inits = [numpy_helper.from_array((rng.standard_normal((16, 32)) * 0.25).astype(np.float32), "w1"),
             numpy_helper.from_array((rng.standard_normal(32) * 0.1).astype(np.float32), "b1"),
             numpy_helper.from_array((rng.standard_normal((32, 8)) * 0.2).astype(np.float32), "w2")]
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["m1"], name="mm1"),
             helper.make_node("Add", ["m1", "b1"], ["a1"], name="add1"),
             helper.make_node("Relu", ["a1"], ["r1"], name="relu1"),
             helper.make_node("MatMul", ["r1", "w2"], ["y"], name="mm2")]
    graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def residual_model(seed=3):
    """x[1, 4, 8, 8] -> Conv -> Relu -> Conv -> Add(x) -> Relu -> GlobalAveragePool -> Flatten
    -> Gemm(4->3): a ResNet block and its head."""
    rng = np.random.default_rng(seed)
    arrays = {"w1": rng.standard_normal((4, 4, 3, 3)) * 0.3, "b1": rng.standard_normal(4) * 0.1,
              "w2": rng.standard_normal((4, 4, 3, 3)) * 0.3, "b2": rng.standard_normal(4) * 0.1,
              "w3": rng.standard_normal((3, 4)), "b3": rng.standard_normal(3) * 0.1}
    conv = dict(pads=[1, 1, 1, 1], kernel_shape=[3, 3])
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", **conv),
             helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], name="conv2", **conv),
             helper.make_node("Add", ["c2", "x"], ["s"], name="add"),
             helper.make_node("Relu", ["s"], ["r2"], name="relu2"),
             helper.make_node("GlobalAveragePool", ["r2"], ["g"], name="gap"),
             helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
             helper.make_node("Gemm", ["f", "w3", "b3"], ["y"], name="fc", transB=1)]
    graph = helper.make_graph(
        nodes, "residual", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])],
        [numpy_helper.from_array(a.astype(np.float32), n) for n, a in arrays.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def batches(shape, count, seed=2, outliers=False):
    """A generator of standard-normal samples; with outliers, one value of +-40..60 in each."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        x = rng.standard_normal(shape).astype(np.float32)
        if outliers:
            x.reshape(-1)[rng.integers(x.size)] = rng.uniform(40, 60) * rng.choice([-1, 1])
        yield x


def by_type(model, op_type):
    return [n for n in model.graph.node if n.op_type == op_type]


def init(model, name):
    return numpy_helper.to_array(next(t for t in model.graph.initializer if t.name == name))


def producer(model, tensor):
    return next((n for n in model.graph.node if tensor in n.output), None)


def activation_scale(model, tensor):
    """Scale and zero point of the QuantizeLinear that reads `tensor`."""
    q = next(n for n in by_type(model, "QuantizeLinear") if n.input[0] == tensor)
    return float(init(model, q.input[1])), int(init(model, q.input[2]))


def run(core, model, x):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.onnx")
        onnx.save(model, path)
        compiled = core.compile_model(path, "CPU")
    return np.array(compiled.create_infer_request().infer([x]).to_tuple()[0])


def sqnr_db(reference, test):
    noise = np.sum((reference.astype(np.float64) - test) ** 2)
    return 10 * np.log10(np.sum(reference.astype(np.float64) ** 2) / noise)


@pytest.mark.parametrize("method", METHODS)
def test_cnn_layout(method, tmp_path):
    out = tmp_path / "cnn.qdq.onnx"
    f32 = cnn_model()
    q = quantize(f32, out, calibration_data=batches(CNN_INPUT, 4), calibration=method)
    assert isinstance(q, onnx.ModelProto)
    saved = onnx.load(str(out))
    onnx.checker.check_model(saved)
    # Activations: x, the Conv's output (its Relu removed), MaxPool's output, Flatten's output.
    assert len(by_type(saved, "QuantizeLinear")) == 4
    # Their four DequantizeLinear plus two weights and two biases.
    assert len(by_type(saved, "DequantizeLinear")) == 8
    assert not by_type(saved, "Relu")
    pool_q = activation_scale(saved, "p1")
    assert pool_q == activation_scale(saved, "c1"), "MaxPool keeps its input's parameters"
    for op, x_tensor, channels, weight, bias in (("Conv", "x", 8, "w1", "b1"), ("Gemm", "f1", 10, "w2", "b2")):
        node = by_type(saved, op)[0]
        wdq = producer(saved, node.input[1])
        assert wdq.op_type == "DequantizeLinear"
        wq, w_scale, w_zp = (init(saved, n) for n in wdq.input)
        assert wq.dtype == np.int8 and w_zp.dtype == np.int8
        assert w_scale.shape == (channels,) and not w_zp.any()
        assert helper.get_attribute_value(wdq.attribute[0]) == 0  # axis: the output channels
        assert np.abs(wq).max() == 127
        per_channel = w_scale.reshape([channels] + [1] * (wq.ndim - 1))
        assert np.all(np.abs(wq * per_channel - init(f32, weight)) <= per_channel / 2 * (1 + 1e-6))
        bdq = producer(saved, node.input[2])
        bq, b_scale, b_zp = (init(saved, n) for n in bdq.input)
        assert bq.dtype == np.int32 and not b_zp.any()
        xdq = producer(saved, node.input[0])
        assert producer(saved, xdq.input[0]).input[0] == x_tensor
        x_scale = init(saved, xdq.input[1])
        np.testing.assert_allclose(b_scale, np.float32(x_scale) * w_scale, rtol=1e-6)
        np.testing.assert_array_equal(bq, np.round(init(f32, bias) / b_scale))


def test_matmul_layout():
    q = quantize(matmul_model(), calibration_data=batches([2, 16], 3))
    # x, the first MatMul's output (read by Add) and the Relu's output; y is a model output.
    assert len(by_type(q, "QuantizeLinear")) == 3
    assert len(by_type(q, "DequantizeLinear")) == 5
    for node in by_type(q, "MatMul"):
        wdq = producer(q, node.input[1])
        wq, w_scale, w_zp = (init(q, n) for n in wdq.input)
        assert wq.dtype == np.int8 and not w_zp.any() and w_scale.shape == (wq.shape[1],)
        assert helper.get_attribute_value(wdq.attribute[0]) == 1
    assert by_type(q, "Add")[0].input[1] == "b1", "the Add's constant stays f32"


def test_add_and_global_average_pool(core):
    """The residual Add reads two dequantized activations and its output is quantized (its Relu
    removed); GlobalAveragePool is quantized around; the result is still accurate on CPU."""
    model = residual_model()
    q = quantize(model, calibration_data=batches([1, 4, 8, 8], 4))
    # x, conv1's output (Relu removed), conv2's output, the Add's output (Relu removed), the
    # pooled value and the classifier's input.
    assert len(by_type(q, "QuantizeLinear")) == 6
    assert len(by_type(q, "DequantizeLinear")) == 6 + 3 + 3
    assert not by_type(q, "Relu")
    for op in ("Add", "GlobalAveragePool"):
        node = by_type(q, op)[0]
        assert all(producer(q, i).op_type == "DequantizeLinear" for i in node.input), op
        readers = [n for n in q.graph.node if node.output[0] in n.input]
        assert [n.op_type for n in readers] == ["QuantizeLinear"], op
    assert activation_scale(q, "s")[1] == 0, "a u8 zero point of 0 does the Relu's clamping"
    held_out = next(batches([1, 4, 8, 8], 1, seed=98))
    assert sqnr_db(run(core, model, held_out), run(core, q, held_out)) >= 30.0


def test_symmetric_activations_keep_relu():
    """An s8 zero point of 0 does not clamp negatives, so no Relu is removed."""
    q = quantize(residual_model(), calibration_data=batches([1, 4, 8, 8], 2), symmetric_activations=True)
    assert len(by_type(q, "Relu")) == 2
    for node in by_type(q, "QuantizeLinear"):
        assert init(q, node.input[2]).dtype == np.int8 and init(q, node.input[2]) == 0


def test_clipping_methods_inside_minmax():
    """On data with outliers, percentile and entropy give x a range strictly inside min-max's."""
    scales = {}
    for method in METHODS:
        q = quantize(cnn_model(), calibration_data=batches(CNN_INPUT, 8, outliers=True), calibration=method,
                     percentile=99.0)
        scales[method] = activation_scale(q, "x")
    mm_scale, mm_zp = scales["minmax"]
    mm_lo, mm_hi = -mm_zp * mm_scale, (255 - mm_zp) * mm_scale
    assert mm_hi - mm_lo > 80, "min-max covers the outliers"
    for method in ("percentile", "entropy"):
        scale, zp = scales[method]
        lo, hi = -zp * scale, (255 - zp) * scale
        assert mm_lo < lo < 0 < hi < mm_hi, method
        assert hi - lo < 0.5 * (mm_hi - mm_lo), f"{method} clips the outliers: [{lo}, {hi}]"


def test_percentile_100_is_minmax():
    ranges = [activation_scale(quantize(cnn_model(), calibration_data=batches(CNN_INPUT, 3), calibration=m,
                                        percentile=100.0), "x") for m in ("minmax", "percentile")]
    assert ranges[0] == ranges[1]


@pytest.mark.parametrize("method", METHODS)
def test_sqnr_on_cpu(core, method):
    model = cnn_model()
    q = quantize(model, calibration_data=batches(CNN_INPUT, 6), calibration=method)
    held_out = next(batches(CNN_INPUT, 1, seed=99))
    reference = run(core, model, held_out)
    quantized = run(core, q, held_out)
    assert sqnr_db(reference, quantized) >= 30.0


def test_bias_correction_reduces_mean_error(core):
    """Per-tensor weights leave a per-channel mean error that bias correction takes out."""
    model = cnn_model(seed=5)
    samples = list(batches(CNN_INPUT, 6, seed=7))
    reference = np.mean([run(core, model, x) for x in samples], axis=0)
    errors = {}
    for corrected in (False, True):
        # A generator: the corrected run keeps the samples for its second pass.
        q = quantize(model, calibration_data=iter(samples), per_tensor_weights=True, bias_correction=corrected)
        mean = np.mean([run(core, q, x) for x in samples], axis=0)
        errors[corrected] = float(np.mean(np.abs(mean - reference)))
        fc_bias = init(q, producer(q, by_type(q, "Gemm")[0].input[2]).input[0])
        if not corrected:
            plain_bias = fc_bias
    assert errors[True] < 0.5 * errors[False], errors
    assert not np.array_equal(fc_bias, plain_bias), "the classifier's int32 bias moved"
    assert fc_bias.dtype == np.int32


def test_excluded_node_stays_f32():
    q = quantize(cnn_model(), calibration_data=batches(CNN_INPUT, 2), exclude=["conv1"])
    conv = by_type(q, "Conv")[0]
    assert conv.input[0] == "x" and conv.input[1] == "w1" and conv.input[2] == "b1"
    assert init(q, "w1").dtype == np.float32
    assert by_type(q, "Relu"), "the Relu after an f32 Conv stays"
    gemm = by_type(q, "Gemm")[0]
    assert producer(q, gemm.input[1]).op_type == "DequantizeLinear"


def test_api_inputs_are_equivalent(tmp_path):
    """A list, a generator and dicts give the same file; a path works like a ModelProto, which
    is not modified."""
    model = cnn_model()
    before = model.SerializeToString()
    samples = list(batches(CNN_INPUT, 3))
    path = tmp_path / "cnn.onnx"
    onnx.save(model, str(path))
    a = quantize(model, calibration_data=samples)
    b = quantize(str(path), calibration_data=iter(samples))
    c = quantize(path, calibration_data=({"x": s} for s in samples))
    assert a.SerializeToString() == b.SerializeToString() == c.SerializeToString()
    assert model.SerializeToString() == before


def test_cli_wraps_the_api(tmp_path, capsys):
    model_path, out = tmp_path / "cnn.onnx", tmp_path / "cnn.qdq.onnx"
    onnx.save(cnn_model(), str(model_path))
    calib = tmp_path / "calib"
    calib.mkdir()
    samples = list(batches(CNN_INPUT, 3))
    for k, s in enumerate(samples):
        np.save(calib / f"{k}.npy", s)
    vireo_quantize.main([str(model_path), str(out), "--calib", str(calib), "--calibration", "entropy"])
    assert "entropy calibration: 2 ops with int8 weights, 4 quantized activations" in capsys.readouterr().out
    api = quantize(cnn_model(), calibration_data=samples, calibration="entropy")
    assert onnx.load(str(out)).SerializeToString() == api.SerializeToString()


@pytest.mark.parametrize("data, message", [
    ([{"y": np.zeros(CNN_INPUT, np.float32)}], "'y', which is no model input"),
    ([{}], "no value for input 'x'"),
    ([np.zeros([1, 3, 12, 11], np.float32)],
     r"input 'x' has shape \[1, 3, 12, 11\], the model expects \[1, 3, 12, 12\]"),
    ([np.zeros([3, 12, 12], np.float32)], "has shape"),
    (iter([]), "gave no sample"),
])
def test_bad_calibration_data(data, message):
    with pytest.raises(ValueError, match=message):
        quantize(cnn_model(), calibration_data=data)


@pytest.mark.parametrize("kwargs, message", [
    ({"calibration": "kl"}, "unknown calibration method 'kl': expected one of minmax, percentile, entropy"),
    ({"calibration": "percentile", "percentile": 0}, r"percentile must be in \(0, 100\], got 0"),
    ({"calibration": "percentile", "percentile": 100.5}, "percentile must be in"),
])
def test_bad_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        quantize(cnn_model(), calibration_data=batches(CNN_INPUT, 1), **kwargs)


def test_histogram_growth_is_exact():
    """Counts after the range grows equal a histogram of all the values over the final range."""
    rng = np.random.default_rng(3)
    parts = [rng.standard_normal(500), rng.standard_normal(500) * 5, rng.uniform(-30, 30, 100)]
    h = vireo_calibration.Histogram(64)
    for p in parts:
        h.add(p)
    expected, _ = np.histogram(np.concatenate(parts), bins=64, range=(-h.r, h.r))
    assert h.r >= 30 * 0.99 and h.counts.sum() == 1100
    np.testing.assert_array_equal(h.counts, expected)


def test_percentile_and_entropy_thresholds():
    """On N(0, 1) with a few far outliers: the 99 % |x| threshold is near 2.58 and the KL
    threshold lies between 2 and 10, far below the outliers at 100."""
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.standard_normal(200000), [100.0, -100.0]])
    h = vireo_calibration.Histogram(4096)
    h.add(x)
    assert abs(vireo_calibration.percentile_abs(h, 99.0) - 2.576) < 0.1
    lo, hi = vireo_calibration.percentile_tails(h, 99.5)
    assert abs(lo + 2.576) < 0.1 and abs(hi - 2.576) < 0.1
    t = vireo_calibration.entropy_abs(h, 128)
    assert 2.0 < t < 10.0, t
