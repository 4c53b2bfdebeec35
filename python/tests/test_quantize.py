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

METHODS = ("minmax", "percentile", "entropy", "mse")
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


def fake_quantization_error(x, lo, hi):
    """Mean squared error of x through the u8 QuantizeLinear/DequantizeLinear pair the tool
    writes for the range [lo, hi]."""
    scale, zp, _ = vireo_quantize.activation_params(lo, hi, False)
    return float(np.mean((x - (np.clip(np.round(x / scale) + zp, 0, 255) - zp) * scale) ** 2))


def test_mse_range_minimises_the_quantization_error():
    """The mse method picks the range whose u8 grid leaves the least squared error: on 400k
    N(0, 1) values, about +-3.9 (the known optimum for 8 bits) where min-max is +-4.8, 25 % less
    error than min-max, and 5 % narrower or wider costs more. Symmetric: one |x| threshold."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal(400_000)
    c = vireo_calibration.RangeCollector("mse")
    for part in np.split(x, 8):
        c.add(part)
    lo, hi = c.range(symmetric=False)
    assert -4.1 < lo < -3.7 and 3.7 < hi < 4.1, (lo, hi)
    assert x.min() < -4.5 and x.max() > 4.5
    best = fake_quantization_error(x, lo, hi)
    assert best < 0.8 * fake_quantization_error(x, x.min(), x.max())
    for factor in (0.95, 1.05):
        assert fake_quantization_error(x, lo * factor, hi * factor) > best, factor
    t_lo, t_hi = c.range(symmetric=True)
    assert t_lo == -t_hi and 3.7 < t_hi < 4.1


def test_mse_range_counts_exact_zeros_as_exact():
    """A Relu'd tensor is half zeros, which the u8 zero point represents exactly: the search
    leaves them out of the rounding error, clipping less than if it charged them (4.24 against
    4.14 here), and that range has the smaller true error."""
    rng = np.random.default_rng(5)
    x = np.maximum(rng.standard_normal(400_000), 0.0)
    c = vireo_calibration.RangeCollector("mse")
    c.add(x)
    assert c.zeros == np.count_nonzero(x == 0)
    lo, hi = c.range(symmetric=False)
    assert lo == 0.0 and 4.0 < hi < x.max()
    _, charged = vireo_calibration.mse_range(c.hist, c.lo, c.hi, 255, False, zeros=0)
    assert charged < hi - 0.05
    assert fake_quantization_error(x, 0.0, hi) < fake_quantization_error(x, 0.0, charged)
    for factor in (0.95, 1.05):
        assert fake_quantization_error(x, 0.0, hi * factor) > fake_quantization_error(x, 0.0, hi)


def test_mse_range_keeps_a_heavy_tail():
    """A tensor whose tail is heavier than the limit (|x| at 99.99 % over twice |x| at 99 %: here
    0.3 % of the values ten times larger, as a trained network's rare large activations) keeps
    its min-max range under mse; the normal part alone (ratio 1.5) is clipped."""
    rng = np.random.default_rng(6)
    x = rng.standard_normal(400_000)
    light = vireo_calibration.RangeCollector("mse")
    light.add(x)
    assert abs(light.tail_ratio() - 1.51) < 0.05
    assert light.range(symmetric=False)[1] < 0.9 * x.max()
    heavy_x = x.copy()
    heavy_x[rng.choice(x.size, 1200, replace=False)] *= 10.0
    heavy = vireo_calibration.RangeCollector("mse")
    heavy.add(heavy_x)
    assert heavy.tail_ratio() > vireo_calibration.MSE_TAIL_LIMIT
    assert heavy.range(symmetric=False) == (heavy_x.min(), heavy_x.max())
    # Without the limit the search would clip those values away.
    unguarded = vireo_calibration.mse_range(heavy.hist, heavy.lo, heavy.hi, 255, False)
    assert unguarded[1] < 0.9 * heavy_x.max()


def test_mse_calibration_writes_the_searched_range():
    """quantize(calibration="mse") writes for each activation the scale and zero point of the
    range the search picks on the same samples: narrower than min-max's on this Gaussian input."""
    rng = np.random.default_rng(12)
    w = numpy_helper.from_array((rng.standard_normal((16, 8)) * 0.3).astype(np.float32), "w")
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "one_matmul",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [512, 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [512, 8])], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    samples = list(batches([512, 16], 16, seed=12))
    q = quantize(model, calibration_data=samples, calibration="mse")
    c = vireo_calibration.RangeCollector("mse")
    for x in samples:
        c.add(x)
    scale, zp, _ = vireo_quantize.activation_params(*c.range(symmetric=False), False)
    assert activation_scale(q, "x") == (pytest.approx(scale, rel=1e-6), zp)
    mm_scale, _ = activation_scale(quantize(model, calibration_data=samples, calibration="minmax"), "x")
    assert scale < 0.92 * mm_scale, (scale, mm_scale)


def inception_model(seed=6):
    """x[1, 4, 8, 8] -> three branches concatenated along channels -> Conv 1x1 -> Relu ->
    GlobalAveragePool -> Flatten -> Gemm(6->3). Branches: r1 = Relu(Conv 1x1(x)), which the
    second branch reads too; r2 = Relu(Conv 3x3(r1)); r3 = Relu(Conv 1x1(MaxPool 3x3(x)))."""
    rng = np.random.default_rng(seed)
    arrays = {"w1": rng.standard_normal((4, 4, 1, 1)) * 0.5, "b1": rng.standard_normal(4) * 0.1,
              "w2": rng.standard_normal((3, 4, 3, 3)) * 0.5, "b2": rng.standard_normal(3) * 0.1,
              "w3": rng.standard_normal((2, 4, 1, 1)) * 1.5, "b3": rng.standard_normal(2) * 0.1,
              "w4": rng.standard_normal((6, 9, 1, 1)) * 0.4, "b4": rng.standard_normal(6) * 0.1,
              "w5": rng.standard_normal((3, 6)), "b5": rng.standard_normal(3) * 0.1}
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", kernel_shape=[1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], name="conv2", kernel_shape=[3, 3],
                              pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
             helper.make_node("MaxPool", ["x"], ["p"], name="pool", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("Conv", ["p", "w3", "b3"], ["c3"], name="conv3", kernel_shape=[1, 1]),
             helper.make_node("Relu", ["c3"], ["r3"], name="relu3"),
             helper.make_node("Concat", ["r1", "r2", "r3"], ["cat"], name="concat", axis=1),
             helper.make_node("Conv", ["cat", "w4", "b4"], ["c4"], name="conv4", kernel_shape=[1, 1]),
             helper.make_node("Relu", ["c4"], ["r4"], name="relu4"),
             helper.make_node("GlobalAveragePool", ["r4"], ["g"], name="gap"),
             helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
             helper.make_node("Gemm", ["f", "w5", "b5"], ["y"], name="fc", transB=1)]
    graph = helper.make_graph(
        nodes, "inception", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])],
        [numpy_helper.from_array(a.astype(np.float32), n) for n, a in arrays.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_concat_shares_parameters(core):
    """The Concat reads dequantized inputs and its output is quantized; the inputs it alone reads
    (r2, r3) share the output's scale and zero point, the range of all the concatenated values,
    so the integers concatenate as they are; r1, read by conv2 too, keeps its own."""
    model = inception_model()
    samples = list(batches([1, 4, 8, 8], 4, seed=11))
    q = quantize(model, calibration_data=samples)
    concat = by_type(q, "Concat")[0]
    dqs = [producer(q, i) for i in concat.input]
    assert [d.op_type for d in dqs] == ["DequantizeLinear"] * 3
    sources = [producer(q, d.input[0]).input[0] for d in dqs]
    assert sources == ["c1", "c2", "c3"], "each input's Relu was removed and its Conv output quantized"
    readers = [n for n in q.graph.node if concat.output[0] in n.input]
    assert [n.op_type for n in readers] == ["QuantizeLinear"]
    cat_params = activation_scale(q, "cat")
    assert activation_scale(q, "c2") == cat_params and activation_scale(q, "c3") == cat_params
    assert activation_scale(q, "c1") != cat_params
    # The shared range is the concatenated values' (min-max): all >= 0 after the Relus.
    top = max(float(np.max(np.maximum(run_tensor(core, model, "cat", x), 0))) for x in samples)
    assert cat_params[1] == 0
    np.testing.assert_allclose(cat_params[0], top / 255, rtol=1e-5)
    assert activation_scale(q, "c1")[0] < cat_params[0]


def run_tensor(core, model, name, x):
    """The value of an inner tensor of `model` on x, as an extra output."""
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    probe.graph.output.append(helper.make_empty_tensor_value_info(name))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.onnx")
        onnx.save(probe, path)
        outs = core.compile_model(path, "CPU").create_infer_request().infer([x]).to_tuple()
    return np.array(outs[-1])


@pytest.mark.parametrize("method", METHODS)
def test_concat_model_accuracy_on_cpu(core, method):
    model = inception_model()
    q = quantize(model, calibration_data=batches([1, 4, 8, 8], 6, seed=12), calibration=method)
    concat = by_type(q, "Concat")[0]
    assert producer(q, concat.input[1]).op_type == "DequantizeLinear"
    assert [n.op_type for n in q.graph.node if concat.output[0] in n.input] == ["QuantizeLinear"]
    for seed in (90, 91, 92):
        held_out = next(batches([1, 4, 8, 8], 1, seed=seed))
        assert sqnr_db(run(core, model, held_out), run(core, q, held_out)) >= 30.0


def test_integer_concat_stays(core):
    """A Concat of shape values (int64) gets no Q/DQ pair; the model still runs."""
    rng = np.random.default_rng(8)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", kernel_shape=[1, 1]),
             helper.make_node("Shape", ["c"], ["s"], name="shape"),
             helper.make_node("Slice", ["s", "zero", "two"], ["s01"], name="head"),
             helper.make_node("Slice", ["s", "two", "four"], ["s23"], name="tail"),
             helper.make_node("Concat", ["s01", "s23"], ["dims"], name="concat", axis=0),
             helper.make_node("Reshape", ["c", "dims"], ["y"], name="reshape")]
    inits = [numpy_helper.from_array((rng.standard_normal((4, 4, 1, 1))).astype(np.float32), "w"),
             numpy_helper.from_array(np.zeros(4, np.float32), "b")]
    inits += [numpy_helper.from_array(np.array([v], np.int64), n) for n, v in (("zero", 0), ("two", 2), ("four", 4))]
    graph = helper.make_graph(nodes, "shape_concat",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 3, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 3, 3])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    q = quantize(model, calibration_data=batches([1, 4, 3, 3], 2))
    assert by_type(q, "Concat")[0].input[:] == ["s01", "s23"]
    assert [n.input[0] for n in by_type(q, "QuantizeLinear")] == ["x", "c"], "the Conv's input and output only"
    x = next(batches([1, 4, 3, 3], 1, seed=5))
    assert sqnr_db(run(core, model, x), run(core, q, x)) >= 30.0


def test_old_opset_is_converted(core):
    """An opset 9 model (PaddlePaddle's exports) is converted to opset 13 first: Clip's bounds
    become inputs (and the Clip(0, 6) after the Conv is still removed), Softmax keeps opset 9's
    meaning (over everything after `axis`), and the result matches the f32 model."""
    rng = np.random.default_rng(9)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("Clip", ["c"], ["r"], name="clip", min=0.0, max=6.0),
             helper.make_node("Reshape", ["r", "shape"], ["f"], name="reshape"),
             helper.make_node("Softmax", ["f"], ["y"], name="softmax", axis=1)]
    inits = [numpy_helper.from_array((rng.standard_normal((2, 3, 3, 3)) * 0.3).astype(np.float32), "w"),
             numpy_helper.from_array((rng.standard_normal(2) * 0.1).astype(np.float32), "b"),
             numpy_helper.from_array(np.array([1, 2, 144], np.int64), "shape")]
    graph = helper.make_graph(nodes, "opset9", [helper.make_tensor_value_info("x", TensorProto.FLOAT, CNN_INPUT)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 144])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)])
    q = quantize(model, calibration_data=batches(CNN_INPUT, 3))
    assert vireo_quantize.default_opset(q) == 13
    assert not by_type(q, "Clip")
    x = next(batches(CNN_INPUT, 1, seed=21))
    reference = run(core, model, x)
    assert reference.shape == (1, 2, 144) and abs(float(reference.sum()) - 1) < 1e-4, "one softmax over 288 values"
    assert sqnr_db(reference, run(core, q, x)) >= 30.0


def test_batch_norm_folded_into_conv(core):
    """Conv -> BatchNormalization -> Relu: the normalization is folded into the Conv's weights
    and bias before quantizing, so the weight scales carry it and no f32 BatchNormalization
    is left between the int8 Conv and its quantized output."""
    rng = np.random.default_rng(10)
    model = cnn_model(seed=10)
    gamma = rng.uniform(0.2, 3.0, 8)
    beta, mean, var = rng.standard_normal(8) * 0.2, rng.standard_normal(8) * 0.1, rng.uniform(0.5, 2.0, 8)
    for n, a in (("gamma", gamma), ("beta", beta), ("mean", mean), ("var", var)):
        model.graph.initializer.append(numpy_helper.from_array(a.astype(np.float32), n))
    model.graph.node[0].output[0] = "c0"
    model.graph.node.insert(1, helper.make_node("BatchNormalization", ["c0", "gamma", "beta", "mean", "var"], ["c1"],
                                                name="bn", epsilon=1e-5))
    q = quantize(model, calibration_data=batches(CNN_INPUT, 4))
    assert not by_type(q, "BatchNormalization") and not by_type(q, "Relu")
    wq, w_scale, _ = (init(q, n) for n in producer(q, by_type(q, "Conv")[0].input[1]).input)
    folded = init(model, "w1") * (gamma / np.sqrt(var + 1e-5)).reshape(-1, 1, 1, 1)
    np.testing.assert_allclose(w_scale, np.abs(folded).reshape(8, -1).max(axis=1) / 127, rtol=1e-5)
    x = next(batches(CNN_INPUT, 1, seed=22))
    assert sqnr_db(run(core, model, x), run(core, q, x)) >= 30.0


def test_outputs_only_f32_ops_read_stay_f32(core):
    """quantize_all_outputs=False: the classifier's input keeps its pair (the Gemm reads the
    integers); the Conv's output, which only an f32 Sigmoid reads, gets none (ONNX Runtime's
    layout, the default, gives it one)."""
    model = cnn_model(seed=12)
    model.graph.node[1].op_type = "Sigmoid"  # Conv -> Sigmoid -> MaxPool -> Flatten -> Gemm
    everything = quantize(model, calibration_data=batches(CNN_INPUT, 3))
    assert "c1" in [n.input[0] for n in by_type(everything, "QuantizeLinear")]
    q = quantize(model, calibration_data=batches(CNN_INPUT, 3), quantize_all_outputs=False)
    assert sorted(n.input[0] for n in by_type(q, "QuantizeLinear")) == ["f1", "x"]
    assert by_type(q, "Sigmoid")[0].input[0] == "c1", "the Conv's f32 output feeds the Sigmoid"
    x = next(batches(CNN_INPUT, 1, seed=23))
    assert sqnr_db(run(core, model, x), run(core, q, x)) >= 30.0


def test_entropy_gives_a_mostly_positive_tensor_its_levels():
    """HardSwish of a heavy-tailed signal: u8, both signs, the negative side at most 0.375. Its
    255 steps go nearly all to the positive side, so the KL search there uses about 250 levels
    and keeps more of the tail than a 128-level search on |x| would (9.4 -> 13.4 here); the
    short negative side is kept whole."""
    rng = np.random.default_rng(5)
    z = rng.standard_t(5, 200000) * 1.5
    x = z * np.clip(z + 3, 0, 6) / 6
    c = vireo_calibration.RangeCollector("entropy")
    c.add(x)
    lo, hi = c.range(symmetric=False)
    assert lo == pytest.approx(x.min())
    assert hi > 1.25 * vireo_calibration.entropy_abs(c.hist, 128), (lo, hi)
    assert hi < x.max()


def test_bias_of_a_near_zero_channel_fits_int32(core):
    """A Conv channel whose weights are nearly zero but whose bias is not: the int32 bias
    b / (x_scale * w_scale) would overflow and be clipped, so that channel's weight scale is
    raised until it fits; the dequantized bias is the f32 one and the output stays accurate."""
    model = cnn_model(seed=13)
    w1 = next(t for t in model.graph.initializer if t.name == "w1")
    w = numpy_helper.to_array(w1).copy()
    w[3] *= 1e-9
    w1.CopyFrom(numpy_helper.from_array(w, "w1"))
    b1 = next(t for t in model.graph.initializer if t.name == "b1")
    b = numpy_helper.to_array(b1).copy()
    b[3] = 0.5
    b1.CopyFrom(numpy_helper.from_array(b, "b1"))
    q = quantize(model, calibration_data=batches(CNN_INPUT, 4))
    bq, b_scale, _ = (init(q, n) for n in producer(q, by_type(q, "Conv")[0].input[2]).input)
    assert np.abs(bq.astype(np.int64)).max() <= 2 ** 30 * (1 + 1e-6), "not clipped: within 2^30 (float rounding)"
    assert np.all(np.abs(bq * b_scale.astype(np.float64) - b) <= b_scale * (0.5 + 1e-3)), "each bias within half a step"
    assert abs(bq[3] * float(b_scale[3]) - 0.5) < 1e-6
    x = next(batches(CNN_INPUT, 1, seed=24))
    assert sqnr_db(run(core, model, x), run(core, q, x)) >= 30.0


def attention_block_model(seed=7, mask_as_identity=True):
    """A pre-LN-style attention block on x[1, 6, 8]: q/k/v MatMuls, scores = q.kᵀ/√8 + a causal
    mask of 0 and -inf (read through an Identity, as torch exports nn.Transformer's), Softmax,
    the weighted sum, an output MatMul, then the residual Add read only by a written-out
    normalisation (ReduceMean, Sub) and a final MatMul."""
    rng = np.random.default_rng(seed)
    w = {n: (rng.standard_normal((8, 8)) * 0.4).astype(np.float32) for n in ("wq", "wk", "wv", "wo", "wf")}
    mask = np.triu(np.full((6, 6), -np.inf, np.float32), 1)
    inits = [numpy_helper.from_array(a, n) for n, a in w.items()]
    inits += [numpy_helper.from_array(mask, "mask_const"),
              numpy_helper.from_array(np.array(1 / np.sqrt(8), np.float32), "scale"),
              numpy_helper.from_array(np.array([-1], np.int64), "last")]
    mask_name = "mask" if mask_as_identity else "mask_const"
    nodes = ([helper.make_node("Identity", ["mask_const"], ["mask"], name="mask_identity")]
             if mask_as_identity else [])
    nodes += [
        helper.make_node("MatMul", ["x", "wq"], ["q"], name="q_proj"),
        helper.make_node("MatMul", ["x", "wk"], ["k"], name="k_proj"),
        helper.make_node("MatMul", ["x", "wv"], ["v"], name="v_proj"),
        helper.make_node("Transpose", ["k"], ["kt"], name="k_t", perm=[0, 2, 1]),
        helper.make_node("MatMul", ["q", "kt"], ["qk"], name="scores"),
        helper.make_node("Mul", ["qk", "scale"], ["scaled"], name="scaled"),
        helper.make_node("Add", ["scaled", mask_name], ["masked"], name="mask_add"),
        helper.make_node("Softmax", ["masked"], ["p"], name="softmax", axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["att"], name="weighted"),
        helper.make_node("MatMul", ["att", "wo"], ["o"], name="o_proj"),
        helper.make_node("Add", ["x", "o"], ["res"], name="residual"),
        helper.make_node("ReduceMean", ["res"], ["mean"], name="mean", axes=[-1]),
        helper.make_node("Sub", ["res", "mean"], ["centred"], name="centre"),
        helper.make_node("MatMul", ["centred", "wf"], ["y"], name="final"),
    ]
    graph = helper.make_graph(
        nodes, "attention", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 6, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 6, 8])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_attention_mask_stays_f32(core):
    """The causal mask (-inf above the diagonal) and the masked scores are never quantized: a
    QuantizeLinear would saturate -inf to a finite value and the mask would stop masking (the
    corpus seq2seq model was at 15 dB); the first token's output still sees only itself."""
    model = attention_block_model()
    q = quantize(model, calibration_data=batches([1, 6, 8], 4))
    quantized = {n.input[0] for n in by_type(q, "QuantizeLinear")}
    assert "mask" not in quantized and "masked" not in quantized
    add = next(n for n in q.graph.node if n.name == "mask_add")
    assert all(producer(q, i).op_type != "DequantizeLinear" for i in add.input)
    assert quantized == {"x", "q", "k", "v", "att", "o", "centred"}, "the MatMuls' inputs and outputs"
    held_out = next(batches([1, 6, 8], 1, seed=97))
    # 19.9 dB for this 6x8 toy (16-token projections calibrated on 4 samples); 5.6 dB, and row 0
    # 0.96 away, when the mask was quantized.
    assert sqnr_db(run(core, model, held_out), run(core, q, held_out)) >= 15.0
    other = held_out.copy()
    other[:, 1:, :] = next(batches([1, 5, 8], 1, seed=96))
    a, b = run(core, q, held_out), run(core, q, other)
    np.testing.assert_allclose(a[:, 0], b[:, 0], rtol=0, atol=1e-6)


def test_infinite_calibration_values_stay_f32(core):
    """A tensor that held an infinity in calibration is not quantized, and neither is an op that
    would read or write it as integers (its range would be meaningless). An -inf in the input
    reaches every later tensor here, so the model stays f32 and gives the f32 model's output;
    the warning names the tensors."""
    samples = list(batches(CNN_INPUT, 3))
    samples[1].reshape(-1)[5] = -np.inf
    with pytest.warns(UserWarning, match=r"3 tensor\(s\) held infinities or NaNs in calibration and stay f32: f1, r1, x$"):
        q = quantize(cnn_model(), calibration_data=samples)
    assert not by_type(q, "QuantizeLinear") and not by_type(q, "DequantizeLinear")
    held_out = next(batches(CNN_INPUT, 1, seed=95))
    np.testing.assert_array_equal(run(core, cnn_model(), held_out), run(core, q, held_out))


def test_add_read_only_by_f32_ops_stays_f32():
    """A transformer's residual sum, read only by a normalisation, is not quantized; the ResNet
    block's sum, read by the pooling and the classifier, is (test_add_and_global_average_pool).
    Its inputs are quantized only for their own sake (x for q/k/v, o as a MatMul's output)."""
    model = attention_block_model(mask_as_identity=False)
    q = quantize(model, calibration_data=batches([1, 6, 8], 2))
    assert not [n for n in by_type(q, "QuantizeLinear") if n.input[0] == "res"]
    assert [n.input[0] for n in by_type(q, "Sub")] == ["res"], "the normalisation reads the f32 sum"
    q_only = quantize(model, calibration_data=batches([1, 6, 8], 2), quantize_all_outputs=False)
    residual = next(n for n in q_only.graph.node if n.name == "residual")
    assert residual.input[1] == "o", "no integer reader: o_proj's output stays f32"


def test_unnamed_nodes_are_named_and_can_be_excluded():
    """Nodes without a name get `<op>_<index>` (exclusion is by name); an existing name is kept."""
    model = cnn_model()
    for node in model.graph.node:
        if node.name != "fc":
            node.name = ""
    q = quantize(model, calibration_data=batches(CNN_INPUT, 2), exclude=["Conv_0"])
    assert [n.name for n in model.graph.node][0] == "", "the caller's model is not changed"
    conv = by_type(q, "Conv")[0]
    assert conv.name == "Conv_0" and conv.input[1] == "w1", "Conv_0 stays f32"
    assert producer(q, by_type(q, "Gemm")[0].input[1]).op_type == "DequantizeLinear"


def class_token_model(seed=8):
    """A ViT's front: x[1, 6, 16] patches -> MatMul(16->16) embeddings; a learned class token
    (values ~0.02, 50x smaller than the embeddings) Expanded and Concatenated before them ->
    + position embedding -> LayerNorm written out -> the class token's row -> Gemm head (16->4)."""
    rng = np.random.default_rng(seed)
    arrays = {"w_patch": rng.standard_normal((16, 16)).astype(np.float32),
              "cls": (rng.standard_normal((1, 1, 16)) * 0.02).astype(np.float32),
              "cls_shape": np.array([1, 1, 16], np.int64),
              "pos": (rng.standard_normal((1, 7, 16)) * 0.02).astype(np.float32),
              "axes": np.array([-1], np.int64), "two": np.array(2.0, np.float32),
              "eps": np.array(1e-6, np.float32), "zero": np.array(0, np.int64),
              "w_head": rng.standard_normal((4, 16)).astype(np.float32)}
    nodes = [helper.make_node("MatMul", ["x", "w_patch"], ["emb"], name="patch"),
             helper.make_node("Expand", ["cls", "cls_shape"], ["cls_e"], name="expand"),
             helper.make_node("Concat", ["cls_e", "emb"], ["cat"], name="concat", axis=1),
             helper.make_node("Add", ["cat", "pos"], ["t"], name="pos_add"),
             helper.make_node("ReduceMean", ["t"], ["mean"], name="ln_mean", axes=[-1]),
             helper.make_node("Sub", ["t", "mean"], ["d"], name="ln_sub"),
             helper.make_node("Pow", ["d", "two"], ["d2"], name="ln_pow"),
             helper.make_node("ReduceMean", ["d2"], ["var"], name="ln_var", axes=[-1]),
             helper.make_node("Add", ["var", "eps"], ["ve"], name="ln_eps"),
             helper.make_node("Sqrt", ["ve"], ["sd"], name="ln_sqrt"),
             helper.make_node("Div", ["d", "sd"], ["n"], name="ln_div"),
             helper.make_node("Gather", ["n", "zero"], ["c"], name="class_row", axis=1),
             helper.make_node("Gemm", ["c", "w_head"], ["y"], name="head", transB=1)]
    graph = helper.make_graph(
        nodes, "class_token", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 6, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
        [numpy_helper.from_array(a, n) for n, a in arrays.items() if n != "axes"])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_concat_read_only_by_f32_ops_stays_f32(core):
    """Like an Add, a Concat is quantized only when an integer op reads it (test_concat_shares_
    parameters: a convolution). ViT's class token joined to the patch embeddings, read by an Add
    and a LayerNorm, would share one scale with values 50x larger: rounded to a step or two, then
    normalised into noise, and the head reads only that row."""
    model = class_token_model()
    q = quantize(model, calibration_data=batches([1, 6, 16], 4))
    assert not [n for n in by_type(q, "QuantizeLinear") if n.input[0] in ("cat", "cls_e")]
    # The class token joins as it is; the embeddings are the MatMul's own quantized output.
    assert by_type(q, "Concat")[0].input[:] == ["cls_e", "emb_dq"]
    assert producer(q, by_type(q, "Gemm")[0].input[1]).op_type == "DequantizeLinear"
    for seed in (96, 97, 98):
        held_out = next(batches([1, 6, 16], 1, seed=seed))
        assert sqnr_db(run(core, model, held_out), run(core, q, held_out)) >= 30.0
