// Declares ServingContext: what both front ends share — the models, the metrics, the limits, the
// registered shared memory regions and whether the server is draining.
#pragma once

#include <atomic>
#include <string>

#include "metrics.hpp"
#include "model_manager.hpp"
#include "server_config.hpp"
#include "shared_memory.hpp"

namespace vireo::server {

/// Shared by the gRPC and REST front ends; owned by the Server, outlives both.
struct ServingContext {
    ModelManager& models;
    Metrics& metrics;
    const ServerOptions& options;
    /// Set on SIGTERM: readiness turns false and new inference requests get UNAVAILABLE.
    std::atomic<bool> draining{false};
    /// Regions registered over either transport; usable by requests on both. Unmapped when the
    /// context goes (server exit) or when unregistered and no request holds them.
    SharedMemory shared_memory;
    /// Called by the REST reload endpoint (POST /v1/config/reload); returns its outcome.
    std::function<Status()> reload;

    ServingContext(ModelManager& m, Metrics& x, const ServerOptions& o)
        : models(m), metrics(x), options(o), shared_memory(o.allow_client_shm) {}

    bool ready() const { return !draining.load() && models.all_ready(); }
};

/// The server's name and version as ServerMetadata reports them.
inline constexpr const char* kServerName = "vireo_server";
/// The protocol extensions this server implements (system_shared_memory only when enabled).
inline const char* const kExtensions[] = {"model_repository", "statistics", "binary_tensor_data",
                                          "model_configuration", "system_shared_memory"};

/// Whether ServerMetadata lists extension `name` on this server.
inline bool extension_listed(const ServingContext& context, const std::string& name) {
    return name != "system_shared_memory" || context.shared_memory.enabled();
}

}  // namespace vireo::server
