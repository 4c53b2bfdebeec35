// Implements the CPU plugin's property table and Config.
#include "config.hpp"

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
    return std::min(resolved_threads_per_stream(), share);
}

element::Type Config::resolved_precision() const {
    return inference_precision == element::bf16 && bf16_supported() ? element::bf16 : element::f32;
}

}  // namespace vireo::cpu_plugin
