"""Every vireo::Exception kind arrives as its vireo.Error subclass with the native message."""
import numpy as np
import pytest

import vireo
from conftest import GOLDEN


def test_hierarchy():
    assert issubclass(vireo.Error, RuntimeError)
    for cls in (vireo.NotFound, vireo.InvalidArgument, vireo.NotImplemented, vireo.Busy, vireo.Cancelled,
                vireo.Unavailable):
        assert issubclass(cls, vireo.Error) and cls is not vireo.Error


def test_not_found(core, tiny_xml):
    with pytest.raises(vireo.NotFound, match="no_such_model.xml"):
        core.read_model("/nonexistent/no_such_model.xml")
    compiled = core.compile_model(tiny_xml)
    with pytest.raises(vireo.NotFound, match="'z'"):
        compiled({"z": np.zeros((1, 10), np.float32)})


def test_invalid_argument_names_the_shapes(core, tiny_xml):
    compiled = core.compile_model(tiny_xml)
    with pytest.raises(vireo.InvalidArgument) as error:
        compiled({"x": np.zeros((2, 3), np.float32)})
    assert "x" in str(error.value)
    with pytest.raises(vireo.InvalidArgument, match="out of range"):
        compiled({5: np.zeros((1, 10), np.float32)})


def test_not_implemented():
    with pytest.raises(vireo.NotImplemented, match="u4"):
        vireo.Tensor(vireo.Type.u4, [2]).data


def slow_remote(core, tiny_xml, **extra):
    config = {"MOCK_REMOTE_COMPILE_MS": 0, "MOCK_REMOTE_LATENCY_US": 2_000_000}
    config.update(extra)
    return core.compile_model(tiny_xml, "MOCK_REMOTE", config)


def test_busy_and_cancelled(core, tiny_xml):
    request = slow_remote(core, tiny_xml).create_infer_request()
    x = np.zeros((1, 10), np.float32)
    request.start_async(x)
    with pytest.raises(vireo.Busy):
        request.infer(x)
    request.cancel()
    with pytest.raises(vireo.Cancelled):
        request.wait()
    assert request.infer(x)[0][0, 0] == 1.0  # usable again after the cancel


def test_unavailable(core, tiny_xml):
    compiled = core.compile_model(tiny_xml, "MOCK_REMOTE",
                                  {"MOCK_REMOTE_COMPILE_MS": 0, "MOCK_REMOTE_LATENCY_US": 0, "MOCK_REMOTE_FAIL_NTH": 1})
    with pytest.raises(vireo.Unavailable):
        compiled(np.zeros((1, 10), np.float32))
    assert compiled(np.zeros((1, 10), np.float32))[0][0, 0] == 1.0  # only the first fails
