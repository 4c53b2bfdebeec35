// Tests of the MOCK_REMOTE settings: defaults, text values, validation messages (through a
// property table made of Config::specs(), as the plugin makes it).
#include "config.hpp"

#include <gtest/gtest.h>

#include "vireo/mock_remote/properties.hpp"

namespace vireo::mock_remote {
namespace {

sdk::PropertyTable table() {
    return sdk::PropertyTable("MOCK_REMOTE", Config::specs(), /*plugin_table=*/false);
}

Config config_of(const sdk::PropertyTable& t) {
    return Config::from(t.resolve({}).map());
}

TEST(MockRemoteConfig, DefaultsAreTheDocumentedOnes) {
    const auto t = table();
    EXPECT_EQ(t.get(latency_us.name()).as<uint32_t>(), 2000u);
    EXPECT_EQ(t.get(compile_ms.name()).as<uint32_t>(), 200u);
    EXPECT_EQ(t.get(gflops.name()).as<double>(), 50.0);
    EXPECT_EQ(t.get(device_gbps.name()).as<double>(), 100.0);
    EXPECT_EQ(t.get(bus_gbps.name()).as<double>(), 8.0);
    EXPECT_EQ(t.get(bus_latency_us.name()).as<uint32_t>(), 10u);
    EXPECT_EQ(t.get(fail_nth.name()).as<uint64_t>(), 0u);
    EXPECT_EQ(t.get(fail_rate.name()).as<double>(), 0.0);
    EXPECT_EQ(t.get(hang_nth.name()).as<uint64_t>(), 0u);
    EXPECT_EQ(t.get(jitter_us.name()).as<uint32_t>(), 0u);
    EXPECT_FALSE(t.get(enable_profiling.name()).as<bool>());
    EXPECT_EQ(config_of(t).host_streams(), 1);
}

TEST(MockRemoteConfig, AcceptsTypedAndTextValues) {
    auto t = table();
    t.set({{latency_us.name(), Any(uint32_t{1500})},
           {gflops.name(), Any(std::string("12.5"))},
           {fail_rate.name(), Any(0.25)},
           {hint::performance_mode.name(), Any(std::string("THROUGHPUT"))}});
    Config config = config_of(t);
    EXPECT_EQ(config.timing.latency_us, 1500u);
    EXPECT_EQ(config.timing.gflops, 12.5);
    EXPECT_EQ(config.faults.fail_rate, 0.25);
    EXPECT_EQ(config.host_streams(), 2);
    t.set({{num_streams.name(), Any(3)}});
    EXPECT_EQ(config_of(t).host_streams(), 3);
}

TEST(MockRemoteConfig, TextFormRoundTrips) {
    auto t = table();
    t.set({{gflops.name(), Any(1.0 / 3.0)}, {hang_nth.name(), Any(uint64_t{9})}});
    auto copy = table();
    AnyMap text;
    for (const auto& [key, value] : config_of(t).to_text()) text[key] = Any(value);
    copy.set(text);
    EXPECT_EQ(config_of(copy).timing.gflops, 1.0 / 3.0);
    EXPECT_EQ(config_of(copy).faults.hang_nth, 9u);
}

std::string message_of(sdk::PropertyTable& t, const std::string& key, const Any& value) {
    try {
        t.set({{key, value}});
    } catch (const InvalidArgument& e) {
        return e.what();
    }
    return "(no InvalidArgument)";
}

TEST(MockRemoteConfig, BadValuesNameTheKeyAndTheValue) {
    auto t = table();
    std::string text = message_of(t, gflops.name(), Any(0.0));
    EXPECT_NE(text.find("MOCK_REMOTE_GFLOPS"), std::string::npos) << text;
    EXPECT_NE(text.find("expected a rate from 0.001 to 1e+09"), std::string::npos) << text;
    // Issue 23 item 7: values that overflowed the timing model or modelled 71 minutes.
    text = message_of(t, gflops.name(), Any(1e-300));
    EXPECT_NE(text.find("MOCK_REMOTE_GFLOPS"), std::string::npos) << text;
    text = message_of(t, latency_us.name(), Any(uint32_t{4'000'000'000u}));
    EXPECT_NE(text.find("'4000000000' (expected 0 to 10000000 us)"), std::string::npos) << text;
    text = message_of(t, jitter_us.name(), Any(uint32_t{10'000'001u}));
    EXPECT_NE(text.find("MOCK_REMOTE_JITTER_US"), std::string::npos) << text;
    text = message_of(t, compile_ms.name(), Any(uint32_t{60'001u}));
    EXPECT_NE(text.find("expected 0 to 60000 ms"), std::string::npos) << text;
    t.set({{latency_us.name(), Any(uint32_t{10'000'000u})}});  // the limit itself is fine
    EXPECT_EQ(config_of(t).timing.latency_us, 10'000'000u);
    t.set({{latency_us.name(), Any(Config{}.timing.latency_us)}});
    text = message_of(t, fail_rate.name(), Any(1.5));
    EXPECT_NE(text.find("MOCK_REMOTE_FAIL_RATE"), std::string::npos) << text;
    EXPECT_NE(text.find("1.5"), std::string::npos) << text;
    text = message_of(t, latency_us.name(), Any(std::string("soon")));
    EXPECT_NE(text.find("MOCK_REMOTE_LATENCY_US"), std::string::npos) << text;
    EXPECT_NE(text.find("soon"), std::string::npos) << text;
    text = message_of(t, num_streams.name(), Any(-1));
    EXPECT_NE(text.find("NUM_STREAMS"), std::string::npos) << text;
    EXPECT_THROW(t.set({{"MOCK_REMOTE_NO_SUCH_KEY", Any(1)}}), NotFound);
    // A multi-key set with one bad value changes nothing.
    EXPECT_THROW(t.set({{gflops.name(), Any(5.0)}, {fail_rate.name(), Any(2.0)}}), InvalidArgument);
    EXPECT_EQ(config_of(t).timing.gflops, Config{}.timing.gflops);
}

}  // namespace
}  // namespace vireo::mock_remote
