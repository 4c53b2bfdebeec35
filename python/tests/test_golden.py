"""Golden models (IR and ONNX) against ONNX Runtime's outputs on TEMPLATE and MOCK_REMOTE."""
import numpy as np
import pytest

from conftest import FAST_REMOTE, GOLDEN, golden

CASES = [(m, f, d) for m in ("tiny", "cnn") for f in ("model.xml", "model.onnx") for d in ("TEMPLATE", "MOCK_REMOTE")]


@pytest.mark.parametrize("model,file,device", CASES)
def test_golden_model_matches_onnx_runtime(core, model, file, device):
    x, expected = golden(model)
    config = FAST_REMOTE if device == "MOCK_REMOTE" else None
    compiled = core.compile_model(core.read_model(GOLDEN / model / file), device, config)
    assert len(compiled.inputs) == 1 and len(compiled.outputs) == 1
    assert compiled.input(0).any_name == "x" and compiled.output().any_name == "y"
    results = compiled({"x": x})
    assert len(results) == 1
    np.testing.assert_allclose(results[0], expected, rtol=1e-4, atol=1e-5)
    # The same array whichever key names the output.
    np.testing.assert_array_equal(results["y"], results[0])
    np.testing.assert_array_equal(results[compiled.output(0)], results[0])
    assert results[0].dtype == np.float32 and results[0].shape == expected.shape


@pytest.mark.parametrize("device", ["TEMPLATE", "MOCK_REMOTE"])
def test_compile_from_path_and_request_infer(core, device):
    x, expected = golden("cnn")
    compiled = core.compile_model(str(GOLDEN / "cnn" / "model.xml"), device, FAST_REMOTE if device != "TEMPLATE" else {})
    request = compiled.create_infer_request()
    results = request.infer([x])
    np.testing.assert_allclose(results["y"], expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(request.get_tensor("y").data, expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(request.get_output_tensor(0).data, expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(request.get_input_tensor(0).data, x)
    stages = [row.node_name for row in request.profiling_info]
    assert "execution" in stages
