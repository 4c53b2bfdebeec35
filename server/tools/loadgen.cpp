// vireo_loadgen: a closed-loop load generator for KServe v2 servers in the manner of Triton's
// perf_analyzer: N concurrent clients, each sending its next request when the previous answer
// arrives, over gRPC or REST (JSON or binary tensors), for a sweep of concurrency levels; prints
// throughput and p50/p90/p99 latency per level. Inputs come from ModelMetadata: zeros, with each
// dynamic dimension set to --dim (default 1).
#include <grpcpp/grpcpp.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "datatype.hpp"
#include "vireo/kserve/client.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
    std::string grpc;  // host:port
    std::string rest;  // host:port
    std::string model;
    std::string version;
    std::vector<int> concurrency = {1, 2, 4, 8, 16, 32, 64};
    double seconds = 5;
    int64_t dim = 1;
    bool binary = true;      // REST: binary tensor data (as tritonclient.http sends)
    bool streaming = false;  // gRPC: one ModelStreamInfer stream per client instead of ModelInfer
};

struct Input {
    std::string name, datatype;
    std::vector<int64_t> shape;
    std::string bytes;
};

struct Level {
    int concurrency = 0;
    double throughput = 0;
    double p50 = 0, p90 = 0, p99 = 0;  // microseconds
    size_t errors = 0;
    size_t requests = 0;                    // answered successfully
    std::map<std::string, size_t> reasons;  // each error's first line -> how many
};

// An error's reason, shortened so that equal causes count together.
std::string reason_of(std::string text) {
    text = text.substr(0, text.find('\n'));
    if (text.size() > 120) text = text.substr(0, 120) + "...";
    return text;
}

bool parse(int argc, char** argv, Options& o) {
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i], v = argv[i + 1];
        if (k == "--grpc")
            o.grpc = v;
        else if (k == "--rest")
            o.rest = v;
        else if (k == "--model")
            o.model = v;
        else if (k == "--version")
            o.version = v;
        else if (k == "--seconds")
            o.seconds = std::stod(v);
        else if (k == "--dim")
            o.dim = std::stoll(v);
        else if (k == "--json")
            o.binary = v != "1";
        else if (k == "--streaming")
            o.streaming = v == "1";
        else if (k == "--concurrency") {
            o.concurrency.clear();
            std::stringstream list(v);
            for (std::string item; std::getline(list, item, ',');)
                o.concurrency.push_back(std::stoi(item));
        } else {
            return false;
        }
    }
    return !o.model.empty() && (o.grpc.empty() != o.rest.empty()) && argc % 2 == 1 &&
           (!o.streaming || !o.grpc.empty());
}

std::vector<Input> inputs_from_metadata(const std::string& grpc, const Options& o) {
    vireo::kserve::Client client(grpc);
    inference::ModelMetadataResponse meta;
    const grpc::Status status =
        client.model_metadata(o.model, o.version, &meta, std::chrono::seconds(60));
    if (!status.ok()) throw std::runtime_error("ModelMetadata: " + status.error_message());
    std::vector<Input> out;
    for (const auto& t : meta.inputs()) {
        Input in{t.name(), t.datatype(), {}, {}};
        size_t count = 1;
        for (int64_t d : t.shape()) {
            in.shape.push_back(d < 0 ? o.dim : d);
            count *= static_cast<size_t>(in.shape.back());
        }
        const auto type = vireo::server::element_type_of(in.datatype);
        if (!type) throw std::runtime_error("input '" + in.name + "' has datatype " + in.datatype);
        in.bytes.assign(count * type->size(), '\0');
        out.push_back(std::move(in));
    }
    return out;
}

std::string rest_body(const std::vector<Input>& inputs, bool binary, size_t& header_length) {
    std::string json = "{\"inputs\":[";
    std::string tail;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const auto& in = inputs[i];
        json += (i ? "," : "") + std::string("{\"name\":\"") + in.name + "\",\"datatype\":\"" +
                in.datatype + "\",\"shape\":[";
        size_t count = 1;
        for (size_t d = 0; d < in.shape.size(); ++d) {
            json += (d ? "," : "") + std::to_string(in.shape[d]);
            count *= static_cast<size_t>(in.shape[d]);
        }
        json += "]";
        if (binary) {
            json +=
                ",\"parameters\":{\"binary_data_size\":" + std::to_string(in.bytes.size()) + "}}";
            tail += in.bytes;
        } else {
            json += ",\"data\":[";
            const char* zero = in.datatype == "BOOL" ? "false" : "0";
            for (size_t k = 0; k < count; ++k) json += (k ? "," : "") + std::string(zero);
            json += "]}";
        }
    }
    json += binary ? "],\"parameters\":{\"binary_data_output\":true}}" : "]}";
    header_length = json.size();
    return json + tail;
}

Level run_level(const Options& o, const std::vector<Input>& inputs, int concurrency) {
    std::atomic<bool> stop{false};
    std::vector<std::vector<double>> latencies(concurrency);
    std::vector<size_t> errors(concurrency, 0);
    std::vector<std::map<std::string, size_t>> reasons(concurrency);
    std::vector<std::thread> clients;
    const auto start = Clock::now();
    for (int c = 0; c < concurrency; ++c) {
        clients.emplace_back([&, c] {
            if (!o.grpc.empty()) {
                // One channel per client (kserve::Client: a channel of its own), as separate
                // clients would have.
                vireo::kserve::Client client(o.grpc);
                inference::ModelInferRequest request;
                request.set_model_name(o.model);
                request.set_model_version(o.version);
                for (const auto& in : inputs) {
                    auto* t = request.add_inputs();
                    t->set_name(in.name);
                    t->set_datatype(in.datatype);
                    for (int64_t d : in.shape) t->add_shape(d);
                    request.add_raw_input_contents(in.bytes);
                }
                if (o.streaming) {
                    // One stream per client, one request in flight on it: the latency of a
                    // request is from its write to its response.
                    grpc::ClientContext context;
                    auto stream = client.stub().ModelStreamInfer(&context);
                    inference::ModelStreamInferResponse response;
                    while (!stop.load()) {
                        const auto t0 = Clock::now();
                        if (!stream->Write(request) || !stream->Read(&response)) {
                            ++errors[c];
                            ++reasons[c]["the stream ended early"];
                            break;  // the stream is over; its status is read below
                        }
                        const auto t1 = Clock::now();
                        if (!response.error_message().empty()) {
                            ++errors[c];
                            ++reasons[c][reason_of(response.error_message())];
                        } else
                            latencies[c].push_back(
                                std::chrono::duration<double, std::micro>(t1 - t0).count());
                    }
                    stream->WritesDone();
                    while (stream->Read(&response)) {
                    }
                    const grpc::Status s = stream->Finish();
                    if (!s.ok() && errors[c] == 0) ++errors[c];
                    if (!s.ok()) ++reasons[c][reason_of("stream: " + s.error_message())];
                    return;
                }
                while (!stop.load()) {
                    inference::ModelInferResponse response;
                    const auto t0 = Clock::now();
                    const grpc::Status s =
                        client.infer(request, &response, std::chrono::milliseconds(0));
                    const auto t1 = Clock::now();
                    if (!s.ok()) {
                        ++errors[c];
                        ++reasons[c][reason_of("gRPC status " + std::to_string(s.error_code()) +
                                               ": " + s.error_message())];
                    } else {
                        latencies[c].push_back(
                            std::chrono::duration<double, std::micro>(t1 - t0).count());
                    }
                }
            } else {
                const auto colon = o.rest.rfind(':');
                httplib::Client client(o.rest.substr(0, colon),
                                       std::stoi(o.rest.substr(colon + 1)));
                client.set_keep_alive(true);
                client.set_tcp_nodelay(true);
                size_t header_length = 0;
                const std::string body = rest_body(inputs, o.binary, header_length);
                httplib::Headers headers;
                if (o.binary)
                    headers.emplace("Inference-Header-Content-Length",
                                    std::to_string(header_length));
                const std::string path = "/v2/models/" + o.model +
                                         (o.version.empty() ? "" : "/versions/" + o.version) +
                                         "/infer";
                while (!stop.load()) {
                    const auto t0 = Clock::now();
                    auto r =
                        client.Post(path.c_str(), headers, body,
                                    o.binary ? "application/octet-stream" : "application/json");
                    const auto t1 = Clock::now();
                    if (!r || r->status != 200) {
                        ++errors[c];
                        ++reasons[c][r ? reason_of("HTTP " + std::to_string(r->status) + ": " +
                                                   r->body)
                                       : "no response (" + httplib::to_string(r.error()) + ")"];
                    } else {
                        latencies[c].push_back(
                            std::chrono::duration<double, std::micro>(t1 - t0).count());
                    }
                }
            }
        });
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(o.seconds));
    stop.store(true);
    for (auto& t : clients) t.join();
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    std::vector<double> all;
    Level level;
    level.concurrency = concurrency;
    for (int c = 0; c < concurrency; ++c) {
        all.insert(all.end(), latencies[c].begin(), latencies[c].end());
        level.errors += errors[c];
        for (const auto& [reason, count] : reasons[c]) level.reasons[reason] += count;
    }
    std::sort(all.begin(), all.end());
    auto pct = [&](double p) {
        return all.empty() ? 0.0 : all[static_cast<size_t>(p * (all.size() - 1))];
    };
    level.requests = all.size();
    level.throughput = static_cast<double>(all.size()) / elapsed;
    level.p50 = pct(0.50);
    level.p90 = pct(0.90);
    level.p99 = pct(0.99);
    return level;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    if (!parse(argc, argv, o)) {
        std::cerr << "usage: vireo_loadgen (--grpc HOST:PORT | --rest HOST:PORT) --model NAME "
                     "[--version V]\n"
                     "         [--concurrency 1,2,4,...] [--seconds S per level] [--dim N for "
                     "dynamic dims]\n"
                     "         [--json 1: REST JSON tensors instead of binary]\n"
                     "         [--streaming 1: gRPC ModelStreamInfer, one stream per client]\n";
        return 2;
    }
    try {
        // Metadata always comes over gRPC; with --rest the gRPC port is taken from
        // VIREO_LOADGEN_GRPC.
        std::string meta = o.grpc;
        if (meta.empty()) {
            const char* env = std::getenv("VIREO_LOADGEN_GRPC");
            if (!env)
                throw std::runtime_error(
                    "--rest needs VIREO_LOADGEN_GRPC=host:port for the metadata");
            meta = env;
        }
        const auto inputs = inputs_from_metadata(meta, o);
        std::printf("%-12s %12s %10s %10s %10s %8s %10s\n", "concurrency", "infer/s", "p50 us",
                    "p90 us", "p99 us", "errors", "requests");
        for (int c : o.concurrency) {
            const Level l = run_level(o, inputs, c);
            std::printf("%-12d %12.1f %10.0f %10.0f %10.0f %8zu %10zu\n", l.concurrency,
                        l.throughput, l.p50, l.p90, l.p99, l.errors, l.requests);
            std::fflush(stdout);
            // Why requests failed, on stderr (the table on stdout stays machine-readable).
            for (const auto& [reason, count] : l.reasons)
                std::fprintf(stderr, "  concurrency %d: %zu x %s\n", l.concurrency, count,
                             reason.c_str());
        }
    } catch (const std::exception& e) {
        std::cerr << "ERROR: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
