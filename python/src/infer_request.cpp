// Binds vireo.InferRequest and vireo.InferResults: inputs from numpy (wrapped when possible),
// the GIL released around every call that may wait, Python callbacks run on plugin threads.
#include <pybind11/chrono.h>

#include <iostream>

#include "common.hpp"
#include "vireo/variable_state.hpp"

namespace vireo_py {

CallbackState::~CallbackState() {
    if (!Py_IsInitialized()) {
        callback.release();
        userdata.release();
        error.release();
        return;
    }
    py::gil_scoped_acquire gil;
    callback = py::object();
    userdata = py::object();
    error = py::object();
}

// Waits for the request's current run with the GIL released, waking every 100 ms to let Python
// handle signals: Ctrl-C raises KeyboardInterrupt here (Python runs signal handlers only on the
// main thread; elsewhere PyErr_CheckSignals does nothing). With `cancel_on_interrupt` the run is
// cancelled and waited for before the exception propagates (infer(): nothing keeps running);
// otherwise it keeps running (wait(): the caller may wait() again or cancel()).
void wait_interruptibly(vireo::InferRequest& request, bool cancel_on_interrupt) {
    for (;;) {
        {
            py::gil_scoped_release release;
            if (request.wait_for(std::chrono::milliseconds(100))) break;
        }
        if (PyErr_CheckSignals() != 0) {
            if (cancel_on_interrupt) {
                py::gil_scoped_release release;
                request.cancel();
                try {
                    request.wait();
                } catch (const std::exception&) {
                    // Cancelled (or failed meanwhile): the interrupt is what the caller sees.
                }
            }
            throw py::error_already_set();
        }
    }
    request.wait();  // the run ended: raises its error, if any
}

namespace {

// Every device the request's model runs on now is the host's (CPU, TEMPLATE): a run there ends
// by itself. A remote or simulated device may hang and must stay cancellable by Ctrl-C. Asked at
// each run (well under a microsecond): AUTO moves a model from CPU to another device.
bool on_host_devices(vireo::InferRequest& request) {
    try {
        const auto devices = request.get_compiled_model().get_property(vireo::execution_devices);
        for (const auto& d : devices) {
            const std::string name = d.substr(0, d.find('.'));
            if (name != "CPU" && name != "TEMPLATE") return false;
        }
        return !devices.empty();
    } catch (const std::exception&) {
        return false;  // a device that does not say: treated as remote
    }
}

}  // namespace

void run_blocking(PyInferRequest& r) {
    constexpr int64_t kShortRunUs = 10'000;  // longer runs stay cancellable by Ctrl-C
    constexpr uint64_t kRetryEvery = 32;
    const uint64_t n = r.blocking_runs++;
    const int64_t caller = r.caller_thread_us.load(), stream = r.stream_us.load();
    bool on_caller = r.state->has_callback.load();
    if (!on_caller && stream >= 0 && stream < kShortRunUs && on_host_devices(r.request)) {
        const bool caller_faster = caller < 0 || caller < stream;  // untried counts as faster
        on_caller = n % kRetryEvery == 0 ? !caller_faster : caller_faster;
    }
    const auto start = std::chrono::steady_clock::now();
    if (on_caller) {
        py::gil_scoped_release release;
        r.request.infer();
    } else {
        {
            py::gil_scoped_release release;
            r.request.start_async();
        }
        wait_interruptibly(r.request, true);
    }
    const int64_t us = std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::steady_clock::now() - start)
                           .count();
    auto& average = on_caller ? r.caller_thread_us : r.stream_us;
    const int64_t before = average.load();
    average = before < 0 ? us : (3 * before + us) / 4;
}

namespace {

// Prints a callback's exception the way Python prints an unhandled one, and keeps it for the
// next wait(). Called with the GIL held.
void keep_callback_error(CallbackState& state, py::error_already_set& error) {
    state.error = error.value();
    try {
        py::module_::import("sys").attr("stderr").attr("write")(
            "vireo: exception in an inference callback:\n");
        py::module_::import("traceback")
            .attr("print_exception")(error.type(), error.value(), error.trace());
    } catch (py::error_already_set&) {
        // Printing failed (a closed stderr): the error is still raised by the next wait().
    }
}

// The native callback of every request: calls the Python callback, if any, with the GIL.
void run_python_callback(const std::shared_ptr<CallbackState>& state) {
    if (!state->has_callback.load() || !Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;
    if (!state->callback || state->callback.is_none()) return;
    try {
        state->callback(state->userdata);
    } catch (py::error_already_set& error) {
        keep_callback_error(*state, error);
    } catch (const std::exception& error) {
        state->error = py::module_::import("builtins").attr("RuntimeError")(error.what());
        std::cerr << "vireo: exception in an inference callback: " << error.what() << '\n';
    }
}

// Re-raises (once) an exception a callback raised since the last wait.
void raise_callback_error(CallbackState& state) {
    if (!state.error) return;
    py::object error = std::move(state.error);
    state.error = py::object();
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
    throw py::error_already_set();
}

// The port an infer() key names: a port, a tensor name or an input index.
vireo::Output input_port(const PyInferRequest& request, py::handle key) {
    if (py::isinstance<vireo::Output>(key)) return key.cast<vireo::Output>();
    if (py::isinstance<py::int_>(key)) {
        const auto index = key.cast<int64_t>();
        if (index < 0 || static_cast<size_t>(index) >= request.inputs.size())
            vireo::throw_error<vireo::InvalidArgument>("input index ", index,
                                                       " is out of range: the model has ",
                                                       request.inputs.size(), " inputs");
        return request.inputs[static_cast<size_t>(index)];
    }
    const auto name = key.cast<std::string>();
    for (const auto& port : request.inputs)
        if (port.get_names().count(name)) return port;
    std::string known;
    for (const auto& port : request.inputs)
        for (const auto& n : port.get_names()) known += (known.empty() ? "" : ", ") + n;
    vireo::throw_error<vireo::NotFound>("no input named '", name, "' (inputs: ", known, ")");
}

void set_one(PyInferRequest& request, const vireo::Output& port, py::handle value, bool share) {
    const auto& names = port.get_names();
    auto tensor = to_tensor(value, share, port.get_element_type(),
                            "input '" + (names.empty() ? std::string("?") : *names.begin()) + "'");
    py::gil_scoped_release release;  // replacing a tensor may free a numpy owner: it takes the GIL
    request.request.set_tensor(port, tensor);
}

vireo::Output output_port(const PyInferRequest& request, py::handle key) {
    if (py::isinstance<vireo::Output>(key)) return key.cast<vireo::Output>();
    const auto name = key.cast<std::string>();
    for (const auto* ports : {&request.inputs, &request.outputs})
        for (const auto& port : *ports)
            if (port.get_names().count(name)) return port;
    vireo::throw_error<vireo::NotFound>("no input or output named '", name, "'");
}

}  // namespace

PyInferRequest::PyInferRequest(vireo::InferRequest r)
    : request(std::move(r)), state(std::make_shared<CallbackState>()) {
    auto compiled = request.get_compiled_model();
    inputs = compiled.inputs();
    outputs = compiled.outputs();
    request.set_callback([state = state](std::exception_ptr) { run_python_callback(state); });
}

std::shared_ptr<PyInferRequest> make_request(vireo::InferRequest request) {
    return std::shared_ptr<PyInferRequest>(new PyInferRequest(std::move(request)),
                                           [](PyInferRequest* p) {
                                               // Destroying a request waits for its run, whose
                                               // callback may need the GIL.
                                               without_gil([p] { delete p; });
                                           });
}

void set_inputs(PyInferRequest& request, const py::object& inputs, bool share) {
    if (inputs.is_none()) return;
    if (py::isinstance<py::dict>(inputs)) {
        for (auto [key, value] : inputs.cast<py::dict>())
            set_one(request, input_port(request, key), value, share);
    } else if (py::isinstance<py::list>(inputs) || py::isinstance<py::tuple>(inputs)) {
        auto items = inputs.cast<py::sequence>();
        if (items.size() != request.inputs.size())
            vireo::throw_error<vireo::InvalidArgument>("got ", items.size(),
                                                       " inputs for a model with ",
                                                       request.inputs.size(), " inputs");
        for (size_t i = 0; i < items.size(); ++i)
            set_one(request, request.inputs[i], items[i], share);
    } else {
        if (request.inputs.size() != 1)
            vireo::throw_error<vireo::InvalidArgument>("one input value given for a model with ",
                                                       request.inputs.size(),
                                                       " inputs: pass a dict or a list");
        set_one(request, request.inputs[0], inputs, share);
    }
}

/// vireo.InferResults: the outputs of one run, indexable by port, tensor name or position.
struct InferResults {
    vireo::OutputVector ports;
    std::vector<py::object> arrays;

    size_t index_of(py::handle key) const {
        if (py::isinstance<py::int_>(key)) {
            auto i = key.cast<int64_t>();
            if (i < 0) i += static_cast<int64_t>(ports.size());
            if (i < 0 || static_cast<size_t>(i) >= ports.size())
                throw py::index_error("output index out of range");
            return static_cast<size_t>(i);
        }
        if (py::isinstance<vireo::Output>(key)) {
            const auto port = key.cast<vireo::Output>();
            for (size_t i = 0; i < ports.size(); ++i)
                if (ports[i] == port) return i;
            for (size_t i = 0; i < ports.size(); ++i)
                for (const auto& name : port.get_names())
                    if (ports[i].get_names().count(name)) return i;
            throw py::key_error("no such output port");
        }
        const auto name = key.cast<std::string>();
        for (size_t i = 0; i < ports.size(); ++i)
            if (ports[i].get_names().count(name)) return i;
        throw py::key_error("no output named '" + name + "'");
    }
};

py::object make_results(PyInferRequest& request, bool share) {
    InferResults results;
    results.ports = request.outputs;
    for (const auto& port : request.outputs) {
        vireo::Tensor tensor;
        {
            py::gil_scoped_release release;
            tensor = request.request.get_tensor(port);
        }
        results.arrays.push_back(to_array(tensor, !share));
    }
    return py::cast(std::move(results));
}

void register_infer_request(py::module_& m) {
    py::class_<InferResults>(
        m, "InferResults",
        "Outputs of one inference: results[port | name | position] is a numpy array.")
        .def("__getitem__",
             [](const InferResults& r, py::handle key) { return r.arrays[r.index_of(key)]; })
        .def("__len__", [](const InferResults& r) { return r.ports.size(); })
        .def("__contains__",
             [](const InferResults& r, py::handle key) {
                 try {
                     r.index_of(key);
                     return true;
                 } catch (const std::exception&) {
                     return false;
                 }
             })
        .def("__iter__", [](const InferResults& r) { return py::iter(py::cast(r.ports)); })
        .def("keys", [](const InferResults& r) { return r.ports; })
        .def("values", [](const InferResults& r) { return r.arrays; })
        .def("items",
             [](const InferResults& r) {
                 py::list items;
                 for (size_t i = 0; i < r.ports.size(); ++i)
                     items.append(py::make_tuple(r.ports[i], r.arrays[i]));
                 return items;
             })
        .def("to_tuple", [](const InferResults& r) { return py::tuple(py::cast(r.arrays)); })
        .def("to_dict", [](const InferResults& r) {
            py::dict d;
            for (size_t i = 0; i < r.ports.size(); ++i) d[py::cast(r.ports[i])] = r.arrays[i];
            return d;
        });

    using Status = vireo::ProfilingInfo::Status;
    py::class_<vireo::ProfilingInfo> profiling(m, "ProfilingInfo",
                                               "One row of InferRequest.profiling_info.");
    py::enum_<Status>(profiling, "Status", "Whether the op ran (OpenVINO's ProfilingInfo.Status).")
        .value("NOT_RUN", Status::NOT_RUN)
        .value("OPTIMIZED_OUT", Status::OPTIMIZED_OUT)
        .value("EXECUTED", Status::EXECUTED);
    profiling.def_readonly("node_name", &vireo::ProfilingInfo::node_name)
        .def_readonly("node_type", &vireo::ProfilingInfo::node_type)
        .def_readonly("exec_type", &vireo::ProfilingInfo::exec_type)
        .def_readonly("real_time", &vireo::ProfilingInfo::real_time)
        .def_readonly("cpu_time", &vireo::ProfilingInfo::cpu_time)
        .def_readonly("status", &vireo::ProfilingInfo::status)
        .def("__repr__", [](const vireo::ProfilingInfo& p) {
            const char* status = p.status == Status::EXECUTED        ? "EXECUTED"
                                 : p.status == Status::OPTIMIZED_OUT ? "OPTIMIZED_OUT"
                                                                     : "NOT_RUN";
            return vireo::detail::concat("<ProfilingInfo node_name='", p.node_name, "' node_type='",
                                         p.node_type, "' exec_type='", p.exec_type,
                                         "' status=", status, " real_time=", p.real_time.count(),
                                         "us cpu_time=", p.cpu_time.count(), "us>");
        });

    using Req = PyInferRequest;
    py::class_<vireo::VariableState>(m, "VariableState",
                                     "One variable of a stateful model, as a request holds it.")
        .def_property_readonly("name", &vireo::VariableState::get_name)
        .def("get_name", &vireo::VariableState::get_name)
        .def("reset", &vireo::VariableState::reset, "back to the variable's initial value")
        .def_property(
            "state", [](const vireo::VariableState& s) { return s.get_state(); },
            [](vireo::VariableState& s, py::handle value) { s.set_state(to_tensor(value, false)); },
            "the current value as a Tensor; assign a Tensor or an array (copied) to set it")
        .def("get_state", &vireo::VariableState::get_state)
        .def(
            "set_state",
            [](vireo::VariableState& s, py::handle value) { s.set_state(to_tensor(value, false)); },
            py::arg("state"))
        .def("__repr__", [](const vireo::VariableState& s) {
            return "<VariableState: '" + s.get_name() + "'>";
        });

    py::class_<Req, std::shared_ptr<Req>>(
        m, "InferRequest", "One inference request (CompiledModel.create_infer_request()).")
        .def(
            "infer",
            [](Req& r, py::object inputs, bool share_inputs, bool share_outputs) {
                set_inputs(r, inputs, share_inputs);
                run_blocking(r);
                return make_results(r, share_outputs);
            },
            py::arg("inputs") = py::none(), py::arg("share_inputs") = true,
            py::arg("share_outputs") = false,
            "Runs one inference (GIL released) and returns InferResults: copies, or with "
            "share_outputs=True views of the request's output tensors. Ctrl-C cancels the run "
            "and raises KeyboardInterrupt; a run expected to be short (the previous one took "
            "under 10 ms, or a callback is set) runs on the calling thread and Ctrl-C takes "
            "effect when it returns.")
        .def(
            "start_async",
            [](Req& r, py::object inputs, py::object userdata, bool share_inputs) {
                set_inputs(r, inputs, share_inputs);
                r.state->userdata = std::move(userdata);
                py::gil_scoped_release release;
                r.request.start_async();
            },
            py::arg("inputs") = py::none(), py::arg("userdata") = py::none(),
            py::arg("share_inputs") = true,
            "Starts one inference and returns; the callback gets userdata. Shared input arrays "
            "must "
            "not change until wait() returns.")
        .def(
            "wait",
            [](Req& r) {
                wait_interruptibly(r.request, false);
                raise_callback_error(*r.state);
            },
            "Waits for the run; raises its error, or the exception its callback raised. Ctrl-C "
            "raises KeyboardInterrupt and leaves the run going (wait() again, or cancel()).")
        .def(
            "wait_for",
            [](Req& r, int64_t ms) {
                bool done = false;
                {
                    py::gil_scoped_release release;
                    done = r.request.wait_for(std::chrono::milliseconds(ms));
                }
                if (done) raise_callback_error(*r.state);
                return done;
            },
            py::arg("timeout"), "Waits up to timeout milliseconds; True when the run ended.")
        .def("cancel",
             [](Req& r) {
                 py::gil_scoped_release release;
                 r.request.cancel();
             })
        .def(
            "query_state",
            [](Req& r) {
                py::gil_scoped_release release;
                return r.request.query_state();
            },
            "The model's variables (ReadValue/Assign) as VariableState objects of this request.")
        .def(
            "reset_state",
            [](Req& r) {
                py::gil_scoped_release release;
                r.request.reset_state();
            },
            "Resets every variable of this request to its initial value.")
        .def(
            "set_callback",
            [](Req& r, py::object callback) {
                if (!callback.is_none() && !PyCallable_Check(callback.ptr()))
                    vireo::throw_error<vireo::InvalidArgument>(
                        "the callback must be callable or None");
                r.state->has_callback.store(!callback.is_none());
                r.state->callback = std::move(callback);
            },
            py::arg("callback"),
            "callback(userdata) runs on a plugin thread after each start_async run (not after "
            "infer). "
            "An exception it raises is printed and raised again by the next wait().")
        .def(
            "get_tensor",
            [](Req& r, py::handle key) {
                auto port = output_port(r, key);
                py::gil_scoped_release release;
                return r.request.get_tensor(port);
            },
            py::arg("key"))
        .def(
            "set_tensor",
            [](Req& r, py::handle key, const vireo::Tensor& tensor) {
                auto port = output_port(r, key);
                py::gil_scoped_release release;
                r.request.set_tensor(port, tensor);
            },
            py::arg("key"), py::arg("tensor"))
        .def(
            "get_input_tensor",
            [](Req& r, size_t i) {
                py::gil_scoped_release release;
                return r.request.get_input_tensor(i);
            },
            py::arg("index") = 0)
        .def(
            "get_output_tensor",
            [](Req& r, size_t i) {
                py::gil_scoped_release release;
                return r.request.get_output_tensor(i);
            },
            py::arg("index") = 0)
        .def(
            "set_input_tensor",
            [](Req& r, size_t i, const vireo::Tensor& t) {
                py::gil_scoped_release release;
                r.request.set_input_tensor(i, t);
            },
            py::arg("index"), py::arg("tensor"))
        .def(
            "set_input_tensor",
            [](Req& r, const vireo::Tensor& t) {
                py::gil_scoped_release release;
                r.request.set_input_tensor(t);  // InvalidArgument unless the model has one input
            },
            py::arg("tensor"))
        .def(
            "set_output_tensor",
            [](Req& r, size_t i, const vireo::Tensor& t) {
                py::gil_scoped_release release;
                r.request.set_output_tensor(i, t);
            },
            py::arg("index"), py::arg("tensor"))
        .def(
            "set_output_tensor",
            [](Req& r, const vireo::Tensor& t) {
                py::gil_scoped_release release;
                r.request.set_output_tensor(t);
            },
            py::arg("tensor"))
        .def(
            "set_tensors",
            [](Req& r, py::handle key, const std::vector<vireo::Tensor>& tensors) {
                auto port = input_port(r, key);
                py::gil_scoped_release release;
                r.request.set_tensors(port, tensors);
            },
            py::arg("key"), py::arg("tensors"),
            "A batch from several tensors: one per item of the input's batch axis.")
        .def(
            "set_input_tensors",
            [](Req& r, size_t i, const std::vector<vireo::Tensor>& tensors) {
                py::gil_scoped_release release;
                r.request.set_input_tensors(i, tensors);
            },
            py::arg("index"), py::arg("tensors"))
        .def_property_readonly(
            "results", [](Req& r) { return make_results(r, true); },
            "Views of the output tensors of the last run (overwritten by the next).")
        .def_property_readonly("profiling_info",
                               [](Req& r) {
                                   py::gil_scoped_release release;
                                   return r.request.get_profiling_info();
                               })
        .def_property_readonly("userdata", [](Req& r) { return r.state->userdata; })
        .def_property_readonly("inputs", [](Req& r) { return r.inputs; })
        .def_property_readonly("outputs", [](Req& r) { return r.outputs; });
}

}  // namespace vireo_py
