// Implements the CPU plugin's property table and Config.
#include "config.hpp"

#include <sched.h>

#include <algorithm>
#include <thread>

#include "dnnl_ops.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"

namespace vireo::cpu_plugin {

int available_cores() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    return std::max(1u, std::thread::hardware_concurrency());
}

std::unique_ptr<sdk::PropertyTable> make_property_table() {
    namespace cap = device::capability;
    return std::make_unique<sdk::PropertyTable>(
        kDeviceName,
        std::vector<sdk::PropertySpec>{
            sdk::common::full_name([](const std::string&) { return "Vireo CPU (oneDNN)"; }),
            sdk::common::capabilities({cap::kFP32, cap::kExportImport, cap::kDynamicShapes,
                                       cap::kStates, cap::kProfiling}),
            sdk::common::performance_hint(), sdk::common::num_streams(),
            sdk::common::inference_num_threads(), sdk::common::hint_num_requests(),
            sdk::common::profiling(),
            sdk::rw<element::Type>(hint::inference_precision, element::f32, "f32 or bf16",
                                   [](const element::Type& type) {
                                       return type == element::f32 || type == element::bf16;
                                   })});
}

Config Config::from(const sdk::PropertyValues& v) {
    Config c;
    c.performance_mode = v.get(hint::performance_mode);
    c.num_streams = v.get(vireo::num_streams);
    c.inference_num_threads = v.get(vireo::inference_num_threads);
    c.num_requests = v.get(hint::num_requests);
    c.enable_profiling = v.get(vireo::enable_profiling);
    c.inference_precision = v.get(hint::inference_precision);
    c.device_id = v.instance();
    c.values = v.map();
    return c;
}

int Config::resolved_streams() const {
    if (num_streams > 0) return num_streams;
    int streams = performance_mode == hint::PerformanceMode::LATENCY
                      ? 1
                      : std::min(available_cores(), sdk::kMaxStreams);
    if (num_requests > 0) streams = std::min<int>(streams, static_cast<int>(num_requests));
    return std::max(1, streams);
}

int Config::resolved_threads_per_stream() const {
    if (inference_num_threads > 0) return inference_num_threads;
    return std::max(1, available_cores() / resolved_streams());
}

int Config::omp_threads_per_stream() const {
    const int share = std::max(1, available_cores() / resolved_streams());
    return std::min(resolved_threads_per_stream(), share);
}

element::Type Config::resolved_precision() const {
    return inference_precision == element::bf16 && bf16_supported() ? element::bf16 : element::f32;
}

}  // namespace vireo::cpu_plugin
