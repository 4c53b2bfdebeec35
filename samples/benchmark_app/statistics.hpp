// Declares LatencyStatistics: the latency summary benchmark_app reports.
#pragma once

#include <string>
#include <vector>

namespace vireo::benchmark {

/// Summary of latencies in milliseconds. Percentiles use the nearest-rank method; `percentile`
/// is the one asked for with -latency_percentile (1..100), `at_percentile` its value.
struct LatencyStatistics {
    size_t count = 0;
    double min = 0, max = 0, average = 0, median = 0, p90 = 0, p99 = 0;
    int percentile = 50;
    double at_percentile = 0;
    static LatencyStatistics from(std::vector<double> latencies_ms, int percentile = 50);
};

}  // namespace vireo::benchmark
