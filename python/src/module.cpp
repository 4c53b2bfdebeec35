// The _vireo extension module: vireo.Error and its subclasses, one per vireo::ErrorKind, the
// translator from vireo::Exception to them, and the registration of every bound class.
#include "common.hpp"

namespace vireo_py {
namespace {

// Created once at import and never freed: the classes live as long as the interpreter.
PyObject* g_errors[7] = {};
PyObject* g_conversion_warning = nullptr;

size_t kind_index(vireo::ErrorKind kind) {
    return static_cast<size_t>(kind);
}

}  // namespace

PyObject* conversion_warning_class() {
    return g_conversion_warning ? g_conversion_warning : PyExc_UserWarning;
}

PyObject* error_class(vireo::ErrorKind kind) {
    PyObject* cls = g_errors[kind_index(kind)];
    return cls ? cls : g_errors[kind_index(vireo::ErrorKind::kGeneral)];
}

void register_errors(py::module_& m) {
    PyObject* base = PyErr_NewExceptionWithDoc(
        "vireo.Error", "Any error reported by Vireo; carries the native message.",
        PyExc_RuntimeError, nullptr);
    if (!base) throw py::error_already_set();
    g_errors[kind_index(vireo::ErrorKind::kGeneral)] = base;
    m.attr("Error") = py::handle(base);
    const std::pair<vireo::ErrorKind, const char*> kinds[] = {
        {vireo::ErrorKind::kNotFound, "NotFound"},
        {vireo::ErrorKind::kInvalidArgument, "InvalidArgument"},
        {vireo::ErrorKind::kNotImplemented, "NotImplemented"},
        {vireo::ErrorKind::kBusy, "Busy"},
        {vireo::ErrorKind::kCancelled, "Cancelled"},
        {vireo::ErrorKind::kUnavailable, "Unavailable"},
    };
    for (const auto& [kind, name] : kinds) {
        std::string qualified = std::string("vireo.") + name;
        PyObject* cls = PyErr_NewException(qualified.c_str(), base, nullptr);
        if (!cls) throw py::error_already_set();
        g_errors[kind_index(kind)] = cls;
        m.attr(name) = py::handle(cls);
    }
    g_conversion_warning = PyErr_NewExceptionWithDoc(
        "vireo.TypeConversionWarning",
        "An array given for an input had another dtype (or byte order) than the input and was "
        "converted (a copy). warnings.simplefilter('error', vireo.TypeConversionWarning) turns "
        "it into an error, as ONNX Runtime refuses such arrays.",
        PyExc_UserWarning, nullptr);
    if (!g_conversion_warning) throw py::error_already_set();
    m.attr("TypeConversionWarning") = py::handle(g_conversion_warning);
    py::register_exception_translator([](std::exception_ptr error) {
        try {
            if (error) std::rethrow_exception(error);
        } catch (const vireo::Exception& e) {
            PyErr_SetString(error_class(e.kind()), e.what());
        }
    });
}

}  // namespace vireo_py

PYBIND11_MODULE(_vireo, m) {
    m.doc() = "Vireo inference runtime: native part of the vireo package";
    vireo_py::register_errors(m);
    vireo_py::register_types(m);
    vireo_py::register_tensor(m);
    vireo_py::register_model(m);
    vireo_py::register_preprocess(m);
    vireo_py::register_infer_request(m);
    vireo_py::register_core(m);
    m.attr("__version__") = vireo::get_version().build_number;
}
