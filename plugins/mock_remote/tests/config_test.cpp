// Tests of the MOCK_REMOTE settings: defaults, text values, validation messages.
#include "config.hpp"

#include <gtest/gtest.h>

#include "vireo/mock_remote/properties.hpp"

namespace vireo::mock_remote {
namespace {

TEST(MockRemoteConfig, DefaultsAreTheDocumentedOnes) {
    const Config config;
    EXPECT_EQ(config.get(latency_us.name()).as<uint32_t>(), 2000u);
    EXPECT_EQ(config.get(compile_ms.name()).as<uint32_t>(), 200u);
    EXPECT_EQ(config.get(gflops.name()).as<double>(), 50.0);
    EXPECT_EQ(config.get(device_gbps.name()).as<double>(), 100.0);
    EXPECT_EQ(config.get(bus_gbps.name()).as<double>(), 8.0);
    EXPECT_EQ(config.get(bus_latency_us.name()).as<uint32_t>(), 10u);
    EXPECT_EQ(config.get(fail_nth.name()).as<uint64_t>(), 0u);
    EXPECT_EQ(config.get(fail_rate.name()).as<double>(), 0.0);
    EXPECT_EQ(config.get(hang_nth.name()).as<uint64_t>(), 0u);
    EXPECT_EQ(config.get(jitter_us.name()).as<uint32_t>(), 0u);
    EXPECT_FALSE(config.get(enable_profiling.name()).as<bool>());
    EXPECT_EQ(config.host_streams(), 1);
}

TEST(MockRemoteConfig, AcceptsTypedAndTextValues) {
    Config config;
    config.set(latency_us.name(), Any(uint32_t{1500}));
    config.set(gflops.name(), Any(std::string("12.5")));
    config.set(fail_rate.name(), Any(0.25));
    config.set(hint::performance_mode.name(), Any(std::string("THROUGHPUT")));
    EXPECT_EQ(config.timing.latency_us, 1500u);
    EXPECT_EQ(config.timing.gflops, 12.5);
    EXPECT_EQ(config.faults.fail_rate, 0.25);
    EXPECT_EQ(config.host_streams(), 2);
    config.set(num_streams.name(), Any(3));
    EXPECT_EQ(config.host_streams(), 3);
}

TEST(MockRemoteConfig, TextFormRoundTrips) {
    Config config;
    config.set(gflops.name(), Any(1.0 / 3.0));
    config.set(hang_nth.name(), Any(uint64_t{9}));
    Config copy;
    for (const auto& [key, value] : config.to_text()) copy.set(key, Any(value));
    EXPECT_EQ(copy.timing.gflops, 1.0 / 3.0);
    EXPECT_EQ(copy.faults.hang_nth, 9u);
}

std::string message_of(Config& config, const std::string& key, const Any& value) {
    try {
        config.set(key, value);
    } catch (const InvalidArgument& e) {
        return e.what();
    }
    return "(no InvalidArgument)";
}

TEST(MockRemoteConfig, BadValuesNameTheKeyAndTheValue) {
    Config config;
    std::string text = message_of(config, gflops.name(), Any(0.0));
    EXPECT_NE(text.find("MOCK_REMOTE_GFLOPS"), std::string::npos) << text;
    EXPECT_NE(text.find("expected a rate from 0.001 to 1e+09"), std::string::npos) << text;
    // Issue 23 item 7: values that overflowed the timing model or modelled 71 minutes.
    text = message_of(config, gflops.name(), Any(1e-300));
    EXPECT_NE(text.find("MOCK_REMOTE_GFLOPS"), std::string::npos) << text;
    text = message_of(config, latency_us.name(), Any(uint32_t{4'000'000'000u}));
    EXPECT_NE(text.find("expected 0 to 10000000 us, found 4000000000"), std::string::npos) << text;
    text = message_of(config, jitter_us.name(), Any(uint32_t{10'000'001u}));
    EXPECT_NE(text.find("MOCK_REMOTE_JITTER_US"), std::string::npos) << text;
    text = message_of(config, compile_ms.name(), Any(uint32_t{60'001u}));
    EXPECT_NE(text.find("expected 0 to 60000 ms"), std::string::npos) << text;
    config.set(latency_us.name(), Any(uint32_t{10'000'000u}));  // the limit itself is fine
    EXPECT_EQ(config.timing.latency_us, 10'000'000u);
    config.set(latency_us.name(), Any(Config{}.timing.latency_us));
    text = message_of(config, fail_rate.name(), Any(1.5));
    EXPECT_NE(text.find("MOCK_REMOTE_FAIL_RATE"), std::string::npos) << text;
    EXPECT_NE(text.find("1.5"), std::string::npos) << text;
    text = message_of(config, latency_us.name(), Any(std::string("soon")));
    EXPECT_NE(text.find("MOCK_REMOTE_LATENCY_US"), std::string::npos) << text;
    EXPECT_NE(text.find("soon"), std::string::npos) << text;
    text = message_of(config, num_streams.name(), Any(-1));
    EXPECT_NE(text.find("NUM_STREAMS"), std::string::npos) << text;
    EXPECT_THROW(config.set("MOCK_REMOTE_NO_SUCH_KEY", Any(1)), NotFound);
    EXPECT_EQ(config.timing.gflops, Config{}.timing.gflops);  // failed sets change nothing
}

}  // namespace
}  // namespace vireo::mock_remote
