// Declares SubgraphRunner: the semantics of the sub-graph ops If and Loop for one request — which
// body runs, on which inputs, how often, and how its outputs are put together — over bodies that a
// plugin runs its own way (run_body). TEMPLATE runs them as graph plans, CPU as compiled graphs.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "vireo/node.hpp"
#include "vireo/tensor.hpp"

namespace vireo::reference {

/// Runs one If or Loop node (If-8, Loop-5) for one request.
///
/// If: the condition picks the then body (0) or the else body (1); their inputs and outputs
/// follow the node's then_/else_inputs and then_/else_outputs maps.
/// Loop: a trip count (an empty tensor or a negative value: unbounded) and an execution condition
/// (empty: true); per iteration the body receives each Parameter's input whole, or its slice
/// (input_slicing: axis, start, stride, end, part size; negative start/end count from the end, a
/// negative stride walks backwards), or the value its back edge carried from the previous
/// iteration, or the current-iteration number (in the Parameter's element type); the body
/// condition (if any) decides whether another iteration runs. Each output is the last
/// iteration's value (after zero iterations: the initial input of the Parameter it is carried
/// back to) or the concatenation of every iteration's values along an axis (output_slicing).
/// Scan outputs are refused, naming the node, once they hold a quarter of the memory the process
/// may use (sdk::physical_memory_bytes).
///
/// A plugin derives and implements run_body(); errors start with `device`. Not thread-safe (one
/// request).
class SubgraphRunner {
  public:
    /// What run_body() returns.
    enum class BodyResults {
        kViews,  ///< views of the body's memory, valid until the next run_body (the runner copies
                 ///< what it keeps across iterations)
        kOwned,  ///< tensors of their own (kept as they are)
    };

    /// `node` (an If or a Loop) must outlive the runner.
    SubgraphRunner(const Node& node, std::string device, BodyResults results);
    virtual ~SubgraphRunner();
    SubgraphRunner(const SubgraphRunner&) = delete;
    SubgraphRunner& operator=(const SubgraphRunner&) = delete;

    /// Computes the node's outputs from its inputs. With BodyResults::kViews the returned tensors
    /// may be views of a body's memory, valid until the next run. `stop` is polled before each
    /// body run; when it returns true the run ends with Cancelled naming the node. Throws
    /// InvalidArgument naming the node when a condition or trip count does not hold one value, a
    /// slice is out of range, an output has no value after zero iterations, or the scan outputs
    /// outgrow the memory limit.
    std::vector<Tensor> run(const std::vector<Tensor>& inputs, const std::function<bool()>& stop);

  protected:
    /// Runs body `b` on `inputs` (one per body Parameter, in order) and returns its Results in
    /// order. `stop` is the run's: a body that runs many steps should poll it too.
    virtual std::vector<Tensor> run_body(size_t b, const std::vector<Tensor>& inputs,
                                         const std::function<bool()>& stop) = 0;

    const Node& node() const { return m_node; }
    const std::string& device() const { return m_device; }

  private:
    std::vector<Tensor> call_body(size_t b, const std::vector<Tensor>& inputs,
                                  const std::function<bool()>& stop, int64_t iteration);
    std::vector<Tensor> run_if(const std::vector<Tensor>& inputs,
                               const std::function<bool()>& stop);
    std::vector<Tensor> run_loop(const std::vector<Tensor>& inputs,
                                 const std::function<bool()>& stop);
    Tensor kept(const Tensor& t) const;

    const Node& m_node;
    std::string m_device;
    BodyResults m_results;
};

}  // namespace vireo::reference
