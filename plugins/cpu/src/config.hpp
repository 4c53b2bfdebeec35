// Declares the CPU plugin's property table and Config: the settings one compile runs with, and
// the streams and OpenMP threads per stream they resolve to.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "vireo/any.hpp"
#include "vireo/properties.hpp"
#include "vireo/sdk/property_table.hpp"

namespace vireo::cpu_plugin {

/// The device name, as the core registers it by default.
inline constexpr const char* kDeviceName = "CPU";

/// The plugin's properties, declared once: the SDK's common keys (PERFORMANCE_HINT,
/// PERFORMANCE_HINT_NUM_REQUESTS, NUM_STREAMS, INFERENCE_NUM_THREADS, PERF_COUNT), the RO device
/// keys, and INFERENCE_PRECISION_HINT (f32 or bf16). The table gives the errors, DEVICE_ID ("" or
/// "0": one instance), SUPPORTED_PROPERTIES and AVAILABLE_DEVICES.
std::unique_ptr<sdk::PropertyTable> make_property_table();

/// The settings of one compile (the table's values resolved for a call). A value type.
struct Config {
    hint::PerformanceMode performance_mode = hint::PerformanceMode::LATENCY;
    int32_t num_streams = 0;            ///< 0: from the performance hint
    int32_t inference_num_threads = 0;  ///< threads per stream; 0: the cores divided among streams
    uint32_t num_requests = 0;          ///< hint::num_requests; 0: no limit
    bool enable_profiling = false;
    std::string device_id;  ///< the instance: "" (the plugin has one)
    /// hint::inference_precision: f32, or bf16 (convolutions and MatMuls with constant weights
    /// compute in bf16 where the CPU has AVX-512 BF16; see resolved_precision()).
    element::Type inference_precision = element::f32;
    AnyMap values;  ///< every read-write value, by key (what an exported blob stores)

    static Config from(const sdk::PropertyValues& values);

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
};

/// Cores this process may run on (>= 1).
int available_cores();

}  // namespace vireo::cpu_plugin
