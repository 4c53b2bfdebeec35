// Implements Config: parsing and validating the TEMPLATE plugin's properties.
#include "config.hpp"

#include <sched.h>

#include <algorithm>
#include <thread>

#include "vireo/sdk/cpu_streams_executor.hpp"

namespace vireo::template_plugin {
namespace {

std::string list_keys(const std::vector<PropertyName>& keys) {
    std::string out;
    for (const auto& k : keys)
        out += (out.empty() ? "" : ", ") + static_cast<const std::string&>(k);
    return out;
}

// Reads `value` as T; a failed conversion becomes InvalidArgument naming the key and the value.
template <typename T>
T read_value(const std::string& key, const Any& value, const char* expected) {
    try {
        return value.as<T>();
    } catch (const Exception&) {
        throw_error<InvalidArgument>(kDeviceName, ": property ", key, " has a bad value '",
                                     value.to_string(), "' (expected ", expected, ")");
    }
}

}  // namespace

int available_cores() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        const int n = CPU_COUNT(&set);
        if (n > 0) return n;
    }
    return std::max(1u, std::thread::hardware_concurrency());
}

std::vector<PropertyName> Config::rw_properties() {
    return {hint::performance_mode, vireo::num_streams,      vireo::inference_num_threads,
            hint::num_requests,     vireo::enable_profiling, device::id};
}

void Config::apply(const AnyMap& properties, bool skip_core_keys) {
    for (const auto& [key, value] : properties) {
        if (key == hint::performance_mode.name()) {
            performance_mode = read_value<hint::PerformanceMode>(
                key, value, "LATENCY, THROUGHPUT or CUMULATIVE_THROUGHPUT");
        } else if (key == vireo::num_streams.name()) {
            const auto n = read_value<int32_t>(key, value, "an integer 0..256");
            if (n < 0 || n > sdk::kMaxStreams)
                throw_error<InvalidArgument>(kDeviceName, ": property ", key, " has a bad value '",
                                             value.to_string(), "' (expected 0 (from the hint) to ",
                                             sdk::kMaxStreams, ")");
            num_streams = n;
        } else if (key == vireo::inference_num_threads.name()) {
            const auto n = read_value<int32_t>(key, value, "an integer 0..1024");
            if (n < 0 || n > sdk::kMaxThreads)
                throw_error<InvalidArgument>(kDeviceName, ": property ", key, " has a bad value '",
                                             value.to_string(), "' (expected 0 (all cores) to ",
                                             sdk::kMaxThreads, ")");
            inference_num_threads = n;
        } else if (key == hint::num_requests.name()) {
            num_requests = read_value<uint32_t>(key, value, "an integer >= 0");
        } else if (key == vireo::enable_profiling.name()) {
            enable_profiling = read_value<bool>(key, value, "YES/NO, true/false or 1/0");
        } else if (key == device::id.name()) {
            const auto id = read_value<std::string>(key, value, "a string");
            if (!id.empty() && id != "0")
                throw_error<InvalidArgument>(
                    kDeviceName, ": property ", key, " has a bad value '", id,
                    "' (the device has one instance: expected \"\" or \"0\")");
            device_id = id;
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

}  // namespace vireo::template_plugin
