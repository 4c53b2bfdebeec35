// Implements LatencyStatistics.
#include "statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace vireo::benchmark {
namespace {
double nearest_rank(const std::vector<double>& sorted, double p) {
    const size_t rank =
        static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
    return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}
}  // namespace

LatencyStatistics LatencyStatistics::from(std::vector<double> latencies, int chosen) {
    LatencyStatistics s;
    s.count = latencies.size();
    s.percentile = chosen;
    if (latencies.empty()) return s;
    std::sort(latencies.begin(), latencies.end());
    s.min = latencies.front();
    s.max = latencies.back();
    s.average = std::accumulate(latencies.begin(), latencies.end(), 0.0) /
                static_cast<double>(latencies.size());
    s.median = nearest_rank(latencies, 50);
    s.p90 = nearest_rank(latencies, 90);
    s.p99 = nearest_rank(latencies, 99);
    s.at_percentile = nearest_rank(latencies, chosen);
    return s;
}

}  // namespace vireo::benchmark
