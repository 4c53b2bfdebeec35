// Declares Config: every setting of a MOCK_REMOTE device instance or compiled model — declared
// once as property specs — and the text form used by export.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "vireo/any.hpp"
#include "vireo/properties.hpp"
#include "vireo/sdk/property_table.hpp"

namespace vireo::mock_remote {

/// Sane ranges of the timing settings (a setting outside is an InvalidArgument): latencies and
/// jitter up to 10 s, a modelled compile up to 60 s, rates (GFLOPS, GB/s) from 1e-3 to 1e9.
inline constexpr uint32_t kMaxLatencyUs = 10'000'000;
inline constexpr uint32_t kMaxCompileMs = 60'000;
inline constexpr double kMinRate = 1e-3;
inline constexpr double kMaxRate = 1e9;
/// The longest modelled time of one transfer, op or job: longer costs saturate to it (a plain
/// double -> int64 cast of 1e300 seconds is undefined behaviour).
inline constexpr std::chrono::hours kMaxModelledTime{1};

/// `seconds` as nanoseconds, saturated to [0, kMaxModelledTime] (NaN gives 0).
std::chrono::nanoseconds saturated_duration(double seconds);

/// How long the simulated device takes. See README.md for the formulas.
struct TimingModel {
    uint32_t latency_us = 2000;
    double gflops = 50.0;
    double device_gbps = 100.0;
    double bus_gbps = 8.0;
    uint32_t bus_latency_us = 10;
    uint32_t compile_ms = 200;
};

/// Injected faults.
struct FaultModel {
    uint64_t fail_nth = 0;
    double fail_rate = 0.0;
    uint64_t hang_nth = 0;
    uint32_t jitter_us = 0;
    uint64_t seed = 1;
};

/// The settings a compiled model runs with, read from the property table's values (device,
/// instance, then call). A plain value type; callers synchronise.
struct Config {
    TimingModel timing;
    FaultModel faults;
    hint::PerformanceMode performance_mode = hint::PerformanceMode::LATENCY;
    int32_t num_streams = 0;  // host-stage streams; 0 = from the performance hint
    uint32_t num_requests = 0;
    bool enable_profiling = false;

    /// The settings' declarations (the SDK's common keys and MOCK_REMOTE's own, with their
    /// defaults and ranges), per instance.
    static std::vector<sdk::PropertySpec> specs();
    /// Reads every setting from `values` (all declared keys present).
    static Config from(const AnyMap& values);
    /// Every setting, by key (doubles at full precision as text, so an import runs with exactly
    /// the exported model).
    std::vector<std::pair<std::string, std::string>> to_text() const;

    /// Host-stage streams for the task executor.
    int32_t host_streams() const;
};

}  // namespace vireo::mock_remote
