// Declares the REMOTE plugin's property table and Config, the settings one compile runs with.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "vireo/remote/properties.hpp"
#include "vireo/sdk/execution_config.hpp"
#include "vireo/sdk/property_table.hpp"

namespace vireo::remote {

inline constexpr const char* kDeviceName = "REMOTE";
/// Instances REMOTE.0 .. REMOTE.15.
inline constexpr uint32_t kMaxInstances = 16;

/// The settings of one compile: the SDK's common keys and REMOTE's own.
struct Config : sdk::ExecutionConfig {
    std::string url;
    std::string tls_ca;
    std::string tls_cert;
    std::string tls_key;
    std::string model_name;
    std::string model_version;
    std::chrono::milliseconds timeout{0};
    uint32_t retries = 0;
    bool unload_on_release = false;
    std::string server_device;
    /// REMOTE_MODEL_FORMAT AUTO: send the model's source ONNX file when it still reads as the
    /// model.
    bool send_source = true;

    static Config from(const sdk::PropertyValues& values);
    /// Requests that keep the server busy: 4 for THROUGHPUT / CUMULATIVE_THROUGHPUT (calls
    /// pipelined on one channel), 1 for LATENCY; capped by PERFORMANCE_HINT_NUM_REQUESTS.
    uint32_t optimal_requests() const;
};

/// Throws InvalidArgument (naming `where`, both keys and their values) when exactly one of
/// REMOTE_TLS_CERT and REMOTE_TLS_KEY is set.
void check_tls_pair(const std::string& where, const std::string& cert, const std::string& key);

/// The declared keys of the plugin (instance scope unless said otherwise), without the read-only
/// device keys the plugin adds itself.
std::vector<sdk::PropertySpec> config_specs();

}  // namespace vireo::remote
