// Tests of ModelManager and ModelVersion on the TEMPLATE device with the golden "tiny" model
// (y = x + 1, f32[1,10]): version policies on a real repository, a failed version beside good
// ones, inference through the pool, unload, and inline model files that try to leave the folder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>

#include "model_manager.hpp"

#if defined(__SANITIZE_THREAD__)
// A ModelVersion may be destroyed on the device thread that runs its last completion callback (the
// callback holds it alive; the SDK allows destroying a request from its own callback), which can
// unload a plugin library there while the test's Core unloads another on the main thread. glibc
// serializes dlclose with the loader's own lock, which ThreadSanitizer does not see, so it reports
// the loader's bookkeeping in _dl_close_worker as a race; nothing of the server's is involved.
extern "C" const char* __tsan_default_suppressions() {
    return "race:_dl_close_worker\n";
}
#endif

namespace vireo::server {
namespace {

namespace fs = std::filesystem;

class ManagerTest : public ::testing::Test {
  protected:
    void SetUp() override {
        m_root = fs::temp_directory_path() /
                 ("vireo_server_manager_" + std::to_string(::getpid()) + "_" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(m_root);
        const fs::path tiny = fs::path(VIREO_TEST_DATA_DIR) / "models" / "golden" / "tiny";
        for (const char* v : {"1", "2"}) {
            fs::create_directories(m_root / "tiny" / v);
            fs::copy_file(tiny / "model.xml", m_root / "tiny" / v / "model.xml");
            fs::copy_file(tiny / "model.bin", m_root / "tiny" / v / "model.bin");
        }
        m_config.name = "tiny";
        m_config.base_path = (m_root / "tiny").string();
        m_config.target_device = "TEMPLATE";
        m_config.nireq = 2;
    }
    void TearDown() override { fs::remove_all(m_root); }

    fs::path m_root;
    ModelConfig m_config;
    Core m_core;
    Metrics m_metrics;
};

std::shared_ptr<InferJob> tiny_job(size_t batch, float first,
                                   std::promise<std::pair<Status, std::vector<OutputData>>>& done) {
    auto job = std::make_shared<InferJob>();
    Tensor x(element::f32, Shape{batch, 10});
    for (size_t i = 0; i < batch * 10; ++i) x.data<float>()[i] = first + static_cast<float>(i);
    job->inputs.emplace_back(0, x);
    job->outputs = {0};
    job->on_done = [&done](Status s, std::vector<OutputData> out) {
        done.set_value({std::move(s), std::move(out)});
    };
    return job;
}

std::pair<Status, std::vector<OutputData>> run(ModelVersion& version, float first) {
    auto job = std::make_shared<InferJob>();
    Tensor x(element::f32, Shape{1, 10});
    for (size_t i = 0; i < 10; ++i) x.data<float>()[i] = first + static_cast<float>(i);
    job->inputs.emplace_back(0, x);
    job->outputs = {0};
    std::promise<std::pair<Status, std::vector<OutputData>>> done;
    job->on_done = [&done](Status s, std::vector<OutputData> out) {
        done.set_value({std::move(s), std::move(out)});
    };
    const Status submitted = version.submit(job);
    if (!submitted.ok()) return {submitted, {}};
    return done.get_future().get();
}

TEST_F(ManagerTest, LatestPolicyServesTheHighestVersion) {
    ModelManager manager(m_core, m_metrics, (m_root / "uploads").string());
    manager.configure({m_config});
    EXPECT_FALSE(manager.all_ready());
    ASSERT_TRUE(manager.load("tiny").ok());
    EXPECT_TRUE(manager.all_ready());
    EXPECT_EQ(manager.ready_versions("tiny"), (std::vector<int64_t>{2}));
    std::shared_ptr<ModelVersion> version;
    ASSERT_TRUE(manager.find("tiny", "", version).ok());
    EXPECT_EQ(version->version(), 2);
    EXPECT_EQ(version->nireq(), 2u);
    EXPECT_EQ(version->max_queue_size(), 32u);
    ASSERT_EQ(version->inputs().size(), 1u);
    EXPECT_EQ(version->inputs()[0].name, "x");
    EXPECT_EQ(version->inputs()[0].shape, (std::vector<int64_t>{1, 10}));
    EXPECT_EQ(manager.find("tiny", "1", version).code, StatusCode::kNotFound);
    EXPECT_EQ(manager.find("tiny", "x1", version).code, StatusCode::kInvalidArgument);
    EXPECT_EQ(manager.find("other", "", version).code, StatusCode::kNotFound);
}

// A job calls on_done once and then lets it go with what it captured: a transport's state that
// holds the job (a gRPC stream's call holds its inference, which holds the job) would otherwise
// keep itself alive through the callback, a leak per request.
TEST(InferJobCallback, CalledOnceThenReleased) {
    auto sentinel = std::make_shared<int>(7);
    const std::weak_ptr<int> watch = sentinel;
    InferJob job;
    int calls = 0;
    job.on_done = [sentinel, &calls](Status, std::vector<OutputData>) { ++calls; };
    sentinel.reset();
    EXPECT_FALSE(watch.expired());
    EXPECT_TRUE(job.finish({}));
    EXPECT_FALSE(job.finish({StatusCode::kCancelled, "late"}));
    EXPECT_EQ(calls, 1);
    EXPECT_TRUE(watch.expired());
}

TEST_F(ManagerTest, InferenceRunsThroughThePool) {
    ModelManager manager(m_core, m_metrics, "");
    manager.configure({m_config});
    ASSERT_TRUE(manager.load("tiny").ok());
    std::shared_ptr<ModelVersion> version;
    ASSERT_TRUE(manager.find("tiny", "2", version).ok());
    for (int round = 0; round < 5; ++round) {
        auto [status, outputs] = run(*version, static_cast<float>(round));
        ASSERT_TRUE(status.ok()) << status.message;
        ASSERT_EQ(outputs.size(), 1u);
        EXPECT_EQ(outputs[0].name, "y");
        EXPECT_EQ(outputs[0].shape, (std::vector<int64_t>{1, 10}));
        ASSERT_EQ(outputs[0].bytes.size(), 40u);
        const float* y = reinterpret_cast<const float*>(outputs[0].bytes.data());
        for (int i = 0; i < 10; ++i) EXPECT_EQ(y[i], static_cast<float>(round + i + 1));
    }
    const VersionStats stats = version->stats();
    EXPECT_EQ(stats.success_count, 5u);
    EXPECT_EQ(stats.fail_count, 0u);
    EXPECT_EQ(stats.infer_count, 5u);
    EXPECT_EQ(m_metrics.version("tiny", 2)->inference_us.count(), 5u);
    EXPECT_EQ(m_metrics.version("tiny", 2)->current_requests.load(), 0);
    EXPECT_TRUE(version->wait_idle(Clock::now() + std::chrono::seconds(30)));
}

TEST_F(ManagerTest, DynamicBatchingGathersRequestsIntoOneInference) {
    // A long delay and preferred size 4: the batcher waits until 4 items are queued.
    m_config.nireq = 1;
    m_config.dynamic_batching = {4, 60'000'000, {4}};
    ModelManager manager(m_core, m_metrics, "");
    manager.configure({m_config});
    ASSERT_TRUE(manager.load("tiny").ok());
    std::shared_ptr<ModelVersion> version;
    ASSERT_TRUE(manager.find("tiny", "", version).ok());
    EXPECT_EQ(version->inputs()[0].shape, (std::vector<int64_t>{-1, 10}));
    std::promise<std::pair<Status, std::vector<OutputData>>> done[3];
    const size_t batches[3] = {1, 2, 1};
    const float firsts[3] = {0.f, 100.f, 1000.f};
    for (int i = 0; i < 3; ++i) {
        ASSERT_TRUE(version->submit(tiny_job(batches[i], firsts[i], done[i])).ok());
    }
    for (int i = 0; i < 3; ++i) {
        auto [status, outputs] = done[i].get_future().get();
        ASSERT_TRUE(status.ok()) << status.message;
        ASSERT_EQ(outputs.size(), 1u);
        EXPECT_EQ(outputs[0].shape, (std::vector<int64_t>{static_cast<int64_t>(batches[i]), 10}));
        ASSERT_EQ(outputs[0].bytes.size(), batches[i] * 40);
        const float* y = reinterpret_cast<const float*>(outputs[0].bytes.data());
        for (size_t k = 0; k < batches[i] * 10; ++k) {
            EXPECT_EQ(y[k], firsts[i] + static_cast<float>(k) + 1.f) << i << " " << k;
        }
    }
    const VersionStats stats = version->stats();
    EXPECT_EQ(stats.infer_count, 1u) << "one inference for the three requests";
    EXPECT_EQ(stats.success_count, 3u);
    EXPECT_EQ(stats.inference_items, 4u);

    std::promise<std::pair<Status, std::vector<OutputData>>> too_big;
    const Status s = version->submit(tiny_job(5, 0.f, too_big));
    EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
    EXPECT_NE(s.message.find("batch 5 is outside 1..4"), std::string::npos) << s.message;
}

TEST_F(ManagerTest, DynamicBatchingRunsAPartialBatchAfterTheDelay) {
    m_config.nireq = 1;
    m_config.dynamic_batching = {8, 1000, {8}};
    ModelManager manager(m_core, m_metrics, "");
    manager.configure({m_config});
    ASSERT_TRUE(manager.load("tiny").ok());
    std::shared_ptr<ModelVersion> version;
    ASSERT_TRUE(manager.find("tiny", "", version).ok());
    std::promise<std::pair<Status, std::vector<OutputData>>> done;
    ASSERT_TRUE(version->submit(tiny_job(1, 5.f, done)).ok());
    auto [status, outputs] = done.get_future().get();
    ASSERT_TRUE(status.ok()) << status.message;
    EXPECT_EQ(reinterpret_cast<const float*>(outputs[0].bytes.data())[0], 6.f);
    EXPECT_EQ(version->stats().infer_count, 1u);
    EXPECT_TRUE(version->wait_idle(Clock::now() + std::chrono::seconds(60)));
}

TEST_F(ManagerTest, ShapeAndBatchSizeReshapeBeforeCompiling) {
    m_config.shapes = {{"", "(2,10)"}};
    ModelManager manager(m_core, m_metrics, "");
    manager.configure({m_config});
    ASSERT_TRUE(manager.load("tiny").ok());
    std::shared_ptr<ModelVersion> version;
    ASSERT_TRUE(manager.find("tiny", "", version).ok());
    EXPECT_EQ(version->inputs()[0].shape, (std::vector<int64_t>{2, 10}));
    EXPECT_EQ(version->outputs()[0].shape, (std::vector<int64_t>{2, 10}));

    m_config.shapes = {{"x", "[-1,10]"}};
    m_config.batch_size = 3;
    manager.configure({m_config});
    ASSERT_TRUE(manager.unload("tiny").ok());
    ASSERT_TRUE(manager.load("tiny").ok());
    ASSERT_TRUE(manager.find("tiny", "", version).ok());
    EXPECT_EQ(version->inputs()[0].shape, (std::vector<int64_t>{3, 10}));

    m_config.shapes = {{"nope", "(1,10)"}};
    m_config.batch_size = 0;
    manager.configure({m_config});
    ASSERT_TRUE(manager.unload("tiny").ok());
    const Status s = manager.load("tiny");
    EXPECT_EQ(s.code, StatusCode::kUnavailable);
    EXPECT_NE(s.message.find("unknown input 'nope'"), std::string::npos) << s.message;
}

TEST_F(ManagerTest, OnnxVersionServesLikeIr) {
    if (!fs::exists(fs::path(VIREO_BUILD_LIB_DIR) / "libvireo_onnx_frontend.so")) {
        GTEST_SKIP() << "the ONNX frontend is not built (VIREO_BUILD_ONNX)";
    }
    const fs::path tiny = fs::path(VIREO_TEST_DATA_DIR) / "models" / "golden" / "tiny";
    fs::create_directories(m_root / "tiny" / "5");
    fs::copy_file(tiny / "model.onnx", m_root / "tiny" / "5" / "model.onnx");
    ModelManager manager(m_core, m_metrics, "");
    manager.configure({m_config});
    ASSERT_TRUE(manager.load("tiny").ok());
    std::shared_ptr<ModelVersion> version;
    ASSERT_TRUE(manager.find("tiny", "", version).ok());
    EXPECT_EQ(version->version(), 5);
    EXPECT_EQ(fs::path(version->model_file()).extension(), ".onnx");
    auto [status, outputs] = run(*version, 2.f);
    ASSERT_TRUE(status.ok()) << status.message;
    ASSERT_EQ(outputs.size(), 1u);
    EXPECT_EQ(reinterpret_cast<const float*>(outputs[0].bytes.data())[9], 12.f);
}

TEST_F(ManagerTest, BrokenVersionIsUnavailableBesideGoodOnes) {
    fs::create_directories(m_root / "tiny" / "3");
    std::ofstream(m_root / "tiny" / "3" / "model.xml") << "<net>not a model";
    m_config.version_policy.kind = VersionPolicy::Kind::kAll;
    ModelManager manager(m_core, m_metrics, "");
    manager.configure({m_config});
    const Status loaded = manager.load("tiny");
    EXPECT_EQ(loaded.code, StatusCode::kUnavailable);
    EXPECT_NE(loaded.message.find("version 3"), std::string::npos) << loaded.message;
    EXPECT_NE(loaded.message.find("keep serving"), std::string::npos) << loaded.message;
    EXPECT_TRUE(manager.all_ready());
    EXPECT_EQ(manager.ready_versions("tiny"), (std::vector<int64_t>{2, 1}));
    const auto index = manager.index();
    ASSERT_EQ(index.size(), 3u);
    EXPECT_EQ(index[2].version, 3);
    EXPECT_EQ(index[2].state, "UNAVAILABLE");
    EXPECT_FALSE(index[2].reason.empty());
    std::shared_ptr<ModelVersion> version;
    const Status s = manager.find("tiny", "3", version);
    EXPECT_EQ(s.code, StatusCode::kUnavailable);
    EXPECT_NE(s.message.find("UNAVAILABLE"), std::string::npos) << s.message;
    ASSERT_TRUE(manager.find("tiny", "", version).ok());
    EXPECT_EQ(version->version(), 2) << "the highest ready version serves unversioned requests";
}

TEST_F(ManagerTest, ReloadKeepsInFlightVersionAliveAndUnloadStopsServing) {
    ModelManager manager(m_core, m_metrics, "");
    manager.configure({m_config});
    ASSERT_TRUE(manager.load("tiny").ok());
    std::shared_ptr<ModelVersion> held;
    ASSERT_TRUE(manager.find("tiny", "", held).ok());
    // Version 3 appears: a reload loads it beside 2, then retires 2.
    fs::create_directories(m_root / "tiny" / "3");
    fs::copy_file(m_root / "tiny" / "1" / "model.xml", m_root / "tiny" / "3" / "model.xml");
    fs::copy_file(m_root / "tiny" / "1" / "model.bin", m_root / "tiny" / "3" / "model.bin");
    ASSERT_TRUE(manager.load("tiny").ok());
    EXPECT_EQ(manager.ready_versions("tiny"), (std::vector<int64_t>{3}));
    EXPECT_EQ(held->version(), 2);
    EXPECT_EQ(run(*held, 0.f).first.code, StatusCode::kUnavailable)
        << "a retired version takes no new request";
    ASSERT_TRUE(manager.unload("tiny").ok());
    std::shared_ptr<ModelVersion> version;
    EXPECT_EQ(manager.find("tiny", "", version).code, StatusCode::kUnavailable);
    EXPECT_FALSE(manager.all_ready());
    ASSERT_TRUE(manager.load("tiny").ok());
    EXPECT_TRUE(manager.all_ready());
}

TEST_F(ManagerTest, FailedNewVersionLeavesTheOldOneServing) {
    ModelManager manager(m_core, m_metrics, "");
    manager.configure({m_config});  // latest 1: version 2
    ASSERT_TRUE(manager.load("tiny").ok());
    fs::create_directories(m_root / "tiny" / "3");
    std::ofstream(m_root / "tiny" / "3" / "model.xml") << "<net>broken";
    EXPECT_EQ(manager.load("tiny").code, StatusCode::kUnavailable) << "version 3 failed";
    std::shared_ptr<ModelVersion> version;
    ASSERT_TRUE(manager.find("tiny", "", version).ok());
    EXPECT_EQ(version->version(), 2) << "the old version keeps serving";
    EXPECT_TRUE(run(*version, 1.f).first.ok());
    EXPECT_TRUE(manager.all_ready());
    const auto index = manager.index();
    ASSERT_EQ(index.size(), 2u);
    EXPECT_EQ(index[1].version, 3);
    EXPECT_EQ(index[1].state, "UNAVAILABLE");
    // Version 3 repaired: the next load serves it and retires 2.
    fs::copy_file(m_root / "tiny" / "1" / "model.xml", m_root / "tiny" / "3" / "model.xml",
                  fs::copy_options::overwrite_existing);
    fs::copy_file(m_root / "tiny" / "1" / "model.bin", m_root / "tiny" / "3" / "model.bin");
    ASSERT_TRUE(manager.load("tiny").ok());
    EXPECT_EQ(manager.ready_versions("tiny"), (std::vector<int64_t>{3}));
}

TEST_F(ManagerTest, InlineFilesStayInsideTheModelFolder) {
    ModelManager manager(m_core, m_metrics, (m_root / "uploads").string());
    for (const std::string path :
         {"../x/model.xml", "1/../../model.xml", "/1/model.xml", "model.xml", "v1/model.xml"}) {
        const Status s = manager.load_inline("up", {{path, "x"}}, "");
        EXPECT_EQ(s.code, StatusCode::kInvalidArgument) << path;
    }
    EXPECT_FALSE(fs::exists(m_root / "x"));
    EXPECT_EQ(manager.load_inline("../evil", {{"1/model.xml", "x"}}, "").code,
              StatusCode::kInvalidArgument);
    std::ifstream xml(m_root / "tiny" / "1" / "model.xml", std::ios::binary);
    std::ifstream bin(m_root / "tiny" / "1" / "model.bin", std::ios::binary);
    const std::string xml_text((std::istreambuf_iterator<char>(xml)), {});
    const std::string bin_bytes((std::istreambuf_iterator<char>(bin)), {});
    ASSERT_TRUE(manager
                    .load_inline("up", {{"4/model.xml", xml_text}, {"4/model.bin", bin_bytes}},
                                 R"({"target_device": "TEMPLATE", "nireq": 1})")
                    .ok());
    std::shared_ptr<ModelVersion> version;
    ASSERT_TRUE(manager.find("up", "4", version).ok());
    EXPECT_EQ(version->nireq(), 1u);
    EXPECT_TRUE(fs::exists(m_root / "uploads" / "up" / "4" / "model.xml"));
}

}  // namespace
}  // namespace vireo::server
