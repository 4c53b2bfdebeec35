"""Pre- and post-processing built into a model, as OpenVINO's openvino.preprocess:

    from vireo.preprocess import PrePostProcessor, ResizeAlgorithm
    ppp = PrePostProcessor(model)
    ppp.input().tensor().set_element_type(vireo.Type.u8).set_layout("NHWC")
    ppp.input().preprocess().convert_element_type(vireo.Type.f32).mean(127.5).scale(127.5)
    ppp.input().model().set_layout("NCHW")
    model = ppp.build()

The classes are native (the _vireo extension); see docs/preprocessing.md for the steps.
"""
from ._vireo import preprocess as _native

InputInfo = _native.InputInfo
InputModelInfo = _native.InputModelInfo
InputTensorInfo = _native.InputTensorInfo
OutputInfo = _native.OutputInfo
OutputModelInfo = _native.OutputModelInfo
OutputTensorInfo = _native.OutputTensorInfo
PostProcessSteps = _native.PostProcessSteps
PreProcessSteps = _native.PreProcessSteps
PrePostProcessor = _native.PrePostProcessor
ResizeAlgorithm = _native.ResizeAlgorithm

__all__ = [
    "InputInfo", "InputModelInfo", "InputTensorInfo", "OutputInfo", "OutputModelInfo",
    "OutputTensorInfo", "PostProcessSteps", "PreProcessSteps", "PrePostProcessor", "ResizeAlgorithm",
]
