"""vireo.compress_weights: the golden MLP's MatMul weights as int8 or int4 on CPU, next to the f32 model
(within the quantization error) and TEMPLATE running the decompression as written; the model with
integer weights saves to IR a quarter (an eighth) of the size and reads back the same."""
import numpy as np
import pytest

import vireo
from conftest import GOLDEN


def run(core, model, device, x):
    return core.compile_model(model, device).create_infer_request().infer({0: x})[0].copy()


@pytest.mark.parametrize("mode,group", [("int8", 0), ("int8_asym", 0), ("int8", 128), ("int8_asym", 256),
                                        ("int4_sym", 0), ("int4_asym", 64)])
def test_golden_mlp_with_int8_weights(core, tmp_path, mode, group):
    path = str(GOLDEN / "mlp" / "model.xml")
    x = np.load(GOLDEN / "mlp" / "input_x.npy")
    f32 = run(core, core.read_model(path), "TEMPLATE", x)
    model = core.read_model(path)
    stats = vireo.compress_weights(model, mode=mode, group_size=group)
    assert stats["matmuls"] == 3
    assert stats["bytes_after"] < stats["bytes_before"] / (6 if mode.startswith("int4") else 3.5)
    cpu = run(core, model, "CPU", x)
    template = run(core, model, "TEMPLATE", x)
    np.testing.assert_allclose(cpu, template, rtol=1e-4, atol=1e-4)
    # int8 keeps the answer close to f32's, but not bit-identical (the integers were used).
    scale = np.abs(f32).max()
    assert 0 < np.abs(cpu - f32).max() < (0.25 if mode.startswith("int4") else 0.05) * scale
    vireo.serialize(model, str(tmp_path / "m.xml"))
    original_bin = (GOLDEN / "mlp" / "model.bin").stat().st_size
    assert (tmp_path / "m.bin").stat().st_size < original_bin / 3
    reread = core.read_model(str(tmp_path / "m.xml"))
    np.testing.assert_array_equal(run(core, reread, "CPU", x), cpu)


def test_bad_mode_names_it(core):
    model = core.read_model(str(GOLDEN / "mlp" / "model.xml"))
    with pytest.raises(vireo.InvalidArgument, match="'int5'"):
        vireo.compress_weights(model, mode="int5")
