"""Core, Model, ports, tensors and types: the calls of the API with values checked."""
import numpy as np
import pytest

import vireo
from conftest import GOLDEN

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
          np.float16, np.float32, np.float64]
NAMES = ["boolean", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64"]


def test_devices_and_versions(core):
    devices = core.available_devices
    assert "TEMPLATE" in devices
    assert any(d.startswith("MOCK_REMOTE") for d in devices)
    versions = core.get_versions("TEMPLATE")
    assert set(versions) == {"TEMPLATE"}
    assert versions["TEMPLATE"]["build_number"] == vireo.__version__


@pytest.mark.parametrize("dtype,name", zip(DTYPES, NAMES))
def test_dtype_and_element_type_both_ways(dtype, name):
    array = (np.arange(6) % 2 == 1) if dtype is np.bool_ else np.arange(6).astype(dtype)
    array = array.reshape(2, 3)
    tensor = vireo.Tensor(array)
    assert tensor.element_type == getattr(vireo.Type, name)
    assert str(tensor.element_type) == name
    assert vireo.Type(dtype) == tensor.element_type
    assert tensor.element_type.to_dtype() == np.dtype(dtype)
    assert tensor.shape == [2, 3] and tensor.get_size() == 6
    assert tensor.data.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(tensor.data, array)


def test_unsupported_dtype_and_type():
    with pytest.raises(vireo.InvalidArgument, match="complex64"):
        vireo.Tensor(np.zeros(3, np.complex64))
    # numpy has no bfloat16: bf16 tensors show their raw bits as uint16 (test_bf16.py).
    assert vireo.Type.bf16.to_dtype() == np.dtype(np.uint16)
    with pytest.raises(vireo.NotImplemented, match="u4"):
        vireo.Type.u4.to_dtype()


def test_tensor_from_type_and_shape():
    tensor = vireo.Tensor(vireo.Type.i32, [2, 5])
    assert tensor.shape == [2, 5] and tensor.get_size() == 10 and tensor.byte_size == 40
    tensor.data[:] = np.arange(10).reshape(2, 5)
    assert tensor.data[1, 4] == 9


def test_model_ports_reshape_clone(core, tiny_xml):
    model = core.read_model(tiny_xml)
    assert model.friendly_name == "tiny"
    port = model.input(0)
    assert port.any_name == "x" and port.names == {"x"} and port.get_index() == 0
    assert port.element_type == vireo.Type.f32
    assert str(port.shape) == "[1,10]" and port.shape == [1, 10] and len(port.shape) == 2
    params = model.get_parameters()
    assert len(params) == 1 and params[0].get_type_name() == "Parameter"

    copy = model.clone()
    copy.friendly_name = "copy"
    copy.reshape({"x": [4, 10]})
    assert model.friendly_name == "tiny" and model.input("x").shape == [1, 10]
    assert copy.input().shape == [4, 10] and copy.output(0).shape == [4, 10]

    copy.reshape([-1, 10])
    assert copy.input().shape.is_dynamic and str(copy.input().shape) == "[?,10]"
    compiled = core.compile_model(copy, "TEMPLATE")
    x = np.arange(30, dtype=np.float32).reshape(3, 10)
    np.testing.assert_array_equal(compiled([x])[0], x + 1)


def test_read_model_from_bytes_and_serialize(core, tiny_xml, tmp_path):
    xml = tiny_xml.read_bytes()
    weights = tiny_xml.with_suffix(".bin").read_bytes()
    model = core.read_model(xml, weights)
    out = tmp_path / "copy.xml"
    vireo.serialize(model, str(out))
    assert out.is_file() and out.with_suffix(".bin").is_file()
    again = core.read_model(out)
    x = np.linspace(-1, 1, 10, dtype=np.float32).reshape(1, 10)
    np.testing.assert_array_equal(core.compile_model(again)({"x": x})["y"], x + 1)


def test_export_import_and_runtime_model(core, tiny_xml):
    compiled = core.compile_model(tiny_xml, "TEMPLATE")
    blob = compiled.export_model()
    assert isinstance(blob, bytes) and len(blob) > 0
    imported = core.import_model(blob, "TEMPLATE")
    x = np.full((1, 10), 2.5, np.float32)
    np.testing.assert_array_equal(imported(x)[0], np.full((1, 10), 3.5, np.float32))
    runtime = compiled.get_runtime_model()
    assert [p.any_name for p in runtime.outputs] == ["y"]


def test_query_model_and_properties(core, tiny_xml):
    model = core.read_model(tiny_xml)
    supported = core.query_model(model, "TEMPLATE")
    assert supported and set(supported.values()) == {"TEMPLATE"}
    core.set_property("MOCK_REMOTE", {"MOCK_REMOTE_LATENCY_US": 1234})
    try:
        assert int(core.get_property("MOCK_REMOTE", "MOCK_REMOTE_LATENCY_US")) == 1234
    finally:
        core.set_property("MOCK_REMOTE", {"MOCK_REMOTE_LATENCY_US": 2000})
    compiled = core.compile_model(model, "TEMPLATE")
    assert int(compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS")) >= 1


def test_compile_model_defaults_to_auto(core, tiny_xml):
    """No device named: AUTO (OpenVINO's default), which picks a real device, never the
    simulated MOCK_REMOTE: CPU when it is built, else the TEMPLATE reference interpreter."""
    model = core.read_model(tiny_xml)
    compiled = core.compile_model(model)
    expected = "CPU" if "CPU" in core.available_devices else "TEMPLATE"
    # Only an AUTO compiled model has a device list; a TEMPLATE one would refuse the key.
    priorities = compiled.get_property("MULTI_DEVICE_PRIORITIES")
    assert priorities.split(",")[0] == expected and "MOCK_REMOTE" not in priorities
    assert compiled.get_property("AUTO_COMPILES") in ([expected], expected)
    x = np.arange(10, dtype=np.float32).reshape(1, 10)
    np.testing.assert_array_equal(compiled(x)[0], x + 1)
    np.testing.assert_array_equal(core.compile_model(tiny_xml)(x)[0], x + 1)  # a path too


def test_log_level_takes_openvino_numbers_and_errors_name_no_cpp_type(core):
    before = core.get_property("LOG_LEVEL")
    try:
        core.set_property({"LOG_LEVEL": 2})  # ov::log::Level.INFO
        assert core.get_property("LOG_LEVEL") == "LOG_INFO"
        with pytest.raises(Exception) as error:
            core.set_property({"LOG_LEVEL": 9})
        assert "LOG_LEVEL" in str(error.value) and "N5vireo" not in str(error.value)
    finally:
        core.set_property({"LOG_LEVEL": before})
    assert core.get_property("LOG_LEVEL") == before


def test_inputs_by_name_port_index_list_and_single(core, tiny_xml):
    compiled = core.compile_model(tiny_xml)
    x = np.arange(10, dtype=np.float32).reshape(1, 10)
    for inputs in ({"x": x}, {compiled.input(0): x}, {0: x}, [x], (x,), x):
        np.testing.assert_array_equal(compiled(inputs)[0], x + 1)
    # Another dtype is converted to the port's type, with a warning.
    with pytest.warns(vireo.TypeConversionWarning):
        np.testing.assert_array_equal(compiled(x.astype(np.float64))[0], x + 1)
    results = compiled(x)
    assert "y" in results and "nope" not in results
    assert [p.any_name for p in results] == ["y"] and len(results.to_tuple()) == 1
