// Declares CompiledModel: a model compiled for CPU — the compiled Graph shared by every request,
// the streams executor its requests run on, and its properties.
#pragma once

#include <algorithm>
#include <atomic>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <vector>

#include "config.hpp"
#include "graph.hpp"
#include "graph_executor.hpp"
#include "seen_shapes.hpp"
#include "vireo/sdk/icompiled_model.hpp"

namespace vireo::cpu_plugin {

class Plugin;

/// The op types `graph` runs on reference kernels (If/Loop bodies included), each once, sorted.
std::vector<std::string> reference_op_types(const Graph& graph);

/// A compiled model: the graph (oneDNN primitives and reordered weights made once, shared by every
/// request) and a streams executor named "CpuStreams" with resolved_streams() streams.
///
/// Properties (a compiled model's sdk::PropertyTable): OPTIMAL_NUMBER_OF_INFER_REQUESTS
/// (= streams), NETWORK_NAME, EXECUTION_DEVICES {"CPU"}, LOADED_FROM_CACHE, PERF_COUNT (also
/// settable), NUM_STREAMS, PERFORMANCE_HINT, INFERENCE_NUM_THREADS,
/// PERFORMANCE_HINT_NUM_REQUESTS, DEVICE_ID, INFERENCE_PRECISION_HINT (the one used),
/// SUPPORTED_PROPERTIES.
///
/// Thread safety: as ICompiledModel; the per-step statistics are atomics.
class CompiledModel : public sdk::ICompiledModel {
  public:
    /// `model` is the private copy `graph` was compiled from; `unfused`, when given, the same
    /// model before its attention was fused (Plugin::compile), which the per-shape graphs and
    /// export_model start from.
    CompiledModel(std::shared_ptr<Model> model, std::shared_ptr<const Graph> graph,
                  const std::shared_ptr<const Plugin>& plugin, const Config& config,
                  bool loaded_from_cache, std::shared_ptr<Model> unfused = nullptr);
    ~CompiledModel() override;

    std::shared_ptr<sdk::IAsyncInferRequest> create_infer_request() const override;
    /// Writes the properties, the model (IR) and the reordered weights in the primitives' layouts
    /// (Graph::packed); import compiles the model again but takes those weights as they are when
    /// the primitives choose the same layouts (same CPU features), so it skips their reorders.
    void export_model(std::ostream& blob) const override;
    /// The executed graph: one node per step standing for its fused ops, with rt_info
    /// originalLayersNames, layerType, primitiveType (oneDNN implementation or "ref"),
    /// outputLayouts, execOrder and execTimeMcs; the model's rt_info adds weightsReordered and
    /// weightsFromBlob (how many weights this compile reordered / took from an imported blob).
    std::shared_ptr<const Model> get_runtime_model() const override;
    void set_property(const AnyMap& properties) override;
    Any get_property(const std::string& name) const override;

    const std::shared_ptr<const Graph>& graph() const { return m_graph; }
    /// For a dynamic model whose shapes all follow from its input shapes (no If/Loop, no
    /// variables): the model compiled for these input shapes, static and on oneDNN, made on their
    /// second use (the first runs graph(): shapes that change at every call never pay a compile)
    /// and kept in a least-recently-used cache of CPU_SHAPE_CACHE_SIZE shape sets (a graph
    /// evicted stays alive while a request still runs it, and its shapes are compiled again at
    /// their next use; thread-safe). Null when the model is not specializable (no dynamic input
    /// shape, or variables), the cache size is 0, the shapes are new, or the specialized graph is
    /// still dynamic (shapes that depend on values) without a static region to run on oneDNN:
    /// the caller then runs graph() — and asks again at the next call.
    std::shared_ptr<const Graph> graph_for(const std::vector<Shape>& input_shapes) const;
    bool specializable() const { return m_specializable; }
    const Config& config() const { return m_config; }
    bool profiling_enabled() const { return m_profiling.load(std::memory_order_relaxed); }
    /// A static model compiled for one thread, for runs TeamChoice moves off a busy team: made on
    /// first use (thread-safe), its packed weights shared with graph()'s. Null when graph() is
    /// dynamic or already one thread, or when compiling failed.
    std::shared_ptr<const Graph> one_thread_graph() const;
    /// Counts a run on one_thread_graph() (CPU_SERIAL_RUNS).
    void count_serial_run() const { m_serial_runs.fetch_add(1, std::memory_order_relaxed); }
    /// What CPU_KV_CACHE_BYTES reads: the requests' executors add a cache buffer's bytes when they
    /// allocate it, and its last holder subtracts them when it is freed (it may outlive this).
    const std::shared_ptr<std::atomic<uint64_t>>& kv_cache_counter() const {
        return m_kv_cache_bytes;
    }
    void record_step_times(const std::vector<StepTiming>& timings) const;
    /// Average time of step `s` (of step `inner` of the static region that is step `s`) in
    /// microseconds, or -1 if it never ran with profiling on.
    double average_step_time(size_t s) const;
    double average_step_time(size_t s, size_t inner) const;

  protected:
    std::shared_ptr<sdk::ISyncInferRequest> create_sync_infer_request() const override;

  private:
    struct StepStats {
        std::atomic<uint64_t> total_us{0};
        std::atomic<uint64_t> runs{0};
    };

    std::shared_ptr<Model> m_model;
    std::shared_ptr<Model> m_unfused;  ///< m_model before attention fusion, or m_model
    std::shared_ptr<const Graph> m_graph;
    Config m_config;
    bool m_loaded_from_cache;
    std::atomic<bool> m_profiling;
    mutable std::atomic<uint64_t> m_serial_runs{0};
    std::shared_ptr<std::atomic<uint64_t>> m_kv_cache_bytes =
        std::make_shared<std::atomic<uint64_t>>(0);
    mutable std::mutex m_one_thread_mutex;
    mutable bool m_one_thread_tried = false;
    mutable std::shared_ptr<const Graph> m_one_thread_graph;
    std::unique_ptr<StepStats[]> m_step_stats;
    std::map<size_t, std::unique_ptr<StepStats[]>> m_region_stats;  ///< per kRegion step, its steps
    std::unique_ptr<sdk::PropertyTable> m_properties;
    bool m_specializable = false;
    mutable std::mutex m_specializations_mutex;
    struct Specialization {
        std::shared_ptr<const Graph> graph;  ///< null: these shapes run on the reference graph
        std::list<std::vector<Shape>>::iterator use;  ///< its place in m_recent
    };
    mutable std::map<std::vector<Shape>, Specialization> m_specializations;
    mutable std::list<std::vector<Shape>> m_recent;  ///< most recently used first
    /// Shape sets met once and not compiled (or evicted from the cache).
    mutable SeenShapes m_seen{std::max<size_t>(16, 2 * size_t{m_config.shape_cache_size})};
};

}  // namespace vireo::cpu_plugin
