// Implements SubgraphRunner: TEMPLATE runs an If/Loop body as a graph plan of its own.
#include "subgraph_runner.hpp"

#include "config.hpp"
#include "plan_executor.hpp"

namespace vireo::template_plugin {

SubgraphRunner::SubgraphRunner(const PlanStep& step, std::function<void()> on_allocation)
    : reference::SubgraphRunner(*step.node, kDeviceName, BodyResults::kViews),
      m_step(step),
      m_on_allocation(std::move(on_allocation)),
      m_bodies(step.bodies.size()) {}

SubgraphRunner::~SubgraphRunner() = default;

std::vector<Tensor> SubgraphRunner::run_body(size_t b, const std::vector<Tensor>& inputs,
                                             const std::function<bool()>& stop) {
    if (!m_bodies[b])
        m_bodies[b] = std::make_unique<PlanExecutor>(m_step.bodies[b], m_on_allocation);
    PlanExecutor& body = *m_bodies[b];
    for (size_t p = 0; p < inputs.size(); ++p) body.bind_input(p, inputs[p]);
    body.run(stop, nullptr, {});
    std::vector<Tensor> results;
    const size_t count = m_step.bodies[b]->result_values().size();
    for (size_t r = 0; r < count; ++r) results.push_back(body.result(r));
    return results;
}

}  // namespace vireo::template_plugin
