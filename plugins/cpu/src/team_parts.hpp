// Declares for_team_parts: a range of rows split into contiguous parts over the calling thread's
// OpenMP team, or run on the calling thread alone when the work is too small for a fork.
#pragma once

#include <omp.h>

#include <cstddef>

namespace vireo::cpu_plugin {

/// Calls body(first, last) over [0, rows): once on the calling thread when `small` or the team
/// has one thread (a fork and a barrier cost more than a short pass), else once per thread of
/// the calling thread's OpenMP team with equal contiguous parts. `body` must not throw.
template <typename Body>
void for_team_parts(size_t rows, bool small, Body&& body) {
    if (small || omp_get_max_threads() < 2) {
        body(size_t{0}, rows);
        return;
    }
#pragma omp parallel
    {
        const auto t = static_cast<size_t>(omp_get_thread_num());
        const auto n = static_cast<size_t>(omp_get_num_threads());
        body(rows * t / n, rows * (t + 1) / n);
    }
}

}  // namespace vireo::cpu_plugin
