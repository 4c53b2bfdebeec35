// Declares GraphExecutor: one request's working memory for a compiled Graph and the loop that
// runs its steps.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "graph.hpp"
#include "subgraph_runner.hpp"
#include "vireo/sdk/host_variable_state.hpp"

namespace vireo::cpu_plugin {

/// Time of one step of the last run (filled only when profiling is on).
struct StepTiming {
    bool executed = false;
    std::chrono::microseconds real{0};
    std::vector<StepTiming> inner;  ///< a kRegion step: per step of its graph
    /// How the step ran when that is decided at run time, in place of Step::exec_type (an append
    /// step: "append in-place", "append copy" into its buffer, "append new buffer"), else null.
    const char* exec_type = nullptr;
};

/// Runs a Graph for one request.
///
/// Static graphs: one arena of Graph::arena_bytes and one oneDNN scratchpad are allocated in the
/// constructor, and every step's tensors and oneDNN memory objects are made there too, so a run
/// allocates nothing (model inputs are used in place when they are contiguous host tensors, else
/// copied). Dynamic graphs: each step's output shapes are inferred from its actual inputs and its
/// outputs reallocated only when their shape changes.
///
/// Each run sets the calling thread's OpenMP team size to `omp_threads` first (oneDNN forks its
/// team from the calling thread). Not thread-safe: one request uses it at a time.
class GraphExecutor {
  public:
    /// Tensors of at most this many elements are "small" to the dynamic graph's memos (their
    /// bytes are compared; see StepMemo).
    static constexpr size_t kSmallInput = 64;

    /// `cache_bytes` (or null) counts the bytes of the buffers append() holds (CPU_KV_CACHE_BYTES).
    GraphExecutor(std::shared_ptr<const Graph> graph, int omp_threads,
                  std::shared_ptr<std::atomic<uint64_t>> cache_bytes = nullptr);
    ~GraphExecutor();

    /// Runs every step on `inputs` (per model input). `stop` is polled before each step; when it
    /// returns true the run ends with Cancelled. `timings` (or null) receives per-step times.
    void run(const std::vector<Tensor>& inputs, const std::function<bool()>& stop,
             std::vector<StepTiming>* timings,
             const std::vector<std::shared_ptr<sdk::HostVariableState>>& states);
    /// After a successful run: copies each result into `outputs` (resized for dynamic shapes) and
    /// commits the Assign values to `states`.
    void finish(std::vector<Tensor>& outputs,
                const std::vector<std::shared_ptr<sdk::HostVariableState>>& states);
    const std::shared_ptr<const Graph>& graph() const { return m_graph; }
    /// After a run: the value of model output `index` as computed (valid until the next run).
    const Tensor& result(size_t index) const {
        return m_values.at(m_graph->result_values.at(index));
    }

  private:
    void run_steps(const std::function<bool()>& stop,
                   const std::vector<std::shared_ptr<sdk::HostVariableState>>& states);
    void run_step(size_t s, const std::vector<std::shared_ptr<sdk::HostVariableState>>& states);
    /// Steps s and s + 1 (Step::concurrent_with_next) at the same time, one thread each.
    void run_concurrent_pair(size_t s);
    /// Step s and its Step::wavefront's first layer, chunk by chunk on two threads.
    void run_wavefront(size_t s,
                       const std::vector<std::shared_ptr<sdk::HostVariableState>>& states);
    /// `op`'s argument map on this request's memory (model inputs: bound at each run, listed in
    /// m_input_args for step `step`), its scratchpad from `scratchpad_offset` on.
    std::unordered_map<int, dnnl::memory> bind(const DnnlOp& op, size_t step,
                                               size_t scratchpad_offset);
    void run_dynamic_step(size_t s,
                          const std::vector<std::shared_ptr<sdk::HostVariableState>>& states);
    /// A Step::PassThrough::kAppend Concat: writes its output into the step's Growth buffer —
    /// only the new parts when the first input is the buffer's filled rows, else the whole
    /// output from the first row of that buffer or of its spare when it fits and none of
    /// `states` views it, else into a new buffer with spare rows — and makes the output a view
    /// of the buffer.
    /// False (nothing done) for inputs Concat's kernel must see (types, ranks, shapes).
    bool append(size_t s, const std::vector<std::shared_ptr<sdk::HostVariableState>>& states);
    /// A buffer for append(), its bytes counted in m_cache_bytes for as long as it lives.
    Tensor cache_buffer(element::Type type, const Shape& shape);
    /// Dynamic graphs, after step s: the buffers of the values s read last (and nothing else
    /// shares) go to m_free for later steps and runs.
    void release_dead_inputs(size_t s);
    /// A free buffer of `type` holding at least `need` elements and not much more, taken out of
    /// m_free (its capacity in `capacity`), or an empty tensor.
    Tensor take_free(element::Type type, size_t need, size_t& capacity);

    std::shared_ptr<const Graph> m_graph;
    int m_threads;
    std::shared_ptr<void> m_arena;
    std::shared_ptr<void> m_scratchpad;
    dnnl::stream m_stream;
    dnnl::stream m_pair_stream;    // the second thread's, made on first use
    std::vector<Tensor> m_values;  // the current tensor of each value
    // Dynamic graphs: elements each value's own buffer holds (0: none, or a tensor it does not
    // own, such as an If's output). A value that grows (a KV cache, one token per inference) gets
    // half as much again as it needs, so it is reallocated (and zeroed) a logarithmic number of
    // times, not at every inference.
    std::vector<size_t> m_capacity;
    // Dynamic graphs: per value, the last step that reads it (SIZE_MAX: kept to the end of the
    // run and after: results, values an Assign commits, values never read). After that step its
    // buffer goes to m_free, from which later steps' outputs (and the next run's) take theirs: a
    // prompt's per-layer scores and activations reuse a few buffers instead of each value holding
    // one, which the kernel handed out as fresh zeroed pages at every run.
    std::vector<size_t> m_last_use;
    struct FreeBuffer {
        Tensor tensor;
        size_t capacity;  // elements
        // The tensor's type, kept here: take_free scans the list at every step that needs a
        // buffer, and reading it through each tensor missed the cache once per entry (the
        // weights a decoder streams between two steps evict everything else).
        element::Type type;
    };
    std::vector<FreeBuffer> m_free;
    // Per kAppend step: the buffer its outputs view, with spare rows along the Concat's axis, and
    // how many rows are written. Only that step writes into it, and only after `filled`.
    struct Growth {
        Tensor storage;
        size_t filled = 0;
        Tensor spare;  // the buffer used before, kept while it fits (beam search alternates)
    };
    std::vector<Growth> m_growth;
    // Dynamic graphs: per step, the output shapes its last shape inference gave and what they
    // depended on — every input's type and shape, and the bytes of the small inputs (at most
    // kSmallInput elements: shape vectors, axes, scalars), when inference without the larger
    // inputs' values gave static shapes. A run whose inputs match reuses the shapes
    // (inferred_shapes). A decoder's token runs the same ~1,500 steps on the same shapes but
    // for the cache's length, and inference builds its inputs' shapes and reads their values
    // anew at each step.
    struct ShapeMemo {
        bool valid = false;
        std::vector<element::Type> types;
        std::vector<Shape> shapes;
        std::vector<bool> is_small;
        std::vector<std::vector<char>> small;  // per input: its bytes when small
        std::vector<Shape> outputs;
    };
    // Dynamic graphs: steps whose inputs did not change since their last run are not run again.
    // A step qualifies (m_memoisable) when its op is deterministic and standard and none of its
    // outputs goes to a variable; a run records a memo (remember) when each input is a constant,
    // small (kSmallInput elements, compared by its bytes) or ShapeOf's input (compared by its
    // shape), and each output is small. Its outputs are then pinned: never released to m_free,
    // so they still hold what the step wrote when the next run finds the same inputs (reuse).
    // A decoder's shape arithmetic (ShapeOf, Gather, Unsqueeze, Concat of a few integers) is
    // about a third of its ~1,500 steps per token and gives the same values at every token.
    struct StepMemo {
        bool valid = false;
        std::vector<element::Type> types;
        std::vector<Shape> shapes;
        std::vector<std::vector<char>> bytes;  // per input: its bytes (constants and ShapeOf: none)
        std::vector<const void*> outputs;      // each output's data as the step left it
    };
    std::vector<StepMemo> m_step_memo;
    std::vector<char> m_memoisable;  // per step
    std::vector<char> m_pinned;      // per value
    /// Step s's outputs are still what it wrote for inputs equal to the current ones.
    bool reuse(size_t s) const;
    /// After step s ran: records its memo and pins its outputs, or forgets it and unpins them.
    void remember(size_t s);
    std::vector<ShapeMemo> m_shape_memo;
    /// The output shapes of reference step `s` for its current inputs (m_step_inputs[s]); valid
    /// until the step's next call.
    const std::vector<Shape>& inferred_shapes(size_t s);
    bool m_appends = false;  // the graph has an append step, so values may be strided views
    std::shared_ptr<std::atomic<uint64_t>> m_cache_bytes;  // or null
    // Per value: whether it is a kAppend step's view of its Growth buffer (finish() hands it to
    // the variable with HostVariableState::share instead of copying or exchanging it).
    std::vector<bool> m_appended;
    std::vector<Tensor> m_staging;  // per model input: contiguous copy when the user's is not
    std::vector<std::vector<Tensor>> m_step_inputs, m_step_outputs;
    // Static graphs: per oneDNN step, its argument map, and the arguments bound to model inputs
    // (their data handle is set at each run).
    std::vector<std::unordered_map<int, dnnl::memory>> m_args;
    struct InputArg {
        size_t step;
        int arg;
        size_t value;
    };
    std::vector<InputArg> m_input_args;
    // Per step with a Step::wavefront: per layer, each chunk's argument map.
    std::unordered_map<size_t, std::array<std::vector<std::unordered_map<int, dnnl::memory>>, 2>>
        m_wavefront_args;
    std::vector<std::unique_ptr<SubgraphRunner>> m_subgraphs;  // per step, made on first use
    std::vector<std::unique_ptr<GraphExecutor>> m_regions;     // per kRegion step, likewise
    const std::function<bool()>* m_stop = nullptr;             // of the current run
    std::vector<StepTiming>* m_timings = nullptr;              // of the current run, or null
};

}  // namespace vireo::cpu_plugin
