// Implements the CPU plugin's property table and Config.
#include "config.hpp"

#include <omp.h>

#include <algorithm>

#include "dnnl_ops.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"

namespace vireo::cpu_plugin {

std::unique_ptr<sdk::PropertyTable> make_property_table() {
    namespace cap = device::capability;
    return std::make_unique<sdk::PropertyTable>(
        kDeviceName,
        std::vector<sdk::PropertySpec>{
            sdk::common::full_name([](const std::string&) { return "Vireo CPU (oneDNN)"; }),
            sdk::common::device_type(device::Type::HOST),
            sdk::common::capabilities({cap::kFP32, cap::kExportImport, cap::kDynamicShapes,
                                       cap::kStates, cap::kProfiling}),
            sdk::common::performance_hint(), sdk::common::num_streams(),
            sdk::common::inference_num_threads(), sdk::common::hint_num_requests(),
            sdk::common::profiling(),
            sdk::rw<element::Type>(hint::inference_precision, element::f32, "f32 or bf16",
                                   [](const element::Type& type) {
                                       return type == element::f32 || type == element::bf16;
                                   }),
            sdk::in_range<uint32_t>(cpu_plugin::shape_cache_size, 16, 0, 4096),
            sdk::rw<bool>(cpu_plugin::dynamic_quantization, false, "YES or NO"),
            sdk::rw<bool>(cpu_plugin::winograd, true, "YES or NO")});
}

Config Config::from(const sdk::PropertyValues& v) {
    Config c;
    static_cast<sdk::ExecutionConfig&>(c) = sdk::ExecutionConfig::from(v);
    c.inference_precision = v.get(hint::inference_precision);
    c.shape_cache_size = v.get(cpu_plugin::shape_cache_size);
    c.dynamic_quantization = v.get(cpu_plugin::dynamic_quantization);
    c.winograd = v.get(cpu_plugin::winograd);
    return c;
}

int Config::omp_threads_per_stream() const {
    const int share = std::max(1, sdk::available_cores() / resolved_streams());
    // A oneDNN primitive made for a team of N asks each parallel region for N threads and gives
    // each thread 1/N of the work: if OpenMP gives fewer (OMP_THREAD_LIMIT,
    // OMP_MAX_ACTIVE_LEVELS=0) part of the work is never done. The team never exceeds what OpenMP
    // will give.
    const int limit = omp_get_max_active_levels() < 1 ? 1 : omp_get_thread_limit();
    return std::min({resolved_threads_per_stream(), share, limit});
}

element::Type Config::resolved_precision() const {
    return inference_precision == element::bf16 && bf16_supported() ? element::bf16 : element::f32;
}

}  // namespace vireo::cpu_plugin
