"""vireo.preprocess (PrePostProcessor, Layout) and variable states (query_state, reset_state) on
TEMPLATE, checked against numpy."""
import numpy as np
import pytest

import vireo
from vireo.preprocess import PrePostProcessor, ResizeAlgorithm

from conftest import GOLDEN


def _port(dims, pid, names=""):
    named = f' names="{names}"' if names else ""
    body = "".join(f"<dim>{d}</dim>" for d in dims)
    return f'<port id="{pid}" precision="FP32"{named}>{body}</port>'


# y = x + acc; acc = y: an accumulator over inferences (variable "acc", initial value 0).
ACCUMULATOR_IR = f"""<?xml version="1.0"?>
<net name="accumulator" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,3" element_type="f32"/>
  <output>{_port([1, 3], 0, "x")}</output></layer>
<layer id="1" name="init" type="Const" version="opset1"><data element_type="f32" shape="1,3" offset="0" size="12"/>
  <output>{_port([1, 3], 0)}</output></layer>
<layer id="2" name="read" type="ReadValue" version="opset6"><data variable_id="acc"/>
  <input>{_port([1, 3], 0)}</input><output>{_port([1, 3], 1)}</output></layer>
<layer id="3" name="sum" type="Add" version="opset1">
  <input>{_port([1, 3], 0)}{_port([1, 3], 1)}</input><output>{_port([1, 3], 2, "y")}</output></layer>
<layer id="4" name="write" type="Assign" version="opset6"><data variable_id="acc"/>
  <input>{_port([1, 3], 0)}</input></layer>
<layer id="5" name="out" type="Result" version="opset1"><input>{_port([1, 3], 0)}</input></layer>
</layers><edges>
<edge from-layer="0" from-port="0" to-layer="3" to-port="0"/>
<edge from-layer="1" from-port="0" to-layer="2" to-port="0"/>
<edge from-layer="2" from-port="1" to-layer="3" to-port="1"/>
<edge from-layer="3" from-port="2" to-layer="4" to-port="0"/>
<edge from-layer="3" from-port="2" to-layer="5" to-port="0"/>
</edges></net>
"""


@pytest.fixture
def accumulator(core):
    model = core.read_model(ACCUMULATOR_IR.encode(), bytes(12))
    return core.compile_model(model, "TEMPLATE")


def test_states_accumulate_and_reset(accumulator):
    request = accumulator.create_infer_request()
    x = np.array([[1, 2, 3]], np.float32)
    for k in range(1, 4):
        y = request.infer({"x": x})["y"]
        np.testing.assert_array_equal(y, k * x)
    states = request.query_state()
    assert [s.name for s in states] == ["acc"]
    np.testing.assert_array_equal(states[0].state.data, 3 * x)

    states[0].state = np.full((1, 3), 10, np.float32)
    np.testing.assert_array_equal(request.infer({"x": x})["y"], 10 + x)

    request.reset_state()
    np.testing.assert_array_equal(request.infer({"x": x})["y"], x)
    states[0].reset()
    np.testing.assert_array_equal(request.query_state()[0].get_state().data, np.zeros((1, 3), np.float32))


def test_states_are_per_request(accumulator):
    a, b = accumulator.create_infer_request(), accumulator.create_infer_request()
    x = np.ones((1, 3), np.float32)
    a.infer({"x": x})
    a.infer({"x": x})
    np.testing.assert_array_equal(b.infer({"x": x})["y"], x)
    np.testing.assert_array_equal(a.query_state()[0].state.data, 2 * x)


def test_set_state_with_a_wrong_shape_names_the_variable(accumulator):
    request = accumulator.create_infer_request()
    with pytest.raises(vireo.Error, match="acc"):
        request.query_state()[0].set_state(np.zeros((2, 2), np.float32))


def test_layout():
    layout = vireo.Layout("NCHW")
    assert layout.get_index_by_name("C") == 1
    assert layout.has_name("W") and not layout.has_name("D")
    assert str(layout) == "NCHW" and layout == vireo.Layout("nchw")
    assert vireo.Layout("N...C").get_index_by_name("C") == -1
    with pytest.raises(vireo.InvalidArgument):
        vireo.Layout("NCC")


def test_preprocess_u8_nhwc_into_the_cnn(core):
    """A u8 NHWC image with mean/scale built into the golden cnn (f32 NCHW [1,3,64,64]) gives
    what the plain model gives on the converted, normalised, transposed input."""
    image = np.random.default_rng(7).integers(0, 256, (1, 64, 64, 3), dtype=np.uint8)
    plain = core.compile_model(str(GOLDEN / "cnn" / "model.xml"), "TEMPLATE")
    expected = plain({0: ((image.astype(np.float32) - 127.5) / 64.0).transpose(0, 3, 1, 2)})[0]

    model = core.read_model(str(GOLDEN / "cnn" / "model.xml"))
    ppp = PrePostProcessor(model)
    ppp.input().tensor().set_element_type(vireo.Type.u8).set_layout("NHWC")
    ppp.input().preprocess().convert_element_type(vireo.Type.f32).mean(127.5).scale([64.0, 64.0, 64.0])
    ppp.input().model().set_layout("NCHW")
    built = ppp.build()
    assert built.input(0).element_type == vireo.Type.u8
    assert str(built.input(0).shape) == "[1,64,64,3]"
    got = core.compile_model(built, "TEMPLATE")({0: image})[0]
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_preprocess_resize_and_output_conversion(core):
    model = core.read_model(str(GOLDEN / "cnn" / "model.xml"))
    ppp = PrePostProcessor(model)
    ppp.input().tensor().set_spatial_static_shape(32, 32).set_layout("NCHW")
    ppp.input().preprocess().resize(ResizeAlgorithm.RESIZE_LINEAR)
    ppp.input().model().set_layout("NCHW")
    ppp.output().tensor().set_element_type(vireo.Type.f16)
    built = ppp.build()
    assert str(built.input(0).shape) == "[1,3,32,32]"
    assert built.output(0).element_type == vireo.Type.f16
    y = core.compile_model(built, "TEMPLATE")({0: np.ones((1, 3, 32, 32), np.float32)})[0]
    assert y.dtype == np.float16 and y.shape == (1, 10)


def test_preprocess_errors_name_the_input(core):
    model = core.read_model(str(GOLDEN / "cnn" / "model.xml"))
    ppp = PrePostProcessor(model)
    with pytest.raises(vireo.NotFound, match="nope"):
        ppp.input("nope")
    ppp.input().preprocess().mean([1.0, 2.0])  # two values for three channels
    ppp.input().model().set_layout("NCHW")
    with pytest.raises(vireo.InvalidArgument, match="x"):
        ppp.build()


def test_add_extension_brings_a_custom_op(core):
    """The example extension (samples/extension) adds Squash, which TEMPLATE runs from the ONNX
    model of its custom domain. ctest names the library (VIREO_EXAMPLE_EXTENSION)."""
    import os
    import pathlib
    from conftest import DATA
    library = os.environ.get("VIREO_EXAMPLE_EXTENSION", "")
    if not library:
        pytest.fail("VIREO_EXAMPLE_EXTENSION is not set: build with samples on (ctest sets it)")
    core.add_extension(pathlib.Path(library))  # a PathLike
    core.add_extension(library)                # again: nothing happens
    compiled = core.compile_model(str(DATA / "extension" / "squash.onnx"), "TEMPLATE")
    x = np.array([[-3, -0.5, 0], [0.25, 1, 40]], np.float32)
    np.testing.assert_allclose(compiled({0: x})[0], 2 * x / (1 + np.abs(x)), rtol=1e-6)
    with pytest.raises(vireo.NotFound, match="does not exist"):
        core.add_extension("/nonexistent/libext.so")


def _identity_ir(dims):
    shape = ",".join(str(d) for d in dims)
    return f"""<?xml version="1.0"?>
<net name="identity" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="{shape}" element_type="f32"/>
  <output>{_port(dims, 0, "x")}</output></layer>
<layer id="1" name="y" type="Result" version="opset1"><input>{_port(dims, 0)}</input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges></net>"""


def _resized(core, image, size, algorithm, device="TEMPLATE"):
    """`image` (H, W, uint8 or float32) resized to `size` (h, w) by a built-in preprocessing step."""
    model = core.read_model(_identity_ir([1, 1, *size]).encode(), b"")
    ppp = PrePostProcessor(model)
    element = vireo.Type.u8 if image.dtype == np.uint8 else vireo.Type.f32
    ppp.input().tensor().set_element_type(element).set_layout("NCHW").set_spatial_static_shape(*image.shape)
    ppp.input().preprocess().resize(algorithm).convert_element_type(vireo.Type.f32)
    ppp.input().model().set_layout("NCHW")
    return core.compile_model(ppp.build(), device)({0: image[None, None]})[0][0, 0]


def test_preprocess_resize_pillow_modes_give_pillows_pixels(core):
    # A 5x7 8-bit image to 3x4 with Pillow 9.4.0's Image.resize((4, 3), Image.BICUBIC) result.
    image = (np.arange(35) * 37 + 11) % 251
    got = _resized(core, image.astype(np.uint8).reshape(5, 7), (3, 4),
                   ResizeAlgorithm.RESIZE_BICUBIC_PILLOW)
    np.testing.assert_array_equal(got, [[29, 91, 159, 225], [42, 104, 174, 205], [55, 117, 194, 105]])
    assert {ResizeAlgorithm.RESIZE_CUBIC, ResizeAlgorithm.RESIZE_BILINEAR_PILLOW} <= set(
        ResizeAlgorithm.__members__.values())


def test_preprocess_resize_matches_pillow_on_a_random_image(core):
    """Against Pillow itself when it is installed (not a dependency of the package)."""
    Image = pytest.importorskip("PIL.Image")
    rng = np.random.default_rng(5)
    image = rng.integers(0, 256, size=(37, 53), dtype=np.uint8)
    for algorithm, pil_filter in ((ResizeAlgorithm.RESIZE_BILINEAR_PILLOW, Image.BILINEAR),
                                  (ResizeAlgorithm.RESIZE_BICUBIC_PILLOW, Image.BICUBIC)):
        for size in ((20, 31), (80, 90), (37, 17)):
            for data, mode in ((image, "L"), (image.astype(np.float32), "F")):
                want = np.asarray(Image.fromarray(data, mode).resize(size[::-1], pil_filter), np.float32)
                got = _resized(core, data, size, algorithm)
                # 8-bit: Pillow's fixed-point weights may round a value half a level the other way.
                tolerance = 1 if mode == "L" else 1e-3
                assert np.abs(got - want).max() <= tolerance, (algorithm, size, mode)
                if mode == "L":
                    assert np.mean(got != want) < 0.01, (algorithm, size)
