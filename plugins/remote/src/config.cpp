// Implements the REMOTE plugin's property declarations and Config.
#include "config.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>

#include "vireo/exception.hpp"
#include "vireo/kserve/client.hpp"

namespace vireo::remote {

namespace {

bool valid_url(const std::string& text) {
    if (text.empty()) return true;  // no server (yet)
    try {
        kserve::parse_url(text);
        return true;
    } catch (const std::invalid_argument&) {
        return false;
    }
}

bool readable_file(const std::string& path) {
    return path.empty() || static_cast<bool>(std::ifstream(path));
}

// KServe model names as servers accept them: letters, digits, '_', '-', '.'.
bool valid_model_name(const std::string& name) {
    return std::all_of(name.begin(), name.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '_' || c == '-' || c == '.';
    });
}

bool valid_version(const std::string& version) {
    return std::all_of(version.begin(), version.end(),
                       [](unsigned char c) { return std::isdigit(c); });
}

// Device names and lists: "CPU", "MOCK_REMOTE.1", "MULTI:A,B", "BATCH:A(4)".
bool valid_device(const std::string& device) {
    return std::all_of(device.begin(), device.end(), [](unsigned char c) {
        return std::isalnum(c) || std::strchr("_.:,()-", c) != nullptr;
    });
}

}  // namespace

std::vector<sdk::PropertySpec> config_specs() {
    return {sdk::common::performance_hint(),
            sdk::common::num_streams(),
            sdk::common::inference_num_threads(),
            sdk::common::hint_num_requests(),
            sdk::common::profiling(),
            sdk::rw<std::string>(url, "", "host:port, grpc://host:port or grpcs://host:port",
                                 valid_url),
            sdk::rw<std::string>(tls_ca, "", "the path of a readable PEM file, or empty",
                                 readable_file),
            sdk::rw<std::string>(tls_cert, "",
                                 "the path of a readable PEM file, or empty (with REMOTE_TLS_KEY)",
                                 readable_file),
            sdk::rw<std::string>(tls_key, "",
                                 "the path of a readable PEM file, or empty (with REMOTE_TLS_CERT)",
                                 readable_file),
            sdk::rw<std::string>(model_name, "",
                                 "a model name of the server's repository (letters, digits, "
                                 "'_', '-', '.'), or empty",
                                 valid_model_name),
            sdk::rw<std::string>(model_version, "", "a version number, or empty", valid_version),
            sdk::in_range<uint32_t>(timeout_ms, 0, 0, 3'600'000),
            sdk::in_range<uint32_t>(retries, 0, 0, 10),
            sdk::rw<bool>(unload_on_release, false, "YES or NO"),
            sdk::rw<std::string>(server_device, "", "a device name of the server, or empty",
                                 valid_device),
            sdk::rw<std::string>(model_format, "AUTO", "AUTO or IR",
                                 [](const std::string& v) { return v == "AUTO" || v == "IR"; })};
}

Config Config::from(const sdk::PropertyValues& values) {
    Config config;
    static_cast<sdk::ExecutionConfig&>(config) = sdk::ExecutionConfig::from(values);
    config.url = values.get(remote::url);
    config.tls_ca = values.get(remote::tls_ca);
    config.tls_cert = values.get(remote::tls_cert);
    config.tls_key = values.get(remote::tls_key);
    config.model_name = values.get(remote::model_name);
    config.model_version = values.get(remote::model_version);
    config.timeout = std::chrono::milliseconds(values.get(remote::timeout_ms));
    config.retries = values.get(remote::retries);
    config.unload_on_release = values.get(remote::unload_on_release);
    config.server_device = values.get(remote::server_device);
    config.send_source = values.get(remote::model_format) == "AUTO";
    return config;
}

void check_tls_pair(const std::string& where, const std::string& cert, const std::string& key) {
    if (cert.empty() == key.empty()) return;
    throw_error<InvalidArgument>(
        where,
        ": REMOTE_TLS_CERT and REMOTE_TLS_KEY go together (a client certificate and its "
        "private key), but REMOTE_TLS_CERT is '",
        cert, "' and REMOTE_TLS_KEY is '", key, "': set both in one call, or neither");
}

uint32_t Config::optimal_requests() const {
    uint32_t n = performance_mode == hint::PerformanceMode::LATENCY ? 1 : 4;
    if (num_requests > 0) n = std::min(n, num_requests);
    return n;
}

}  // namespace vireo::remote
