// Implements Config: the declarations of MOCK_REMOTE's settings and their typed form.
#include "config.hpp"

#include <cmath>
#include <sstream>

#include "vireo/mock_remote/properties.hpp"

namespace vireo::mock_remote {
namespace {

sdk::PropertySpec rate(const Property<double>& key, double default_value) {
    std::ostringstream accepted;
    accepted << "a rate from " << kMinRate << " to " << kMaxRate;
    return sdk::rw<double>(key, default_value, accepted.str(),
                           [](const double& v) { return v >= kMinRate && v <= kMaxRate; });
}

sdk::PropertySpec at_most(const Property<uint32_t>& key, uint32_t default_value, uint32_t limit,
                          const char* unit) {
    return sdk::rw<uint32_t>(key, default_value, "0 to " + std::to_string(limit) + " " + unit,
                             [limit](const uint32_t& v) { return v <= limit; });
}

}  // namespace

std::chrono::nanoseconds saturated_duration(double seconds) {
    constexpr double kMaxSeconds = std::chrono::duration<double>(kMaxModelledTime).count();
    if (!(seconds > 0.0)) return std::chrono::nanoseconds(0);
    if (seconds >= kMaxSeconds) return kMaxModelledTime;
    return std::chrono::nanoseconds(static_cast<int64_t>(seconds * 1e9));
}

std::vector<sdk::PropertySpec> Config::specs() {
    const Config d;
    return {at_most(latency_us, d.timing.latency_us, kMaxLatencyUs, "us"),
            rate(gflops, d.timing.gflops),
            rate(device_gbps, d.timing.device_gbps),
            rate(bus_gbps, d.timing.bus_gbps),
            at_most(bus_latency_us, d.timing.bus_latency_us, kMaxLatencyUs, "us"),
            at_most(compile_ms, d.timing.compile_ms, kMaxCompileMs, "ms"),
            sdk::rw<uint64_t>(fail_nth, 0, "an integer >= 0 (0: never)"),
            sdk::rw<double>(fail_rate, 0.0, "a fraction in [0, 1]",
                            [](const double& v) { return v >= 0.0 && v <= 1.0; }),
            sdk::rw<uint64_t>(hang_nth, 0, "an integer >= 0 (0: never)"),
            at_most(jitter_us, d.faults.jitter_us, kMaxLatencyUs, "us"),
            sdk::rw<uint64_t>(seed, d.faults.seed, "an integer >= 0"),
            sdk::common::performance_hint(),
            sdk::common::num_streams(),
            sdk::common::hint_num_requests(),
            sdk::common::profiling()};
}

Config Config::from(const AnyMap& v) {
    Config c;
    c.timing.latency_us = v.at(latency_us.name()).as<uint32_t>();
    c.timing.gflops = v.at(gflops.name()).as<double>();
    c.timing.device_gbps = v.at(device_gbps.name()).as<double>();
    c.timing.bus_gbps = v.at(bus_gbps.name()).as<double>();
    c.timing.bus_latency_us = v.at(bus_latency_us.name()).as<uint32_t>();
    c.timing.compile_ms = v.at(compile_ms.name()).as<uint32_t>();
    c.faults.fail_nth = v.at(fail_nth.name()).as<uint64_t>();
    c.faults.fail_rate = v.at(fail_rate.name()).as<double>();
    c.faults.hang_nth = v.at(hang_nth.name()).as<uint64_t>();
    c.faults.jitter_us = v.at(jitter_us.name()).as<uint32_t>();
    c.faults.seed = v.at(seed.name()).as<uint64_t>();
    c.performance_mode = v.at(hint::performance_mode.name()).as<hint::PerformanceMode>();
    c.num_streams = v.at(vireo::num_streams.name()).as<int32_t>();
    c.num_requests = v.at(hint::num_requests.name()).as<uint32_t>();
    c.enable_profiling = v.at(vireo::enable_profiling.name()).as<bool>();
    return c;
}

std::vector<std::pair<std::string, std::string>> Config::to_text() const {
    auto exact = [](double v) {
        std::ostringstream text;
        text.precision(17);
        text << v;
        return text.str();
    };
    return {{latency_us.name(), std::to_string(timing.latency_us)},
            {gflops.name(), exact(timing.gflops)},
            {device_gbps.name(), exact(timing.device_gbps)},
            {bus_gbps.name(), exact(timing.bus_gbps)},
            {bus_latency_us.name(), std::to_string(timing.bus_latency_us)},
            {compile_ms.name(), std::to_string(timing.compile_ms)},
            {fail_nth.name(), std::to_string(faults.fail_nth)},
            {fail_rate.name(), exact(faults.fail_rate)},
            {hang_nth.name(), std::to_string(faults.hang_nth)},
            {jitter_us.name(), std::to_string(faults.jitter_us)},
            {seed.name(), std::to_string(faults.seed)},
            {hint::performance_mode.name(), Any(performance_mode).to_string()},
            {vireo::num_streams.name(), std::to_string(num_streams)},
            {hint::num_requests.name(), std::to_string(num_requests)},
            {vireo::enable_profiling.name(), Any(enable_profiling).to_string()}};
}

int32_t Config::host_streams() const {
    if (num_streams > 0) return num_streams;
    return performance_mode == hint::PerformanceMode::LATENCY ? 1 : 2;
}

}  // namespace vireo::mock_remote
