// Binds vireo.Output (a port of a model or compiled model), vireo.Node, vireo.Model and
// vireo.serialize.
#include "common.hpp"
#include "vireo/ir.hpp"
#include "vireo/transformations.hpp"

namespace vireo_py {

namespace {

std::map<vireo::Output, vireo::PartialShape> reshape_map(vireo::Model& model,
                                                         const py::dict& shapes) {
    std::map<vireo::Output, vireo::PartialShape> result;
    for (auto [key, value] : shapes) {
        vireo::Output port;
        if (py::isinstance<vireo::Output>(key)) {
            port = key.cast<vireo::Output>();
        } else if (py::isinstance<py::int_>(key)) {
            port = model.input(key.cast<size_t>());
        } else {
            port = model.input(key.cast<std::string>());
        }
        result[port] = to_partial_shape(value);
    }
    return result;
}

}  // namespace

void register_model(py::module_& m) {
    py::class_<vireo::Output>(m, "Output",
                              "A port: an input or output of a model or compiled model. Keeps its "
                              "node alive.")
        .def_property_readonly("any_name", &vireo::Output::get_any_name,
                               "One of the tensor names; vireo.NotFound when it has none.")
        .def("get_any_name", &vireo::Output::get_any_name)
        .def_property_readonly("names", &vireo::Output::get_names)
        .def("get_names", &vireo::Output::get_names)
        .def_property_readonly("shape", &vireo::Output::get_partial_shape, "the partial shape")
        .def_property_readonly("partial_shape", &vireo::Output::get_partial_shape)
        .def("get_partial_shape", &vireo::Output::get_partial_shape)
        .def_property_readonly("element_type", &vireo::Output::get_element_type)
        .def("get_element_type", &vireo::Output::get_element_type)
        .def("get_index", &vireo::Output::get_index)
        .def_property_readonly("index", &vireo::Output::get_index)
        .def("get_node", &vireo::Output::get_node_shared_ptr)
        .def("__eq__",
             [](const vireo::Output& a, py::object b) {
                 return py::isinstance<vireo::Output>(b) && a == b.cast<vireo::Output>();
             })
        .def("__hash__",
             [](const vireo::Output& o) {
                 return std::hash<const void*>()(o.get_node()) ^ (o.get_index() * 0x9e3779b9u);
             })
        .def("__repr__", [](const vireo::Output& o) {
            std::string names;
            for (const auto& n : o.get_names()) names += (names.empty() ? "'" : ", '") + n + "'";
            return "<Output: names[" + names + "] shape" + o.get_partial_shape().to_string() +
                   " type: " + std::string(o.get_element_type().name()) + ">";
        });

    py::class_<vireo::Node, std::shared_ptr<vireo::Node>>(m, "Node", "One op of a model.")
        .def_property("friendly_name", &vireo::Node::get_friendly_name,
                      &vireo::Node::set_friendly_name)
        .def("get_friendly_name", &vireo::Node::get_friendly_name)
        .def("get_type_name", &vireo::Node::get_type_name)
        .def("get_output_size", &vireo::Node::get_output_size)
        .def("output", &vireo::Node::output, py::arg("index"))
        .def("outputs", &vireo::Node::outputs)
        .def("get_output_partial_shape", &vireo::Node::get_output_partial_shape, py::arg("index"))
        .def("get_output_element_type", &vireo::Node::get_output_element_type, py::arg("index"))
        .def("__repr__", [](const vireo::Node& n) {
            return "<Node: " + n.get_type_name() + " '" + n.get_friendly_name() + "'>";
        });

    py::class_<vireo::Model, std::shared_ptr<vireo::Model>>(
        m, "Model", "A model graph from Core.read_model; shared, not copied (use clone()).")
        .def_property_readonly("inputs", &vireo::Model::inputs)
        .def_property_readonly("outputs", &vireo::Model::outputs)
        .def("input", [](const vireo::Model& model) { return model.input(); })
        .def("input", py::overload_cast<size_t>(&vireo::Model::input, py::const_), py::arg("index"))
        .def("input", py::overload_cast<const std::string&>(&vireo::Model::input, py::const_),
             py::arg("name"))
        .def("output", [](const vireo::Model& model) { return model.output(); })
        .def("output", py::overload_cast<size_t>(&vireo::Model::output, py::const_),
             py::arg("index"))
        .def("output", py::overload_cast<const std::string&>(&vireo::Model::output, py::const_),
             py::arg("name"))
        .def("get_parameters", &vireo::Model::get_parameters, "the Parameter nodes, in input order")
        .def("get_results", &vireo::Model::get_results)
        .def("get_ordered_ops", &vireo::Model::get_ordered_ops)
        .def("clone", &vireo::Model::clone, "a deep copy of the graph")
        .def_property("friendly_name", &vireo::Model::get_name, &vireo::Model::set_name)
        .def("get_name", &vireo::Model::get_name)
        .def(
            "reshape",
            [](vireo::Model& model, py::object shapes) {
                if (py::isinstance<py::dict>(shapes)) {
                    auto map = reshape_map(model, shapes.cast<py::dict>());
                    py::gil_scoped_release release;
                    model.reshape(map);
                } else {
                    auto shape = to_partial_shape(shapes);
                    py::gil_scoped_release release;
                    model.reshape(shape);
                }
            },
            py::arg("shapes"),
            "One shape for a single-input model, or a dict {name | port | index: shape}; a shape "
            "is a "
            "PartialShape, a list (-1 = dynamic, (min, max) = bounded) or a string.")
        .def("__repr__", [](const vireo::Model& model) {
            return "<Model: '" + model.get_name() + "' " + std::to_string(model.inputs().size()) +
                   " inputs, " + std::to_string(model.outputs().size()) + " outputs>";
        });

    m.def(
        "serialize",
        [](const vireo::Model& model, py::handle xml, py::handle bin) {
            const std::string xml_path = path_text(xml);
            const std::string bin_path = bin.is_none() ? std::string() : path_text(bin);
            py::gil_scoped_release release;
            vireo::serialize(model, xml_path, bin_path);
        },
        py::arg("model"), py::arg("xml_path"), py::arg("bin_path") = py::none(),
        "Writes the model as IR v11; bin_path defaults to xml_path with .bin.");

    m.def(
        "make_stateful",
        [](const std::shared_ptr<vireo::Model>& model,
           const std::vector<std::pair<std::string, std::string>>& pairs,
           const std::string& batch_source, const std::string& beam_idx_name) {
            vireo::MakeStatefulOptions options;
            options.pairs = pairs;
            options.batch_source = batch_source;
            options.beam_idx_name = beam_idx_name;
            vireo::make_stateful(model, options);
        },
        py::arg("model"), py::arg("pairs"), py::arg("batch_source") = "input_ids",
        py::arg("beam_idx_name") = "beam_idx",
        "Turns each (past input, present output) pair into a ReadValue/Assign variable that "
        "starts empty, with a beam_idx input (i32 [batch]) reordering the caches along the batch; "
        "in place (docs/llm.md).");

    m.def(
        "compress_weights",
        [](const std::shared_ptr<vireo::Model>& model, const std::string& mode, size_t group_size,
           size_t min_elements) {
            vireo::CompressWeightsOptions options;
            options.mode = vireo::weight_compression_mode(mode);
            options.group_size = group_size;
            options.min_elements = min_elements;
            const auto stats = vireo::compress_weights(model, options);
            py::dict out;
            out["matmuls"] = stats.matmuls;
            out["bytes_before"] = stats.bytes_before;
            out["bytes_after"] = stats.bytes_after;
            return out;
        },
        py::arg("model"), py::arg("mode") = "int8", py::arg("group_size") = 0,
        py::arg("min_elements") = 4096,
        "Weight-only compression of MatMul weights, in place: mode 'int8' (symmetric i8), "
        "'int8_asym' (u8 with zero points), 'int4_sym' (i4) or 'int4_asym' (u4 with zero "
        "points), one scale per group_size elements of an output channel (0: the whole channel "
        "for int8, 128 for int4). Returns {'matmuls', 'bytes_before', 'bytes_after'} "
        "(docs/llm.md).");
}

}  // namespace vireo_py
