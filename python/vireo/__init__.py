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
    make_stateful,
    serialize,
)
from . import preprocess  # noqa: F401,E402
from .async_infer_queue import AsyncInferQueue  # noqa: F401
