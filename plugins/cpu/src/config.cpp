// Implements Config: parsing and validating the CPU plugin's properties.
#include "config.hpp"

#include <sched.h>

#include <algorithm>
#include <thread>

#include "dnnl_ops.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"

namespace vireo::cpu_plugin {
namespace {

template <typename T>
T read_value(const std::string& key, const Any& value, const char* expected) {
    try {
        return value.as<T>();
    } catch (const Exception&) {
        throw_error<InvalidArgument>(kDeviceName, ": property ", key, " has a bad value '",
                                     value.to_string(), "' (expected ", expected, ")");
    }
}

int32_t read_count(const std::string& key, const Any& value, int32_t max, const char* zero) {
    const auto n = read_value<int32_t>(key, value, "an integer");
    if (n < 0 || n > max)
        throw_error<InvalidArgument>(kDeviceName, ": property ", key, " has a bad value '",
                                     value.to_string(), "' (expected 0 (", zero, ") to ", max, ")");
    return n;
}

}  // namespace

std::string list_keys(const std::vector<PropertyName>& keys) {
    std::string out;
    for (const auto& k : keys)
        out += (out.empty() ? "" : ", ") + static_cast<const std::string&>(k);
    return out;
}

int available_cores() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    return std::max(1u, std::thread::hardware_concurrency());
}

std::vector<PropertyName> Config::rw_properties() {
    return {hint::performance_mode,   vireo::num_streams,      vireo::inference_num_threads,
            hint::num_requests,       vireo::enable_profiling, device::id,
            hint::inference_precision};
}

void Config::apply(const AnyMap& properties, bool skip_core_keys) {
    for (const auto& [key, value] : properties) {
        if (key == hint::performance_mode.name()) {
            performance_mode = read_value<hint::PerformanceMode>(
                key, value, "LATENCY, THROUGHPUT or CUMULATIVE_THROUGHPUT");
        } else if (key == vireo::num_streams.name()) {
            num_streams = read_count(key, value, sdk::kMaxStreams, "from the hint");
        } else if (key == vireo::inference_num_threads.name()) {
            inference_num_threads = read_count(key, value, sdk::kMaxThreads, "all cores");
        } else if (key == hint::num_requests.name()) {
            num_requests = read_value<uint32_t>(key, value, "an integer >= 0");
        } else if (key == vireo::enable_profiling.name()) {
            enable_profiling = read_value<bool>(key, value, "YES/NO, true/false or 1/0");
        } else if (key == device::id.name()) {
            const auto id = read_value<std::string>(key, value, "a string");
            if (!id.empty() && id != "0")
                throw_error<InvalidArgument>(kDeviceName, ": property ", key, " has a bad value '",
                                             id, "' (one device: expected \"\" or \"0\")");
            device_id = id;
        } else if (key == hint::inference_precision.name()) {
            const auto type = read_value<element::Type>(key, value, "f32 or bf16");
            if (type != element::f32 && type != element::bf16)
                throw_error<InvalidArgument>(kDeviceName, ": property ", key, " has a bad value '",
                                             value.to_string(), "' (expected f32 or bf16)");
            inference_precision = type;
        } else if (skip_core_keys && (key == cache_dir.name() || key == loaded_from_cache.name())) {
            continue;
        } else {
            throw_error<NotFound>(kDeviceName, ": unsupported property ", key,
                                  " (supported: ", list_keys(rw_properties()), ")");
        }
    }
}

Any Config::get(const std::string& name) const {
    if (name == hint::performance_mode.name()) return performance_mode;
    if (name == vireo::num_streams.name()) return num_streams;
    if (name == vireo::inference_num_threads.name()) return inference_num_threads;
    if (name == hint::num_requests.name()) return num_requests;
    if (name == vireo::enable_profiling.name()) return enable_profiling;
    if (name == device::id.name()) return device_id;
    if (name == hint::inference_precision.name()) return inference_precision;
    throw_error<NotFound>(kDeviceName, ": unsupported property ", name,
                          " (supported: ", list_keys(rw_properties()), ")");
}

AnyMap Config::to_map() const {
    AnyMap out;
    for (const auto& key : rw_properties()) out[key] = get(key).to_string();
    return out;
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
