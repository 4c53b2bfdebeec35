// Declares RestServer: the KServe v2 REST endpoints (and Triton's binary tensor and system shared
// memory extensions, OVMS's config reload and Prometheus /metrics) on cpp-httplib.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "serving_context.hpp"

namespace httplib {
class Server;
}

namespace vireo::server {

/// cpp-httplib serves each connection on one thread of a fixed pool for the connection's whole
/// keep-alive life, so the pool (options.rest_workers, default 64) is the number of clients served
/// at once; more wait for a free thread. An infer handler waits on its pool thread for the job
/// (the gRPC path does not); a request's "timeout" parameter bounds that wait and cancels the job,
/// and so does a client that closes its connection meanwhile (checked every 20 ms once the request
/// has run that long; counted in vireo_requests_cancelled and logged).
///
/// Thread safety: start() and stop() from one thread; handlers run on the pool.
class RestServer {
  public:
    explicit RestServer(ServingContext& context);
    ~RestServer();

    /// Binds `address:port` (port 0: any free port) and starts serving on a thread. Returns the
    /// bound port, or -1 when binding failed.
    int start(const std::string& address, int port);
    /// Stops accepting and closes connections; returns when the listener thread ended.
    void stop();

  private:
    void add_routes();
    void add_shared_memory_routes();

    ServingContext& m_context;
    std::unique_ptr<httplib::Server> m_server;
    std::thread m_thread;
    // The listening socket, as cpp-httplib's socket-options hook last saw it (-1: none yet).
    std::atomic<int> m_listen_socket{-1};
};

}  // namespace vireo::server
