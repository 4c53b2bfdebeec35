// Binds vireo.Core and vireo.CompiledModel: reading, compiling, importing and exporting models
// with the GIL released, and compiled(inputs) on an internal request.
#include <cstring>
#include <sstream>

#include "common.hpp"

namespace vireo_py {

namespace {

/// vireo.CompiledModel: the compiled model and the request __call__ uses, made on first call.
struct PyCompiledModel {
    vireo::CompiledModel compiled;
    std::mutex call_mutex;  // one __call__ at a time on the internal request
    std::shared_ptr<PyInferRequest> internal;
};

std::shared_ptr<PyCompiledModel> wrap(vireo::CompiledModel compiled) {
    auto* p = new PyCompiledModel{std::move(compiled), {}, {}};
    return std::shared_ptr<PyCompiledModel>(
        p, [](PyCompiledModel* c) { without_gil([c] { delete c; }); });
}

std::shared_ptr<vireo::Model> read(const vireo::Core& core, py::handle model, py::handle weights) {
    if (py::isinstance<py::bytes>(model)) {
        std::string text = model.cast<std::string>();
        vireo::Tensor tensor;
        if (!weights.is_none()) {
            std::string bytes = weights.cast<std::string>();
            tensor = vireo::Tensor(vireo::element::u8, vireo::Shape{bytes.size()});
            if (!bytes.empty())  // an empty tensor has no buffer
                std::memcpy(tensor.data(), bytes.data(), bytes.size());
        }
        py::gil_scoped_release release;
        return core.read_model(text, tensor);
    }
    auto path = path_text(model);
    std::string bin = weights.is_none() ? std::string() : path_text(weights);
    py::gil_scoped_release release;
    return core.read_model(path, bin);
}

vireo::Output port_by(const vireo::OutputVector& ports, py::handle key, const char* what) {
    if (key.is_none()) {
        if (ports.size() != 1)
            vireo::throw_error<vireo::InvalidArgument>("the model has ", ports.size(), " ", what,
                                                       "s: give an index or a name");
        return ports[0];
    }
    if (py::isinstance<py::int_>(key)) {
        auto i = key.cast<size_t>();
        if (i >= ports.size())
            vireo::throw_error<vireo::InvalidArgument>(what, " index ", i, " is out of range (",
                                                       ports.size(), " ", what, "s)");
        return ports[i];
    }
    auto name = key.cast<std::string>();
    for (const auto& port : ports)
        if (port.get_names().count(name)) return port;
    vireo::throw_error<vireo::NotFound>("no ", what, " named '", name, "'");
}

}  // namespace

void register_core(py::module_& m) {
    using CM = PyCompiledModel;
    py::class_<CM, std::shared_ptr<CM>>(m, "CompiledModel", "A model compiled for one device.")
        .def(
            "__call__",
            [](CM& c, py::object inputs, bool share_inputs, bool share_outputs) {
                std::unique_lock<std::mutex> lock(c.call_mutex, std::defer_lock);
                {
                    py::gil_scoped_release
                        release;  // another thread's call holds it without the GIL
                    lock.lock();
                    if (!c.internal) c.internal = make_request(c.compiled.create_infer_request());
                }
                set_inputs(*c.internal, inputs, share_inputs);
                run_blocking(*c.internal);  // Ctrl-C cancels a run that may be long
                return make_results(*c.internal, share_outputs);
            },
            py::arg("inputs") = py::none(), py::arg("share_inputs") = true,
            py::arg("share_outputs") = false,
            "Runs one inference on an internal request; returns InferResults (copies unless "
            "share_outputs=True, whose views the next call overwrites).")
        .def_property_readonly("inputs", [](const CM& c) { return c.compiled.inputs(); })
        .def_property_readonly("outputs", [](const CM& c) { return c.compiled.outputs(); })
        .def(
            "input",
            [](const CM& c, py::object key) { return port_by(c.compiled.inputs(), key, "input"); },
            py::arg("key") = py::none())
        .def(
            "output",
            [](const CM& c, py::object key) {
                return port_by(c.compiled.outputs(), key, "output");
            },
            py::arg("key") = py::none())
        .def("create_infer_request",
             [](const CM& c) {
                 vireo::InferRequest request;
                 {
                     py::gil_scoped_release release;
                     request = c.compiled.create_infer_request();
                 }
                 return make_request(std::move(request));
             })
        .def(
            "get_property",
            [](const CM& c, const std::string& key) {
                return to_python(c.compiled.get_property(key));
            },
            py::arg("key"))
        .def(
            "set_property",
            [](CM& c, py::dict config) { c.compiled.set_property(to_any_map(config)); },
            py::arg("properties"))
        .def(
            "export_model",
            [](const CM& c) {
                std::ostringstream blob;
                {
                    py::gil_scoped_release release;
                    c.compiled.export_model(blob);
                }
                return py::bytes(blob.str());
            },
            "The compiled model as bytes for Core.import_model.")
        .def("get_runtime_model", [](const CM& c) {
            return std::const_pointer_cast<vireo::Model>(c.compiled.get_runtime_model());
        });

    py::class_<vireo::Core, std::shared_ptr<vireo::Core>>(
        m, "Core", "Entry point: devices, reading and compiling models.")
        .def(py::init([](const std::string& xml) {
                 std::unique_ptr<vireo::Core> core;
                 {
                     py::gil_scoped_release release;
                     core = std::make_unique<vireo::Core>(xml);
                 }
                 // Dropping the last Core may unload plugins and stop their threads: without the
                 // GIL.
                 return std::shared_ptr<vireo::Core>(
                     core.release(), [](vireo::Core* c) { without_gil([c] { delete c; }); });
             }),
             py::arg("plugins_xml") = "", "Loads plugins.xml (default: the one next to libvireo).")
        .def(
            "add_extension",
            [](vireo::Core& core, py::object path) {
                const std::string file = path_text(path);  // str or PathLike
                py::gil_scoped_release release;
                core.add_extension(file);
            },
            py::arg("library_path"),
            "Loads an extension library with custom ops (vireo/extension.hpp); process-wide.")
        .def_property_readonly("available_devices",
                               [](const vireo::Core& core) {
                                   py::gil_scoped_release release;
                                   return core.get_available_devices();
                               })
        .def(
            "get_versions",
            [](const vireo::Core& core, const std::string& device) {
                py::dict versions;
                for (const auto& [name, v] : core.get_versions(device))
                    versions[py::str(name)] = py::dict(py::arg("build_number") = v.build_number,
                                                       py::arg("description") = v.description);
                return versions;
            },
            py::arg("device_name"), "{device: {'build_number': ..., 'description': ...}}")
        .def(
            "read_model",
            [](const vireo::Core& core, py::object model, py::object weights) {
                return read(core, model, weights);
            },
            py::arg("model"), py::arg("weights") = py::none(),
            "From a path (.xml or .onnx, str or PathLike) or the model's bytes (weights: bytes of "
            "the .bin).")
        .def(
            "compile_model",
            [](vireo::Core& core, py::object model, const std::string& device, py::object config) {
                auto props = to_any_map(config);
                vireo::CompiledModel compiled;
                if (py::isinstance<vireo::Model>(model)) {
                    auto graph = model.cast<std::shared_ptr<vireo::Model>>();
                    py::gil_scoped_release release;
                    compiled = core.compile_model(graph, device, props);
                } else {
                    auto path = path_text(model);
                    py::gil_scoped_release release;
                    compiled = core.compile_model(path, device, props);
                }
                return wrap(std::move(compiled));
            },
            py::arg("model"), py::arg("device_name") = "AUTO", py::arg("config") = py::none())
        .def(
            "query_model",
            [](const vireo::Core& core, const std::shared_ptr<vireo::Model>& model,
               const std::string& device, py::object config) {
                auto props = to_any_map(config);
                py::gil_scoped_release release;
                return core.query_model(model, device, props);
            },
            py::arg("model"), py::arg("device_name"), py::arg("config") = py::none(),
            "{op friendly name: device} for the ops the device supports.")
        .def(
            "import_model",
            [](vireo::Core& core, py::bytes blob, const std::string& device, py::object config) {
                auto props = to_any_map(config);
                std::istringstream in(blob.cast<std::string>());
                vireo::CompiledModel compiled;
                {
                    py::gil_scoped_release release;
                    compiled = core.import_model(in, device, props);
                }
                return wrap(std::move(compiled));
            },
            py::arg("model_stream"), py::arg("device_name"), py::arg("config") = py::none())
        .def(
            "set_property",
            [](vireo::Core& core, const std::string& device, py::dict config) {
                core.set_property(device, to_any_map(config));
            },
            py::arg("device_name"), py::arg("properties"))
        .def(
            "set_property",
            [](vireo::Core& core, py::dict config) { core.set_property(to_any_map(config)); },
            py::arg("properties"))
        .def(
            "get_property",
            [](const vireo::Core& core, const std::string& device, const std::string& key) {
                return to_python(core.get_property(device, key));
            },
            py::arg("device_name"), py::arg("key"))
        .def(
            "get_property",
            [](const vireo::Core& core, const std::string& key) {
                return to_python(core.get_property(key));
            },
            py::arg("key"));
}

}  // namespace vireo_py
