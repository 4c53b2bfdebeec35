// Binds vireo.Type (element types), vireo.Dimension and vireo.PartialShape, and converts numpy
// dtypes, property maps and shapes between Python and Vireo.
#include <pybind11/operators.h>

#include "common.hpp"

namespace vireo_py {

namespace et = vireo::element;

vireo::element::Type element_type_of(const py::dtype& dtype) {
    const char kind = dtype.kind();
    const auto size = dtype.itemsize();
    if (kind == 'f') {
        if (size == 2) return et::f16;
        if (size == 4) return et::f32;
        if (size == 8) return et::f64;
    } else if (kind == 'i') {
        if (size == 1) return et::i8;
        if (size == 2) return et::i16;
        if (size == 4) return et::i32;
        if (size == 8) return et::i64;
    } else if (kind == 'u') {
        if (size == 1) return et::u8;
        if (size == 2) return et::u16;
        if (size == 4) return et::u32;
        if (size == 8) return et::u64;
    } else if (kind == 'b' && size == 1) {
        return et::boolean;
    }
    vireo::throw_error<vireo::InvalidArgument>(
        "numpy dtype '", py::str(static_cast<py::handle>(dtype)).cast<std::string>(),
        "' has no Vireo element type (supported: bool, "
        "int8..int64, uint8..uint64, float16, float32, float64)");
}

py::dtype dtype_of(vireo::element::Type type) {
    switch (type.id()) {
        case et::TypeId::boolean:
            return py::dtype("bool");
        case et::TypeId::i8:
            return py::dtype("int8");
        case et::TypeId::i16:
            return py::dtype("int16");
        case et::TypeId::i32:
            return py::dtype("int32");
        case et::TypeId::i64:
            return py::dtype("int64");
        case et::TypeId::u8:
            return py::dtype("uint8");
        case et::TypeId::u16:
            return py::dtype("uint16");
        case et::TypeId::u32:
            return py::dtype("uint32");
        case et::TypeId::u64:
            return py::dtype("uint64");
        case et::TypeId::f16:
            return py::dtype("float16");
        case et::TypeId::bf16:
            return py::dtype("uint16");  // numpy has no bfloat16: the raw bits (docs/python.md)
        case et::TypeId::f32:
            return py::dtype("float32");
        case et::TypeId::f64:
            return py::dtype("float64");
        default:
            break;
    }
    vireo::throw_error<vireo::NotImplemented>("element type '", type.name(),
                                              "' has no numpy dtype");
}

std::string path_text(py::handle path) {
    py::object fspath = py::module_::import("os").attr("fspath")(path);
    std::string text = py::isinstance<py::bytes>(fspath) ? fspath.cast<std::string>()
                                                         : py::str(fspath).cast<std::string>();
    if (text.find('\0') != std::string::npos) {
        // The native side would stop at the NUL ("model.xml\0.onnx" would read model.xml).
        PyErr_SetString(
            PyExc_ValueError,
            ("path " + py::repr(path).cast<std::string>() + " contains a NUL character").c_str());
        throw py::error_already_set();
    }
    return text;
}

vireo::AnyMap to_any_map(const py::object& config) {
    vireo::AnyMap map;
    if (config.is_none()) return map;
    for (auto [key, value] : config.cast<py::dict>()) {
        const auto name = py::str(key).cast<std::string>();
        if (py::isinstance<py::bool_>(value)) {
            map[name] = value.cast<bool>();
        } else if (py::isinstance<py::int_>(value)) {
            int overflow = 0;
            const long long number = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
            if (overflow != 0)
                vireo::throw_error<vireo::InvalidArgument>("property ", name, ": ",
                                                           py::str(value).cast<std::string>(),
                                                           " does not fit a signed 64-bit integer");
            if (number == -1 && PyErr_Occurred()) throw py::error_already_set();
            map[name] = static_cast<int64_t>(number);
        } else if (py::isinstance<py::float_>(value)) {
            map[name] = value.cast<double>();
        } else {
            map[name] = py::str(value).cast<std::string>();
        }
    }
    return map;
}

py::object to_python(const vireo::Any& value) {
    if (value.empty()) return py::none();
    if (value.is<bool>()) return py::bool_(value.as<bool>());
    if (value.is<int32_t>()) return py::int_(value.as<int32_t>());
    if (value.is<int64_t>()) return py::int_(value.as<int64_t>());
    if (value.is<uint32_t>()) return py::int_(value.as<uint32_t>());
    if (value.is<uint64_t>()) return py::int_(value.as<uint64_t>());
    if (value.is<float>()) return py::float_(value.as<float>());
    if (value.is<double>()) return py::float_(value.as<double>());
    if (value.is<std::vector<std::string>>()) return py::cast(value.as<std::vector<std::string>>());
    if (value.is<std::vector<vireo::PropertyName>>()) {  // SUPPORTED_PROPERTIES: a list of keys
        py::list keys;
        for (const auto& key : value.as<std::vector<vireo::PropertyName>>())
            keys.append(py::str(static_cast<const std::string&>(key)));
        return keys;
    }
    return py::str(value.to_string());
}

vireo::PartialShape to_partial_shape(py::handle value) {
    if (py::isinstance<vireo::PartialShape>(value)) return value.cast<vireo::PartialShape>();
    if (py::isinstance<py::str>(value))
        return vireo::PartialShape::parse(value.cast<std::string>());
    std::vector<vireo::Dimension> dims;
    for (auto item : value.cast<py::sequence>()) {
        if (py::isinstance<vireo::Dimension>(item)) {
            dims.push_back(item.cast<vireo::Dimension>());
        } else if (py::isinstance<py::str>(item)) {
            dims.push_back(vireo::Dimension::parse(item.cast<std::string>()));
        } else if (py::isinstance<py::tuple>(item)) {
            auto bounds = item.cast<std::pair<int64_t, int64_t>>();
            dims.emplace_back(bounds.first, bounds.second);
        } else {
            const auto size = item.cast<int64_t>();
            dims.push_back(size < 0 ? vireo::Dimension::dynamic() : vireo::Dimension(size));
        }
    }
    return vireo::PartialShape(std::move(dims));
}

void register_types(py::module_& m) {
    py::class_<et::Type> type(m, "Type",
                              "An element type (vireo.Type.f32, ...); compares with ==.");
    const std::pair<const char*, et::Type> named[] = {
        {"boolean", et::boolean}, {"u1", et::u1},           {"u4", et::u4},
        {"i4", et::i4},           {"u8", et::u8},           {"i8", et::i8},
        {"u16", et::u16},         {"i16", et::i16},         {"u32", et::u32},
        {"i32", et::i32},         {"u64", et::u64},         {"i64", et::i64},
        {"f16", et::f16},         {"bf16", et::bf16},       {"f32", et::f32},
        {"f64", et::f64},         {"dynamic", et::dynamic}, {"undefined", et::undefined}};
    for (const auto& [name, value] : named) type.attr(name) = value;
    type.def(
            py::init([](py::object dtype) { return element_type_of(py::dtype::from_args(dtype)); }),
            py::arg("dtype"), "The element type of a numpy dtype (numpy.float32, 'int64', ...).")
        .def_static("from_name", [](const std::string& name) { return et::Type::from_name(name); })
        .def_property_readonly("name", [](const et::Type& t) { return std::string(t.name()); })
        .def_property_readonly("size", &et::Type::size, "bytes per element (0 for sub-byte types)")
        .def("get_size", &et::Type::size)
        .def("to_dtype", &dtype_of,
             "The numpy dtype: uint16 (the raw bits) for bf16, which numpy lacks; "
             "vireo.NotImplemented for sub-byte types.")
        .def(py::self == py::self)
        .def(py::self != py::self)
        .def("__hash__", [](const et::Type& t) { return static_cast<int>(t.id()); })
        .def("__str__", [](const et::Type& t) { return std::string(t.name()); })
        .def("__repr__",
             [](const et::Type& t) { return "<Type: '" + std::string(t.name()) + "'>"; });

    py::class_<vireo::Dimension>(m, "Dimension", "One dimension: static, dynamic or bounded.")
        .def(py::init<>())
        .def(py::init<int64_t>())
        .def(py::init<int64_t, int64_t>())
        .def_property_readonly("is_static", &vireo::Dimension::is_static)
        .def_property_readonly("is_dynamic", &vireo::Dimension::is_dynamic)
        .def("get_length", &vireo::Dimension::get_length)
        .def("get_min_length", &vireo::Dimension::get_min_length)
        .def("get_max_length", &vireo::Dimension::get_max_length)
        .def("__eq__",
             [](const vireo::Dimension& d, py::object other) {
                 if (py::isinstance<vireo::Dimension>(other))
                     return d == other.cast<vireo::Dimension>();
                 if (py::isinstance<py::int_>(other))
                     return d.is_static() && d.get_length() == other.cast<int64_t>();
                 return false;
             })
        .def("__str__", &vireo::Dimension::to_string)
        .def("__repr__",
             [](const vireo::Dimension& d) { return "<Dimension: " + d.to_string() + ">"; });

    py::class_<vireo::PartialShape>(m, "PartialShape",
                                    "A shape whose rank or dimensions may be dynamic.")
        .def(py::init([](py::object value) { return to_partial_shape(value); }), py::arg("shape"),
             "From a list (ints, -1 = dynamic, (min, max) pairs) or a string like '[1,?,10..20]'.")
        .def_property_readonly("is_static", &vireo::PartialShape::is_static)
        .def_property_readonly("is_dynamic", &vireo::PartialShape::is_dynamic)
        .def_property_readonly("rank", [](const vireo::PartialShape& s) { return s.rank(); })
        .def(
            "to_shape",
            [](const vireo::PartialShape& s) {
                auto shape = s.to_shape();
                return std::vector<size_t>(shape.begin(), shape.end());
            },
            "The static shape as a list; vireo.InvalidArgument when dynamic.")
        .def("__len__", &vireo::PartialShape::size)
        .def("__getitem__",
             [](const vireo::PartialShape& s, int64_t i) {
                 const auto n = static_cast<int64_t>(s.size());
                 if (i < 0) i += n;
                 if (i < 0 || i >= n) throw py::index_error("PartialShape index out of range");
                 return s[static_cast<size_t>(i)];
             })
        .def("__eq__",
             [](const vireo::PartialShape& s, py::object other) {
                 try {
                     return s == to_partial_shape(other);
                 } catch (const std::exception&) {
                     return false;
                 }
             })
        .def("__str__", &vireo::PartialShape::to_string)
        .def("__repr__",
             [](const vireo::PartialShape& s) { return "<PartialShape: " + s.to_string() + ">"; });
}

}  // namespace vireo_py
