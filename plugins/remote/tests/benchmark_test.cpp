// REMOTE figures (not thresholds; run with VIREO_REMOTE_BENCHMARK=1, skipped otherwise):
// - pipelining: throughput with 1 and with 4 requests in flight against a server whose model
//   takes L ms and can run 4 at once (MULTI over 4 MOCK_REMOTE instances on the server, whose
//   latency is a sleep, so the 2-core machine's CPU is not what is measured);
// - BATCH:REMOTE.0(8): throughput against a server whose device takes L ms per job whatever its
//   batch, with and without BATCH gathering requests before they cross the network;
// - per-inference overhead: a synchronous inference of a tiny model on REMOTE (loopback server
//   running TEMPLATE) next to TEMPLATE in-process.
#include <cstdio>
#include <fstream>

#include "test_utils.hpp"

namespace vireo::remote::test {
namespace {

bool benchmark_enabled() {
    const char* flag = std::getenv("VIREO_REMOTE_BENCHMARK");
    return flag && std::string(flag) == "1";
}

// Inferences per second over `seconds` with `in_flight` requests kept busy.
double throughput(CompiledModel& compiled, size_t in_flight, double seconds) {
    std::vector<InferRequest> requests;
    for (size_t i = 0; i < in_flight; ++i) {
        requests.push_back(compiled.create_infer_request());
        requests.back().set_input_tensor(make_tensor({1, 8}));
    }
    for (auto& r : requests) r.infer();  // warm up
    const auto start = std::chrono::steady_clock::now();
    const auto end = start + std::chrono::duration<double>(seconds);
    size_t done = 0;
    for (auto& r : requests) r.start_async();
    while (std::chrono::steady_clock::now() < end) {
        for (auto& r : requests) {
            if (!r.wait_for(std::chrono::milliseconds(0))) continue;
            ++done;
            r.start_async();
        }
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    for (auto& r : requests) r.wait();
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return static_cast<double>(done + requests.size()) / elapsed;
}

TEST(RemoteBenchmark, PipeliningOneVersusFourInFlight) {
    if (!benchmark_enabled()) GTEST_SKIP() << "set VIREO_REMOTE_BENCHMARK=1";
    constexpr uint32_t kLatencyMs = 20;
    TempDir dir;
    const std::string base = write_repository_model(*add_one_model(), dir.path(), "m");
    const std::string xml = dir.path() + "/plugins.xml";
    {
        std::ofstream out(xml);
        const std::string lib = VIREO_BUILD_LIB_DIR;
        out << "<ie><plugins>\n"
            << "<plugin name=\"MULTI\" location=\"" << lib << "/libvireo_auto_plugin.so\"/>\n"
            << "<plugin name=\"MOCK_REMOTE\" location=\"" << lib
            << "/libvireo_mock_remote_plugin.so\"><properties>"
            << "<property key=\"MOCK_REMOTE_DEVICE_COUNT\" value=\"4\"/>"
            << "<property key=\"MOCK_REMOTE_LATENCY_US\" value=\"" << kLatencyMs * 1000 << "\"/>"
            << "<property key=\"MOCK_REMOTE_COMPILE_MS\" value=\"0\"/>"
            // One request per device: MULTI fills its devices in priority order up to each
            // one's optimal number of requests (2 by default), so 4 requests in flight would
            // otherwise keep only two of the four devices busy.
            << "<property key=\"PERFORMANCE_HINT_NUM_REQUESTS\" value=\"1\"/>"
            << "</properties></plugin>\n</plugins></ie>\n";
    }
    ServerProcess server(
        {"--plugins_xml", xml, "--model_path", base, "--model_name", "m", "--target_device",
         "MULTI:MOCK_REMOTE.0,MOCK_REMOTE.1,MOCK_REMOTE.2,MOCK_REMOTE.3", "--nireq", "8"});
    Core core = make_core();
    core.set_property("REMOTE.0", {url(server.url())});
    auto compiled = core.compile_model(add_one_model(), "REMOTE.0", {model_name("m")});
    const double one = throughput(compiled, 1, 3.0);
    const double four = throughput(compiled, 4, 3.0);
    const double eight = throughput(compiled, 8, 3.0);
    std::printf(
        "REMOTE pipelining, server model L = %u ms (MULTI over 4 MOCK_REMOTE on the "
        "server): 1 in flight %.1f/s, 4 in flight %.1f/s (%.2fx), 8 in flight %.1f/s "
        "(%.2fx)\n",
        kLatencyMs, one, four, four / one, eight, eight / one);
    EXPECT_GT(one, 0.0);
    EXPECT_GT(four, 0.0);
}

TEST(RemoteBenchmark, MultiOverTwoServersVersusOne) {
    if (!benchmark_enabled()) GTEST_SKIP() << "set VIREO_REMOTE_BENCHMARK=1";
    // Each server runs the model on one MOCK_REMOTE (one job at a time, 20 ms each): a server's
    // capacity is 50/s whatever the client does, so MULTI over two can at most double it.
    TempDir dir;
    const std::string base = write_repository_model(*add_one_model(), dir.path(), "m");
    ServerProcess first(slow_model_args(base, "m", 20)), second(slow_model_args(base, "m", 20));
    Core core = make_core();
    core.set_property("REMOTE.0", {url(first.url())});
    core.set_property("REMOTE.1", {url(second.url())});
    const AnyMap settings{model_name("m"),
                          hint::performance_mode(hint::PerformanceMode::THROUGHPUT)};
    auto one = core.compile_model(add_one_model(), "REMOTE.0", settings);
    auto both = core.compile_model(add_one_model(), "MULTI:REMOTE.0,REMOTE.1",
                                   {{"DEVICE_PROPERTIES", AnyMap{{"REMOTE", settings}}},
                                    hint::performance_mode(hint::PerformanceMode::THROUGHPUT)});
    const double single = throughput(one, 4, 3.0);
    const double multi = throughput(both, 8, 3.0);
    std::printf(
        "MULTI:REMOTE.0,REMOTE.1 over two servers (each one MOCK_REMOTE, 20 ms): one "
        "server %.1f/s (4 in flight), two %.1f/s (8 in flight), %.2fx\n",
        single, multi, multi / single);
    EXPECT_GT(multi, 0.0);
}

TEST(RemoteBenchmark, BatchGathersRequestsBeforeTheNetwork) {
    if (!benchmark_enabled()) GTEST_SKIP() << "set VIREO_REMOTE_BENCHMARK=1";
    // The server runs what REMOTE loads on one MOCK_REMOTE device that takes 20 ms per job,
    // whatever its batch (a sleep): 50 jobs/s at most, so only batching raises inferences/s.
    constexpr uint32_t kLatencyMs = 20;
    TempDir dir;
    const std::string xml = dir.path() + "/plugins.xml";
    {
        std::ofstream out(xml);
        out << "<ie><plugins>\n<plugin name=\"MOCK_REMOTE\" location=\"" << VIREO_BUILD_LIB_DIR
            << "/libvireo_mock_remote_plugin.so\"><properties>"
            << "<property key=\"MOCK_REMOTE_LATENCY_US\" value=\"" << kLatencyMs * 1000 << "\"/>"
            << "<property key=\"MOCK_REMOTE_COMPILE_MS\" value=\"0\"/>"
            << "</properties></plugin>\n</plugins></ie>\n";
    }
    ServerProcess server({"--plugins_xml", xml});
    Core core = make_core();
    core.set_property("REMOTE.0", {url(server.url()), server_device("MOCK_REMOTE")});
    auto model = add_one_model(PartialShape{1, 8});
    auto single = core.compile_model(model, "REMOTE.0");
    auto batched = core.compile_model(model, "BATCH:REMOTE.0(8)");
    const double plain = throughput(single, 8, 3.0);
    const double eight = throughput(batched, 8, 3.0);
    const double sixteen = throughput(batched, 16, 3.0);
    std::printf(
        "BATCH:REMOTE.0(8), server model L = %u ms per job on one MOCK_REMOTE: REMOTE.0 with 8 "
        "in flight %.1f/s; BATCH(8) with 8 in flight %.1f/s (%.2fx), with 16 %.1f/s (%.2fx)\n",
        kLatencyMs, plain, eight, eight / plain, sixteen, sixteen / plain);
    EXPECT_GT(eight, 0.0);
}

TEST(RemoteBenchmark, PerInferenceOverheadOnLoopback) {
    if (!benchmark_enabled()) GTEST_SKIP() << "set VIREO_REMOTE_BENCHMARK=1";
    ServerProcess server;
    Core core = make_core();
    core.set_property("REMOTE.0", {url(server.url()), server_device("TEMPLATE")});
    auto model = add_one_model();
    auto time_per_infer = [&](const std::string& device) {
        auto compiled = core.compile_model(model, device);
        auto request = compiled.create_infer_request();
        request.set_input_tensor(make_tensor({1, 8}));
        for (int i = 0; i < 50; ++i) request.infer();
        constexpr int kRuns = 2000;
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < kRuns; ++i) request.infer();
        return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
                   .count() /
               kRuns;
    };
    const double remote = time_per_infer("REMOTE.0");
    const double local = time_per_infer("TEMPLATE");
    std::printf(
        "tiny model, one synchronous inference: REMOTE.0 (loopback, server on TEMPLATE) "
        "%.1f us, TEMPLATE in-process %.1f us, overhead %.1f us\n",
        remote, local, remote - local);
    EXPECT_GT(remote, local);
}

}  // namespace
}  // namespace vireo::remote::test
