// KServe v2 REST endpoints on cpp-httplib, with RapidJSON for bodies: health, metadata, infer,
// Triton's repository, configuration, statistics and system shared memory extensions.
#include "rest_server.hpp"

#include <google/protobuf/util/json_util.h>
#include <httplib.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <future>

#include "client_connection.hpp"
#include "datatype.hpp"
#include "model_info.hpp"
#include "rest_conversion.hpp"
#include "server_log.hpp"
#include "vireo/version.hpp"

namespace vireo::server {

namespace {

constexpr const char* kJson = "application/json";
// Model name, then an optional version: /v2/models/{m}[/versions/{v}]
constexpr const char* kModelPath = R"(/v2/models/([^/]+)(?:/versions/([^/]+))?)";

uint64_t micros_since(Clock::time_point start) {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
}

void reply_error(httplib::Response& res, const Status& status) {
    res.status = http_status(status.code);
    res.set_content(error_json(status.message), kJson);
}

std::string version_of(const httplib::Request& req) {
    return req.matches.size() > 2 ? req.matches[2].str() : std::string();
}

// Protobuf's JSON form of a message, with the .proto field names (as Triton's HTTP API answers).
std::string to_json(const google::protobuf::Message& message) {
    google::protobuf::util::JsonPrintOptions options;
    options.preserve_proto_field_names = true;
    std::string text;
    if (!google::protobuf::util::MessageToJsonString(message, &text, options).ok()) return "{}";
    return text;
}

void write_tensor_list(rapidjson::Writer<rapidjson::StringBuffer>& w, const char* key,
                       const std::vector<TensorInfo>& tensors) {
    w.Key(key);
    w.StartArray();
    for (const auto& t : tensors) {
        w.StartObject();
        w.Key("name");
        w.String(t.name.c_str());
        w.Key("datatype");
        w.String(datatype_of(t.type).c_str());
        w.Key("shape");
        w.StartArray();
        for (int64_t d : t.shape) w.Int64(d);
        w.EndArray();
        w.EndObject();
    }
    w.EndArray();
}

// How often a handler waiting for a job checks whether its client is still connected; also the
// time a request runs before its connection's socket is first looked up.
constexpr auto kConnectionCheckInterval = std::chrono::milliseconds(20);

// Waits until `future` is ready. On the way, cancels the job with kDeadlineExceeded at its deadline
// or with kCancelled when the client closes the connection (cpp-httplib only notices when it
// writes the answer, so without this a client that gave up would keep an infer request busy).
void await_job(std::future<std::pair<Status, std::vector<OutputData>>>& future,
               ModelVersion& version, const std::shared_ptr<InferJob>& job,
               const ConnectionEnds& ends) {
    int socket = -1;
    bool looked_up = false;
    while (true) {
        const auto next = std::min(job->deadline, Clock::now() + kConnectionCheckInterval);
        if (future.wait_until(next) == std::future_status::ready) return;
        if (Clock::now() >= job->deadline) {
            version.cancel(job, StatusCode::kDeadlineExceeded, "request timeout exceeded");
            return;
        }
        if (!looked_up) {  // only requests still running after one interval pay for the search
            socket = find_connection_socket(ends);
            looked_up = true;
        }
        if (socket >= 0 && peer_closed(socket)) {
            version.cancel(job, StatusCode::kCancelled, "the client closed the connection (REST)");
            return;
        }
    }
}

}  // namespace

namespace {

std::unique_ptr<httplib::Server> make_http_server(const ServerOptions& options) {
    if (options.tls_cert.empty()) return std::make_unique<httplib::Server>();
    auto server = std::make_unique<httplib::SSLServer>(
        options.tls_cert.c_str(), options.tls_key.c_str(),
        options.tls_client_ca.empty() ? nullptr : options.tls_client_ca.c_str());
    return server;
}

}  // namespace

RestServer::RestServer(ServingContext& context)
    : m_context(context), m_server(make_http_server(context.options)) {
    const int workers = context.options.rest_workers;
    m_server->new_task_queue = [workers] {
        return new httplib::ThreadPool(static_cast<size_t>(workers));
    };
    m_server->set_payload_max_length(context.options.max_request_bytes);
    // cpp-httplib writes a response's headers and body separately: with Nagle's algorithm on,
    // each small reply waits for the client's delayed ACK (measured: 88 ms per request at any
    // concurrency, 0.2 ms with TCP_NODELAY).
    m_server->set_tcp_nodelay(true);
    // The hook runs on each listening socket cpp-httplib makes before binding it (the last is the
    // one bound); start() raises its backlog.
    m_server->set_socket_options([this](socket_t sock) {
        httplib::default_socket_options(sock);
        m_listen_socket.store(static_cast<int>(sock));
    });
    m_server->set_keep_alive_max_count(1000);
    m_server->set_keep_alive_timeout(30);
    m_server->set_exception_handler(
        [](const httplib::Request&, httplib::Response& res, std::exception_ptr error) {
            std::string what = "internal error";
            try {
                std::rethrow_exception(error);
            } catch (const std::exception& e) {
                what = e.what();
            } catch (...) {
            }
            reply_error(res, {StatusCode::kInternal, what});
        });
    add_routes();
}

RestServer::~RestServer() {
    stop();
}

int RestServer::start(const std::string& address, int port) {
    if (!m_server->is_valid()) return -1;  // a TLS certificate or key that did not load
    int bound = port;
    if (port == 0) {
        bound = m_server->bind_to_any_port(address);
        if (bound <= 0) return -1;
    } else if (!m_server->bind_to_port(address, port)) {
        return -1;
    }
    const int listener = m_listen_socket.load();
    if (listener < 0 || !raise_listen_backlog(listener)) {
        log_line("warning", std::string("REST: could not raise the listen backlog (") +
                                (listener < 0 ? "no listening socket seen" : std::strerror(errno)) +
                                "): bursts of new connections may wait for retransmissions");
    }
    m_thread = std::thread([this] { m_server->listen_after_bind(); });
    return bound;
}

void RestServer::stop() {
    if (m_server) m_server->stop();
    if (m_thread.joinable()) m_thread.join();
}

void RestServer::add_routes() {
    auto& ctx = m_context;
    m_server->Get("/v2/health/live",
                  [](const httplib::Request&, httplib::Response& res) { res.status = 200; });
    m_server->Get("/v2/health/ready", [&ctx](const httplib::Request&, httplib::Response& res) {
        res.status = ctx.ready() ? 200 : 400;
    });
    m_server->Get("/v2", [&ctx](const httplib::Request&, httplib::Response& res) {
        rapidjson::StringBuffer buffer;
        rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
        w.StartObject();
        w.Key("name");
        w.String(kServerName);
        w.Key("version");
        w.String(get_version().build_number.c_str());
        w.Key("extensions");
        w.StartArray();
        for (const char* e : kExtensions)
            if (extension_listed(ctx, e)) w.String(e);
        w.EndArray();
        w.EndObject();
        res.set_content(buffer.GetString(), kJson);
    });
    m_server->Get(std::string(kModelPath) + "/ready", [&ctx](const httplib::Request& req,
                                                             httplib::Response& res) {
        std::shared_ptr<ModelVersion> version;
        Status s = ctx.models.find(req.matches[1], version_of(req), version);
        if (s.code == StatusCode::kNotFound || s.code == StatusCode::kInvalidArgument) {
            reply_error(res, s);
            return;
        }
        res.status = s.ok() && !ctx.draining.load() ? 200 : 400;
    });
    m_server->Get(kModelPath, [&ctx](const httplib::Request& req, httplib::Response& res) {
        const auto start = Clock::now();
        const std::string name = req.matches[1];
        std::shared_ptr<ModelVersion> version;
        Status s = ctx.models.find(name, version_of(req), version);
        ctx.metrics.record_request(name, s.ok() ? version->version() : 0, "REST", "ModelMetadata",
                                   s.ok(), micros_since(start));
        if (!s.ok()) return reply_error(res, s);
        rapidjson::StringBuffer buffer;
        rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
        w.StartObject();
        w.Key("name");
        w.String(name.c_str());
        w.Key("versions");
        w.StartArray();
        for (int64_t v : ctx.models.ready_versions(name)) w.String(std::to_string(v).c_str());
        w.EndArray();
        w.Key("platform");
        w.String("vireo");
        write_tensor_list(w, "inputs", version->inputs());
        write_tensor_list(w, "outputs", version->outputs());
        w.EndObject();
        res.set_content(buffer.GetString(), kJson);
    });
    m_server->Get(std::string(kModelPath) + "/config", [&ctx](const httplib::Request& req,
                                                              httplib::Response& res) {
        inference::ModelConfig config;
        const Status s = describe_model_config(ctx.models, req.matches[1], version_of(req), config);
        if (!s.ok()) return reply_error(res, s);
        res.set_content(to_json(config), kJson);
    });
    m_server->Get(std::string(kModelPath) + "/stats", [&ctx](const httplib::Request& req,
                                                             httplib::Response& res) {
        inference::ModelStatisticsResponse stats;
        const Status s = collect_statistics(ctx.models, req.matches[1], version_of(req), stats);
        if (!s.ok()) return reply_error(res, s);
        res.set_content(to_json(stats), kJson);
    });
    m_server->Post(std::string(kModelPath) + "/infer", [&ctx](const httplib::Request& req,
                                                              httplib::Response& res) {
        const auto start = Clock::now();
        const std::string name = req.matches[1];
        int64_t version_number = 0;
        auto fail = [&](const Status& s) {
            ctx.metrics.record_request(name, version_number, "REST", "ModelInfer", false,
                                       micros_since(start));
            reply_error(res, s);
        };
        if (ctx.draining.load()) return fail({StatusCode::kUnavailable, "server is shutting down"});
        size_t header_length = std::string_view::npos;
        if (req.has_header("Inference-Header-Content-Length")) {
            const std::string text = req.get_header_value("Inference-Header-Content-Length");
            size_t used = 0;
            try {
                header_length = std::stoull(text, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used == 0 || used != text.size()) {
                return fail(
                    {StatusCode::kInvalidArgument,
                     "Inference-Header-Content-Length must be a byte count, got '" + text + "'"});
            }
        }
        std::shared_ptr<ModelVersion> version;
        std::shared_ptr<InferJob> job;
        RestReplyForm form;
        std::promise<std::pair<Status, std::vector<OutputData>>> promise;
        for (int attempt = 0;; ++attempt) {
            Status s = ctx.models.find(name, version_of(req), version);
            if (!s.ok()) return fail(s);
            version_number = version->version();
            job = std::make_shared<InferJob>();
            form = RestReplyForm{};
            RestLimits limits{ctx.options.max_request_bytes, ctx.options.max_json_depth};
            s = job_from_rest(req.body, header_length, version->inputs(), version->outputs(),
                              limits, *job, form, &ctx.shared_memory);
            if (!s.ok()) return fail(s);
            job->on_done = [&promise](Status status, std::vector<OutputData> outputs) {
                promise.set_value({std::move(status), std::move(outputs)});
            };
            s = version->submit(job);
            if (s.ok()) break;
            // A reload retired the version between find() and submit(): an unversioned request
            // goes once more to the version that replaced it.
            if (s.code != StatusCode::kUnavailable || attempt > 0 || !version_of(req).empty() ||
                ctx.draining.load()) {
                return fail(s);
            }
        }
        auto future = promise.get_future();
        const ConnectionEnds ends{req.local_addr, req.local_port, req.remote_addr, req.remote_port};
        await_job(future, *version, job, ends);
        auto [status, outputs] = future.get();
        // Only a closed connection cancels a REST job. The job may also have been completed by the
        // device's callback for the cancelled run (same status) or, just before, by its success.
        if (status.code == StatusCode::kCancelled) {
            ctx.metrics.record_cancelled(name, version_number, "REST", "ModelInfer");
            log_line("info", "REST client " + req.remote_addr + ":" +
                                 std::to_string(req.remote_port) +
                                 " closed its connection: inference of model '" + name +
                                 "' version " + std::to_string(version_number) + " cancelled");
        }
        if (status.ok()) status = write_shared_memory_outputs(form.shm_outputs, outputs);
        if (!status.ok()) return fail(status);
        size_t json_length = std::string::npos;
        std::string body =
            render_rest_response(name, version_number, form, outputs, json_length, job.get());
        if (json_length != std::string::npos) {
            res.set_header("Inference-Header-Content-Length", std::to_string(json_length));
            res.set_content(std::move(body), "application/octet-stream");
        } else {
            res.set_content(std::move(body), kJson);
        }
        ctx.metrics.record_request(name, version_number, "REST", "ModelInfer", true,
                                   micros_since(start));
    });
    m_server->Post(R"(/v2/repository/models/([^/]+)/(load|unload))",
                   [&ctx](const httplib::Request& req, httplib::Response& res) {
                       const std::string name = req.matches[1];
                       Status s = req.matches[2] == "load" ? ctx.models.load(name)
                                                           : ctx.models.unload(name);
                       if (!s.ok()) return reply_error(res, s);
                       res.set_content("{}", kJson);
                   });
    m_server->Post("/v2/repository/index", [&ctx](const httplib::Request&, httplib::Response& res) {
        rapidjson::StringBuffer buffer;
        rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
        w.StartArray();
        for (const auto& e : ctx.models.index()) {
            w.StartObject();
            w.Key("name");
            w.String(e.model.c_str());
            if (e.version > 0) {
                w.Key("version");
                w.String(std::to_string(e.version).c_str());
            }
            w.Key("state");
            w.String(e.state.c_str());
            w.Key("reason");
            w.String(e.reason.c_str());
            w.EndObject();
        }
        w.EndArray();
        res.set_content(buffer.GetString(), kJson);
    });
    add_shared_memory_routes();
    m_server->Post("/v1/config/reload", [&ctx](const httplib::Request&, httplib::Response& res) {
        Status s = ctx.reload ? ctx.reload() : Status{StatusCode::kUnimplemented, "no reload"};
        if (!s.ok()) return reply_error(res, s);
        res.set_content("{}", kJson);
    });
    if (ctx.options.metrics_enable) {
        m_server->Get("/metrics", [&ctx](const httplib::Request&, httplib::Response& res) {
            res.set_content(ctx.metrics.render(), "text/plain; version=0.0.4");
        });
    }
}

// Triton's system shared memory extension: /v2/systemsharedmemory[/region/{name}]/status,
// .../region/{name}/register (body {"key", "offset", "byte_size"}) and
// /v2/systemsharedmemory[/region/{name}]/unregister.
void RestServer::add_shared_memory_routes() {
    auto& shm = m_context.shared_memory;
    constexpr const char* kRegion = R"(/v2/systemsharedmemory(?:/region/([^/]+))?)";
    auto region_of = [](const httplib::Request& req) {
        return req.matches.size() > 1 ? req.matches[1].str() : std::string();
    };
    m_server->Get(std::string(kRegion) + "/status", [&shm, region_of](const httplib::Request& req,
                                                                      httplib::Response& res) {
        std::vector<std::shared_ptr<const SharedMemoryRegion>> regions;
        const Status s = shm.status(region_of(req), regions);
        if (!s.ok()) return reply_error(res, s);
        rapidjson::StringBuffer buffer;
        rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
        w.StartArray();
        for (const auto& region : regions) {
            w.StartObject();
            w.Key("name");
            w.String(region->name().c_str(),
                     static_cast<rapidjson::SizeType>(region->name().size()));
            w.Key("key");
            w.String(region->key().c_str(), static_cast<rapidjson::SizeType>(region->key().size()));
            w.Key("offset");
            w.Uint64(region->offset());
            w.Key("byte_size");
            w.Uint64(region->byte_size());
            w.EndObject();
        }
        w.EndArray();
        res.set_content(buffer.GetString(), kJson);
    });
    m_server->Post(
        R"(/v2/systemsharedmemory/region/([^/]+)/register)",
        [&shm](const httplib::Request& req, httplib::Response& res) {
            const std::string name = req.matches[1];
            rapidjson::Document doc;
            doc.Parse<rapidjson::kParseIterativeFlag>(req.body.data(), req.body.size());
            const auto member = [&doc](const char* key) -> const rapidjson::Value* {
                return doc.IsObject() && doc.HasMember(key) ? &doc[key] : nullptr;
            };
            const auto* key = member("key");
            const auto* offset = member("offset");
            const auto* size = member("byte_size");
            if (doc.HasParseError() || !key || !key->IsString() || !size || !size->IsUint64() ||
                (offset && !offset->IsUint64())) {
                return reply_error(res, {StatusCode::kInvalidArgument,
                                         "register of shared memory region '" + name +
                                             "': the body must be {\"key\": string, \"offset\": "
                                             "unsigned integer (optional), \"byte_size\": unsigned "
                                             "integer}"});
            }
            const Status s = shm.register_region(
                name, key->GetString(), offset ? offset->GetUint64() : 0, size->GetUint64());
            if (!s.ok()) return reply_error(res, s);
            res.set_content("{}", kJson);
        });
    m_server->Post(std::string(kRegion) + "/unregister",
                   [&shm, region_of](const httplib::Request& req, httplib::Response& res) {
                       shm.unregister(region_of(req));
                       res.set_content("{}", kJson);
                   });
}

}  // namespace vireo::server
