// Declares the server's configuration: the command line (OVMS's flags), the models it serves
// (one from --model_path/--model_name or many from an OVMS config.json) and each model's version
// policy.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "status.hpp"

namespace vireo::server {

/// Which versions found in a model's base path are served (OVMS's model_version_policy).
/// Default: the latest one.
struct VersionPolicy {
    enum class Kind { kLatest, kAll, kSpecific };
    Kind kind = Kind::kLatest;
    uint32_t num_versions = 1;      // kLatest
    std::vector<int64_t> versions;  // kSpecific

    /// The versions to serve out of `available` (any order), highest first.
    std::vector<int64_t> select(std::vector<int64_t> available) const;
};

/// Triton's dynamic batching: requests gathered into one inference along dimension 0 of every
/// input and output, then split back. Off when max_batch_size is 0.
struct DynamicBatching {
    uint32_t max_batch_size = 0;                 // items (sum of the requests' dimension 0)
    uint64_t max_queue_delay_microseconds = 0;   // longest wait for more requests
    std::vector<uint32_t> preferred_batch_size;  // a batch reaching the largest runs at once
};

/// One served model.
struct ModelConfig {
    std::string name;
    std::string base_path;  // holds <version>/model.{xml,onnx}
    std::string target_device = "CPU";
    uint32_t nireq = 0;                                // 0: the compiled model's optimal number
    std::map<std::string, std::string> plugin_config;  // passed to compile_model as text
    VersionPolicy version_policy;
    uint32_t max_queue_size = 0;  // 0: 16 x nireq
    DynamicBatching dynamic_batching;
    // OVMS's shape and batch_size: the model is reshaped before compiling. `shapes` maps an input
    // name to its shape text ("(1,3,224,224)", "[1,3,-1,-1]", "1..8,3,224,224"); the key "" means
    // the model's only input. batch_size (> 0) sets dimension 0 of every input.
    std::map<std::string, std::string> shapes;
    int64_t batch_size = 0;
};

/// The whole command line.
struct ServerOptions {
    std::string grpc_address = "0.0.0.0";
    int grpc_port = 0;  // 0: no gRPC listener; -1: any free port (logged), for tests
    std::string rest_address = "0.0.0.0";
    int rest_port = 0;  // 0: no REST listener; -1: any free port (logged)
    std::string config_path;
    std::vector<ModelConfig> models;
    bool metrics_enable = false;
    /// --allow_client_shm: clients may register POSIX shared memory objects of this host as
    /// input and output regions (Triton's system shared memory extension). Off by default, as in
    /// Triton since 2026: a client that reaches the ports could otherwise map any object the
    /// server's user can open and read it back through a model's outputs.
    bool allow_client_shm = false;
    int shutdown_grace_seconds = 30;
    int poll_wait_seconds = 0;  // --file_system_poll_wait_seconds; 0: no polling
    int rest_workers = 64;      // cpp-httplib pool threads = concurrent keep-alive clients
    size_t max_request_bytes = 256u << 20;  // gRPC message and REST body limit
    /// --stream_max_pending: requests of one ModelStreamInfer stream read but not yet answered
    /// (running, queued, or with their response waiting to be sent); at the limit the server stops
    /// reading that stream until one is sent, so a client that sends without reading responses
    /// meets gRPC's flow control instead of growing the server's memory.
    int stream_max_pending = 64;
    int max_json_depth = 32;
    std::string plugins_xml;  // empty: the default plugins.xml next to libvireo
    // TLS for both transports when tls_cert and tls_key (PEM files) are given; with
    // tls_client_ca, clients must present a certificate it signed (mutual TLS).
    std::string tls_cert;
    std::string tls_key;
    std::string tls_client_ca;
};

/// Checks a model name: 1-128 characters of [A-Za-z0-9_.-], not "." or "..", so that it never
/// becomes a path outside the repository.
Status validate_model_name(const std::string& name);

/// Parses argv into `options`. Returns InvalidArgument naming the flag on error; `help` is set
/// when -h/--help was given (options are then incomplete).
Status parse_command_line(int argc, const char* const argv[], ServerOptions& options, bool& help);

/// Parses OVMS's "shape" value: a shape text for the only input, or an object of input name ->
/// shape text. "auto" (deprecated in OVMS) is refused.
Status parse_shape_setting(const std::string& json_or_text,
                           std::map<std::string, std::string>& out);

/// The usage text printed for --help.
std::string usage_text();

/// Parses an OVMS config.json text (`model_config_list`) into models.
Status parse_model_config_list(const std::string& json_text, std::vector<ModelConfig>& models);

/// Parses a JSON object of plugin properties ('{"PERFORMANCE_HINT":"LATENCY","NUM_STREAMS":2}')
/// into text values.
Status parse_plugin_config(const std::string& json_text, std::map<std::string, std::string>& out);

}  // namespace vireo::server
