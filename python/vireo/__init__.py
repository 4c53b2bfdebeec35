"""Vireo inference runtime for Python, shaped like OpenVINO's Python API.

    import numpy as np, vireo
    core = vireo.Core()
    compiled = core.compile_model("model.xml", "TEMPLATE")
    y = compiled({"x": np.ones((1, 10), np.float32)})[0]

The native classes come from the _vireo extension module; AsyncInferQueue is pure Python.
See docs/python.md.
"""
from ._vireo import (  # noqa: F401
    Busy,
    Cancelled,
    CompiledModel,
    Core,
    Dimension,
    Error,
    InferRequest,
    InferResults,
    InvalidArgument,
    Layout,
    Model,
    Node,
    NotFound,
    NotImplemented,
    Output,
    PartialShape,
    ProfilingInfo,
    Tensor,
    Type,
    TypeConversionWarning,
    Unavailable,
    VariableState,
    __version__,
    compress_weights,
    make_stateful,
    serialize,
)
from . import preprocess  # noqa: F401,E402
from .async_infer_queue import AsyncInferQueue  # noqa: F401


def float32_to_bf16(values):
    """The bfloat16 bits (a uint16 array) of `values`, rounded to nearest, ties to even, as Vireo's
    Convert rounds; NaN stays a quiet NaN. numpy has no bfloat16 type: Vireo shows bf16 tensors
    as uint16 arrays of these bits, and a bf16 input takes them (or a float array, converted)."""
    import numpy as np

    u = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    rounded = ((u + np.uint32(0x7FFF) + ((u >> 16) & np.uint32(1))) >> 16).astype(np.uint16)
    nan = (u & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)
    rounded[nan] = ((u[nan] >> 16) | np.uint32(0x40)).astype(np.uint16)
    return rounded


def bf16_to_float32(bits):
    """The float32 values of bfloat16 `bits` (a uint16 array, e.g. a bf16 tensor's `data`);
    exact."""
    import numpy as np

    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)
