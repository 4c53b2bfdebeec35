// Implements SubgraphRunner: CPU runs an If/Loop body as a compiled graph of its own, compiled
// again for the shapes a dynamic body meets.
#include "subgraph_runner.hpp"

#include "config.hpp"
#include "graph_compiler.hpp"
#include "graph_executor.hpp"
#include "vireo/reference/constant_folding.hpp"

namespace vireo::cpu_plugin {

SubgraphRunner::SubgraphRunner(const Step& step, int omp_threads)
    : reference::SubgraphRunner(*step.node, kDeviceName, BodyResults::kOwned),
      m_step(step),
      m_threads(omp_threads) {
    m_bodies.resize(step.bodies.size());
    m_specialized.resize(step.bodies.size());
}

SubgraphRunner::~SubgraphRunner() = default;

std::string SubgraphRunner::unsupported_reason(const Node& node) {
    for (const auto& body : node.get_bodies())
        if (!body->get_variables().empty()) return "its body uses variables (ReadValue/Assign)";
    return "";
}

std::vector<Tensor> SubgraphRunner::run_body(size_t b, const std::vector<Tensor>& inputs,
                                             const std::function<bool()>& stop) {
    GraphExecutor& executor = executor_for(b, inputs);
    executor.run(inputs, stop, nullptr, {});
    std::vector<Tensor> results;
    for (size_t r = 0; r < m_step.bodies[b]->result_values.size(); ++r)
        results.push_back(executor.result(r).clone());
    return results;
}

GraphExecutor& SubgraphRunner::executor_for(size_t b, const std::vector<Tensor>& inputs) {
    const auto& generic = m_step.bodies[b];
    auto generic_executor = [&]() -> GraphExecutor& {
        ++m_generic_runs;
        if (!m_bodies[b]) m_bodies[b] = std::make_unique<GraphExecutor>(generic, m_threads);
        return *m_bodies[b];
    };
    if (!generic->dynamic) {
        ++m_compiled_runs;
        if (!m_bodies[b]) m_bodies[b] = std::make_unique<GraphExecutor>(generic, m_threads);
        return *m_bodies[b];
    }
    std::vector<Shape> shapes;
    for (const auto& t : inputs) shapes.push_back(t.get_shape());
    BodyShapes& cache = m_specialized[b];
    auto it = cache.compiled.find(shapes);
    if (it == cache.compiled.end()) {
        // Met once: compiled when the shapes come back.
        if (!cache.seen.take(shapes)) {
            cache.seen.add(shapes);
            return generic_executor();
        }
        if (cache.compiled.size() >= kMaxBodyShapes) {
            cache.seen.add(cache.recent.back());  // compiled again at its next use
            cache.compiled.erase(cache.recent.back());
            cache.recent.pop_back();
        }
        std::unique_ptr<GraphExecutor> executor;
        try {
            auto copy = generic->model->clone();
            std::map<Output, PartialShape> reshaped;
            const auto& params = copy->get_parameters();
            for (size_t i = 0; i < params.size() && i < shapes.size(); ++i)
                reshaped[params[i]->output(0)] = PartialShape(shapes[i]);
            copy->reshape(reshaped);
            reference::fold_model_constants(*copy);  // shapes computed from shapes become static
            auto graph = compile_graph(std::move(copy), nullptr, generic->precision,
                                       generic->dynamic_quantization, generic->winograd);
            if (!graph->dynamic || graph->has_region)
                executor = std::make_unique<GraphExecutor>(graph, m_threads);
        } catch (const Exception&) {
            // The generic body runs these shapes and reports what is wrong with them.
        }
        cache.recent.push_front(shapes);
        it = cache.compiled.emplace(std::move(shapes), Specialized{std::move(executor), {}}).first;
        it->second.use = cache.recent.begin();
    } else {
        cache.recent.splice(cache.recent.begin(), cache.recent, it->second.use);
    }
    if (!it->second.executor) return generic_executor();
    ++m_compiled_runs;
    return *it->second.executor;
}

const char* SubgraphRunner::last_run_bodies() const {
    if (m_generic_runs == 0 && m_compiled_runs == 0) return "no body run";
    if (m_generic_runs == 0) return "compiled body";
    if (m_compiled_runs == 0) return "generic body";
    return "compiled and generic bodies";
}

}  // namespace vireo::cpu_plugin
