// HETERO requests: state across parts (MOCK_REMOTE cannot run ReadValue/Assign), several
// requests in flight, a part failing mid-chain (MOCK_REMOTE's fault injection), cancel.
#include <atomic>
#include <mutex>

#include "test_utils.hpp"
#include "vireo/hetero/properties.hpp"
#include "vireo/mock_remote/properties.hpp"

namespace {
using namespace vireo;
using namespace hetero_test;

NodePtr named(NodePtr node, const std::string& name) {
    node->set_friendly_name(name);
    return node;
}

// acc += x; out = acc * 2. ReadValue/Assign (and the Add between them) must stay on TEMPLATE;
// the Multiply runs on MOCK_REMOTE.1.
std::shared_ptr<Model> summator() {
    auto x = op::parameter(element::f32, {1, 4}, "x");
    auto read = named(op::read_value("acc", element::f32, PartialShape{1, 4}), "read");
    auto sum = named(op::add(read, x), "sum");
    auto write = named(op::assign(sum, "acc"), "write");
    auto out = named(op::multiply(sum, op::constant<float>(element::f32, {1}, {2.f})), "double");
    return Model::make({op::result(out)}, {write}, {x}, "summator");
}

TEST(HeteroRequests, StatefulModelKeepsItsVariableOnOneDevice) {
    Core core = make_core();
    auto model = summator();
    const auto ops = core.query_model(model, "HETERO:MOCK_REMOTE.1,TEMPLATE");
    EXPECT_EQ(ops.at("read"), "TEMPLATE");
    EXPECT_EQ(ops.at("sum"), "TEMPLATE");  // between ReadValue and Assign
    EXPECT_EQ(ops.at("write"), "TEMPLATE");
    EXPECT_EQ(ops.at("double"), "MOCK_REMOTE.1");

    CompiledModel compiled = core.compile_model(model, "HETERO:MOCK_REMOTE.1,TEMPLATE");
    EXPECT_EQ(compiled.get_property(execution_devices),
              (std::vector<std::string>{"TEMPLATE", "MOCK_REMOTE.1"}));
    InferRequest request = compiled.create_infer_request();
    ASSERT_EQ(request.query_state().size(), 1u);
    EXPECT_EQ(request.query_state()[0].get_name(), "acc");
    const Tensor x = make_input({1, 4}, 1.f, 1.f);  // 1 2 3 4
    request.set_input_tensor(x);
    for (int run = 1; run <= 3; ++run) {
        if (run == 2) {
            request.start_async();
            request.wait();
        } else {
            request.infer();
        }
        std::vector<float> expected;
        for (float v : values_of(x)) expected.push_back(2.f * v * static_cast<float>(run));
        expect_near(values_of(request.get_output_tensor()), expected);
    }
    expect_near(values_of(request.query_state()[0].get_state()), {3.f, 6.f, 9.f, 12.f});
    request.reset_state();
    request.infer();
    expect_near(values_of(request.get_output_tensor()), {2.f, 4.f, 6.f, 8.f});
}

// x -> sigmoid [TEMPLATE] -> multiply [MOCK_REMOTE.0] -> relu [TEMPLATE], by manual affinity.
std::shared_ptr<Model> three_parts() {
    auto x = op::parameter(element::f32, {1, 16}, "x");
    auto s = named(op::sigmoid(x), "s");
    auto m = named(op::multiply(s, op::constant<float>(element::f32, {1}, {3.f})), "m");
    auto r = named(op::relu(m), "r");
    s->get_rt_info()["affinity"] = "TEMPLATE";
    m->get_rt_info()["affinity"] = "MOCK_REMOTE.0";
    r->get_rt_info()["affinity"] = "TEMPLATE";
    return std::make_shared<Model>(OutputVector{r}, ParameterVector{x}, "three");
}

std::vector<float> three_expected(const Tensor& x) {
    std::vector<float> out;
    for (float v : values_of(x)) out.push_back(3.f * sigmoid(v));
    return out;
}

TEST(HeteroRequests, SeveralRequestsInFlight) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(three_parts(), "HETERO:MOCK_REMOTE.0,TEMPLATE");
    EXPECT_EQ(compiled.get_property(vireo::hetero::number_of_submodels), 3u);
    EXPECT_GE(compiled.get_property(optimal_number_of_infer_requests), 1u);
    constexpr int kRequests = 4;
    std::vector<InferRequest> requests;
    std::vector<Tensor> inputs;
    std::atomic<int> callbacks{0};
    for (int i = 0; i < kRequests; ++i) {
        requests.push_back(compiled.create_infer_request());
        inputs.push_back(make_input({1, 16}, static_cast<float>(i) - 2.f, 0.1f));
        requests.back().set_input_tensor(inputs.back());
        requests.back().set_callback([&](std::exception_ptr error) {
            EXPECT_FALSE(error);
            ++callbacks;
        });
    }
    for (int round = 0; round < 5; ++round) {
        for (auto& r : requests) r.start_async();
        for (auto& r : requests) r.wait();
        for (int i = 0; i < kRequests; ++i)
            expect_near(values_of(requests[i].get_output_tensor()), three_expected(inputs[i]));
    }
    EXPECT_EQ(callbacks.load(), 5 * kRequests);
}

TEST(HeteroRequests, PartFailingMidChainReportsOnce) {
    Core core = make_core();
    AnyMap per_device{{"MOCK_REMOTE.0", AnyMap{{mock_remote::fail_nth.name(), "2"}}}};
    CompiledModel compiled = core.compile_model(three_parts(), "HETERO:MOCK_REMOTE.0,TEMPLATE",
                                                {{device::properties.name(), per_device}});
    InferRequest request = compiled.create_infer_request();
    const Tensor x = make_input({1, 16}, -1.f, 0.2f);
    request.set_input_tensor(x);
    std::mutex mutex;
    std::vector<std::exception_ptr> seen;
    request.set_callback([&](std::exception_ptr error) {
        std::lock_guard<std::mutex> lock(mutex);
        seen.push_back(error);
    });
    request.start_async();
    request.wait();  // execution #1 of the MOCK_REMOTE part: fine
    request.start_async();
    const std::string message = error_of([&] { request.wait(); }, ErrorKind::kUnavailable);
    EXPECT_NE(message.find("injected fault"), std::string::npos) << message;
    EXPECT_NE(message.find("MOCK_REMOTE.0"), std::string::npos) << message;
    {
        std::lock_guard<std::mutex> lock(mutex);
        ASSERT_EQ(seen.size(), 2u);  // one callback per start_async, the failure once
        EXPECT_FALSE(seen[0]);
        EXPECT_TRUE(seen[1]);
    }
    request.start_async();  // the request (and its parts) are usable again
    request.wait();
    expect_near(values_of(request.get_output_tensor()), three_expected(x));
    EXPECT_EQ(seen.size(), 3u);

    // Only execution #2 fails: the synchronous path runs on.
    request.infer();
    expect_near(values_of(request.get_output_tensor()), three_expected(x));
}

TEST(HeteroRequests, SyncInferReportsAPartsFailure) {
    Core core = make_core();
    AnyMap per_device{{"MOCK_REMOTE.0", AnyMap{{mock_remote::fail_nth.name(), "1"}}}};
    CompiledModel compiled = core.compile_model(three_parts(), "HETERO:MOCK_REMOTE.0,TEMPLATE",
                                                {{device::properties.name(), per_device}});
    InferRequest request = compiled.create_infer_request();
    request.set_input_tensor(make_input({1, 16}, 0.f, 0.1f));
    const std::string message = error_of([&] { request.infer(); }, ErrorKind::kUnavailable);
    EXPECT_NE(message.find("submodel #1 on MOCK_REMOTE.0"), std::string::npos) << message;
}

TEST(HeteroRequests, CancelMidChain) {
    Core core = make_core();
    // The MOCK_REMOTE part takes 200 ms, so the cancel lands while the chain runs; whenever it
    // lands, the run ends Cancelled and the callback is called once.
    AnyMap per_device{{"MOCK_REMOTE.0", AnyMap{{mock_remote::latency_us.name(), "200000"}}}};
    CompiledModel compiled = core.compile_model(three_parts(), "HETERO:MOCK_REMOTE.0,TEMPLATE",
                                                {{device::properties.name(), per_device}});
    InferRequest request = compiled.create_infer_request();
    const Tensor x = make_input({1, 16}, 0.5f, 0.1f);
    request.set_input_tensor(x);
    std::atomic<int> callbacks{0};
    request.set_callback([&](std::exception_ptr) { ++callbacks; });
    request.start_async();
    request.cancel();
    error_of([&] { request.wait(); }, ErrorKind::kCancelled);
    EXPECT_EQ(callbacks.load(), 1);
    request.start_async();  // usable again
    request.wait();
    expect_near(values_of(request.get_output_tensor()), three_expected(x));
    EXPECT_EQ(callbacks.load(), 2);
}

TEST(HeteroRequests, DestroyedFromItsOwnCallback) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(three_parts(), "HETERO:MOCK_REMOTE.0,TEMPLATE");
    auto request = std::make_shared<InferRequest>(compiled.create_infer_request());
    request->set_input_tensor(make_input({1, 16}, 0.f, 1.f));
    std::mutex mutex;
    std::condition_variable cv;
    bool done = false;
    request->set_callback([&](std::exception_ptr) {
        std::lock_guard<std::mutex> lock(mutex);
        request.reset();  // the last handle: the request dies inside its own callback
        done = true;
        cv.notify_all();
    });
    request->start_async();
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [&] { return done; });
    EXPECT_FALSE(request);
}

}  // namespace

namespace {
using namespace vireo;
using namespace hetero_test;

// Issue 35: destroying a HETERO request whose part hangs blocked forever (the destructor waited
// without cancelling). It cancels now; ctest's timeout would catch the old behaviour.
TEST(HeteroRequests, DestroyingARequestWhosePartHangsReturns) {
    Core core = make_core();
    AnyMap per_device{{"MOCK_REMOTE.0", AnyMap{{mock_remote::hang_nth.name(), "1"}}}};
    CompiledModel compiled = core.compile_model(three_parts(), "HETERO:MOCK_REMOTE.0,TEMPLATE",
                                                {{device::properties.name(), per_device}});
    std::atomic<int> callbacks{0};
    {
        InferRequest request = compiled.create_infer_request();
        request.set_callback([&](std::exception_ptr) { ++callbacks; });
        request.set_input_tensor(make_input({1, 16}, 0.f, 1.f));
        request.start_async();
        EXPECT_FALSE(request.wait_for(std::chrono::milliseconds(50)));  // its part hangs
    }
    EXPECT_EQ(callbacks.load(), 0);
    InferRequest again = compiled.create_infer_request();  // the next run does not hang
    const Tensor x = make_input({1, 16}, 0.5f, 0.1f);
    again.set_input_tensor(x);
    again.infer();
    expect_near(values_of(again.get_output_tensor()), three_expected(x));
}

}  // namespace
