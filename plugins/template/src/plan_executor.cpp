// Implements PlanExecutor: TEMPLATE's ReadValue/Assign and If/Loop steps on top of the SDK's
// PlanRunner, and committing variables.
#include "plan_executor.hpp"

namespace vireo::template_plugin {
namespace {

const std::vector<std::shared_ptr<sdk::HostVariableState>> kNoStates;

}  // namespace

PlanExecutor::PlanExecutor(std::shared_ptr<const ExecutionPlan> plan,
                           std::function<void()> on_allocation)
    : PlanRunner(std::move(plan), std::move(on_allocation)),
      m_subgraphs(this->plan()->steps().size()) {}

PlanExecutor::~PlanExecutor() = default;

void PlanExecutor::run(const std::function<bool()>& stop, std::vector<StepTiming>* timings,
                       const std::vector<std::shared_ptr<sdk::HostVariableState>>& states) {
    // Held only while the run lasts: a body's run passes a temporary list.
    struct Clear {
        const std::vector<std::shared_ptr<sdk::HostVariableState>>*& states;
        ~Clear() { states = nullptr; }
    } clear{m_states};
    m_states = &states;
    PlanRunner::run(stop, timings);
}

void PlanExecutor::finish(const std::vector<std::shared_ptr<sdk::HostVariableState>>& states) {
    PlanRunner::finish();
    for (const size_t s : plan()->assign_steps()) {
        const PlanStep& step = plan()->steps()[s];
        states.at(step.variable)->commit(value(step.inputs[0]));
    }
}

// After a reset, a ReadValue with an init input reads the init value; otherwise the state.
Tensor PlanExecutor::read_value_source(const PlanStep& step, const std::vector<Tensor>& ins) const {
    const sdk::HostVariableState& state = *(m_states ? *m_states : kNoStates).at(step.variable);
    return state.is_reset() && !ins.empty() ? ins[0] : state.get_state();
}

std::vector<Shape> PlanExecutor::special_output_shapes(size_t s, const std::vector<Tensor>& ins) {
    const PlanStep& step = plan()->steps()[s];
    if (step.kind == StepKind::kReadValue) return {read_value_source(step, ins).get_shape()};
    return std::vector<Shape>(step.outputs.size(), ins.at(0).get_shape());  // Assign
}

void PlanExecutor::run_special_step(size_t s, const std::vector<Tensor>& ins,
                                    std::vector<Tensor>& outs) {
    const PlanStep& step = plan()->steps()[s];
    if (step.kind == StepKind::kAssign) {
        // The value is committed by finish(); an Assign's own outputs (if any) pass it through.
        for (auto& out : outs) ins[0].copy_to(out);
        return;
    }
    const Tensor source = read_value_source(step, ins);
    if (source.get_shape() != outs[0].get_shape())
        throw_error<InvalidArgument>(kDeviceName, ": ", step.node->describe(), ": variable '",
                                     m_states->at(step.variable)->get_name(), "' holds shape ",
                                     source.get_shape(), ", expected ", outs[0].get_shape());
    source.copy_to(outs[0]);
}

std::vector<Tensor> PlanExecutor::run_subgraph(size_t s, const std::vector<Tensor>& ins,
                                               const std::function<bool()>& stop) {
    if (!m_subgraphs[s])
        m_subgraphs[s] = std::make_unique<SubgraphRunner>(plan()->steps()[s], on_allocation());
    return m_subgraphs[s]->run(ins, stop);
}

}  // namespace vireo::template_plugin
