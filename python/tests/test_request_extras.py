"""OpenVINO conveniences of the request and properties (issue 35): list-valued
SUPPORTED_PROPERTIES, ProfilingInfo's repr and Status enum, set_input_tensor without an index,
set_tensors for a batch from several tensors."""
import numpy as np
import pytest

import vireo


def test_supported_properties_is_a_list_of_keys(core, tiny_xml):
    keys = core.get_property("TEMPLATE", "SUPPORTED_PROPERTIES")
    assert isinstance(keys, list) and all(isinstance(k, str) for k in keys)
    assert "PERF_COUNT" in keys and "FULL_DEVICE_NAME" in keys and "DEVICE_TYPE" in keys
    compiled = core.compile_model(tiny_xml, "TEMPLATE")
    model_keys = compiled.get_property("SUPPORTED_PROPERTIES")
    assert isinstance(model_keys, list) and "OPTIMAL_NUMBER_OF_INFER_REQUESTS" in model_keys


def test_profiling_info_has_a_repr_and_a_status_enum(core, tiny_xml):
    request = core.compile_model(tiny_xml, "TEMPLATE", {"PERF_COUNT": True}).create_infer_request()
    request.infer({"x": np.zeros((1, 10), np.float32)})
    rows = request.profiling_info
    statuses = {row.status for row in rows}
    assert statuses <= set(vireo.ProfilingInfo.Status.__members__.values())
    assert vireo.ProfilingInfo.Status.EXECUTED in statuses
    assert not any(isinstance(row.status, str) for row in rows)
    first = repr(rows[0])
    assert first.startswith("<ProfilingInfo node_name='" + rows[0].node_name + "'")
    assert "status=" in first and "real_time=" in first


def test_set_input_tensor_without_an_index_on_a_single_input_model(core, tiny_xml):
    request = core.compile_model(tiny_xml, "TEMPLATE").create_infer_request()
    x = np.arange(10, dtype=np.float32).reshape(1, 10)
    request.set_input_tensor(vireo.Tensor(x))
    request.infer()
    np.testing.assert_array_equal(request.get_output_tensor().data, x + 1)


def test_set_input_tensor_without_an_index_is_refused_on_two_inputs(core):
    from conftest import DATA
    compiled = core.compile_model(DATA / "models" / "openvino_ir" / "add_two_inputs_model" / "add.xml",
                                  "TEMPLATE")
    request = compiled.create_infer_request()
    with pytest.raises(Exception) as error:
        request.set_input_tensor(vireo.Tensor(np.zeros((1, 10), np.float32)))
    assert "TypeError" not in type(error.value).__name__


def test_set_tensors_gives_a_batch_from_several_tensors(core, tiny_xml):
    model = core.read_model(tiny_xml)
    model.reshape([4, 10])
    request = core.compile_model(model, "TEMPLATE").create_infer_request()
    rows = [np.full((1, 10), k, np.float32) for k in range(4)]
    request.set_tensors("x", [vireo.Tensor(r) for r in rows])
    request.infer()
    np.testing.assert_array_equal(request.get_output_tensor().data, np.concatenate(rows) + 1)
    request.set_input_tensors(0, [vireo.Tensor(r * 2) for r in rows])
    request.infer()
    np.testing.assert_array_equal(request.get_output_tensor().data, np.concatenate(rows) * 2 + 1)
