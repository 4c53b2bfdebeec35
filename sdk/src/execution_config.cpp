// Implements ExecutionConfig (the common keys of one compile, resolved to streams and threads)
// and a compiled model's standard read-only keys.
#include "vireo/sdk/execution_config.hpp"

#include <sched.h>

#include <algorithm>
#include <thread>

#include "vireo/sdk/cpu_streams_executor.hpp"

namespace vireo::sdk {

int available_cores() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    return std::max(1u, std::thread::hardware_concurrency());
}

ExecutionConfig ExecutionConfig::from(const PropertyValues& v) {
    ExecutionConfig c;
    c.performance_mode = v.get(hint::performance_mode);
    c.num_streams = v.get(vireo::num_streams);
    c.inference_num_threads = v.get(vireo::inference_num_threads);
    c.num_requests = v.get(hint::num_requests);
    c.enable_profiling = v.get(vireo::enable_profiling);
    c.instance = v.instance();
    c.values = v.map();
    return c;
}

int ExecutionConfig::resolved_streams() const {
    if (num_streams > 0) return num_streams;
    int streams = performance_mode == hint::PerformanceMode::LATENCY
                      ? 1
                      : std::min(available_cores(), kMaxStreams);
    if (num_requests > 0) streams = std::min<int>(streams, static_cast<int>(num_requests));
    return std::max(1, streams);
}

int ExecutionConfig::resolved_threads_per_stream() const {
    if (inference_num_threads > 0) return inference_num_threads;
    return std::max(1, available_cores() / resolved_streams());
}

namespace common {

std::vector<PropertySpec> compiled_model_keys(const ExecutionConfig& c,
                                              const std::string& network_name,
                                              const std::string& device, bool loaded_from_cache) {
    const auto streams = static_cast<uint32_t>(c.resolved_streams());
    const auto scope = PropertyScope::kCompiledModel;
    return {optimal_number_of_infer_requests([streams] { return streams; }),
            fixed(vireo::model_name.name(), network_name, scope),
            fixed(vireo::execution_devices.name(), std::vector<std::string>{device}, scope),
            fixed(vireo::loaded_from_cache.name(), loaded_from_cache, scope),
            fixed(vireo::num_streams.name(), static_cast<int32_t>(streams), scope),
            fixed(hint::performance_mode.name(), c.performance_mode, scope),
            fixed(vireo::inference_num_threads.name(),
                  static_cast<int32_t>(c.resolved_threads_per_stream()), scope),
            fixed(hint::num_requests.name(), c.num_requests, scope),
            fixed(device::id.name(), c.instance.empty() ? std::string("0") : c.instance, scope)};
}

}  // namespace common
}  // namespace vireo::sdk
