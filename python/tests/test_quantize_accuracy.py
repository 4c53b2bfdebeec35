"""Tests of tools/quantize/vireo_accuracy (accuracy-aware mixed precision, issue 34): on a
small random-weight model where quantizing one op's input is deliberately harmful, the search
returns that op to f32 first, meets the bound and reports counts that match; a generous bound
excludes nothing; bad arguments are errors naming the flag.
"""
import pathlib
import sys

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools" / "quantize"))
import vireo_accuracy  # noqa: E402
import vireo_quantize  # noqa: E402
from vireo_accuracy import quantize_with_accuracy_control  # noqa: E402

pytest.importorskip("vireo")

SHAPE = [4, 16]


def outlier_model(seed=5):
    """x[4, 16] -> mm0 -> Relu -> mm1 -> Relu -> Mul(s) -> mm2 -> y, where s is 1 except one
    channel at 50 and mm2's row for that channel is divided by 50: mm2's input (one u8
    scale per tensor) is dominated by the outlier channel, so quantizing it leaves the other
    15 channels a handful of levels. Returning mm2 to f32 removes that pair; mm0 and mm1 are
    harmless. The tests turn SmoothQuant off: by default it folds the outlier into the Mul's
    constant (test_quantize_smoothing), and this model is about the search."""
    rng = np.random.default_rng(seed)
    w0 = (rng.standard_normal((16, 16)) * 0.3).astype(np.float32)
    w1 = (rng.standard_normal((16, 16)) * 0.3).astype(np.float32)
    w2 = (rng.standard_normal((16, 16)) * 0.3).astype(np.float32)
    s = np.ones(16, np.float32)
    s[3] = 50.0
    w2[3] /= 50.0
    nodes = [helper.make_node("MatMul", ["x", "w0"], ["m0"], name="mm0"),
             helper.make_node("Relu", ["m0"], ["r0"], name="relu0"),
             helper.make_node("MatMul", ["r0", "w1"], ["m1"], name="mm1"),
             helper.make_node("Relu", ["m1"], ["r1"], name="relu1"),
             helper.make_node("Mul", ["r1", "s"], ["big"], name="outlier"),
             helper.make_node("MatMul", ["big", "w2"], ["y"], name="mm2")]
    graph = helper.make_graph(
        nodes, "outlier", [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, SHAPE)],
        [numpy_helper.from_array(a, n) for a, n in ((w0, "w0"), (w1, "w1"), (w2, "w2"), (s, "s"))])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def samples(count, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(SHAPE).astype(np.float32) for _ in range(count)]


def weight_dq_readers(q):
    """Names of the ops whose weights are DequantizeLinear'd (the ones left int8)."""
    inits = {t.name for t in q.graph.initializer}
    dq = {n.output[0] for n in q.graph.node if n.op_type == "DequantizeLinear" and n.input[0] in inits}
    return sorted(n.name for n in q.graph.node if n.op_type == "MatMul" and n.input[1] in dq)


def test_points_are_the_quantized_ops():
    model = outlier_model()
    assert vireo_accuracy.quantization_points(model, set(), False, True) == ["mm0", "mm1", "mm2"]
    assert vireo_accuracy.quantization_points(model, {"mm1"}, False, True) == ["mm0", "mm2"]
    # an Add of a constant bias after a quantized MatMul is not a point of its own
    mlp = outlier_model()
    mlp.graph.initializer.append(numpy_helper.from_array(np.ones(16, np.float32), "b"))
    mlp.graph.node[0].output[0] = "m0pre"
    mlp.graph.node.insert(1, helper.make_node("Add", ["m0pre", "b"], ["m0"], name="bias0"))
    assert vireo_accuracy.quantization_points(mlp, set(), False, True) == ["mm0", "mm1", "mm2"]


def test_sqnr_excludes_the_outlier_op_first_and_meets_the_bound():
    model = outlier_model()
    q, report = quantize_with_accuracy_control(model, smooth_quant="off", calibration_data=samples(8, 1),
                                               validation_data=samples(6, 2), accuracy_metric="sqnr",
                                               max_drop=70.0, ranking="excluded")  # at least 30 dB
    assert report.candidates == 3
    assert report.before < 25.0, report  # the outlier pair ruins the output
    assert report.excluded == ["mm2"]
    assert report.ranking[0][0] == "mm2"
    assert report.ranking[0][1] > report.ranking[1][1] + 10.0
    assert report.met and report.after >= 30.0
    assert report.history == [report.after]
    assert report.f32 == vireo_accuracy.SQNR_CEILING
    # f32 + int8 + 3 ranked points + 1 exclusion step
    assert report.evaluations == 2 + 3 + 1
    assert weight_dq_readers(q) == ["mm0", "mm1"]
    # the model returned is the one measured: mm2's input has no Q/DQ pair any more
    assert not any(n.op_type == "DequantizeLinear" and n.output[0] == "big_dq" for n in q.graph.node)
    assert "big_dq" not in {i for n in q.graph.node for i in n.input}


def test_isolated_ranking_puts_the_outlier_op_first():
    model = outlier_model()
    q, report = quantize_with_accuracy_control(model, smooth_quant="off", calibration_data=samples(8, 1),
                                               validation_data=samples(6, 2), accuracy_metric="sqnr",
                                               max_drop=70.0, ranking="isolated")
    # with only mm2 quantized the output is at 12 dB; with only mm0 or mm1, well above 30
    assert [name for name, _ in report.ranking][0] == "mm2"
    assert report.ranking[0][1] < 20.0 < 30.0 < report.ranking[1][1]
    assert report.excluded == ["mm2"] and report.met and report.evaluations == 6


def test_generous_bound_excludes_nothing():
    model = outlier_model()
    q, report = quantize_with_accuracy_control(model, smooth_quant="off", calibration_data=samples(8, 1),
                                               validation_data=samples(6, 2), accuracy_metric="sqnr",
                                               max_drop=95.0)  # at least 5 dB: the int8 model has 12 dB
    assert report.excluded == [] and report.met
    assert report.evaluations == 2 and report.ranking == []
    assert report.after == report.before
    assert weight_dq_readers(q) == ["mm0", "mm1", "mm2"]


def test_user_validate_callable_and_argmax():
    model = outlier_model()
    calls = []

    def validate(compiled, val):
        """A user metric: the fraction of samples whose outputs are all finite (1.0 here)."""
        calls.append(len(val))
        request = compiled.create_infer_request()
        outs = [np.array(request.infer(list(s)).to_tuple()[0]) for s in val]
        return float(np.mean([np.all(np.isfinite(o)) for o in outs]))

    q, report = quantize_with_accuracy_control(model, smooth_quant="off", calibration_data=samples(8, 1),
                                               validation_data=samples(5, 2), validate=validate,
                                               max_drop=0.0)
    assert report.f32 == 1.0 and report.before == 1.0 and report.excluded == []
    assert calls == [5, 5] and report.evaluations == 2

    q, report = quantize_with_accuracy_control(model, smooth_quant="off", calibration_data=samples(8, 1),
                                               validation_data=samples(20, 2), accuracy_metric="argmax",
                                               max_drop=0.0)
    assert report.f32 == 1.0
    assert report.before < 1.0  # some row's argmax moved
    assert report.excluded[0] == "mm2" and report.after == 1.0 and report.met
    assert report.evaluations == 2 + 3 + len(report.excluded)


def test_max_excluded_and_max_evaluations_budgets():
    model = outlier_model()
    q, report = quantize_with_accuracy_control(model, smooth_quant="off", calibration_data=samples(8, 1),
                                               validation_data=samples(6, 2), accuracy_metric="sqnr",
                                               max_drop=0.0, max_excluded=2)
    assert len(report.excluded) == 2 and report.excluded[0] == "mm2" and not report.met
    assert len(report.history) == 2 and report.history[-1] == report.after
    assert report.evaluations == 2 + 3 + 2
    with pytest.raises(ValueError, match=r"--max-evaluations \(max_evaluations\) 4 is too small"):
        quantize_with_accuracy_control(model, smooth_quant="off", calibration_data=samples(8, 1), validation_data=samples(6, 2),
                                       accuracy_metric="sqnr", max_drop=0.0, max_evaluations=4)


@pytest.mark.parametrize("kwargs,message", [
    (dict(accuracy_metric="top5"), r"--accuracy-metric \(accuracy_metric\) must be one of sqnr, argmax"),
    (dict(accuracy_metric="sqnr", max_drop=-1.0), r"--max-drop \(max_drop\) must be a finite number >= 0"),
    (dict(accuracy_metric="sqnr", max_excluded=-2), r"--max-excluded \(max_excluded\) must be >= 0"),
    (dict(accuracy_metric="sqnr", ranking="random"), r"--ranking \(ranking\) must be one of excluded, isolated"),
    (dict(validate=42), r"validate must be a callable"),
    (dict(validate=lambda c, s: 0.0, accuracy_metric="sqnr"), r"either validate .* or accuracy_metric"),
])
def test_argument_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        quantize_with_accuracy_control(outlier_model(), smooth_quant="off", calibration_data=samples(2, 1), **kwargs)


def test_cli(tmp_path, capsys):
    model = outlier_model()
    src = tmp_path / "m.onnx"
    import onnx
    onnx.save(model, src)
    for k, s in enumerate(samples(4, 1)):
        (tmp_path / "calib").mkdir(exist_ok=True)
        np.save(tmp_path / "calib" / f"{k}.npy", s)
    for k, s in enumerate(samples(6, 2)):
        (tmp_path / "val").mkdir(exist_ok=True)
        np.save(tmp_path / "val" / f"{k}.npy", s)
    out = tmp_path / "m.qdq.onnx"
    vireo_quantize.main([str(src), str(out), "--calib", str(tmp_path / "calib"), "--accuracy-metric", "sqnr",
                         "--max-drop", "70", "--validation", str(tmp_path / "val"), "--smooth-quant", "off"])
    text = capsys.readouterr().out
    assert "accuracy-aware (sqnr)" in text and "1 of 3 points in f32 (mm2)" in text
    assert "6 evaluations" in text
    assert weight_dq_readers(onnx.load(out)) == ["mm0", "mm1"]
    for argv, message in ((["--accuracy-metric", "top1"], "--accuracy-metric (accuracy_metric) must be one of"),
                          (["--accuracy-metric", "argmax", "--max-drop", "-0.5"], "--max-drop (max_drop)"),
                          (["--max-drop", "1"], "--max-drop needs --accuracy-metric"),
                          (["--accuracy-metric", "sqnr", "--validation", str(tmp_path / "nope")],
                           "--validation")):
        with pytest.raises(SystemExit) as e:
            vireo_quantize.main([str(src), str(out), "--calib", str(tmp_path / "calib")] + argv)
        assert message in str(e.value)
