// Implements LatencyStatistics.
#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace vireo::benchmark {
namespace {
double percentile(const std::vector<double>& sorted, double p) {
    const size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
    return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}
}  // namespace

LatencyStatistics LatencyStatistics::from(std::vector<double> latencies) {
    LatencyStatistics s;
    s.count = latencies.size();
    if (latencies.empty()) return s;
    std::sort(latencies.begin(), latencies.end());
    s.min = latencies.front();
    s.max = latencies.back();
    s.average = std::accumulate(latencies.begin(), latencies.end(), 0.0) / static_cast<double>(latencies.size());
    s.median = percentile(latencies, 50);
    s.p90 = percentile(latencies, 90);
    s.p99 = percentile(latencies, 99);
    return s;
}

}  // namespace vireo::benchmark
