// Binds vireo.Tensor and converts between numpy arrays and tensors: zero copy where the memory
// allows it, a base object keeping the other side alive in both directions.
#include <cstring>

#include "common.hpp"
#include "vireo/float16.hpp"

namespace vireo_py {

std::shared_ptr<void> keep_alive_owner(py::object object) {
    auto* held = new py::object(std::move(object));
    return std::shared_ptr<void>(held, [](void* p) {
        auto* obj = static_cast<py::object*>(p);
        if (!Py_IsInitialized()) {
            obj->release();  // the interpreter is gone: leak the reference rather than crash
            delete obj;
            return;
        }
        py::gil_scoped_acquire gil;
        delete obj;
    });
}

namespace {

vireo::Shape shape_of(const py::array& array) {
    vireo::Shape shape;
    for (py::ssize_t i = 0; i < array.ndim(); ++i)
        shape.push_back(static_cast<size_t>(array.shape(i)));
    return shape;
}

// An owned tensor holding a copy of `array` (made C-contiguous first if needed).
vireo::Tensor copy_to_tensor(const py::array& array, vireo::element::Type type) {
    auto contiguous = py::array::ensure(array, py::array::c_style);
    if (!contiguous) throw py::error_already_set();
    vireo::Tensor tensor(type, shape_of(contiguous));
    std::memcpy(tensor.data(), contiguous.data(), tensor.get_byte_size());
    return tensor;
}

}  // namespace

vireo::Tensor to_tensor(py::handle value, bool share, vireo::element::Type expected,
                        const std::string& what) {
    if (py::isinstance<vireo::Tensor>(value)) return value.cast<vireo::Tensor>();
    const bool given_array = py::isinstance<py::array>(value);
    auto array = py::array::ensure(value);
    if (!array) throw py::error_already_set();
    // Tensors hold native-endian values: a byte-swapped array ('>f4' here) is converted, never
    // wrapped or copied byte for byte (which would read every value wrong).
    if (!array.dtype().attr("isnative").cast<bool>())
        array = py::array(array.attr("astype")(array.dtype().attr("newbyteorder")("=")));
    // bf16 ports take uint16 arrays as raw bits, and real arrays converted to bf16 (rounded to
    // nearest even, as Convert does), never a numeric cast to uint16.
    const bool bf16 = expected == vireo::element::bf16;
    if (bf16 && array.dtype().kind() == 'f') {
        if (given_array) {
            const std::string message =
                (what.empty() ? std::string("an input") : what) + ": numpy array of dtype " +
                py::str(static_cast<py::handle>(array.dtype())).cast<std::string>() +
                " converted to bf16 (a copy); pass bf16 bits as uint16 to "
                "avoid it";
            if (PyErr_WarnEx(conversion_warning_class(), message.c_str(), 1) != 0)
                throw py::error_already_set();
        }
        auto floats = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(array);
        if (!floats) throw py::error_already_set();
        vireo::Tensor tensor(vireo::element::bf16, shape_of(floats));
        auto* bits = static_cast<vireo::bfloat16*>(tensor.data());
        const float* src = floats.data();
        for (size_t i = 0; i < tensor.get_size(); ++i) bits[i] = vireo::bfloat16(src[i]);
        return tensor;
    }
    if (expected.is_static()) {
        const auto wanted = dtype_of(expected);
        const bool same =
            array.dtype().kind() == wanted.kind() && array.dtype().itemsize() == wanted.itemsize();
        if (!same) {
            if (given_array) {
                const std::string message =
                    (what.empty() ? std::string("an input") : what) + ": numpy array of dtype " +
                    py::str(static_cast<py::handle>(array.dtype())).cast<std::string>() +
                    " converted to " + std::string(expected.name()) +
                    " (a copy); pass that dtype to avoid it";
                if (PyErr_WarnEx(conversion_warning_class(), message.c_str(), 1) != 0)
                    throw py::error_already_set();
            }
            array = py::array(array.attr("astype")(wanted));  // converted values: a new array
        }
    }
    auto type = element_type_of(array.dtype());
    if (bf16 && type == vireo::element::u16) type = vireo::element::bf16;  // the bits as they are
    const bool c_contiguous = (array.flags() & py::array::c_style) != 0;
    const bool aligned = (array.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_) != 0;
    if (share && c_contiguous && aligned && array.writeable()) {
        return vireo::Tensor::wrap_shared(type, shape_of(array), array.data(),
                                          keep_alive_owner(array));
    }
    return copy_to_tensor(array, type);
}

py::array to_array(const vireo::Tensor& tensor, bool copy) {
    const auto dtype = dtype_of(tensor.get_element_type());
    const auto& shape = tensor.get_shape();
    std::vector<py::ssize_t> dims(shape.begin(), shape.end());
    std::vector<py::ssize_t> strides;
    const auto& byte_strides = tensor.get_strides();
    if (byte_strides.size() == shape.size()) {
        strides.assign(byte_strides.begin(), byte_strides.end());
    } else {
        strides = py::detail::c_strides(dims, dtype.itemsize());
    }
    // The base capsule owns a handle to the tensor, so the view keeps the tensor's memory (and
    // the request or plugin library that allocated it) alive however long numpy keeps it.
    auto* handle = new vireo::Tensor(tensor);
    py::capsule base(handle, [](void* p) { delete static_cast<vireo::Tensor*>(p); });
    py::array view(dtype, dims, strides, tensor.data(), base);
    if (!copy) return view;
    return py::array(view.attr("copy")());
}

void register_tensor(py::module_& m) {
    py::class_<vireo::Tensor>(m, "Tensor",
                              "A tensor: host memory owned by Vireo, shared with a numpy array, or "
                              "allocated by a plugin. Copies of the handle share the memory.")
        .def(
            py::init([](py::array array, bool shared_memory) {
                return to_tensor(array, shared_memory);
            }),
            py::arg("array"), py::arg("shared_memory") = false,
            "From a numpy array: a copy, or with shared_memory=True the array's own memory when it "
            "is C-contiguous, aligned and writeable (the tensor keeps the array alive); other "
            "arrays "
            "are copied.")
        .def(py::init([](const vireo::element::Type& type, py::object shape) {
                 return vireo::Tensor(type, to_partial_shape(shape).to_shape());
             }),
             py::arg("element_type"), py::arg("shape"),
             "An owned tensor; its contents are not initialised.")
        .def_property_readonly(
            "data", [](const vireo::Tensor& t) { return to_array(t, false); },
            "A numpy view of the tensor's memory (its base keeps the tensor alive).")
        .def_property_readonly("shape",
                               [](const vireo::Tensor& t) {
                                   const auto& s = t.get_shape();
                                   return std::vector<size_t>(s.begin(), s.end());
                               })
        .def("get_shape",
             [](const vireo::Tensor& t) {
                 const auto& s = t.get_shape();
                 return std::vector<size_t>(s.begin(), s.end());
             })
        .def_property_readonly("element_type", &vireo::Tensor::get_element_type)
        .def("get_element_type", &vireo::Tensor::get_element_type)
        .def("get_size", &vireo::Tensor::get_size, "number of elements")
        .def_property_readonly("size", &vireo::Tensor::get_size)
        .def("get_byte_size", &vireo::Tensor::get_byte_size)
        .def_property_readonly("byte_size", &vireo::Tensor::get_byte_size)
        .def("is_continuous", &vireo::Tensor::is_continuous)
        .def("copy_to", [](const vireo::Tensor& t, vireo::Tensor& dst) { t.copy_to(dst); })
        .def("__repr__", [](const vireo::Tensor& t) {
            return "<Tensor: " + std::string(t.get_element_type().name()) + " " +
                   vireo::PartialShape(t.get_shape()).to_string() + ">";
        });
}

}  // namespace vireo_py
