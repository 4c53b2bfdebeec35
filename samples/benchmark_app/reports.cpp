// Implements benchmark_app's configuration files, counter tables and reports.
#include "reports.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "json.hpp"
#include "vireo/exception.hpp"

namespace vireo::benchmark {
namespace {

using samples::json_quote;
using samples::JsonValue;

const char* status_name(ProfilingInfo::Status status) {
    switch (status) {
        case ProfilingInfo::Status::EXECUTED:
            return "EXECUTED";
        case ProfilingInfo::Status::OPTIMIZED_OUT:
            return "OPTIMIZED_OUT";
        case ProfilingInfo::Status::NOT_RUN:
            break;
    }
    return "NOT_RUN";
}

double ms(std::chrono::microseconds t) {
    return static_cast<double>(t.count()) / 1000.0;
}

// Closes `out` and reports a failed write (a full disk) naming the file.
void finish(std::ofstream& out, const std::string& what, const std::string& path) {
    out.close();
    if (!out)
        throw_error<Exception>("failed writing ", what, " '", path, "': ", std::strerror(errno));
}

std::ofstream open_for_writing(const std::string& what, const std::string& path) {
    std::ofstream out(path);
    if (!out)
        throw_error<NotFound>("cannot create ", what, " '", path, "': ", std::strerror(errno));
    return out;
}

std::string scalar_text(const JsonValue& value) {
    switch (value.kind) {
        case JsonValue::Kind::String:
            return value.text;
        case JsonValue::Kind::Bool:
            return value.boolean ? "YES" : "NO";
        case JsonValue::Kind::Number: {
            std::ostringstream s;
            s.precision(17);
            s << value.number;
            return s.str();
        }
        default:
            return {};
    }
}

}  // namespace

DeviceConfigs load_config_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw_error<NotFound>("-load_config: cannot read '", path, "'");
    std::stringstream text;
    text << in.rdbuf();
    JsonValue root;
    try {
        root = samples::parse_json(text.str());
    } catch (const std::exception& e) {
        throw_error<InvalidArgument>("-load_config '", path, "': ", e.what());
    }
    if (root.kind != JsonValue::Kind::Object)
        throw_error<InvalidArgument>("-load_config '", path,
                                     "': expected an object {\"DEVICE\": {\"KEY\": \"VALUE\"}}");
    DeviceConfigs configs;
    for (const auto& [device, properties] : root.members) {
        if (properties.kind != JsonValue::Kind::Object)
            throw_error<InvalidArgument>("-load_config '", path, "': the value of \"", device,
                                         "\" is not an object of properties");
        auto& config = configs[device];
        for (const auto& [key, value] : properties.members) {
            if (value.kind == JsonValue::Kind::Object || value.kind == JsonValue::Kind::Array ||
                value.kind == JsonValue::Kind::Null)
                throw_error<InvalidArgument>("-load_config '", path, "': property \"", key,
                                             "\" of \"", device,
                                             "\" must be a string, number or boolean");
            config[key] = scalar_text(value);
        }
    }
    return configs;
}

void dump_config_file(const std::string& path, const DeviceConfigs& configs) {
    auto out = open_for_writing("config file", path);
    out << "{";
    bool first_device = true;
    for (const auto& [device, config] : configs) {
        out << (first_device ? "\n  " : ",\n  ") << json_quote(device) << ": {";
        first_device = false;
        bool first = true;
        for (const auto& [key, value] : config) {
            out << (first ? "\n    " : ",\n    ") << json_quote(key) << ": " << json_quote(value);
            first = false;
        }
        out << (config.empty() ? "}" : "\n  }");
    }
    out << "\n}\n";
    finish(out, "config file", path);
}

CounterSort parse_counter_sort(const std::string& text) {
    if (text.empty()) return CounterSort::kNone;
    if (text == "no_sort") return CounterSort::kNoSort;
    if (text == "sort") return CounterSort::kSort;
    if (text == "simple_sort") return CounterSort::kSimpleSort;
    throw_error<InvalidArgument>("-pcsort must be sort, no_sort or simple_sort, got '", text, "'");
}

void print_counters(const std::vector<ProfilingInfo>& rows, CounterSort sort) {
    std::vector<const ProfilingInfo*> shown;
    double total = 0;
    for (const auto& row : rows) {
        total += ms(row.real_time);
        if (sort != CounterSort::kSimpleSort || row.status == ProfilingInfo::Status::EXECUTED)
            shown.push_back(&row);
    }
    if (sort == CounterSort::kSort)
        std::stable_sort(shown.begin(), shown.end(),
                         [](const ProfilingInfo* a, const ProfilingInfo* b) {
                             return a->real_time > b->real_time;
                         });
    for (const ProfilingInfo* row : shown) {
        std::printf(
            "  %-40s %-13s layerType: %-18s execType: %-14s realTime (ms): %8.3f  cpuTime (ms): "
            "%8.3f",
            row->node_name.c_str(), status_name(row->status), row->node_type.c_str(),
            row->exec_type.c_str(), ms(row->real_time), ms(row->cpu_time));
        if (sort != CounterSort::kNone && total > 0)
            std::printf("  proportion: %5.2f%%", 100.0 * ms(row->real_time) / total);
        std::printf("\n");
    }
    std::printf("  Total time: %.3f ms (%zu of %zu rows shown)\n", total, shown.size(),
                rows.size());
}

void print_counter_summary(const std::vector<ProfilingInfo>& rows) {
    struct Group {
        double ms = 0;
        size_t rows = 0;
    };
    std::map<std::string, Group> by_type, by_impl;
    double total = 0, reorders = 0;
    for (const auto& row : rows) {
        // Stage rows (the pipeline's five stages) contain the op rows: left out of the groups.
        if (row.status != ProfilingInfo::Status::EXECUTED || row.node_type == "Stage") continue;
        const double t = ms(row.real_time);
        total += t;
        const std::string impl = row.exec_type.substr(0, row.exec_type.find(' '));
        by_type[row.node_type].ms += t;
        ++by_type[row.node_type].rows;
        by_impl[impl.empty() ? "(none)" : impl].ms += t;
        ++by_impl[impl.empty() ? "(none)" : impl].rows;
        if (row.node_type == "Reorder") reorders += t;
    }
    auto print = [total](const char* title, const std::map<std::string, Group>& groups) {
        std::vector<std::pair<std::string, Group>> sorted(groups.begin(), groups.end());
        std::stable_sort(sorted.begin(), sorted.end(),
                         [](const auto& a, const auto& b) { return a.second.ms > b.second.ms; });
        std::printf("  %s:\n", title);
        for (const auto& [name, g] : sorted)
            std::printf("    %-40s %5zu rows %10.3f ms %6.2f%%\n", name.c_str(), g.rows, g.ms,
                        total > 0 ? 100.0 * g.ms / total : 0.0);
    };
    print("time per op type", by_type);
    print("time per implementation (ref = reference kernel)", by_impl);
    std::printf("  reorders: %.3f ms (%.2f%% of %.3f ms)\n", reorders,
                total > 0 ? 100.0 * reorders / total : 0.0, total);
}

std::vector<ProfilingInfo> average_counters(
    const std::vector<std::vector<ProfilingInfo>>& per_request) {
    if (per_request.empty()) return {};
    std::vector<ProfilingInfo> average = per_request.front();
    for (size_t r = 1; r < per_request.size(); ++r) {
        const auto& rows = per_request[r];
        for (size_t i = 0; i < average.size() && i < rows.size(); ++i) {
            average[i].real_time += rows[i].real_time;
            average[i].cpu_time += rows[i].cpu_time;
        }
    }
    const auto n = static_cast<int64_t>(per_request.size());
    for (auto& row : average) {
        row.real_time = std::chrono::microseconds(row.real_time.count() / n);
        row.cpu_time = std::chrono::microseconds(row.cpu_time.count() / n);
    }
    return average;
}

void write_json_report(const std::string& path, const RunSummary& run) {
    auto out = open_for_writing("JSON report", path);
    const auto& s = run.latency;
    out << "{\n  \"model\": " << json_quote(run.model)
        << ",\n  \"device\": " << json_quote(run.device) << ",\n  \"api\": " << json_quote(run.api)
        << ",\n  \"hint\": " << json_quote(run.hint) << ",\n  \"nireq\": " << run.nireq
        << ",\n  \"read_ms\": " << run.read_ms << ",\n  \"compile_ms\": " << run.compile_ms
        << ",\n  \"first_inference_ms\": " << run.first_ms << ",\n  \"count\": " << s.count
        << ",\n  \"duration_ms\": " << run.duration_ms << ",\n  \"throughput_fps\": " << run.fps
        << ",\n  \"latency_ms\": {\"median\": " << s.median << ", \"average\": " << s.average
        << ", \"min\": " << s.min << ", \"max\": " << s.max << ", \"p90\": " << s.p90
        << ", \"p99\": " << s.p99 << ", \"percentile\": " << s.percentile
        << ", \"at_percentile\": " << s.at_percentile << "},\n  \"command_line\": {";
    for (size_t i = 0; i < run.command_line.size(); ++i)
        out << (i ? ", " : "") << json_quote(run.command_line[i].first) << ": "
            << json_quote(run.command_line[i].second);
    out << "},\n  \"config\": {";
    size_t i = 0;
    for (const auto& [key, value] : run.config)
        out << (i++ ? ", " : "") << json_quote(key) << ": " << json_quote(value);
    out << "},\n  \"properties\": {";
    for (i = 0; i < run.properties.size(); ++i)
        out << (i ? ", " : "") << json_quote(run.properties[i].first) << ": "
            << json_quote(run.properties[i].second);
    out << "}\n}\n";
    finish(out, "JSON report", path);
}

namespace {

std::string csv_field(const std::string& text) {  // ';' separated; quote fields that need it
    if (text.find_first_of(";\"\n") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

void write_counter_rows(std::ofstream& out, const std::vector<ProfilingInfo>& rows) {
    out << "layerName;execStatus;layerType;execType;realTime (ms);cpuTime (ms)\n";
    double real = 0, cpu = 0;
    for (const auto& row : rows) {
        out << csv_field(row.node_name) << ';' << status_name(row.status) << ';'
            << csv_field(row.node_type) << ';' << csv_field(row.exec_type) << ';'
            << ms(row.real_time) << ';' << ms(row.cpu_time) << '\n';
        real += ms(row.real_time);
        cpu += ms(row.cpu_time);
    }
    out << "Total;;;;" << real << ';' << cpu << '\n';
}

}  // namespace

std::vector<std::string> write_csv_reports(
    const std::string& folder, const std::string& type, const RunSummary& run,
    const std::vector<std::vector<ProfilingInfo>>& counters) {
    if (type != "no_counters" && type != "average_counters" && type != "detailed_counters")
        throw_error<InvalidArgument>(
            "-report_type must be no_counters, average_counters or detailed_counters, got '", type,
            "'");
    std::error_code ec;
    std::filesystem::create_directories(folder.empty() ? "." : folder, ec);
    if (ec) throw_error<NotFound>("-report_folder: cannot create '", folder, "': ", ec.message());
    const std::filesystem::path dir(folder.empty() ? "." : folder);
    std::vector<std::string> written;

    const std::string main_path = (dir / "benchmark_report.csv").string();
    auto out = open_for_writing("report", main_path);
    out << "Command line parameters\n";
    for (const auto& [flag, value] : run.command_line)
        out << csv_field(flag) << ';' << csv_field(value) << '\n';
    out << "\nConfiguration setup\n";
    for (const auto& [key, value] : run.config)
        out << csv_field(key) << ';' << csv_field(value) << '\n';
    out << "\nCompiled model properties\n";
    for (const auto& [key, value] : run.properties)
        out << csv_field(key) << ';' << csv_field(value) << '\n';
    const auto& s = run.latency;
    out << "\nExecution results\n"
        << "read model time (ms);" << run.read_ms << "\ncompile model time (ms);" << run.compile_ms
        << "\nfirst inference time (ms);" << run.first_ms << "\ntotal execution time (ms);"
        << run.duration_ms << "\ntotal number of iterations;" << s.count << "\nlatency (ms) median;"
        << s.median << "\nlatency (ms) average;" << s.average << "\nlatency (ms) min;" << s.min
        << "\nlatency (ms) max;" << s.max << "\nlatency (ms) percentile " << s.percentile << ';'
        << s.at_percentile << "\nthroughput (FPS);" << run.fps << '\n';
    finish(out, "report", main_path);
    written.push_back(main_path);

    if (type == "average_counters") {
        const std::string path = (dir / "benchmark_average_counters_report.csv").string();
        auto csv = open_for_writing("report", path);
        write_counter_rows(csv, average_counters(counters));
        finish(csv, "report", path);
        written.push_back(path);
    } else if (type == "detailed_counters") {
        const std::string path = (dir / "benchmark_detailed_counters_report.csv").string();
        auto csv = open_for_writing("report", path);
        for (size_t r = 0; r < counters.size(); ++r) {
            csv << (r ? "\n" : "") << "Performance counters of request " << r << '\n';
            write_counter_rows(csv, counters[r]);
        }
        finish(csv, "report", path);
        written.push_back(path);
    }
    return written;
}

}  // namespace vireo::benchmark
