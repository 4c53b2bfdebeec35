// Declares GraphPlan: what a plugin executes for a model — its ops in topological order, one
// prepared reference kernel per op shared by every request, each value's liveness and the memory
// plan (arena offsets or reusable slots) for the tensors flowing between them. Shared by the
// TEMPLATE, MOCK_REMOTE and ECHO plugins; plan_runner.hpp runs it on host memory.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "vireo/model.hpp"
#include "vireo/reference/kernel.hpp"

namespace vireo::reference {

/// Where a value (one output port of the graph) comes from.
enum class ValueKind {
    kParameter,  ///< a model input: the user's tensor, or a staging copy of it
    kConstant,   ///< a Constant's data, shared by every request
    kComputed,   ///< written by a step, kept in the request's arena or slots
};

/// One tensor of the graph as the plan sees it.
struct PlanValue {
    ValueKind kind = ValueKind::kComputed;
    element::Type type;
    PartialShape shape;  ///< as compiled; static in a static plan
    /// kParameter: index of the model input; kConstant: index in GraphPlan::constant_values().
    size_t index = 0;
    Tensor constant;      ///< kConstant: the data
    size_t producer = 0;  ///< kComputed: the step that writes it
    size_t first = 0;     ///< first step during which the value must be held
    size_t last = 0;    ///< last step that reads it (steps().size() if needed after the last step)
    size_t bytes = 0;   ///< static plans: bytes of the value (every kind)
    size_t offset = 0;  ///< static plans with a memory plan: byte offset in the request's arena
    size_t slot = 0;    ///< dynamic plans with a memory plan: reusable slot
    std::string name;   ///< "output 0 of Add 'sum'", for messages
};

enum class StepKind {
    kKernel,     ///< a reference kernel
    kReadValue,  ///< copies a variable's value (or the init input after a reset) to its output
    kAssign,     ///< a variable's new value, committed after the last step
    kSubgraph,   ///< If or Loop: runs the plans of its bodies (the plugin's PlanRunner hook)
};

class GraphPlan;

struct PlanStep {
    StepKind kind = StepKind::kKernel;
    NodePtr node;
    std::shared_ptr<const Kernel> kernel;  ///< kKernel only; shared by every request
    std::vector<size_t> inputs;            ///< value ids
    std::vector<size_t> outputs;           ///< value ids
    size_t variable = 0;                   ///< kReadValue/kAssign: index in variables()
    bool static_outputs = true;            ///< every output shape known at compile time
    /// kSubgraph only: one plan per body of the node (If: then, else; Loop: the body), built
    /// once at compile time with the same options and shared by every request.
    std::vector<std::shared_ptr<const GraphPlan>> bodies;
};

/// How a plugin wants its plan built.
struct GraphPlanOptions {
    /// Names the device at the start of every error message ("TEMPLATE: ...").
    std::string device_name = "reference";
    /// True: computed values (and parameters of static plans, as staging) get arena offsets or
    /// slots by liveness. False: the plugin places every value itself (MOCK_REMOTE gives each one
    /// a device buffer); offsets, slots, arena_bytes() and slot_count() stay 0.
    bool plan_memory = true;
};

/// The plan of a model. Built once per compiled model and shared read-only by every request (so
/// every method is const and thread-safe). The model must stay unchanged while the plan lives.
///
/// Static plans (every shape static): each request allocates one arena of arena_bytes(), and
/// values live at fixed offsets in it. Dynamic plans: shapes are re-inferred per run with each
/// op's infer function; values live in slots() that grow as needed. A plan with a sub-graph step
/// (If, Loop) is always dynamic: those steps learn their output shapes only by running bodies.
class GraphPlan {
  public:
    /// Builds the plan. Throws NotImplemented naming every op that has no reference kernel (all
    /// of them in one message), InvalidArgument for a value whose element type is not static, or
    /// (static plans) a value or arena larger than the machine's memory.
    explicit GraphPlan(std::shared_ptr<const Model> model, GraphPlanOptions options = {});

    const std::shared_ptr<const Model>& model() const { return m_model; }
    const GraphPlanOptions& options() const { return m_options; }
    const std::vector<PlanStep>& steps() const { return m_steps; }
    const std::vector<PlanValue>& values() const { return m_values; }
    /// Value id of each model input, in parameter order.
    const std::vector<size_t>& parameter_values() const { return m_parameter_values; }
    /// Value id of each Constant, in execution order.
    const std::vector<size_t>& constant_values() const { return m_constant_values; }
    /// Value id of each model output, in result order.
    const std::vector<size_t>& result_values() const { return m_result_values; }
    /// True for the output that may be written straight into its tensor: a computed value seen
    /// for the first time among the outputs.
    bool result_in_place(size_t output) const { return m_result_in_place.at(output); }
    /// Variables of ReadValue/Assign, sorted by id.
    const std::vector<VariableInfo>& variables() const { return m_variables; }
    /// Steps of kind kAssign, in order.
    const std::vector<size_t>& assign_steps() const { return m_assign_steps; }

    bool is_dynamic() const { return m_dynamic; }
    size_t arena_bytes() const { return m_arena_bytes; }
    size_t slot_count() const { return m_slot_count; }

    /// Every node of the model in execution order (Parameters first), and each one's step
    /// index (or -1 for nodes that are not steps: Parameter, Constant, Result).
    const NodeVector& nodes() const { return m_nodes; }
    long step_of(const Node* node) const;

  private:
    void build_steps();
    void compute_liveness();
    void plan_memory();

    std::shared_ptr<const Model> m_model;
    GraphPlanOptions m_options;
    NodeVector m_nodes;
    std::map<const Node*, long> m_step_of;
    std::vector<PlanStep> m_steps;
    std::vector<PlanValue> m_values;
    std::vector<size_t> m_parameter_values;
    std::vector<size_t> m_constant_values;
    std::vector<size_t> m_result_values;
    std::vector<bool> m_result_in_place;
    std::vector<VariableInfo> m_variables;
    std::vector<size_t> m_assign_steps;
    bool m_dynamic = false;
    size_t m_arena_bytes = 0;
    size_t m_slot_count = 0;
};

}  // namespace vireo::reference
