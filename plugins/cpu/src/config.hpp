// Declares the CPU plugin's property table and Config: the settings one compile runs with, and
// the streams and OpenMP threads per stream they resolve to.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "vireo/any.hpp"
#include "vireo/properties.hpp"
#include "vireo/sdk/execution_config.hpp"
#include "vireo/sdk/property_table.hpp"

namespace vireo::cpu_plugin {

/// The device name, as the core registers it by default.
inline constexpr const char* kDeviceName = "CPU";

/// CPU_SHAPE_CACHE_SIZE: how many input-shape sets a compiled model of a dynamic model keeps
/// compiled for oneDNN at once (least recently used first out; 0: every shape runs on the
/// reference kernels). Default 16.
inline constexpr Property<uint32_t> shape_cache_size{"CPU_SHAPE_CACHE_SIZE"};
/// CPU_DYNAMIC_QUANTIZATION: MatMuls with constant f32 weights (and a reduction of at least 32)
/// run as u8 x s8 products on a CPU with VNNI or AMX — weights quantized once per output channel,
/// the activation per tensor at every inference, as ONNX Runtime's quantize_dynamic models do.
/// Faster and approximate (outputs within a few quanta of f32); false (default) keeps f32.
inline constexpr Property<bool> dynamic_quantization{"CPU_DYNAMIC_QUANTIZATION"};
/// CPU_WINOGRAD: f32 3x3 convolutions of stride 1 (16-multiple channels) may run oneDNN's
/// Winograd kernels, which multiply 2.25-4x less and round differently from the direct kernel
/// (relative differences around 1e-6). True (default); false keeps every convolution direct.
inline constexpr Property<bool> winograd{"CPU_WINOGRAD"};
/// CPU_REFERENCE_OPS (compiled model, read-only): the op types that run on reference kernels,
/// each once, sorted ("" entries never); empty when every op runs on oneDNN or as a view.
inline constexpr Property<std::vector<std::string>, PropertyMutability::RO> reference_ops{
    "CPU_REFERENCE_OPS"};

/// CPU_SERIAL_RUNS (compiled model, read-only): how many runs of its requests used one thread
/// instead of their team because other work took the cores (plugins/cpu/README.md, "Threading
/// model"); 0 on a quiet machine.
inline constexpr Property<uint64_t, PropertyMutability::RO> serial_runs{"CPU_SERIAL_RUNS"};

/// CPU_KV_CACHE_BYTES (compiled model, read-only): bytes of memory its live requests hold for
/// variables appended in place (a stateful decoder's KV caches, spare rows included;
/// GraphExecutor::append); 0 when none. Values a variable keeps in a buffer of its own (after
/// set_state, or a model whose variables do not grow by a Concat) are not counted.
inline constexpr Property<uint64_t, PropertyMutability::RO> kv_cache_bytes{"CPU_KV_CACHE_BYTES"};

/// The plugin's properties, declared once: the SDK's common keys (PERFORMANCE_HINT,
/// PERFORMANCE_HINT_NUM_REQUESTS, NUM_STREAMS, INFERENCE_NUM_THREADS, PERF_COUNT), the RO device
/// keys, and INFERENCE_PRECISION_HINT (f32 or bf16). The table gives the errors, DEVICE_ID ("" or
/// "0": one instance), SUPPORTED_PROPERTIES and AVAILABLE_DEVICES.
std::unique_ptr<sdk::PropertyTable> make_property_table();

/// The settings of one compile (the table's values resolved for a call): the SDK's common
/// execution settings and the precision. A value type.
struct Config : sdk::ExecutionConfig {
    /// hint::inference_precision: f32, or bf16 (convolutions and MatMuls with constant weights
    /// compute in bf16 where the CPU has AVX-512 BF16; see resolved_precision()).
    element::Type inference_precision = element::f32;
    uint32_t shape_cache_size = 16;     ///< see the key above
    bool dynamic_quantization = false;  ///< CPU_DYNAMIC_QUANTIZATION
    bool winograd = true;               ///< CPU_WINOGRAD

    static Config from(const sdk::PropertyValues& values);

    /// The OpenMP team each stream's inference really uses: resolved_threads_per_stream(), but
    /// never more than the cores divided among the streams, so streams x threads <= cores
    /// (oneDNN's OpenMP teams run several times slower when they oversubscribe the cores).
    int omp_threads_per_stream() const;
    /// The precision compiled models use: inference_precision when this CPU runs it natively
    /// (bf16 needs AVX-512 BF16), else f32.
    element::Type resolved_precision() const;
};

}  // namespace vireo::cpu_plugin
