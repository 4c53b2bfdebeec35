// Declares SubgraphRunner: one request's execution of an If or Loop step, by running the compiled
// graphs of its bodies with their own executors.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "graph.hpp"

namespace vireo::cpu_plugin {

class GraphExecutor;

/// Runs one If or Loop step for one request. Body executors are made on first use and kept, so
/// their memory is reused by later runs and iterations. Loop supports whole (unsliced) inputs,
/// back edges, the current-iteration input, the body condition, last-iteration outputs and outputs
/// concatenated along an axis (start 0, stride 1, part size 1, end -1); the compiler refuses other
/// slicing. Not thread-safe (one request).
class SubgraphRunner {
  public:
    SubgraphRunner(const Step& step, int omp_threads);
    ~SubgraphRunner();

    /// Computes the node's outputs (new tensors) from its inputs. `stop` is polled before each body
    /// run. Throws InvalidArgument naming the node for a non-scalar condition or trip count, or a
    /// Loop output without a value after zero iterations.
    std::vector<Tensor> run(const std::vector<Tensor>& inputs, const std::function<bool()>& stop);

    /// Why the compiler cannot run `node` (If or Loop) with this runner, or "" when it can.
    static std::string unsupported_reason(const Node& node);

  private:
    std::vector<Tensor> run_if(const std::vector<Tensor>& inputs,
                               const std::function<bool()>& stop);
    std::vector<Tensor> run_loop(const std::vector<Tensor>& inputs,
                                 const std::function<bool()>& stop);
    /// Runs body `b` on `inputs` (one per body Parameter) and returns copies of its Results.
    std::vector<Tensor> run_body(size_t b, const std::vector<Tensor>& inputs,
                                 const std::function<bool()>& stop);
    /// The executor for body `b` on inputs of these shapes: a body compiled with dynamic shapes
    /// (its ops on reference kernels) is compiled again for the shapes it meets, so its
    /// convolutions, MatMuls and RNNs run on oneDNN as the main graph's do (CompiledModel::
    /// graph_for); up to kMaxBodyShapes shapes per body, then the generic body.
    GraphExecutor& executor_for(size_t b, const std::vector<Tensor>& inputs);
    static constexpr size_t kMaxBodyShapes = 8;

    const Step& m_step;
    int m_threads;
    std::vector<std::unique_ptr<GraphExecutor>> m_bodies;  // the generic body graphs
    /// Per body: executors of the body specialized to input shapes (null: not specializable).
    std::vector<std::map<std::vector<Shape>, std::unique_ptr<GraphExecutor>>> m_specialized;
};

}  // namespace vireo::cpu_plugin
