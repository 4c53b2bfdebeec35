// Tests of ExecutionConfig (the common execution keys of one compile, resolved to streams and
// threads) and of a compiled model's standard read-only keys built from it.
#include "vireo/sdk/execution_config.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "vireo/sdk/cpu_streams_executor.hpp"

namespace vireo::sdk {
namespace {

PropertyTable common_table() {
    return PropertyTable(
        "DEV", {common::performance_hint(), common::num_streams(), common::inference_num_threads(),
                common::hint_num_requests(), common::profiling()});
}

TEST(ExecutionConfig, ReadsTheCommonKeysFromResolvedValues) {
    PropertyTable table = common_table();
    table.set({{num_streams.name(), 3}, {enable_profiling.name(), true}});
    const ExecutionConfig c =
        ExecutionConfig::from(table.resolve({{hint::num_requests.name(), 5u}}));
    EXPECT_EQ(c.num_streams, 3);
    EXPECT_TRUE(c.enable_profiling);
    EXPECT_EQ(c.num_requests, 5u);
    EXPECT_EQ(c.performance_mode, hint::PerformanceMode::LATENCY);
    EXPECT_EQ(c.instance, "");
    EXPECT_EQ(c.values.size(), 5u);  // every read-write key, for an exported blob
    // A table without the common keys: NotFound naming the missing one.
    PropertyTable bare("DEV", {common::performance_hint()});
    try {
        ExecutionConfig::from(bare.resolve({}));
        ADD_FAILURE() << "accepted a table without NUM_STREAMS";
    } catch (const NotFound& e) {
        EXPECT_NE(std::string(e.what()).find("NUM_STREAMS"), std::string::npos) << e.what();
    }
}

TEST(ExecutionConfig, ResolvesStreamsAndThreadsFromTheHint) {
    const int cores = available_cores();
    ASSERT_GE(cores, 1);
    ExecutionConfig c;
    EXPECT_EQ(c.resolved_streams(), 1);  // LATENCY
    EXPECT_EQ(c.resolved_threads_per_stream(), cores);
    c.performance_mode = hint::PerformanceMode::THROUGHPUT;
    EXPECT_EQ(c.resolved_streams(), std::min(cores, kMaxStreams));
    EXPECT_EQ(c.resolved_threads_per_stream(), std::max(1, cores / c.resolved_streams()));
    c.num_requests = 1;  // caps the streams
    EXPECT_EQ(c.resolved_streams(), 1);
    c.num_streams = 7;  // explicit wins over hint and cap
    c.inference_num_threads = 2;
    EXPECT_EQ(c.resolved_streams(), 7);
    EXPECT_EQ(c.resolved_threads_per_stream(), 2);
}

TEST(ExecutionConfig, CompiledModelKeysReportTheResolvedValues) {
    ExecutionConfig c;
    c.num_streams = 2;
    c.inference_num_threads = 1;
    c.num_requests = 4;
    PropertyTable table("DEV", common::compiled_model_keys(c, "net", "DEV", true),
                        /*plugin_table=*/false);
    EXPECT_EQ(table.get(num_streams.name()).as<int32_t>(), 2);
    EXPECT_EQ(table.get(optimal_number_of_infer_requests.name()).as<uint32_t>(), 2u);
    EXPECT_EQ(table.get(inference_num_threads.name()).as<int32_t>(), 1);
    EXPECT_EQ(table.get(hint::num_requests.name()).as<uint32_t>(), 4u);
    EXPECT_EQ(table.get(model_name.name()).as<std::string>(), "net");
    EXPECT_EQ(table.get(execution_devices.name()).as<std::vector<std::string>>(),
              std::vector<std::string>{"DEV"});
    EXPECT_TRUE(table.get(loaded_from_cache.name()).as<bool>());
    EXPECT_EQ(table.get(device::id.name()).as<std::string>(), "0");  // one instance
    c.instance = "1";
    PropertyTable second("DEV", common::compiled_model_keys(c, "net", "DEV", false), false);
    EXPECT_EQ(second.get(device::id.name()).as<std::string>(), "1");
    EXPECT_THROW(second.set({{num_streams.name(), 1}}), InvalidArgument);  // read-only
}

}  // namespace
}  // namespace vireo::sdk
