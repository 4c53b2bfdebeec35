// Declares Config: the TEMPLATE plugin's property table and the typed settings one compile
// resolves to (the stream/thread counts they give).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "vireo/properties.hpp"
#include "vireo/sdk/property_table.hpp"

namespace vireo::template_plugin {

/// The device name, as the core registers it by default.
inline constexpr const char* kDeviceName = "TEMPLATE";
/// RO compiled-model property: how many times requests of the compiled model allocated (or
/// grew) their working memory. Static models allocate once per request at creation.
inline constexpr Property<uint64_t, PropertyMutability::RO> arena_allocations{
    "TEMPLATE_ARENA_ALLOCATIONS"};
/// RO compiled-model property: bytes of the per-request arena of a static model (0 if dynamic).
inline constexpr Property<uint64_t, PropertyMutability::RO> arena_bytes{"TEMPLATE_ARENA_BYTES"};

/// The plugin's table: the SDK's common keys (hint, streams, threads, requests, profiling) and
/// the read-only device keys; one instance.
std::unique_ptr<sdk::PropertyTable> make_property_table();

/// The settings a compiled model runs with, read from resolved table values. A value type.
struct Config {
    hint::PerformanceMode performance_mode = hint::PerformanceMode::LATENCY;
    int32_t num_streams = 0;            ///< 0: from the performance hint
    int32_t inference_num_threads = 0;  ///< threads per stream; 0: the cores divided among streams
    uint32_t num_requests = 0;          ///< hint::num_requests; 0: no limit
    bool enable_profiling = false;
    AnyMap values;  ///< every read-write value, for an exported blob

    static Config from(const sdk::PropertyValues& values);

    /// Streams the compiled model runs: num_streams, else 1 for LATENCY or one per core for
    /// THROUGHPUT (capped by num_requests when set).
    int resolved_streams() const;
    /// Threads per stream: inference_num_threads, else the cores divided among the streams (>= 1).
    int resolved_threads_per_stream() const;
};

/// Cores available to the process (>= 1).
int available_cores();

}  // namespace vireo::template_plugin
