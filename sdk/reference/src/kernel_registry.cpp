// Implements KernelRegistry and evaluate(): finding, creating and running reference kernels.
#include <algorithm>

#include "vireo/op_registry.hpp"
#include "vireo/reference/kernel.hpp"

namespace vireo::reference {

void register_builtin_kernels(KernelRegistry& registry);

double Kernel::flops(const std::vector<Tensor>&, const std::vector<Tensor>& outputs) const {
    double n = 0;
    for (const auto& t : outputs) n += static_cast<double>(t.get_size());
    return n;
}

namespace {
bool handled_by_executor(const std::string& type) {
    return type == "Parameter" || type == "Result" || type == "Constant" || type == "ReadValue" ||
           type == "Assign";
}
}  // namespace

KernelRegistry& KernelRegistry::instance() {
    static KernelRegistry registry;
    return registry;
}

KernelRegistry::KernelRegistry() {
    register_builtin_kernels(*this);
}

void KernelRegistry::add(const std::string& type, KernelFactory factory) {
    add(type, std::move(factory), SupportCheck());
}

void KernelRegistry::add(const std::string& type, KernelFactory factory, SupportCheck check) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_factories[type] = Entry{std::move(factory), std::move(check)};
}

bool KernelRegistry::supports(const Node& node) const {
    if (handled_by_executor(node.get_type_name())) return true;
    SupportCheck check;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        auto it = m_factories.find(node.get_type_name());
        if (it == m_factories.end()) return false;
        check = it->second.check;
    }
    try {
        return check ? check(node) : create(node) != nullptr;
    } catch (const Exception&) {
        return false;
    }
}

std::unique_ptr<Kernel> KernelRegistry::create(const Node& node) const {
    KernelFactory factory;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        auto it = m_factories.find(node.get_type_name());
        if (it == m_factories.end())
            throw_error<NotImplemented>("no reference kernel for op type ", node.get_type_name(),
                                        " (", node.describe(), ")");
        factory = it->second.factory;
    }
    auto kernel = factory(node);
    if (!kernel) throw_error<NotImplemented>("no reference kernel for ", node.describe());
    return kernel;
}

std::vector<std::string> KernelRegistry::types() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::vector<std::string> out;
    for (const auto& [type, f] : m_factories) out.push_back(type);
    return out;
}

std::vector<Tensor> evaluate(const Node& node, const std::vector<Tensor>& inputs) {
    if (inputs.size() != node.get_input_size())
        throw_error<InvalidArgument>(node.describe(), ": evaluate needs ", node.get_input_size(),
                                     " inputs, got ", inputs.size());
    std::vector<InferInput> infer_inputs;
    for (const auto& t : inputs)
        infer_inputs.push_back({t.get_element_type(), PartialShape(t.get_shape()), t});
    const auto outs = node.get_op_def().infer(node, infer_inputs);
    std::vector<Tensor> outputs;
    for (const auto& o : outs) outputs.emplace_back(o.type, o.shape.to_shape());
    KernelRegistry::instance().create(node)->execute(inputs, outputs);
    return outputs;
}

}  // namespace vireo::reference
