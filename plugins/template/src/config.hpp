// Declares Config: the TEMPLATE plugin's settings, read and validated from property maps, and
// the stream/thread counts they resolve to.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vireo/any.hpp"
#include "vireo/properties.hpp"

namespace vireo::template_plugin {

/// The device name, as the core registers it by default.
inline constexpr const char* kDeviceName = "TEMPLATE";
/// RO compiled-model property: how many times requests of the compiled model allocated (or
/// grew) their working memory. Static models allocate once per request at creation.
inline constexpr Property<uint64_t, PropertyMutability::RO> arena_allocations{
    "TEMPLATE_ARENA_ALLOCATIONS"};
/// RO compiled-model property: bytes of the per-request arena of a static model (0 if dynamic).
inline constexpr Property<uint64_t, PropertyMutability::RO> arena_bytes{"TEMPLATE_ARENA_BYTES"};

/// Plugin-wide and per-compile settings. A value type: copy it, change the copy with apply().
struct Config {
    hint::PerformanceMode performance_mode = hint::PerformanceMode::LATENCY;
    int32_t num_streams = 0;            ///< 0: from the performance hint
    int32_t inference_num_threads = 0;  ///< threads per stream; 0: the cores divided among streams
    uint32_t num_requests = 0;          ///< hint::num_requests; 0: no limit
    bool enable_profiling = false;
    std::string device_id;  ///< "" or "0": the plugin has one instance

    /// Applies `properties` in map order. Throws NotFound naming an unknown key and listing the
    /// supported ones, InvalidArgument naming key and value for a bad value. Keys the core owns
    /// (CACHE_DIR, LOADED_FROM_CACHE) are skipped when `skip_core_keys` is true.
    void apply(const AnyMap& properties, bool skip_core_keys);
    /// The value of a read-write key; throws NotFound for any other key.
    Any get(const std::string& name) const;
    /// The read-write keys as text, for an exported blob.
    AnyMap to_map() const;

    /// Streams the compiled model runs: num_streams, else 1 for LATENCY or one per core for
    /// THROUGHPUT (capped by num_requests when set).
    int resolved_streams() const;
    /// Threads per stream: inference_num_threads, else the cores divided among the streams (>= 1).
    int resolved_threads_per_stream() const;

    /// Every read-write key this config understands.
    static std::vector<PropertyName> rw_properties();
};

/// Cores available to the process (>= 1).
int available_cores();

}  // namespace vireo::template_plugin
