// Declares Server: vireo_server's whole process state — the Core, the models, the gRPC and REST
// front ends — and its life: start, reload, drain and stop.
#pragma once

#include <memory>
#include <string>

#include "metrics.hpp"
#include "model_manager.hpp"
#include "server_config.hpp"
#include "serving_context.hpp"
#include "vireo/core.hpp"

namespace grpc {
class Server;
class ServerCredentials;
}  // namespace grpc

namespace vireo::server {

class GrpcService;
class RestServer;

/// Usage (what main() does):
///
///     Server server(options);
///     Status s = server.start();      // listeners up: live
///     server.load_models();           // ready once every model has a version
///     ... wait for SIGTERM ...
///     server.shutdown();              // not ready, drain within the grace period, stop
///
/// Thread safety: start/reload/shutdown from one thread; the front ends run on their own.
class Server {
  public:
    explicit Server(ServerOptions options);
    ~Server();

    /// Starts the listeners: the process is live from then on, not ready until load_models().
    /// Fails when a listener cannot bind.
    Status start();
    /// Loads every configured model. A model that fails to load is logged and leaves the server
    /// not ready; its error is returned, the server keeps serving the others.
    Status load_models();
    /// Re-reads --config_path (when given) and reloads every model: new versions load beside the
    /// old ones, models gone from the config are unloaded.
    Status reload();
    /// Stops taking inference requests (readiness turns false), waits up to the grace period for
    /// queued and running ones, then stops both listeners. Returns whether everything drained.
    bool shutdown();

    int grpc_port() const { return m_grpc_port; }
    int rest_port() const { return m_rest_port; }
    ServingContext& context() { return *m_context; }

  private:
    Status grpc_credentials(std::shared_ptr<grpc::ServerCredentials>& out) const;

    ServerOptions m_options;
    Core m_core;
    Metrics m_metrics;
    std::string m_upload_root;
    std::unique_ptr<ModelManager> m_models;
    std::unique_ptr<ServingContext> m_context;
    std::unique_ptr<GrpcService> m_grpc_service;
    std::unique_ptr<grpc::Server> m_grpc;
    std::unique_ptr<RestServer> m_rest;
    int m_grpc_port = 0;
    int m_rest_port = 0;
};

}  // namespace vireo::server
