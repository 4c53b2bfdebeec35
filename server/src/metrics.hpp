// Declares Metrics: the server's Prometheus counters and histograms, named as OpenVINO Model
// Server names them with a `vireo_` prefix, and their text exposition for GET /metrics.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

namespace vireo::server {

/// A cumulative histogram with fixed bucket bounds: microsecond durations by default, or the
/// batch-size bounds. Thread-safe.
class Histogram {
  public:
    static constexpr std::array<uint64_t, 16> kBoundsUs = {
        10,    50,    100,   250,    500,    1000,   2500,    5000,
        10000, 25000, 50000, 100000, 250000, 500000, 1000000, 5000000};
    static constexpr std::array<uint64_t, 16> kBoundsBatch = {1,  2,  3,  4,  6,   8,   12,  16,
                                                              24, 32, 48, 64, 128, 256, 512, 4096};

    Histogram() = default;
    explicit Histogram(const std::array<uint64_t, 16>& bounds) : m_bounds(&bounds) {}

    void observe(uint64_t value);
    /// Appends the Prometheus lines of this histogram for metric `name` with `labels`
    /// ('name="m",version="1"').
    void render(std::string& out, const std::string& name, const std::string& labels) const;
    uint64_t count() const { return m_count.load(); }

  private:
    const std::array<uint64_t, 16>* m_bounds = &kBoundsUs;
    std::array<std::atomic<uint64_t>, kBoundsUs.size()> m_buckets{};
    std::atomic<uint64_t> m_count{0};
    std::atomic<uint64_t> m_sum{0};
};

/// Per model version measurements updated by the scheduler: time waiting for a free infer request
/// and inference time, requests queued and running.
struct VersionMetrics {
    Histogram wait_for_infer_req_us;
    Histogram inference_us;
    Histogram batch_size{Histogram::kBoundsBatch};  // items per inference, with dynamic batching
    std::atomic<int64_t> queue_size{0};
    std::atomic<int64_t> active_infer_requests{0};
    std::atomic<int64_t> current_requests{0};
    std::atomic<uint64_t> streams{0};  // infer requests in the pool (OVMS's ovms_streams)
};

/// Every metric of the server. Ownership: the server owns one; the VersionMetrics it hands out are
/// shared with it, so a model version whose last completion callback runs after the server's
/// Metrics is gone still updates live series (versions unloaded keep their series, as OVMS does).
/// Thread safety: all methods may be called from any thread.
class Metrics {
  public:
    /// The series of one model version; created on first use.
    std::shared_ptr<VersionMetrics> version(const std::string& model, int64_t version);

    /// Counts one finished request of `method` ("ModelInfer", "ModelMetadata", ...) over
    /// `interface` ("gRPC" or "REST"); `version` 0 when no version was resolved.
    void record_request(const std::string& model, int64_t version, const std::string& interface,
                        const std::string& method, bool success, uint64_t duration_us);

    /// Prometheus text exposition format (version 0.0.4).
    std::string render() const;

    /// Counts one inference request (`method` "ModelInfer" or "ModelStreamInfer") over
    /// `interface` that its client abandoned before it completed: a REST client that closed its
    /// connection, a cancelled gRPC call or stream. The request is also counted as failed by
    /// record_request.
    void record_cancelled(const std::string& model, int64_t version, const std::string& interface,
                          const std::string& method);

    /// The success (or failure) count recorded for a label set; for tests.
    uint64_t requests(const std::string& model, int64_t version, const std::string& interface,
                      const std::string& method, bool success) const;

  private:
    using RequestKey = std::tuple<std::string, int64_t, std::string, std::string>;
    struct RequestSeries {
        uint64_t success = 0;
        uint64_t fail = 0;
    };
    mutable std::mutex m_mutex;
    std::map<std::pair<std::string, int64_t>, std::shared_ptr<VersionMetrics>> m_versions;
    std::map<RequestKey, RequestSeries> m_requests;
    std::map<std::tuple<std::string, int64_t, std::string>, std::unique_ptr<Histogram>> m_latency;
    std::map<std::tuple<std::string, int64_t, std::string, std::string>, uint64_t> m_cancelled;
};

}  // namespace vireo::server
