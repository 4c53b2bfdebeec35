// Implements Config: the settable keys of the MOCK_REMOTE plugin, their parsing and validation.
#include "config.hpp"

#include <algorithm>
#include <cmath>

#include "vireo/mock_remote/properties.hpp"

namespace vireo::mock_remote {
namespace {

template <typename T>
T read_value(const std::string& key, const Any& value) {
    try {
        return value.as<T>();
    } catch (const Exception& e) {
        throw_error<InvalidArgument>("property ", key, ": ", e.what());
    }
}

double read_rate(const std::string& key, const Any& value) {
    const double v = read_value<double>(key, value);
    if (!(v >= kMinRate && v <= kMaxRate))
        throw_error<InvalidArgument>("property ", key, ": expected a rate from ", kMinRate, " to ",
                                     kMaxRate, ", found '", value.to_string(), "'");
    return v;
}

uint32_t read_at_most(const std::string& key, const Any& value, uint32_t limit, const char* unit) {
    const uint32_t v = read_value<uint32_t>(key, value);
    if (v > limit)
        throw_error<InvalidArgument>("property ", key, ": expected 0 to ", limit, " ", unit,
                                     ", found ", v);
    return v;
}

}  // namespace

std::chrono::nanoseconds saturated_duration(double seconds) {
    constexpr double kMaxSeconds = std::chrono::duration<double>(kMaxModelledTime).count();
    if (!(seconds > 0.0)) return std::chrono::nanoseconds(0);
    if (seconds >= kMaxSeconds) return kMaxModelledTime;
    return std::chrono::nanoseconds(static_cast<int64_t>(seconds * 1e9));
}

const std::vector<std::string>& Config::setting_keys() {
    static const std::vector<std::string> keys{latency_us.name(),
                                               gflops.name(),
                                               device_gbps.name(),
                                               bus_gbps.name(),
                                               bus_latency_us.name(),
                                               compile_ms.name(),
                                               fail_nth.name(),
                                               fail_rate.name(),
                                               hang_nth.name(),
                                               jitter_us.name(),
                                               seed.name(),
                                               hint::performance_mode.name(),
                                               vireo::num_streams.name(),
                                               hint::num_requests.name(),
                                               vireo::enable_profiling.name()};
    return keys;
}

bool Config::is_setting(const std::string& key) {
    const auto& keys = setting_keys();
    return std::find(keys.begin(), keys.end(), key) != keys.end();
}

void Config::set(const std::string& key, const Any& value) {
    if (key == latency_us) {
        timing.latency_us = read_at_most(key, value, kMaxLatencyUs, "us");
    } else if (key == gflops) {
        timing.gflops = read_rate(key, value);
    } else if (key == device_gbps) {
        timing.device_gbps = read_rate(key, value);
    } else if (key == bus_gbps) {
        timing.bus_gbps = read_rate(key, value);
    } else if (key == bus_latency_us) {
        timing.bus_latency_us = read_at_most(key, value, kMaxLatencyUs, "us");
    } else if (key == compile_ms) {
        timing.compile_ms = read_at_most(key, value, kMaxCompileMs, "ms");
    } else if (key == fail_nth) {
        faults.fail_nth = read_value<uint64_t>(key, value);
    } else if (key == fail_rate) {
        const double rate = read_value<double>(key, value);
        if (!(rate >= 0.0 && rate <= 1.0))
            throw_error<InvalidArgument>("property ", key,
                                         ": expected a fraction in [0, 1], found '",
                                         value.to_string(), "'");
        faults.fail_rate = rate;
    } else if (key == hang_nth) {
        faults.hang_nth = read_value<uint64_t>(key, value);
    } else if (key == jitter_us) {
        faults.jitter_us = read_at_most(key, value, kMaxLatencyUs, "us");
    } else if (key == seed) {
        faults.seed = read_value<uint64_t>(key, value);
    } else if (key == hint::performance_mode) {
        performance_mode = read_value<hint::PerformanceMode>(key, value);
    } else if (key == vireo::num_streams) {
        const int32_t streams = read_value<int32_t>(key, value);
        if (streams < 0 || streams > 64)
            throw_error<InvalidArgument>("property ", key,
                                         ": expected 0 (from the hint) to 64, found ", streams);
        num_streams = streams;
    } else if (key == hint::num_requests) {
        num_requests = read_value<uint32_t>(key, value);
    } else if (key == vireo::enable_profiling) {
        enable_profiling = read_value<bool>(key, value);
    } else {
        throw_error<NotFound>("property ", key, " is not a MOCK_REMOTE setting");
    }
}

void Config::set_known(const AnyMap& properties) {
    for (const auto& [key, value] : properties)
        if (is_setting(key)) set(key, value);
}

Any Config::get(const std::string& key) const {
    if (key == latency_us) return timing.latency_us;
    if (key == gflops) return timing.gflops;
    if (key == device_gbps) return timing.device_gbps;
    if (key == bus_gbps) return timing.bus_gbps;
    if (key == bus_latency_us) return timing.bus_latency_us;
    if (key == compile_ms) return timing.compile_ms;
    if (key == fail_nth) return faults.fail_nth;
    if (key == fail_rate) return faults.fail_rate;
    if (key == hang_nth) return faults.hang_nth;
    if (key == jitter_us) return faults.jitter_us;
    if (key == seed) return faults.seed;
    if (key == hint::performance_mode) return performance_mode;
    if (key == vireo::num_streams) return num_streams;
    if (key == hint::num_requests) return num_requests;
    if (key == vireo::enable_profiling) return enable_profiling;
    throw_error<NotFound>("property ", key, " is not a MOCK_REMOTE setting");
}

std::vector<std::pair<std::string, std::string>> Config::to_text() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& key : setting_keys()) {
        const Any value = get(key);
        if (value.is<double>()) {
            // Full precision, so an import runs with exactly the exported model.
            std::ostringstream text;
            text.precision(17);
            text << value.as<double>();
            out.emplace_back(key, text.str());
        } else {
            out.emplace_back(key, value.to_string());
        }
    }
    return out;
}

int32_t Config::host_streams() const {
    if (num_streams > 0) return num_streams;
    return performance_mode == hint::PerformanceMode::LATENCY ? 1 : 2;
}

}  // namespace vireo::mock_remote
