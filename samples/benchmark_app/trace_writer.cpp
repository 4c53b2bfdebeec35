// Implements TraceWriter.
#include "trace_writer.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "vireo/exception.hpp"

namespace vireo::benchmark {
namespace {
std::string json_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20) continue;
        out += c;
    }
    return out;
}
}  // namespace

TraceWriter::TraceWriter() : m_origin(std::chrono::steady_clock::now()) {
    trace::set_observer([this](const trace::StageEvent& e) { record(e); });
}

TraceWriter::~TraceWriter() {
    trace::set_observer(nullptr);
}

void TraceWriter::set_request_index(const void* request, size_t index) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_request_index[request] = index;
}

void TraceWriter::record(const trace::StageEvent& e) {
    using us = std::chrono::duration<double, std::micro>;
    std::lock_guard<std::mutex> lock(m_mutex);
    auto [it, inserted] = m_tids.emplace(e.thread_id, m_tids.size() + 1);
    if (inserted) m_thread_names[it->second] = e.thread_name.empty() ? "thread" : e.thread_name;
    std::string name =
        e.completion ? "callback"
                     : "stage " + std::to_string(e.stage + 1) + "/" + std::to_string(e.stage_count);
    if (e.sync) name = "sync " + name;
    auto req = m_request_index.find(e.request);
    m_spans.push_back(Span{req == m_request_index.end() ? SIZE_MAX : req->second, e.request, name,
                           it->second, us(e.begin - m_origin).count(),
                           us(e.end - e.begin).count()});
}

size_t TraceWriter::event_count() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_spans.size();
}

void TraceWriter::write(const std::string& path) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::ofstream out(path);
    if (!out) throw_error<NotFound>("cannot create trace file '", path, "'");
    out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
    bool first = true;
    auto sep = [&] {
        if (!first) out << ",\n";
        first = false;
    };
    sep();
    out << R"({"name":"process_name","ph":"M","pid":1,"tid":0,"args":{"name":"benchmark_app"}})";
    for (const auto& [tid, name] : m_thread_names) {
        sep();
        out << R"({"name":"thread_name","ph":"M","pid":1,"tid":)" << tid << R"(,"args":{"name":")"
            << json_escape(name) << "\"}}";
    }
    for (const auto& s : m_spans) {
        sep();
        out << R"({"name":")" << json_escape(s.name)
            << R"(","cat":"pipeline","ph":"X","pid":1,"tid":)" << s.tid << ",\"ts\":" << s.begin_us
            << ",\"dur\":" << s.duration_us << ",\"args\":{\"request\":";
        if (s.request == SIZE_MAX)
            out << "null";
        else
            out << s.request;
        out << "}}";
    }
    out << "\n]}\n";
    out.close();  // a full device shows only when the buffer is flushed
    if (!out)
        throw_error<Exception>("failed writing trace file '", path, "': ", std::strerror(errno));
}

}  // namespace vireo::benchmark
