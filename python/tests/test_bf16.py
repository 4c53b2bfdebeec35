"""bf16 at a model's inputs and outputs from Python (issue 30): numpy has no bfloat16, so a bf16
tensor is a uint16 array of its bits; a bf16 input takes those bits as they are, or a float array
converted (rounded to nearest even, with a TypeConversionWarning). Expected values are computed
here with numpy bit arithmetic, independently of Vireo's conversion."""
import warnings

import numpy as np
import pytest

import vireo


def _port(dims, pid, precision, names=""):
    named = f' names="{names}"' if names else ""
    body = "".join(f"<dim>{d}</dim>" for d in dims)
    return f'<port id="{pid}" precision="{precision}"{named}>{body}</port>'


# y = relu(x) on bf16 [1, 4].
RELU_BF16_IR = f"""<?xml version="1.0"?>
<net name="relu_bf16" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,4" element_type="bf16"/>
  <output>{_port([1, 4], 0, "BF16", "x")}</output></layer>
<layer id="1" name="act" type="Relu" version="opset1">
  <input>{_port([1, 4], 0, "BF16")}</input><output>{_port([1, 4], 1, "BF16", "y")}</output></layer>
<layer id="2" name="out" type="Result" version="opset1"><input>{_port([1, 4], 0, "BF16")}</input></layer>
</layers><edges>
<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
</edges></net>
"""


def bits_of(values):
    """bfloat16 bits by truncation of exactly representable values (no rounding needed)."""
    return (np.asarray(values, np.float32).view(np.uint32) >> 16).astype(np.uint16)


@pytest.fixture
def relu(core):
    return core.compile_model(core.read_model(RELU_BF16_IR.encode(), b""), "TEMPLATE")


def test_bf16_output_is_a_uint16_view_of_the_bits(relu):
    x = bits_of([[-2.0, 1.5, -0.25, 3.0]])
    y = relu({"x": x})[0]
    assert y.dtype == np.uint16 and y.shape == (1, 4)
    np.testing.assert_array_equal(y, bits_of([[0.0, 1.5, 0.0, 3.0]]))
    np.testing.assert_array_equal(vireo.bf16_to_float32(y), [[0.0, 1.5, 0.0, 3.0]])
    request = relu.create_infer_request()
    request.infer({"x": x})
    assert request.get_tensor("y").element_type == vireo.Type.bf16


def test_float_input_is_rounded_to_bf16_with_a_warning(relu):
    # 1 + 2**-8 lies halfway between two bf16 values: ties to even gives 1.0; 1 + 3 * 2**-8
    # rounds up to 1 + 2**-6... computed here from the bits.
    x = np.array([[1.0 + 2.0**-8, 1.0 + 3 * 2.0**-8, 65504.0, -1.0]], np.float32)
    with pytest.warns(vireo.TypeConversionWarning, match="bf16"):
        y = relu({"x": x})[0]
    u = x.view(np.uint32)
    expected = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    expected[0, 3] = 0  # relu(-1)
    np.testing.assert_array_equal(y, expected)
    assert vireo.bf16_to_float32(y)[0, 0] == 1.0
    # Bits given as uint16 pass without a warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        relu({"x": bits_of([[1.0, 2.0, 3.0, 4.0]])})


def test_float32_to_bf16_matches_the_runtime_including_nan(relu):
    values = np.array([0.1, 1e30, np.inf, 1.0 + 2.0**-8], np.float32)
    bits = vireo.float32_to_bf16(values)
    assert bits.dtype == np.uint16
    with pytest.warns(vireo.TypeConversionWarning):
        by_runtime = relu({"x": values.reshape(1, 4)})[0]  # relu keeps these positive values
    np.testing.assert_array_equal(bits, by_runtime.reshape(4))
    special = vireo.bf16_to_float32(vireo.float32_to_bf16([np.nan, -np.inf, -3.3]))
    assert np.isnan(special[0]) and special[1] == -np.inf
    assert abs(special[2] + 3.3) <= 3.3 * 2.0**-8
