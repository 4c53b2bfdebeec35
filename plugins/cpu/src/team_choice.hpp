// Declares TeamChoice: whether a request's next run uses its OpenMP team or one thread, from the
// times of its earlier runs (InferRequest::infer runs the model compiled for one thread then).
#pragma once

#include <algorithm>
#include <cstdint>

namespace vireo::cpu_plugin {

/// Chooses between a request's OpenMP team and one thread for each run of a static graph.
///
/// oneDNN splits each step evenly over the team and joins it at a barrier, so when another
/// process takes one of the cores a step waits for a thread that is not running: on 2 cores next
/// to two compile jobs RegNetX-400MF took 24 ms a run at 2 threads against 7 ms on one thread
/// (3 ms quiet). The team stays the choice while its runs look uncontended: the calling thread
/// spent at least kContended of the run's wall time on a CPU (about all of it on a quiet machine,
/// where it computes or spins at the barriers) and the run took under kSlower times the fastest
/// team run so far (a thread spinning at a barrier for a descheduled one keeps its CPU share).
/// After two team runs in a row that fail either (one slow run is a hiccup), the next run tries
/// one thread (a probe); a probe faster than the team's recent runs by kMargin switches to one
/// thread, and from then on every `interval`-th run probes the team again, which switches back when
/// it is the faster. A probe that loses doubles the interval before the next (up to kMaxInterval),
/// so a model whose runs are slow for other reasons pays a slow probe rarely.
///
/// A model whose team runs are short (under kShortRun) gets up to kShortProbes probes from run
/// kFirstProbe on even on a quiet machine (the first one-thread run is a cold one), each of which
/// must beat the fastest team run by kMargin: its steps are so small that waking the team and
/// joining it at every step's barrier can cost more than the second thread wins (a 27 µs model took
/// 53 µs on two threads), and the calling thread's CPU share does not show that.
class TeamChoice {
  public:
    static constexpr double kContended = 0.8;  ///< CPU share below which the one thread is tried
    static constexpr double kMargin = 0.9;     ///< a probe must take under this times the other
    static constexpr double kSlower = 1.5;     ///< a team run this much slower than the fastest
    static constexpr uint32_t kFirstInterval = 16, kMaxInterval = 256;
    static constexpr double kShortRun = 2e-3;    ///< seconds: team runs this short get probes
    static constexpr uint32_t kFirstProbe = 32;  ///< ... after this many runs (past warm-up)
    static constexpr uint32_t kShortProbes = 3;  ///< at most this many, kFirstInterval apart

    /// True: the next run uses one thread.
    bool serial_next() const {
        if (m_serial) return m_runs < m_next_probe;  // probe the team at m_next_probe
        return short_probe_due() || (m_contended >= 2 && m_runs >= m_next_probe);
    }

    /// A run ended: `serial` as serial_next() said, its wall time and the calling thread's CPU
    /// time over it.
    void record(bool serial, double wall, double cpu) {
        const bool probe = serial != m_serial;
        // The short-model probe (not contention's) races the fastest team run: the smoothed
        // time still holds the first runs' warm-up.
        const bool short_probe = probe && serial && short_probe_due();
        ++m_runs;
        if (!serial && (m_fastest_team == 0 || wall < m_fastest_team)) m_fastest_team = wall;
        double& mine = serial ? m_serial_time : m_team_time;
        if (!probe) {
            mine = mine == 0 ? wall : kSmoothing * wall + (1 - kSmoothing) * mine;
            if (!serial) {
                const bool contended = cpu < kContended * wall || wall > kSlower * m_fastest_team;
                m_contended = contended ? m_contended + 1 : 0;
            }
            return;
        }
        if (short_probe) {
            ++m_short_probes;
            m_next_short = m_runs + kFirstInterval;
        }
        const double other = short_probe ? m_fastest_team : serial ? m_team_time : m_serial_time;
        mine = wall;
        if (other == 0 || wall < kMargin * other) {  // the probe wins: switch
            m_serial = serial;
            m_interval = kFirstInterval;
            m_contended = 0;
        } else {
            m_interval = std::min(m_interval * 2, kMaxInterval);
        }
        m_next_probe = m_runs + m_interval;
    }

    bool serial() const { return m_serial; }

  private:
    static constexpr double kSmoothing = 0.5;
    bool short_probe_due() const {
        return m_short_probes < kShortProbes && m_runs >= m_next_short && m_fastest_team > 0 &&
               m_fastest_team < kShortRun;
    }
    bool m_serial = false;                // the current choice
    uint32_t m_short_probes = 0;          // short-model probes so far
    uint64_t m_next_short = kFirstProbe;  // the run of the next one
    uint32_t m_contended = 0;             // team runs in a row that looked contended
    uint64_t m_runs = 0;
    uint64_t m_next_probe = 0;
    uint32_t m_interval = kFirstInterval;
    double m_team_time = 0, m_serial_time = 0;  // smoothed wall times of each choice's runs
    double m_fastest_team = 0;                  // the fastest team run
};

}  // namespace vireo::cpu_plugin
