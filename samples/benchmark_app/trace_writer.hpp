// Declares TraceWriter: collects pipeline stage events and writes a Chrome trace event file.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "vireo/trace.hpp"

namespace vireo::benchmark {

/// Installed as the vireo::trace observer while benchmark_app measures. The file has one row
/// (tid) per thread that ran a stage, named after the thread, and one complete event per stage
/// per request; it opens in chrome://tracing and Perfetto.
class TraceWriter {
  public:
    TraceWriter();
    ~TraceWriter();  // uninstalls the observer
    void record(const trace::StageEvent& event);
    /// Names the requests ("request 3") in event args; unknown requests get "request ?".
    void set_request_index(const void* request, size_t index);
    void write(const std::string& path) const;
    size_t event_count() const;

  private:
    struct Span {
        size_t request;
        const void* request_ptr;
        std::string name;
        size_t tid;
        double begin_us;
        double duration_us;
    };
    mutable std::mutex m_mutex;
    std::chrono::steady_clock::time_point m_origin;
    std::vector<Span> m_spans;
    std::map<size_t, std::string> m_thread_names;  // tid -> name
    std::map<size_t, size_t> m_tids;               // thread hash -> small tid
    std::map<const void*, size_t> m_request_index;
};

}  // namespace vireo::benchmark
