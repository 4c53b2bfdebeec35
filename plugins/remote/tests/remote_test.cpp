// REMOTE end to end against vireo_server processes on loopback ports: compile (load mode and
// REMOTE_MODEL_NAME), sync and async inference equal to TEMPLATE, properties, profiling, and the
// errors (no server, unknown model, shape refused, deadline, cancel).
#include <atomic>
#include <cstdlib>
#include <future>

#include "test_utils.hpp"
#include "vireo/exception.hpp"

namespace vireo::remote::test {
namespace {

// One server for the suite: it serves "slow" (y = x + 1 on MOCK_REMOTE, 1 s per inference)
// from its repository, and accepts inline loads (run on TEMPLATE by REMOTE_SERVER_DEVICE).
class Remote : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        s_dir = new TempDir();
        const std::string base = write_repository_model(*add_one_model(), s_dir->path(), "slow");
        s_server = new ServerProcess(slow_model_args(base, "slow", 1000));
    }
    static void TearDownTestSuite() {
        delete s_server;
        delete s_dir;
        s_server = nullptr;
        s_dir = nullptr;
    }
    void SetUp() override {
        core = make_core();
        core.set_property("REMOTE.0", {url(s_server->url()), server_device("TEMPLATE")});
    }

    static TempDir* s_dir;
    static ServerProcess* s_server;
    Core core;
};
TempDir* Remote::s_dir = nullptr;
ServerProcess* Remote::s_server = nullptr;

std::vector<float> run_on(Core& core, const std::shared_ptr<Model>& model,
                          const std::string& device, const std::vector<Tensor>& inputs,
                          size_t output = 0) {
    auto compiled = core.compile_model(model, device);
    auto request = compiled.create_infer_request();
    for (size_t i = 0; i < inputs.size(); ++i) request.set_input_tensor(i, inputs[i]);
    request.infer();
    return values(request.get_output_tensor(output));
}

TEST_F(Remote, SyncInferEqualsTemplate) {
    auto model = add_one_model();
    const Tensor x = make_tensor({1, 8}, -3.f, 0.5f);
    const auto remote = run_on(core, model, "REMOTE.0", {x});
    const auto local = run_on(core, model, "TEMPLATE", {x});
    ASSERT_EQ(remote.size(), 8u);
    EXPECT_EQ(remote, local);
    EXPECT_FLOAT_EQ(remote[0], -2.f);
    EXPECT_FLOAT_EQ(remote[7], 1.5f);
}

TEST_F(Remote, TwoInputsTwoOutputsAsyncEqualTemplate) {
    auto model = two_io_model();
    const Tensor a = make_tensor({2, 3}, -1.f, 0.75f);
    const Tensor b = make_tensor({2, 3}, 2.f, -0.25f);
    auto compiled = core.compile_model(model, "REMOTE.0");
    auto request = compiled.create_infer_request();
    request.set_tensor("a", a);
    request.set_tensor("b", b);
    std::atomic<int> callbacks{0};
    request.set_callback([&](std::exception_ptr error) {
        EXPECT_FALSE(error);
        ++callbacks;
    });
    request.start_async();
    request.wait();
    EXPECT_EQ(callbacks.load(), 1);
    for (size_t o = 0; o < 2; ++o) {
        const auto local = run_on(core, model, "TEMPLATE", {a, b}, o);
        EXPECT_EQ(values(request.get_output_tensor(o)), local) << "output " << o;
    }
}

TEST_F(Remote, ManyRequestsInFlightEachGetTheirOwnAnswer) {
    auto compiled = core.compile_model(add_one_model(), "REMOTE.0");
    constexpr int kRequests = 8;
    std::vector<InferRequest> requests;
    for (int i = 0; i < kRequests; ++i) {
        requests.push_back(compiled.create_infer_request());
        requests.back().set_input_tensor(make_tensor({1, 8}, static_cast<float>(i * 100)));
    }
    for (int round = 0; round < 3; ++round) {
        for (auto& r : requests) r.start_async();
        for (auto& r : requests) r.wait();
        for (int i = 0; i < kRequests; ++i)
            EXPECT_FLOAT_EQ(values(requests[i].get_output_tensor())[3], i * 100.f + 4.f);
    }
}

TEST_F(Remote, DynamicShapeOutputsAreResized) {
    auto model = add_one_model(PartialShape{1, Dimension::dynamic()});
    auto compiled = core.compile_model(model, "REMOTE.0");
    auto request = compiled.create_infer_request();
    for (size_t n : {3u, 11u}) {
        request.set_input_tensor(make_tensor({1, n}, 1.f));
        request.infer();
        const Tensor y = request.get_output_tensor();
        EXPECT_EQ(y.get_shape(), (Shape{1, n}));
        EXPECT_FLOAT_EQ(values(y)[n - 1], static_cast<float>(n) + 1.f);
    }
}

TEST_F(Remote, TheSameModelIsLoadedOnceUnderItsContentHash) {
    // The same model (its serialised IR: auto-generated node names included) gets one name.
    auto model = add_one_model();
    auto first = core.compile_model(model, "REMOTE.0");
    auto second = core.compile_model(model->clone(), "REMOTE.0");
    const auto name = first.get_property(model_name);
    EXPECT_EQ(name.rfind("vireo_", 0), 0u) << name;
    EXPECT_EQ(name, second.get_property(model_name));
    auto other = core.compile_model(add_one_model(PartialShape{1, 4}), "REMOTE.0");
    EXPECT_NE(other.get_property(model_name), name);
}

TEST_F(Remote, UsesAModelOfTheRepositoryByName) {
    auto compiled = core.compile_model(add_one_model(), "REMOTE.0", {model_name("slow")});
    EXPECT_EQ(compiled.get_property(model_name), "slow");
    auto request = compiled.create_infer_request();
    request.set_input_tensor(make_tensor({1, 8}, 10.f));
    request.infer();
    EXPECT_FLOAT_EQ(values(request.get_output_tensor())[2], 13.f);
}

TEST_F(Remote, PropertiesAndAvailableDevices) {
    EXPECT_EQ(core.get_property("REMOTE.0", url), s_server->url());
    const std::string full = core.get_property("REMOTE.0", device::full_name);
    EXPECT_NE(full.find(s_server->url()), std::string::npos) << full;
    EXPECT_EQ(full.find("unreachable"), std::string::npos) << full;
    core.set_property("REMOTE.2", {url("127.0.0.1:1")});
    const auto ids = core.get_property("REMOTE", available_devices);
    EXPECT_EQ(ids, (std::vector<std::string>{"0", "2"}));
    const auto devices = core.get_available_devices();
    EXPECT_NE(std::find(devices.begin(), devices.end(), "REMOTE.2"), devices.end());
    EXPECT_EQ(std::find(devices.begin(), devices.end(), "REMOTE.1"), devices.end());
    auto compiled = core.compile_model(add_one_model(), "REMOTE.0",
                                       {hint::performance_mode(hint::PerformanceMode::THROUGHPUT)});
    EXPECT_EQ(compiled.get_property(optimal_number_of_infer_requests), 4u);
    EXPECT_EQ(compiled.get_property(url), s_server->url());
}

TEST_F(Remote, ProfilingReportsSerialisationNetworkAndDeserialisation) {
    auto compiled = core.compile_model(add_one_model(), "REMOTE.0", {enable_profiling(true)});
    auto request = compiled.create_infer_request();
    request.set_input_tensor(make_tensor({1, 8}));
    request.infer();
    const auto rows = request.get_profiling_info();
    // The five stage rows, then vireo_server's share of the round trip split out of it.
    ASSERT_EQ(rows.size(), 8u);
    EXPECT_EQ(rows[0].exec_type, "serialize");
    EXPECT_EQ(rows[2].exec_type, "network+server");
    EXPECT_EQ(rows[2].status, ProfilingInfo::Status::EXECUTED);
    EXPECT_GT(rows[2].real_time.count(), 0);
    EXPECT_EQ(rows[4].exec_type, "deserialize");
    const std::vector<std::string> names = {"server queue", "server run", "network"};
    std::chrono::microseconds parts{0};
    for (size_t i = 0; i < names.size(); ++i) {
        EXPECT_EQ(rows[5 + i].node_name, names[i]);
        EXPECT_EQ(rows[5 + i].status, ProfilingInfo::Status::EXECUTED);
        EXPECT_GE(rows[5 + i].real_time.count(), 0);
        parts += rows[5 + i].real_time;
    }
    EXPECT_EQ(rows[5].exec_type, "server");
    EXPECT_EQ(rows[7].exec_type, "grpc");
    // The three parts are the round trip (the network row is what the server's two leave);
    // whole microseconds on each side may round by one each.
    EXPECT_LE(std::abs((parts - rows[2].real_time).count()), 2);
}

TEST_F(Remote, ServerRowsAreReportedOnlyWithProfiling) {
    auto compiled = core.compile_model(add_one_model(), "REMOTE.0", {enable_profiling(false)});
    auto request = compiled.create_infer_request();
    request.set_input_tensor(make_tensor({1, 8}));
    request.infer();
    EXPECT_EQ(request.get_profiling_info().size(), 5u);
}

TEST_F(Remote, UnloadOnReleaseUnloadsWhenTheLastUserGoes) {
    auto model = add_one_model(PartialShape{1, 5});
    std::string name;
    {
        auto first = core.compile_model(model, "REMOTE.0", {unload_on_release(true)});
        auto second = core.compile_model(model, "REMOTE.0", {unload_on_release(true)});
        name = first.get_property(model_name);
        first = {};
        // Still used by `second`: still served.
        auto by_name = core.compile_model(model, "REMOTE.0", {remote::model_name(name)});
        EXPECT_EQ(by_name.get_property(model_name), name);
    }
    // The server knows the name but serves no version of it now: Unavailable, naming the model.
    try {
        core.compile_model(model, "REMOTE.0", {remote::model_name(name)});
        ADD_FAILURE() << "the model is still served after its last user went";
    } catch (const Unavailable& e) {
        EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
    // Load mode loads it again; without the setting it stays.
    { auto kept = core.compile_model(model, "REMOTE.0"); }
    auto again = core.compile_model(model, "REMOTE.0", {remote::model_name(name)});
    EXPECT_EQ(again.get_property(model_name), name);
}

TEST_F(Remote, BatchGathersRequestsBeforeTheNetwork) {
    auto model = add_one_model(PartialShape{1, 8});
    auto compiled = core.compile_model(model, "BATCH:REMOTE.0(4)");
    std::vector<InferRequest> requests;
    for (int i = 0; i < 4; ++i) {
        requests.push_back(compiled.create_infer_request());
        requests.back().set_input_tensor(make_tensor({1, 8}, static_cast<float>(10 * i), 1.f));
    }
    for (auto& r : requests) r.start_async();
    for (auto& r : requests) r.wait();
    for (int i = 0; i < 4; ++i) {
        const auto out = values(requests[i].get_output_tensor());
        ASSERT_EQ(out.size(), 8u);
        EXPECT_FLOAT_EQ(out[0], 10.f * i + 1.f);
        EXPECT_FLOAT_EQ(out[7], 10.f * i + 8.f);
    }
}

TEST_F(Remote, AServerCanServeOnARemoteDevice) {
    // Two hops: a second vireo_server serves "hop" on its REMOTE.0, which is this suite's server;
    // the server and the plugin in one process share the KServe protocol library.
    TempDir dir;
    const std::string base = write_repository_model(*add_one_model(), dir.path(), "hop");
    setenv("VIREO_REMOTE_URLS", s_server->url().c_str(), 1);
    ServerProcess front(
        {"--model_path", base, "--model_name", "hop", "--target_device", "REMOTE.0"});
    unsetenv("VIREO_REMOTE_URLS");
    auto compiled = core.compile_model(add_one_model(), "REMOTE.0",
                                       {url(front.url()), remote::model_name("hop")});
    auto request = compiled.create_infer_request();
    request.set_input_tensor(make_tensor({1, 8}, 30.f));
    request.infer();
    EXPECT_FLOAT_EQ(values(request.get_output_tensor())[4], 35.f);
}

TEST_F(Remote, GoldenModelsEqualTemplateFromIrAndOnnx) {
    // The server runs TEMPLATE: the same kernels, so the outputs are equal bit for bit.
    int compared = 0;
    for (const char* name : {"tiny", "mlp", "cnn"}) {
        for (const char* file : {"model.xml", "model.onnx"}) {
            SCOPED_TRACE(std::string(name) + "/" + file);
            const std::string path =
                std::string(VIREO_TEST_DATA_DIR) + "/models/golden/" + name + "/" + file;
            if (!std::filesystem::exists(path)) continue;  // not every golden model has both
            auto model = core.read_model(path);
            const Shape shape = model->inputs()[0].get_partial_shape().to_shape();
            const Tensor x = make_tensor(shape, -1.f, 2.f / static_cast<float>(shape_size(shape)));
            const auto remote = run_on(core, model, "REMOTE.0", {x});
            const auto local = run_on(core, model, "TEMPLATE", {x});
            ASSERT_FALSE(remote.empty());
            EXPECT_EQ(remote, local);
            ++compared;
        }
    }
    EXPECT_GE(compared, 4);
}

TEST_F(Remote, AModelReadFromOnnxIsSentAsItsFileWhileUnchanged) {
    const std::string path = std::string(VIREO_TEST_DATA_DIR) + "/models/golden/cnn/model.onnx";
    const std::string xml = std::string(VIREO_TEST_DATA_DIR) + "/models/golden/cnn/model.xml";
    auto model = core.read_model(path);
    auto as_onnx = core.compile_model(model, "REMOTE.0");
    EXPECT_EQ(as_onnx.get_property(remote::model_format), "ONNX");
    // Values as TEMPLATE's (the server reads the same file).
    const Shape shape = model->inputs()[0].get_partial_shape().to_shape();
    const Tensor x = make_tensor(shape, -1.f, 2.f / static_cast<float>(shape_size(shape)));
    auto request = as_onnx.create_infer_request();
    request.set_input_tensor(x);
    request.infer();
    EXPECT_EQ(values(request.get_output_tensor()), run_on(core, model, "TEMPLATE", {x}));
    // Asked for IR, or read from IR: IR, under another name than the ONNX load.
    auto as_ir = core.compile_model(model, "REMOTE.0", {remote::model_format("IR")});
    EXPECT_EQ(as_ir.get_property(remote::model_format), "IR");
    EXPECT_NE(as_ir.get_property(remote::model_name), as_onnx.get_property(remote::model_name));
    EXPECT_EQ(
        core.compile_model(core.read_model(xml), "REMOTE.0").get_property(remote::model_format),
        "IR");
    // Changed since it was read (a new batch): the file no longer says what the model is.
    auto reshaped = core.read_model(path);
    Shape batch2 = shape;
    batch2[0] = 2;
    reshaped->reshape(PartialShape(batch2));
    auto changed = core.compile_model(reshaped, "REMOTE.0");
    EXPECT_EQ(changed.get_property(remote::model_format), "IR");
    EXPECT_EQ(changed.input().get_partial_shape(), PartialShape(batch2));
    // A model built in code has no source file.
    EXPECT_EQ(core.compile_model(add_one_model(), "REMOTE.0").get_property(remote::model_format),
              "IR");
    // REMOTE_MODEL_FORMAT takes AUTO or IR only.
    EXPECT_THROW(core.compile_model(model, "REMOTE.0", {remote::model_format("ONNX")}),
                 InvalidArgument);
}

// --- errors -----------------------------------------------------------------------------------

template <typename E, typename F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "wrong exception type: " << e.what();
        return "";
    }
    ADD_FAILURE() << "no exception";
    return "";
}

TEST_F(Remote, UnreachableServerIsUnavailableNamingTheUrl) {
    // A port nothing listens on: a server started and stopped.
    std::string dead;
    {
        ServerProcess gone;
        dead = gone.url();
        gone.stop();
    }
    core.set_property("REMOTE.1", {url(dead)});
    const std::string message =
        error_of<Unavailable>([&] { core.compile_model(add_one_model(), "REMOTE.1"); });
    EXPECT_NE(message.find("REMOTE.1"), std::string::npos) << message;
    EXPECT_NE(message.find(dead), std::string::npos) << message;
    EXPECT_NE(message.find("UNAVAILABLE"), std::string::npos) << message;
}

TEST_F(Remote, NoUrlIsUnavailableSayingHowToSetIt) {
    Core bare = make_core();
    const std::string message =
        error_of<Unavailable>([&] { bare.compile_model(add_one_model(), "REMOTE.0"); });
    EXPECT_NE(message.find("REMOTE_URL"), std::string::npos) << message;
}

TEST_F(Remote, AnUnconfiguredRemoteIsLeftOutOfTheDeviceListWithoutAWarning) {
    Core bare = make_core();
    ::testing::internal::CaptureStderr();
    const auto devices = bare.get_available_devices();
    const std::string printed = ::testing::internal::GetCapturedStderr();
    for (const auto& d : devices) EXPECT_NE(d.rfind("REMOTE", 0), 0u) << d;
    EXPECT_EQ(printed.find("REMOTE"), std::string::npos) << printed;
}

TEST_F(Remote, BadUrlIsInvalidArgument) {
    const std::string message = error_of<InvalidArgument>(
        [&] { core.compile_model(add_one_model(), "REMOTE.0", {url("http://x:1")}); });
    EXPECT_NE(message.find("http://x:1"), std::string::npos) << message;
}

TEST_F(Remote, UnknownModelNameIsInvalidArgumentNamingIt) {
    const std::string message = error_of<InvalidArgument>(
        [&] { core.compile_model(add_one_model(), "REMOTE.0", {model_name("no_such_model")}); });
    EXPECT_NE(message.find("no_such_model"), std::string::npos) << message;
    EXPECT_NE(message.find(s_server->url()), std::string::npos) << message;
}

TEST_F(Remote, MetadataMismatchNamesTheField) {
    // "slow" takes x of [1,8]; this model's x is [1,4].
    const std::string message = error_of<InvalidArgument>([&] {
        core.compile_model(add_one_model(PartialShape{1, 4}), "REMOTE.0", {model_name("slow")});
    });
    EXPECT_NE(message.find("input 'x'"), std::string::npos) << message;
    EXPECT_NE(message.find("[1,8]"), std::string::npos) << message;
}

TEST_F(Remote, ShapeRefusedByTheServerIsInvalidArgument) {
    // The model accepts any length locally, the server's "slow" only [1,8]: the server refuses.
    auto compiled = core.compile_model(add_one_model(PartialShape{1, Dimension::dynamic()}),
                                       "REMOTE.0", {model_name("slow")});
    auto request = compiled.create_infer_request();
    request.set_input_tensor(make_tensor({1, 5}));
    const std::string message = error_of<InvalidArgument>([&] { request.infer(); });
    EXPECT_NE(message.find("'slow'"), std::string::npos) << message;
    EXPECT_NE(message.find("INVALID_ARGUMENT"), std::string::npos) << message;
    // The request is usable again.
    request.set_input_tensor(make_tensor({1, 8}, 1.f));
    request.infer();
    EXPECT_FLOAT_EQ(values(request.get_output_tensor())[0], 2.f);
}

TEST_F(Remote, DeadlineExceededIsUnavailableNamingTheTimeout) {
    auto compiled =
        core.compile_model(add_one_model(), "REMOTE.0", {model_name("slow"), timeout_ms(50u)});
    auto request = compiled.create_infer_request();
    request.set_input_tensor(make_tensor({1, 8}));
    const auto start = std::chrono::steady_clock::now();
    const std::string message = error_of<Unavailable>([&] { request.infer(); });
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_NE(message.find("50 ms"), std::string::npos) << message;
    EXPECT_NE(message.find("DEADLINE_EXCEEDED"), std::string::npos) << message;
    EXPECT_LT(took, std::chrono::milliseconds(600));
}

TEST_F(Remote, CancelEndsTheCallAtOnce) {
    auto compiled = core.compile_model(add_one_model(), "REMOTE.0", {model_name("slow")});
    auto request = compiled.create_infer_request();
    request.set_input_tensor(make_tensor({1, 8}));
    std::atomic<int> callbacks{0};
    std::exception_ptr seen;
    request.set_callback([&](std::exception_ptr error) {
        seen = error;
        ++callbacks;
    });
    request.start_async();
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    const auto start = std::chrono::steady_clock::now();
    request.cancel();
    EXPECT_THROW(request.wait(), Cancelled);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(600));
    EXPECT_EQ(callbacks.load(), 1);
    EXPECT_TRUE(seen);
    // Usable again, with a right answer.
    request.set_callback(nullptr);
    request.set_input_tensor(make_tensor({1, 8}, 5.f));
    request.infer();
    EXPECT_FLOAT_EQ(values(request.get_output_tensor())[0], 6.f);
}

TEST_F(Remote, DestroyingARunningRequestDoesNotWaitForTheServer) {
    auto compiled = core.compile_model(add_one_model(), "REMOTE.0", {model_name("slow")});
    const auto start = std::chrono::steady_clock::now();
    {
        auto request = compiled.create_infer_request();
        request.set_input_tensor(make_tensor({1, 8}));
        request.start_async();
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(600));
}

TEST_F(Remote, ExportIsNotImplemented) {
    auto compiled = core.compile_model(add_one_model(), "REMOTE.0");
    std::stringstream blob;
    EXPECT_THROW(compiled.export_model(blob), NotImplemented);
}

}  // namespace
}  // namespace vireo::remote::test
