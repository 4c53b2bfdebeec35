// Declares what the binding files of the _vireo module share: GIL helpers, numpy <-> element
// type and tensor conversions, the Python-side request object and the registration functions.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <memory>
#include <mutex>

#include "vireo/core.hpp"

namespace py = pybind11;

namespace vireo_py {

/// Runs `f` with the GIL released when this thread holds it, else as is. For destructors and
/// calls that may wait on threads which need the GIL (callbacks, numpy owners being freed).
template <typename F>
void without_gil(F&& f) {
    if (Py_IsInitialized() && PyGILState_Check()) {
        py::gil_scoped_release release;
        f();
    } else {
        f();
    }
}

/// A Python object that may be released from any thread: its destructor takes the GIL (and
/// leaks the reference once the interpreter is gone, instead of touching a dead interpreter).
std::shared_ptr<void> keep_alive_owner(py::object object);

/// numpy dtype <-> element type. Throws vireo::InvalidArgument naming the type without a match.
vireo::element::Type element_type_of(const py::dtype& dtype);
py::dtype dtype_of(vireo::element::Type type);

/// A tensor for `value` (a vireo.Tensor, or anything numpy.asarray accepts). With `share` a
/// C-contiguous array of a supported dtype is wrapped (zero copy, the tensor keeps the array
/// alive); anything else is copied. When `expected` is static and differs from the array's
/// type, the values are converted (a copy).
/// A numpy array (not a list or scalar) whose dtype differs from a static `expected` raises
/// vireo.TypeConversionWarning naming `what` (an error when the user's warning filter says so).
/// Non-native byte order ('>f4' on x86) is always converted to native first, never reinterpreted.
vireo::Tensor to_tensor(py::handle value, bool share,
                        vireo::element::Type expected = vireo::element::dynamic,
                        const std::string& what = "");

/// The warning category vireo.TypeConversionWarning (module.cpp).
PyObject* conversion_warning_class();

/// A filesystem path from str, bytes or os.PathLike; ValueError when it holds a NUL character
/// (the native side would silently stop at it: "model.xml\0.onnx" would read model.xml).
std::string path_text(py::handle path);

/// The tensor's memory as numpy: a view whose base keeps the tensor alive, or a copy.
py::array to_array(const vireo::Tensor& tensor, bool copy);

/// AnyMap <-> dict; values are bool, int, float or str (anything else by str()).
vireo::AnyMap to_any_map(const py::object& config);
py::object to_python(const vireo::Any& value);

/// A PartialShape from a vireo.PartialShape, a string ("[1,3,?,10..20]") or a sequence whose
/// items are ints (-1 = dynamic), (min, max) pairs or strings.
vireo::PartialShape to_partial_shape(py::handle value);

/// Python state of one request: its callback, the userdata of the last start_async, and a
/// Python exception raised by the callback, re-raised by the next wait(). Touched only with
/// the GIL held; the destructor takes the GIL itself.
struct CallbackState {
    ~CallbackState();
    std::atomic<bool> has_callback{false};  // read without the GIL: no GIL taken when there is none
    py::object callback;
    py::object userdata;
    py::object error;
};

/// vireo.InferRequest: the request, its ports (for keys and types) and its Python state.
struct PyInferRequest {
    explicit PyInferRequest(vireo::InferRequest request);
    vireo::InferRequest request;
    vireo::OutputVector inputs;
    vireo::OutputVector outputs;
    std::shared_ptr<CallbackState> state;
    /// Blocking runs (infer(), CompiledModel.__call__) so far, and how long they took on the
    /// calling thread and through the stream (a running average, in microseconds; -1 before the
    /// first): run_blocking() picks its way from them.
    std::atomic<uint64_t> blocking_runs{0};
    std::atomic<int64_t> caller_thread_us{-1};
    std::atomic<int64_t> stream_us{-1};
};

/// Makes the shared_ptr every Python handle of a request lives in: the last reference drops
/// the request (which may wait for a run) with the GIL released.
std::shared_ptr<PyInferRequest> make_request(vireo::InferRequest request);

/// Binds `inputs` (None, a dict keyed by name, port or index, a list/tuple, or one value for
/// a single-input model) to the request's input tensors.
void set_inputs(PyInferRequest& request, const py::object& inputs, bool share);
/// Waits for the request's run, GIL released, raising KeyboardInterrupt on Ctrl-C; with
/// `cancel_on_interrupt` the run is cancelled and ended first (infer_request.cpp).
void wait_interruptibly(vireo::InferRequest& request, bool cancel_on_interrupt);
/// One blocking run of the request with the GIL released (infer(), CompiledModel.__call__),
/// on the device's stream (start_async) while this thread waits, so that Ctrl-C cancels it at
/// once; or on the calling thread, where Ctrl-C takes effect when the run returns: always when
/// a callback is set (start_async would call it), and for runs on the host's devices (CPU,
/// TEMPLATE) that take under 10 ms through the stream when the calling thread has been the
/// faster way for this request (each way is timed; the other is tried again every 32nd run).
/// Handing a run to a stream thread and back costs about 70-90 us on a 2-vCPU VM, ten times a
/// small model's whole inference on one thread (a 12-op wake-word classifier: 81 -> 10 us); at
/// two threads the calling thread's OpenMP team woke slower than the stream's (346 against
/// 113 us), which the timing catches.
void run_blocking(PyInferRequest& request);

/// The results of the last run as a vireo.InferResults (views or copies of the outputs).
py::object make_results(PyInferRequest& request, bool share);

/// The vireo.Error subclass matching a kind (for the exception translator).
PyObject* error_class(vireo::ErrorKind kind);

void register_errors(py::module_& m);
void register_types(py::module_& m);
void register_tensor(py::module_& m);
void register_model(py::module_& m);
void register_core(py::module_& m);
void register_infer_request(py::module_& m);
void register_preprocess(py::module_& m);

}  // namespace vireo_py
