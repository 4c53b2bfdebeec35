// Declares ExecutionConfig: what the SDK's common execution keys (PERFORMANCE_HINT, NUM_STREAMS,
// INFERENCE_NUM_THREADS, PERFORMANCE_HINT_NUM_REQUESTS, PERF_COUNT) ask of one compile, the
// stream and thread counts they resolve to, and a compiled model's standard read-only keys.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vireo/any.hpp"
#include "vireo/properties.hpp"
#include "vireo/sdk/property_table.hpp"

namespace vireo::sdk {

/// Cores this process may run on (its affinity mask; >= 1).
int available_cores();

/// The common execution settings of one compile. A value type; a plugin with more settings
/// derives from it.
struct ExecutionConfig {
    hint::PerformanceMode performance_mode = hint::PerformanceMode::LATENCY;
    int32_t num_streams = 0;            ///< 0: from the performance hint
    int32_t inference_num_threads = 0;  ///< threads per stream; 0: the cores divided among streams
    uint32_t num_requests = 0;          ///< hint::num_requests; 0: no limit
    bool enable_profiling = false;
    std::string instance;  ///< the device instance the compile is for ("" for one instance)
    AnyMap values;         ///< every read-write value resolved, by key (for an exported blob)

    /// Reads the common keys from resolved values: the table must declare
    /// common::performance_hint(), num_streams(), inference_num_threads(), hint_num_requests()
    /// and profiling() (NotFound naming a missing one).
    static ExecutionConfig from(const PropertyValues& values);

    /// Streams: num_streams, else 1 for LATENCY and one per core for THROUGHPUT and
    /// CUMULATIVE_THROUGHPUT, capped by num_requests when set (and by kMaxStreams).
    int resolved_streams() const;
    /// Threads per stream: inference_num_threads, else the cores divided among the streams (>= 1).
    int resolved_threads_per_stream() const;
};

namespace common {
/// A compiled model's standard read-only keys from the config it was compiled with:
/// OPTIMAL_NUMBER_OF_INFER_REQUESTS (= resolved streams), NUM_STREAMS and INFERENCE_NUM_THREADS
/// (resolved), PERFORMANCE_HINT, PERFORMANCE_HINT_NUM_REQUESTS, DEVICE_ID (the instance, "0" for
/// a single-instance device), NETWORK_NAME, EXECUTION_DEVICES ({`device`}: pass the name the
/// caller used, PropertyValues::device_name(get_device_name())) and LOADED_FROM_CACHE.
/// Add PERF_COUNT (common::profiling(value, PropertyScope::kCompiledModel)) and keys of your own;
/// change one of these with set_spec (a device whose optimal request count is not its streams).
std::vector<PropertySpec> compiled_model_keys(const ExecutionConfig& config,
                                              const std::string& network_name,
                                              const std::string& device, bool loaded_from_cache);
}  // namespace common

}  // namespace vireo::sdk
