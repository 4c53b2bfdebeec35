// Declares Graph: what a CPU compiled model executes — values (tensors flowing between steps,
// each with one physical layout) and steps (fused oneDNN primitives, reorders, reference kernels,
// variable reads and writes), with the per-request memory plan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dnnl_ops.hpp"
#include "vireo/model.hpp"
#include "vireo/reference/kernel.hpp"

namespace vireo::cpu_plugin {

/// Physical layout of a computed value. Reference kernels read and write kPlain (the logical
/// row-major layout); convolutions and pooling work on kChannelsLast (NHWC/NDHWC/NWC).
/// kBlocked16: nChw16c (4-D f32 with channels a multiple of 16), only between Winograd
/// convolutions and the reorders around them (GraphCompiler::try_convolution).
enum class Layout { kPlain, kChannelsLast, kBlocked16 };

enum class ValueKind {
    kParameter,  ///< a model input (the user's tensor, used in place when contiguous)
    kConstant,   ///< a Constant, or a node computed once at compile time from Constants
    kComputed,   ///< written by a step into the request's arena (static) or own tensor (dynamic)
};

struct Value {
    ValueKind kind = ValueKind::kComputed;
    element::Type type;
    PartialShape shape;  ///< logical shape; static in a static graph
    Layout layout = Layout::kPlain;
    size_t parameter = 0;  ///< kParameter: index of the model input
    Tensor constant;       ///< kConstant: the data
    size_t producer = 0;   ///< kComputed: the step writing it
    size_t last_use = 0;   ///< last step reading it; steps().size() when read after the run
    size_t bytes = 0;      ///< static graphs: bytes of the value
    size_t offset = 0;     ///< static graphs: byte offset in the request's arena
    /// A view (static graphs): the same bytes as computed value `alias` under this value's shape
    /// (a Reshape, Squeeze, Unsqueeze or a Transpose that moves only axes of size 1). No step
    /// writes it; it keeps `alias` alive as long as it is read. SIZE_MAX: not a view.
    size_t alias = SIZE_MAX;
    std::string name;  ///< for messages: "output 0 of Convolution 'conv1'"
};

enum class StepKind {
    kReference,  ///< a prepared reference kernel (sdk/reference)
    kDnnl,       ///< a oneDNN primitive: a fused op or a reorder between layouts
    kReadValue,  ///< copies a variable's value (or the init input after a reset) to its output
    kAssign,     ///< a variable's new value, committed after the last step
    kSubgraph,   ///< If or Loop: runs the compiled graphs of its bodies (subgraph_runner.hpp)
    /// Dynamic graphs: the static region — every op whose shapes are static and whose inputs
    /// come from static model inputs, constants or the region — compiled as a static graph of
    /// its own (bodies[0]: fused oneDNN steps, one arena) and run as one step; its outputs are
    /// the values the rest of the graph reads.
    kRegion,
};

struct Graph;

/// Two stacked forward RNN layers, each too small for a second thread, run as a wavefront over
/// chunks of their time steps: with two or more threads the second layer computes chunk k while
/// the first computes chunk k + 1, one thread each. Held by the second layer's step; the first
/// layer's step is Step::deferred and runs whole, before the second, on one thread.
struct RnnWavefront {
    size_t first_step = 0;  ///< the first layer's step
    /// Per layer, its primitive per chunk in time order: each reads and writes its chunk of the
    /// layer's sequence (DnnlArg::offset) and passes its final states to the next chunk.
    std::vector<std::shared_ptr<const DnnlOp>> chunks[2];
    size_t scratchpad_offset[2] = {0, 0};  ///< per layer (set by plan_memory)
};

struct Step {
    StepKind kind = StepKind::kReference;
    std::string name;       ///< friendly names of the fused ops joined by '+' ("conv1+add+relu")
    std::string type;       ///< op types joined by '+' ("Convolution+Add+Relu"), or "Reorder"
    std::string exec_type;  ///< "ref", or the oneDNN implementation and layout
    NodePtr node;           ///< the anchor op (nullptr for reorders)
    std::vector<NodePtr> fused;  ///< every op of the model this step computes, anchor first
    std::shared_ptr<const reference::Kernel> kernel;  ///< kReference
    std::shared_ptr<const DnnlOp> dnnl;               ///< kDnnl
    std::vector<size_t> inputs;   ///< value ids (kDnnl: in DnnlOp::args instead)
    std::vector<size_t> outputs;  ///< value ids
    size_t variable = 0;          ///< kReadValue/kAssign: index in Graph::variables
    /// kSubgraph: If: then, else; Loop: body. kRegion: the region's static graph, whose inputs
    /// are `inputs` (model inputs) and whose results are `outputs`, in order.
    std::vector<std::shared_ptr<const Graph>> bodies;
    /// kRegion: per op of `fused` (the model's ops the region computes), its copy in the
    /// region's graph, so profiling and the runtime model can name what ran for each.
    std::vector<NodePtr> region_copies;
    /// kReference in a dynamic graph whose kernel does not take the node's inputs (a MatMul over
    /// compressed weights reads only its activations): the output shapes for the actual inputs,
    /// in place of the node's shape inference.
    std::function<std::vector<Shape>(const std::vector<Tensor>&)> output_shapes;
    /// Dynamic graphs, kReference: what the executor may hand on without running the kernel
    /// (set at compile time from the op type): kGather when its indices are 0, 1, …, n-1 (a
    /// beam_idx that keeps every row), kView a Reshape, Squeeze or Unsqueeze of contiguous
    /// memory (or strided memory the new shape can index without a copy), kBroadcast a
    /// Broadcast that widens nothing, kAppend a Concat that grows a variable (a KV cache:
    /// GraphCompiler::grows_state), which writes only its new parts after the past value when
    /// that value is the end of a buffer it appended to before (GraphExecutor::append).
    enum class PassThrough {
        kNone,
        kGather,
        kView,
        kBroadcast,
        kAppend
    } pass_through = PassThrough::kNone;
    /// Dynamic graphs: the step reads strided inputs as they lie (a view of a cache with spare
    /// room along its sequence axis); the executor gives every other step contiguous copies.
    bool reads_strided = false;
    /// kDnnl: at most this many OpenMP threads run the step (0: the request's own count).
    int max_threads = 0;
    /// kDnnl with max_threads 1, followed by another such step that does not read this one's
    /// outputs: with two or more threads the two run at the same time, one thread each (the
    /// directions of a small bidirectional RNN layer). Graph::plan_memory keeps both steps'
    /// values apart and gives them separate scratchpads.
    bool concurrent_with_next = false;
    /// kDnnl: where the step's scratchpad starts in the request's (set by plan_memory).
    size_t scratchpad_offset = 0;
    /// Not run in its place: the first layer of an RnnWavefront (run by the wavefront's step),
    /// or a reorder after it whose output nothing reads.
    bool deferred = false;
    /// kDnnl: this RNN layer and the one it reads (RnnWavefront::first_step) run together.
    std::shared_ptr<RnnWavefront> wavefront;
};

/// Weights in the layout a primitive chose, as CompiledModel::export_model writes them and
/// import_model hands them back to compile_graph, keyed by the port that produced the plain
/// weights ("friendly name:output index").
struct PackedWeights {
    dnnl::memory::desc desc;  ///< the primitive's weights layout
    Tensor bytes;             ///< desc.get_size() bytes in that layout
};
using PackedWeightsMap = std::map<std::string, PackedWeights>;

/// A compiled graph, built once (graph_compiler.hpp) and shared read-only by every request.
///
/// Static graphs (every shape static) place each computed value at a fixed offset in one arena
/// per request, reusing memory of values no longer needed (arena_bytes). Dynamic graphs (a dynamic
/// shape, or an If/Loop, whose output shapes are known only after running) run every step on
/// reference kernels and infer its output shapes from the actual inputs at each run.
struct Graph {
    std::shared_ptr<const Model> model;  ///< the model compiled (kept for the runtime model)
    std::vector<Value> values;
    std::vector<Step> steps;
    std::vector<size_t> parameter_values;  ///< per model input
    std::vector<size_t> result_values;     ///< per model output; always kPlain
    std::vector<VariableInfo> variables;   ///< sorted by id
    std::vector<NodePtr> views;            ///< ops that became views (no step, no copy)
    std::vector<size_t> assign_steps;
    bool dynamic = false;
    /// A dynamic graph with a kRegion step (its static part runs on oneDNN): worth compiling
    /// for each set of input shapes even though it stays dynamic (CompiledModel::graph_for).
    bool has_region = false;
    element::Type precision = element::f32;  ///< what compile_graph was asked for (bodies too)
    bool dynamic_quantization = false;       ///< likewise (CPU_DYNAMIC_QUANTIZATION)
    bool winograd = true;                    ///< likewise (CPU_WINOGRAD)
    size_t arena_bytes = 0;
    size_t scratchpad_bytes = 0;  ///< the largest oneDNN scratchpad of any step
    size_t weights_bytes = 0;     ///< constant memory oneDNN primitives hold (reordered weights)
    /// Weights whose layout differs from the model's, by source port: what export writes so that
    /// an import skips the reorders. Ports whose friendly name is not unique are left out.
    std::map<std::string, dnnl::memory> packed;
    size_t weights_reordered = 0;      ///< weights reordered at this compile
    size_t weights_from_blob = 0;      ///< weights taken as they were from an imported blob
    std::vector<Tensor> blob_buffers;  ///< the imported buffers those weights point into

    /// Fills last_use, bytes and offset (static graphs): first fit of each value into the arena
    /// among the values whose lifetimes overlap it; a view takes its source's offset and extends
    /// its source's lifetime to its own.
    void plan_memory();
};

}  // namespace vireo::cpu_plugin
