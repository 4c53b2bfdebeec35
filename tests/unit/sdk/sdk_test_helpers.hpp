// Test doubles for the SDK tests: a gate and counter for thread hand-offs, a plugin, a compiled
// model and a sync request built in the test (no plugin loading), and a tiny Relu model.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "vireo/exception.hpp"
#include "vireo/model.hpp"
#include "vireo/ops.hpp"
#include "vireo/sdk/iasync_infer_request.hpp"
#include "vireo/sdk/icompiled_model.hpp"
#include "vireo/sdk/iplugin.hpp"
#include "vireo/sdk/isync_infer_request.hpp"
#include "vireo/sdk/ivariable_state.hpp"

namespace vireo::sdk::test {

/// A one-shot gate: wait() blocks until open() (from any thread).
class Gate {
  public:
    void open() {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_open = true;
        m_cv.notify_all();
    }
    void wait() {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_cv.wait(lock, [&] { return m_open; });
    }
    bool is_open() const {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_open;
    }

  private:
    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    bool m_open = false;
};

/// A counter another thread can wait on.
class Counter {
  public:
    void increment() {
        std::lock_guard<std::mutex> lock(m_mutex);
        ++m_value;
        m_cv.notify_all();
    }
    void wait_for_at_least(int n) {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_cv.wait(lock, [&] { return m_value >= n; });
    }
    int value() const {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_value;
    }

  private:
    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    int m_value = 0;
};

/// Runs `fn` and returns the message of the InvalidArgument it throws ("(no InvalidArgument)",
/// and a test failure, when it throws none).
template <typename Fn>
std::string invalid_argument_of(Fn&& fn) {
    try {
        fn();
    } catch (const InvalidArgument& e) {
        return e.what();
    }
    ADD_FAILURE() << "no InvalidArgument";
    return "(no InvalidArgument)";
}

/// Runs `fn`, expects an exception of kind E whose message contains every fragment.
template <typename E, typename Fn>
void expect_throw_with(Fn&& fn, std::initializer_list<std::string> fragments) {
    try {
        fn();
        ADD_FAILURE() << "expected an exception, none was thrown";
    } catch (const E& e) {
        const std::string message = e.what();
        for (const auto& fragment : fragments)
            EXPECT_NE(message.find(fragment), std::string::npos)
                << "'" << fragment << "' not in: " << message;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "unexpected exception type: " << e.what();
    }
}

class TestPlugin : public IPlugin {
  public:
    TestPlugin() { set_device_name("TESTDEV"); }
    std::shared_ptr<ICompiledModel> compile_model(const std::shared_ptr<const Model>&,
                                                  const AnyMap&) const override {
        throw_error<NotImplemented>("test plugin");
    }
    using IPlugin::compile_model;
    std::shared_ptr<ICompiledModel> import_model(std::istream&, const AnyMap&) const override {
        throw_error<NotImplemented>("test plugin");
    }
    SupportedOpsMap query_model(const std::shared_ptr<const Model>&, const AnyMap&) const override {
        return {};
    }
    void set_property(const AnyMap&) override {}
    Any get_property(const std::string&, const AnyMap&) const override { return {}; }
};

/// The sync request: infer() computes output[i] = max(input[i], 0) over f32 and counts itself;
/// it counts the port tensors it creates. Profiling and states are the SDK's defaults.
class TestSyncRequest : public ISyncInferRequest {
  public:
    using ISyncInferRequest::check_tensor;
    using ISyncInferRequest::convert_batched_tensors;
    using ISyncInferRequest::find_port;
    using ISyncInferRequest::FoundPort;
    using ISyncInferRequest::input_tensor;
    using ISyncInferRequest::ISyncInferRequest;
    using ISyncInferRequest::m_batched_tensors;
    using ISyncInferRequest::output_tensor;
    using ISyncInferRequest::smallest_port_tensor;

    void infer(RunContext& /*run*/) override {
        infer_thread = std::this_thread::get_id();
        ++infers;
        const auto& inputs = get_inputs();
        for (size_t i = 0; i < inputs.size() && i < get_outputs().size(); ++i) {
            Tensor in = get_tensor(inputs[i]);
            Tensor out = get_tensor(get_outputs()[i]);
            if (out.get_shape() != in.get_shape()) out.set_shape(in.get_shape());
            const float* src = in.data<float>();
            float* dst = out.data<float>();
            for (size_t k = 0; k < in.get_size(); ++k) dst[k] = std::max(src[k], 0.0f);
        }
    }
    /// Runs infer() on a context of its own (for tests of the sync request alone).
    void infer_once() {
        RunContext run;
        infer(run);
    }

    std::atomic<int> infers{0};
    std::atomic<int> cancels{0};          // calls of the running stage's on_cancel function
    mutable std::atomic<int> created{0};  // create_port_tensor calls
    std::thread::id infer_thread;         // written by infer(), read after wait()

  protected:
    Tensor create_port_tensor(const Output& port, bool is_input) const override {
        ++created;
        return ISyncInferRequest::create_port_tensor(port, is_input);
    }
};

class TestCompiledModel : public ICompiledModel {
  public:
    using ICompiledModel::ICompiledModel;
    std::shared_ptr<const Model> get_runtime_model() const override { return nullptr; }
    void set_property(const AnyMap&) override {}
    Any get_property(const std::string&) const override { return {}; }
    std::shared_ptr<ISyncInferRequest> create_sync_infer_request() const override {
        return std::make_shared<TestSyncRequest>(shared_from_this());
    }
    std::shared_ptr<TestSyncRequest> make_sync_request() const {
        return std::static_pointer_cast<TestSyncRequest>(create_sync_infer_request());
    }
};

/// x ("x", f32 `shape`) -> Relu ("y") -> Result.
inline std::shared_ptr<Model> make_relu_model(const PartialShape& shape = PartialShape{1, 3}) {
    auto x = op::parameter(element::f32, shape, "x");
    auto relu = make_node("Relu", {x->output(0)});
    relu->set_friendly_name("relu");
    relu->output(0).set_names({"y"});
    return std::make_shared<Model>(OutputVector{relu->output(0)}, ParameterVector{x}, "relu_model");
}

inline std::shared_ptr<TestCompiledModel> make_compiled(
    const std::shared_ptr<const Model>& model, std::shared_ptr<ITaskExecutor> task = nullptr,
    std::shared_ptr<ITaskExecutor> callback = nullptr) {
    return std::make_shared<TestCompiledModel>(model, std::make_shared<TestPlugin>(),
                                               std::move(task), std::move(callback));
}

}  // namespace vireo::sdk::test
