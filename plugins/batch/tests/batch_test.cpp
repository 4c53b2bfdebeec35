// BATCH: requests gathered N at a time onto one batched inference (MOCK_REMOTE runs one job for
// N requests), the timeout after which a request runs alone (changeable after compile), values
// against plain loops, and the models BATCH refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>

#include "vireo/batch/properties.hpp"
#include "vireo/mock_remote/properties.hpp"
#include "vireo/vireo.hpp"

namespace {
using namespace vireo;

// y = relu(x * 3 - 1) over [1, 16].
std::shared_ptr<Model> small_model(const PartialShape& shape = PartialShape{1, 16}) {
    auto x = op::parameter(element::f32, shape, "x");
    auto m = op::multiply(x, op::constant<float>(element::f32, {1}, {3.f}));
    auto s = op::subtract(m, op::constant<float>(element::f32, {1}, {1.f}));
    return std::make_shared<Model>(OutputVector{op::relu(s)}, ParameterVector{x}, "small");
}

Tensor make_input(float start) {
    Tensor t(element::f32, {1, 16});
    for (size_t i = 0; i < 16; ++i) t.data<float>()[i] = start + 0.25f * static_cast<float>(i);
    return t;
}

void expect_small(const Tensor& x, const Tensor& y) {
    ASSERT_EQ(y.get_shape(), (Shape{1, 16}));
    for (size_t i = 0; i < 16; ++i)
        EXPECT_NEAR(y.data<float>()[i], std::max(0.f, x.data<float>()[i] * 3.f - 1.f), 1e-5f)
            << "at " << i;
}

// Starts `count` requests at once, waits for all, checks each value; returns the requests.
void run_round(std::vector<InferRequest>& requests, const std::vector<Tensor>& inputs) {
    for (auto& r : requests) r.start_async();
    for (size_t r = 0; r < requests.size(); ++r) {
        requests[r].wait();
        expect_small(inputs[r], requests[r].get_output_tensor());
    }
}

TEST(Batch, GathersNRequestsIntoOneDeviceJob) {
    Core core;
    // A long timeout: the batches must fill, never time out.
    CompiledModel compiled =
        core.compile_model(small_model(), "BATCH:MOCK_REMOTE.0(4)", {batch::timeout(600000)});
    EXPECT_EQ(compiled.get_property(device::batch_size), 4u);
    EXPECT_EQ(compiled.get_property(execution_devices),
              (std::vector<std::string>{"MOCK_REMOTE.0"}));
    EXPECT_EQ(compiled.get_property(optimal_number_of_infer_requests), 8u);  // 4 x MOCK_REMOTE's 2
    std::vector<InferRequest> requests;
    std::vector<Tensor> inputs;
    for (int r = 0; r < 8; ++r) {
        requests.push_back(compiled.create_infer_request());
        inputs.push_back(make_input(static_cast<float>(r) - 4.f));
        requests.back().set_input_tensor(inputs.back());
    }
    for (int round = 0; round < 3; ++round) run_round(requests, inputs);
    // 24 requests = 6 batches of 4 = 6 device jobs.
    EXPECT_EQ(compiled.get_property(batch::batches_run), 6u);
    EXPECT_EQ(compiled.get_property(batch::ran_alone), 0u);
    EXPECT_EQ(core.get_property("MOCK_REMOTE.0", mock_remote::jobs_completed), 6u);
}

TEST(Batch, ALoneRequestRunsAloneAfterTheTimeout) {
    Core core;
    CompiledModel compiled =
        core.compile_model(small_model(), "BATCH:TEMPLATE(4)", {batch::timeout(20)});
    InferRequest request = compiled.create_infer_request();
    const Tensor x = make_input(-1.f);
    request.set_input_tensor(x);
    request.infer();
    expect_small(x, request.get_output_tensor());
    EXPECT_EQ(compiled.get_property(batch::ran_alone), 1u);
    EXPECT_EQ(compiled.get_property(batch::batches_run), 0u);
}

TEST(Batch, TimeoutChangesAfterCompile) {
    Core core;
    CompiledModel compiled =
        core.compile_model(small_model(), "BATCH:TEMPLATE(4)", {batch::timeout(600000)});
    EXPECT_EQ(compiled.get_property(batch::timeout), 600000u);
    compiled.set_property({batch::timeout(0)});  // without it, the lone request would wait 10 min
    EXPECT_EQ(compiled.get_property(batch::timeout), 0u);
    InferRequest request = compiled.create_infer_request();
    const Tensor x = make_input(2.f);
    request.set_input_tensor(x);
    request.start_async();
    ASSERT_TRUE(request.wait_for(std::chrono::seconds(60)));  // hang guard only
    expect_small(x, request.get_output_tensor());
    EXPECT_EQ(compiled.get_property(batch::ran_alone), 1u);
}

TEST(Batch, CancelAWaitingRequest) {
    Core core;
    CompiledModel compiled =
        core.compile_model(small_model(), "BATCH:TEMPLATE(4)", {batch::timeout(600000)});
    InferRequest request = compiled.create_infer_request();
    std::atomic<int> callbacks{0};
    request.set_callback([&](std::exception_ptr) { ++callbacks; });
    request.set_input_tensor(make_input(0.f));
    request.start_async();
    EXPECT_FALSE(request.wait_for(std::chrono::milliseconds(50)));  // waiting for 3 more
    request.cancel();
    EXPECT_THROW(request.wait(), Cancelled);
    EXPECT_EQ(callbacks.load(), 1);
    EXPECT_EQ(compiled.get_property(batch::batches_run), 0u);
    EXPECT_EQ(compiled.get_property(batch::ran_alone), 0u);
}

TEST(Batch, DroppingAWaitingRequestDoesNotWaitForItsTimeout) {
    Core core;
    CompiledModel compiled =
        core.compile_model(small_model(), "BATCH:TEMPLATE(4)", {batch::timeout(600000)});
    std::atomic<int> callbacks{0};
    {
        InferRequest request = compiled.create_infer_request();
        request.set_callback([&](std::exception_ptr) { ++callbacks; });
        request.set_input_tensor(make_input(0.f));
        request.start_async();
        EXPECT_FALSE(request.wait_for(std::chrono::milliseconds(20)));
    }  // would block 10 minutes without the cancel in the destructor (ctest's timeout catches it)
    EXPECT_EQ(callbacks.load(), 0);
    EXPECT_EQ(compiled.get_property(batch::ran_alone), 0u);
}

TEST(Batch, ModelsWithoutABatchAxisOfOneRunUnbatched) {
    Core core;
    for (const PartialShape& shape :
         {PartialShape{2, 16}, PartialShape{Dimension::dynamic(), 16}}) {
        CompiledModel compiled =
            core.compile_model(small_model(shape), "BATCH:TEMPLATE(4)", {batch::timeout(600000)});
        EXPECT_EQ(compiled.get_property(device::batch_size), 1u) << shape.to_string();
        InferRequest request = compiled.create_infer_request();
        Tensor x(element::f32, {2, 16});
        for (size_t i = 0; i < 32; ++i) x.data<float>()[i] = static_cast<float>(i) * 0.1f - 1.f;
        request.set_input_tensor(x);
        request.infer();  // at once: nothing waits for a batch
        const Tensor y = request.get_output_tensor();
        ASSERT_EQ(y.get_shape(), (Shape{2, 16}));
        for (size_t i = 0; i < 32; ++i)
            EXPECT_NEAR(y.data<float>()[i], std::max(0.f, x.data<float>()[i] * 3.f - 1.f), 1e-5f);
        EXPECT_EQ(compiled.get_property(batch::ran_alone), 1u);
        EXPECT_EQ(compiled.get_property(batch::batches_run), 0u);
    }
    EXPECT_THROW(core.compile_model(small_model(), "BATCH:TEMPLATE,MOCK_REMOTE.0(4)"),
                 InvalidArgument);
}

}  // namespace

// "BATCH:A(N)" says the batch size; AUTO_BATCH_SIZE in the same call must agree (a different or
// malformed value is refused naming both, and nothing changes), as MULTI_DEVICE_PRIORITIES must
// agree with the list.
TEST(BatchGrammar, BatchSizeInNameAndPropertyMustAgree) {
    Core core;
    try {
        core.compile_model(small_model(), "BATCH:TEMPLATE(4)", {{device::batch_size.name(), 2}});
        ADD_FAILURE() << "a batch size disagreeing with the name was accepted";
    } catch (const InvalidArgument& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("AUTO_BATCH_SIZE is '2'"), std::string::npos) << message;
        EXPECT_NE(message.find("says 4"), std::string::npos) << message;
    }
    const std::string before = core.get_property("BATCH", device::batch_size.name()).to_string();
    EXPECT_THROW(core.set_property("BATCH:TEMPLATE(4)", {{device::batch_size.name(), "#bad#"}}),
                 InvalidArgument);
    EXPECT_EQ(core.get_property("BATCH", device::batch_size.name()).to_string(), before);
    CompiledModel same =
        core.compile_model(small_model(), "BATCH:TEMPLATE(4)", {{device::batch_size.name(), 4}});
    EXPECT_EQ(same.get_property(device::batch_size), 4u);
}

namespace {
using namespace vireo;

// MOCK_REMOTE's first device run hangs until cancelled (issue 35: BATCH requests whose device
// hung ignored cancel() and their destruction blocked forever).
const AnyMap kFirstRunHangs{
    {device::properties.name(),
     AnyMap{{"MOCK_REMOTE",
             AnyMap{{mock_remote::hang_nth.name(), "1"}, {mock_remote::compile_ms.name(), "0"}}}}}};

TEST(BatchHangingDevice, CancelReachesARequestRunningAlone) {
    Core core;
    AnyMap config = kFirstRunHangs;
    config[batch::timeout.name()] = 0;  // runs alone at once
    CompiledModel compiled = core.compile_model(small_model(), "BATCH:MOCK_REMOTE(2)", config);
    InferRequest request = compiled.create_infer_request();
    request.set_input_tensor(make_input(0.f));
    request.start_async();
    EXPECT_FALSE(request.wait_for(std::chrono::milliseconds(50)));  // the device hangs
    request.cancel();
    EXPECT_THROW(request.wait(), Cancelled);
    const Tensor x = make_input(1.f);
    request.set_input_tensor(x);
    request.infer();  // the second device run does not hang
    expect_small(x, request.get_output_tensor());
}

TEST(BatchHangingDevice, CancelOfOneJobEndsTheBatchAndTheOtherRunsAlone) {
    Core core;
    AnyMap config = kFirstRunHangs;
    config[batch::timeout.name()] = 0;
    CompiledModel compiled = core.compile_model(small_model(), "BATCH:MOCK_REMOTE(2)", config);
    {
        // The unbatched model's first run (each MOCK_REMOTE model counts its own) hangs: spend it.
        InferRequest alone = compiled.create_infer_request();
        alone.set_input_tensor(make_input(0.f));
        alone.start_async();
        EXPECT_FALSE(alone.wait_for(std::chrono::milliseconds(20)));
        alone.cancel();
        EXPECT_THROW(alone.wait(), Cancelled);
    }
    compiled.set_property({batch::timeout(600000)});
    InferRequest a = compiled.create_infer_request(), b = compiled.create_infer_request();
    const Tensor xa = make_input(0.f), xb = make_input(2.f);
    a.set_input_tensor(xa);
    b.set_input_tensor(xb);
    a.start_async();
    b.start_async();  // the batch of two forms and its device run hangs
    EXPECT_FALSE(b.wait_for(std::chrono::milliseconds(50)));
    a.cancel();
    EXPECT_THROW(a.wait(), Cancelled);
    b.wait();  // not cancelled: ran again alone, with the right values
    expect_small(xb, b.get_output_tensor());
    EXPECT_EQ(compiled.get_property(batch::ran_alone), 2u);  // the spent run and b's rerun
}

TEST(BatchHangingDevice, DestroyingARequestWhoseDeviceHangsReturns) {
    Core core;
    AnyMap config = kFirstRunHangs;
    config[batch::timeout.name()] = 0;
    CompiledModel compiled = core.compile_model(small_model(), "BATCH:MOCK_REMOTE(2)", config);
    {
        InferRequest request = compiled.create_infer_request();
        request.set_input_tensor(make_input(0.f));
        request.start_async();
        EXPECT_FALSE(request.wait_for(std::chrono::milliseconds(20)));
    }  // blocked forever before (ctest's timeout would catch it)
    InferRequest again = compiled.create_infer_request();
    const Tensor x = make_input(3.f);
    again.set_input_tensor(x);
    again.infer();
    expect_small(x, again.get_output_tensor());
}

TEST(BatchHangingDevice, ABatchLargerThanTheThreadLimitIsRefused) {
    Core core;
    try {
        core.compile_model(small_model(), "BATCH:TEMPLATE(300)");
        FAIL() << "a batch of 300 can never gather: it must be refused";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("batch size 300"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(core.compile_model(small_model(), "BATCH:TEMPLATE(256)"));
}

}  // namespace
