// Prometheus counters and histograms of the server.
#include "metrics.hpp"

namespace vireo::server {

namespace {

std::string escape_label(const std::string& value) {
    std::string out;
    for (char c : value) {
        if (c == '\\' || c == '"') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out;
}

std::string version_labels(const std::string& model, int64_t version) {
    return "name=\"" + escape_label(model) + "\",version=\"" + std::to_string(version) + "\"";
}

void header(std::string& out, const char* name, const char* type, const char* help) {
    out += "# HELP ";
    out += name;
    out += ' ';
    out += help;
    out += "\n# TYPE ";
    out += name;
    out += ' ';
    out += type;
    out += '\n';
}

}  // namespace

void Histogram::observe(uint64_t us) {
    for (size_t i = 0; i < m_bounds->size(); ++i) {
        if (us <= (*m_bounds)[i]) {
            m_buckets[i].fetch_add(1);
            break;
        }
    }
    m_count.fetch_add(1);
    m_sum.fetch_add(us);
}

void Histogram::render(std::string& out, const std::string& name, const std::string& labels) const {
    uint64_t cumulative = 0;
    for (size_t i = 0; i < m_bounds->size(); ++i) {
        cumulative += m_buckets[i].load();
        out += name + "_bucket{" + labels + ",le=\"" + std::to_string((*m_bounds)[i]) + "\"} " +
               std::to_string(cumulative) + "\n";
    }
    const uint64_t count = m_count.load();
    out += name + "_bucket{" + labels + ",le=\"+Inf\"} " + std::to_string(count) + "\n";
    out += name + "_sum{" + labels + "} " + std::to_string(m_sum.load()) + "\n";
    out += name + "_count{" + labels + "} " + std::to_string(count) + "\n";
}

std::shared_ptr<VersionMetrics> Metrics::version(const std::string& model, int64_t version) {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto& slot = m_versions[{model, version}];
    if (!slot) slot = std::make_shared<VersionMetrics>();
    return slot;
}

void Metrics::record_request(const std::string& model, int64_t version,
                             const std::string& interface, const std::string& method, bool success,
                             uint64_t duration_us) {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto& series = m_requests[{model, version, interface, method}];
    (success ? series.success : series.fail) += 1;
    if (method == "ModelInfer" || method == "ModelStreamInfer") {
        auto& histogram = m_latency[{model, version, interface}];
        if (!histogram) histogram = std::make_unique<Histogram>();
        histogram->observe(duration_us);
    }
}

void Metrics::record_cancelled(const std::string& model, int64_t version,
                               const std::string& interface, const std::string& method) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_cancelled[{model, version, interface, method}] += 1;
}

uint64_t Metrics::requests(const std::string& model, int64_t version, const std::string& interface,
                           const std::string& method, bool success) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_requests.find({model, version, interface, method});
    if (it == m_requests.end()) return 0;
    return success ? it->second.success : it->second.fail;
}

std::string Metrics::render() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::string out;
    for (int pass = 0; pass < 2; ++pass) {
        const char* name = pass == 0 ? "vireo_requests_success" : "vireo_requests_fail";
        header(out, name, "counter",
               pass == 0 ? "Number of successful requests to a model or a model version."
                         : "Number of failed requests to a model or a model version.");
        for (const auto& [key, series] : m_requests) {
            const auto& [model, version, interface, method] = key;
            out += std::string(name) + "{api=\"KServe\",interface=\"" + interface + "\",method=\"" +
                   method + "\"," + version_labels(model, version) + "} " +
                   std::to_string(pass == 0 ? series.success : series.fail) + "\n";
        }
    }
    // Vireo's addition (OVMS has no such counter); a series appears with its first cancel.
    header(out, "vireo_requests_cancelled", "counter",
           "Number of inference requests whose client went away before they completed (also "
           "counted as failed).");
    for (const auto& [key, count] : m_cancelled) {
        const auto& [model, version, interface, method] = key;
        out += "vireo_requests_cancelled{api=\"KServe\",interface=\"" + interface + "\",method=\"" +
               method + "\"," + version_labels(model, version) + "} " + std::to_string(count) +
               "\n";
    }
    header(out, "vireo_request_time_us", "histogram",
           "Processing time of requests to a model or a model version, in microseconds.");
    for (const auto& [key, histogram] : m_latency) {
        const auto& [model, version, interface] = key;
        histogram->render(out, "vireo_request_time_us",
                          "interface=\"" + interface + "\"," + version_labels(model, version));
    }
    header(out, "vireo_inference_time_us", "histogram",
           "Inference execution time in microseconds.");
    for (const auto& [key, vm] : m_versions) {
        vm->inference_us.render(out, "vireo_inference_time_us",
                                version_labels(key.first, key.second));
    }
    header(out, "vireo_wait_for_infer_req_time_us", "histogram",
           "Time a request waited in the model's queue for a free infer request, in microseconds.");
    for (const auto& [key, vm] : m_versions) {
        vm->wait_for_infer_req_us.render(out, "vireo_wait_for_infer_req_time_us",
                                         version_labels(key.first, key.second));
    }
    header(out, "vireo_batch_size", "histogram",
           "Items per inference of models with dynamic batching.");
    for (const auto& [key, vm] : m_versions) {
        if (vm->batch_size.count() == 0) continue;
        vm->batch_size.render(out, "vireo_batch_size", version_labels(key.first, key.second));
    }
    struct Gauge {
        const char* name;
        const char* help;
        int64_t (*read)(const VersionMetrics&);
    };
    const Gauge gauges[] = {
        {"vireo_current_requests", "Number of inference requests being processed now.",
         [](const VersionMetrics& m) -> int64_t { return m.current_requests.load(); }},
        {"vireo_infer_req_queue_size", "Requests waiting in the model's queue.",
         [](const VersionMetrics& m) -> int64_t { return m.queue_size.load(); }},
        {"vireo_infer_req_active", "Infer requests of the pool running now.",
         [](const VersionMetrics& m) -> int64_t { return m.active_infer_requests.load(); }},
        {"vireo_streams", "Infer requests in the model version's pool.",
         [](const VersionMetrics& m) -> int64_t { return static_cast<int64_t>(m.streams.load()); }},
    };
    for (const auto& g : gauges) {
        header(out, g.name, "gauge", g.help);
        for (const auto& [key, vm] : m_versions) {
            out += std::string(g.name) + "{" + version_labels(key.first, key.second) + "} " +
                   std::to_string(g.read(*vm)) + "\n";
        }
    }
    return out;
}

}  // namespace vireo::server
