"""Zero copy and lifetimes: shared arrays, views of tensors, results outliving their owners."""
import gc
import sys

import numpy as np

import vireo


def test_shared_tensor_shares_and_keeps_the_array(core, tiny_xml):
    x = np.zeros((1, 10), np.float32)
    refs = sys.getrefcount(x)
    tensor = vireo.Tensor(x, shared_memory=True)
    assert sys.getrefcount(x) == refs + 1  # the tensor holds the array
    tensor.data[0, 3] = 7.0
    assert x[0, 3] == 7.0
    request = core.compile_model(tiny_xml).create_infer_request()
    request.set_tensor("x", tensor)
    request.infer()
    assert request.results[0][0, 3] == 8.0
    x[0, 4] = 41.0  # seen by the next inference: the request reads the array itself
    request.infer()
    assert request.results["y"][0, 4] == 42.0
    del x
    gc.collect()
    assert tensor.data[0, 3] == 7.0  # the array lives on inside the tensor


def test_copied_tensor_does_not_share():
    x = np.ones((2, 2), np.int32)
    tensor = vireo.Tensor(x)
    x[0, 0] = 5
    assert tensor.data[0, 0] == 1


def test_infer_wraps_contiguous_inputs(core, tiny_xml):
    request = core.compile_model(tiny_xml).create_infer_request()
    x = np.zeros((1, 10), np.float32)
    request.infer({"x": x})
    x[0, 0] = 10.0
    assert request.infer()[0][0, 0] == 11.0  # no inputs given: the wrapped array is read again
    # share_inputs=False copies: a later change is not seen.
    request.infer({"x": x}, share_inputs=False)
    x[0, 0] = 20.0
    assert request.infer()[0][0, 0] == 11.0


def test_non_contiguous_inputs_are_copied(core, tiny_xml):
    compiled = core.compile_model(tiny_xml)
    base = np.arange(20, dtype=np.float32).reshape(10, 2)
    x = base[:, 0].reshape(1, 10)  # a strided view
    assert not x.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(compiled(x)[0], x + 1)
    transposed = np.arange(10, dtype=np.float32).reshape(10, 1).T
    np.testing.assert_array_equal(compiled(transposed)[0], transposed + 1)


def test_result_outlives_request_compiled_model_and_core(tiny_xml):
    core = vireo.Core()
    compiled = core.compile_model(tiny_xml, "MOCK_REMOTE", {"MOCK_REMOTE_COMPILE_MS": 0})
    request = compiled.create_infer_request()
    x = np.arange(10, dtype=np.float32).reshape(1, 10)
    view = request.infer(x, share_outputs=True)[0]
    copy = compiled(x)[0]
    tensor_view = request.get_tensor("y").data
    assert view.base is not None and not view.flags["OWNDATA"]
    del request, compiled, core
    gc.collect()
    np.testing.assert_array_equal(view, x + 1)
    np.testing.assert_array_equal(copy, x + 1)
    np.testing.assert_array_equal(tensor_view, x + 1)


def test_tensor_data_outlives_tensor():
    tensor = vireo.Tensor(vireo.Type.f32, [3])
    data = tensor.data
    data[:] = [1, 2, 3]
    del tensor
    gc.collect()
    np.testing.assert_array_equal(data, [1, 2, 3])
