// Declares Config: the CPU plugin's settings, read and validated from property maps, and the
// streams and OpenMP threads per stream they resolve to.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vireo/any.hpp"
#include "vireo/properties.hpp"

namespace vireo::cpu_plugin {

/// The device name, as the core registers it by default.
inline constexpr const char* kDeviceName = "CPU";

/// Plugin-wide and per-compile settings. A value type: copy it, change the copy with apply().
struct Config {
    hint::PerformanceMode performance_mode = hint::PerformanceMode::LATENCY;
    int32_t num_streams = 0;            ///< 0: from the performance hint
    int32_t inference_num_threads = 0;  ///< threads per stream; 0: the cores divided among streams
    uint32_t num_requests = 0;          ///< hint::num_requests; 0: no limit
    bool enable_profiling = false;
    std::string device_id;  ///< "" or "0": the plugin has one instance
    /// hint::inference_precision: f32, or bf16 (convolutions and MatMuls with constant weights
    /// compute in bf16 where the CPU has AVX-512 BF16; see resolved_precision()).
    element::Type inference_precision = element::f32;

    /// Applies `properties` in map order. Throws NotFound naming an unknown key (listing the
    /// supported ones), InvalidArgument naming key and value for a bad value. Keys the core owns
    /// (CACHE_DIR, LOADED_FROM_CACHE) are skipped when `skip_core_keys` is true.
    void apply(const AnyMap& properties, bool skip_core_keys);
    /// The value of a read-write key; throws NotFound for any other key.
    Any get(const std::string& name) const;
    /// The read-write keys as text, for an exported blob.
    AnyMap to_map() const;

    /// Streams: num_streams, else 1 for LATENCY and one per core for THROUGHPUT (capped by
    /// num_requests when set).
    int resolved_streams() const;
    /// Threads per stream as reported: inference_num_threads, else the cores divided among the
    /// streams.
    int resolved_threads_per_stream() const;
    /// The OpenMP team each stream's inference really uses: resolved_threads_per_stream(), but
    /// never more than the cores divided among the streams, so streams x threads <= cores
    /// (oneDNN's OpenMP teams run several times slower when they oversubscribe the cores).
    int omp_threads_per_stream() const;
    /// The precision compiled models use: inference_precision when this CPU runs it natively
    /// (bf16 needs AVX-512 BF16), else f32.
    element::Type resolved_precision() const;

    static std::vector<PropertyName> rw_properties();
};

/// Cores this process may run on (>= 1).
int available_cores();

/// "A, B, C": property names for messages.
std::string list_keys(const std::vector<PropertyName>& keys);

}  // namespace vireo::cpu_plugin
