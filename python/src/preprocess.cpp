// Binds vireo.Layout and the vireo.preprocess submodule (PrePostProcessor and its parts), shaped
// like OpenVINO's openvino.preprocess: every setter returns its object for chaining.
#include "vireo/preprocess.hpp"

#include <pybind11/operators.h>

#include "common.hpp"

namespace vireo_py {

namespace {

using vireo::PrePostProcessor;
namespace pp = vireo;

std::vector<float> floats(py::handle value) {
    if (py::isinstance<py::float_>(value) || py::isinstance<py::int_>(value))
        return {value.cast<float>()};
    return value.cast<std::vector<float>>();
}

}  // namespace

void register_preprocess(py::module_& m) {
    py::class_<vireo::Layout>(m, "Layout",
                              "Names of a tensor's dimensions: Layout('NCHW'), Layout('N...C'), "
                              "Layout('[batch,C,H,W]').")
        .def(py::init<>())
        .def(py::init<const std::string&>(), py::arg("layout"))
        .def("has_name", &vireo::Layout::has_dim, py::arg("name"))
        .def("get_index_by_name",
             py::overload_cast<const std::string&>(&vireo::Layout::get_index, py::const_),
             py::arg("name"))
        .def("empty", &vireo::Layout::empty)
        .def("to_string", &vireo::Layout::to_string)
        .def(py::self == py::self)
        .def(py::self != py::self)
        .def("__str__", &vireo::Layout::to_string)
        .def("__repr__",
             [](const vireo::Layout& l) { return "<Layout: '" + l.to_string() + "'>"; });
    py::implicitly_convertible<std::string, vireo::Layout>();

    py::module_ sub = m.def_submodule("preprocess",
                                      "Pre- and post-processing steps built into a model "
                                      "(OpenVINO's openvino.preprocess).");
    py::enum_<vireo::ResizeAlgorithm>(sub, "ResizeAlgorithm")
        .value("RESIZE_NEAREST", vireo::ResizeAlgorithm::kNearest)
        .value("RESIZE_LINEAR", vireo::ResizeAlgorithm::kLinear)
        .value("RESIZE_CUBIC", vireo::ResizeAlgorithm::kCubic)
        .value("RESIZE_BILINEAR_PILLOW", vireo::ResizeAlgorithm::kBilinearPillow)
        .value("RESIZE_BICUBIC_PILLOW", vireo::ResizeAlgorithm::kBicubicPillow);

    const auto ref = py::return_value_policy::reference_internal;
    py::class_<pp::InputTensorInfo>(sub, "InputTensorInfo",
                                    "The user's tensor for one model input.")
        .def("set_element_type", &pp::InputTensorInfo::set_element_type, py::arg("type"), ref)
        .def("set_layout", &pp::InputTensorInfo::set_layout, py::arg("layout"), ref)
        .def(
            "set_shape",
            [](pp::InputTensorInfo& info, py::handle shape) -> pp::InputTensorInfo& {
                return info.set_shape(to_partial_shape(shape));
            },
            py::arg("shape"), ref)
        .def("set_spatial_static_shape", &pp::InputTensorInfo::set_spatial_static_shape,
             py::arg("height"), py::arg("width"), ref);
    py::class_<pp::PreProcessSteps>(sub, "PreProcessSteps",
                                    "Steps from the user's tensor to the model's input.")
        .def("convert_element_type", &pp::PreProcessSteps::convert_element_type,
             py::arg("type") = vireo::element::dynamic, ref)
        .def("convert_layout", &pp::PreProcessSteps::convert_layout,
             py::arg("layout") = vireo::Layout(), ref)
        .def("resize", py::overload_cast<vireo::ResizeAlgorithm>(&pp::PreProcessSteps::resize),
             py::arg("algorithm"), ref)
        .def(
            "resize",
            py::overload_cast<vireo::ResizeAlgorithm, size_t, size_t>(&pp::PreProcessSteps::resize),
            py::arg("algorithm"), py::arg("height"), py::arg("width"), ref)
        .def(
            "mean",
            [](pp::PreProcessSteps& steps, py::handle value) -> pp::PreProcessSteps& {
                return steps.mean(floats(value));
            },
            py::arg("value"), "one value, or one per channel", ref)
        .def(
            "scale",
            [](pp::PreProcessSteps& steps, py::handle value) -> pp::PreProcessSteps& {
                return steps.scale(floats(value));
            },
            py::arg("value"), "one value, or one per channel", ref)
        .def("reverse_channels", &pp::PreProcessSteps::reverse_channels, ref);
    py::class_<pp::InputModelInfo>(sub, "InputModelInfo", "What the model's input is.")
        .def("set_layout", &pp::InputModelInfo::set_layout, py::arg("layout"), ref);
    py::class_<pp::InputInfo>(sub, "InputInfo")
        .def("tensor", py::overload_cast<>(&pp::InputInfo::tensor), ref)
        .def("preprocess", py::overload_cast<>(&pp::InputInfo::preprocess), ref)
        .def("model", py::overload_cast<>(&pp::InputInfo::model), ref);
    py::class_<pp::OutputModelInfo>(sub, "OutputModelInfo")
        .def("set_layout", &pp::OutputModelInfo::set_layout, py::arg("layout"), ref);
    py::class_<pp::PostProcessSteps>(sub, "PostProcessSteps")
        .def("convert_element_type", &pp::PostProcessSteps::convert_element_type,
             py::arg("type") = vireo::element::dynamic, ref)
        .def("convert_layout", &pp::PostProcessSteps::convert_layout,
             py::arg("layout") = vireo::Layout(), ref);
    py::class_<pp::OutputTensorInfo>(sub, "OutputTensorInfo")
        .def("set_element_type", &pp::OutputTensorInfo::set_element_type, py::arg("type"), ref)
        .def("set_layout", &pp::OutputTensorInfo::set_layout, py::arg("layout"), ref);
    py::class_<pp::OutputInfo>(sub, "OutputInfo")
        .def("model", py::overload_cast<>(&pp::OutputInfo::model), ref)
        .def("postprocess", py::overload_cast<>(&pp::OutputInfo::postprocess), ref)
        .def("tensor", py::overload_cast<>(&pp::OutputInfo::tensor), ref);
    py::class_<PrePostProcessor>(
        sub, "PrePostProcessor",
        "Adds pre/post-processing to a model: ppp = PrePostProcessor(model); "
        "ppp.input().tensor().set_layout('NHWC'); model = ppp.build()")
        .def(py::init<std::shared_ptr<vireo::Model>>(), py::arg("model"))
        .def("input", py::overload_cast<>(&PrePostProcessor::input), ref)
        .def("input", py::overload_cast<size_t>(&PrePostProcessor::input), py::arg("index"), ref)
        .def("input", py::overload_cast<const std::string&>(&PrePostProcessor::input),
             py::arg("name"), ref)
        .def("output", py::overload_cast<>(&PrePostProcessor::output), ref)
        .def("output", py::overload_cast<size_t>(&PrePostProcessor::output), py::arg("index"), ref)
        .def("output", py::overload_cast<const std::string&>(&PrePostProcessor::output),
             py::arg("name"), ref)
        .def(
            "build",
            [](PrePostProcessor& ppp) {
                py::gil_scoped_release release;
                return ppp.build();
            },
            "Inserts the steps into the model and returns it (the same model object).");
}

}  // namespace vireo_py
