// Declares benchmark_app's configuration files (-load_config, -dump_config), its per-op counter
// tables (-pc, -pcsort) and its reports (-json_report, -report_type with -report_folder).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "statistics.hpp"
#include "vireo/any.hpp"
#include "vireo/profiling_info.hpp"

namespace vireo::benchmark {

/// Device name -> property key -> value, as in OpenVINO's benchmark_app config files:
/// {"TEMPLATE": {"NUM_STREAMS": "2", "PERFORMANCE_HINT": "LATENCY"}}.
using DeviceConfigs = std::map<std::string, std::map<std::string, std::string>>;

/// Reads a -load_config file. Values may be strings, numbers or booleans (kept as their text).
/// Throws NotFound when the file cannot be read and InvalidArgument naming the file and the fault
/// (invalid JSON with its offset, a top level that is not an object of objects, a nested value).
DeviceConfigs load_config_file(const std::string& path);

/// Writes `configs` as a file load_config_file reads back equal. Throws on write errors.
void dump_config_file(const std::string& path, const DeviceConfigs& configs);

/// -pcsort modes (OpenVINO's names): counters in the model's order, sorted by real time
/// (descending), or only the executed ones in order; each with its share of the total.
enum class CounterSort { kNone, kNoSort, kSort, kSimpleSort };
CounterSort parse_counter_sort(const std::string& text);

/// Prints the counters of one request as a table with a total line.
void print_counters(const std::vector<ProfilingInfo>& rows, CounterSort sort);

/// Prints where the time of one request went (-pc_summary): the executed op rows' (not the
/// pipeline's Stage rows') time per op type
/// and per implementation (the first word of exec_type: a oneDNN implementation such as
/// `brgconv:avx512_core`, `ref` for a reference kernel, `view`), each with its row count and
/// share of the total, largest first, then the share spent in reorders (layout or precision
/// conversions).
void print_counter_summary(const std::vector<ProfilingInfo>& rows);

/// The counters of several requests averaged per op (rows matched by position; every request of
/// one compiled model reports the same rows).
std::vector<ProfilingInfo> average_counters(
    const std::vector<std::vector<ProfilingInfo>>& per_request);

/// What the reports say about the run.
struct RunSummary {
    std::vector<std::pair<std::string, std::string>> command_line;  // flag -> value, as given
    std::map<std::string, std::string> config;                      // what compile_model got
    std::vector<std::pair<std::string, std::string>> properties;    // the compiled model's
    std::string model, device, api, hint;
    uint32_t nireq = 0;
    double read_ms = 0, compile_ms = 0, first_ms = 0, duration_ms = 0, fps = 0;
    LatencyStatistics latency;
};

/// -json_report: every RunSummary field. Throws naming the file on write errors.
void write_json_report(const std::string& path, const RunSummary& run);

/// -report_type no_counters | average_counters | detailed_counters into `folder`:
/// benchmark_report.csv always, plus benchmark_average_counters_report.csv or
/// benchmark_detailed_counters_report.csv (';'-separated, as OpenVINO writes them).
/// Returns the files written.
std::vector<std::string> write_csv_reports(const std::string& folder, const std::string& type,
                                           const RunSummary& run,
                                           const std::vector<std::vector<ProfilingInfo>>& counters);

}  // namespace vireo::benchmark
