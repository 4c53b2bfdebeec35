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
    m_registering_builtins = true;
    register_builtin_kernels(*this);
    m_registering_builtins = false;
}

void KernelRegistry::add(const std::string& type, KernelFactory factory) {
    add(type, std::move(factory), SupportCheck());
}

void KernelRegistry::add(const std::string& type, KernelFactory factory, SupportCheck check) {
    add("", type, std::move(factory), std::move(check));
}

void KernelRegistry::add(const std::string& domain, const std::string& type, KernelFactory factory,
                         SupportCheck check) {
    if (type.empty()) throw_error<InvalidArgument>("a reference kernel needs an op type");
    if (!factory)
        throw_error<InvalidArgument>("the reference kernel for ", type, " has no factory");
    std::lock_guard<std::mutex> lock(m_mutex);
    auto& entry = m_factories[{domain, type}];
    if (entry.builtin && !m_registering_builtins)
        throw_error<InvalidArgument>(
            "the reference kernel of the standard op ", type,
            " is built in and cannot be replaced; register a custom op's kernel under its domain "
            "(KernelRegistry::add(domain, type, ...))");
    entry = Entry{std::move(factory), std::move(check), m_registering_builtins};
}

const KernelRegistry::Entry* KernelRegistry::find_locked(const Node& node) const {
    const std::string& type = node.get_type_name();
    const std::string& domain = node.get_op_def().domain;
    if (auto it = m_factories.find({domain, type}); it != m_factories.end()) return &it->second;
    if (domain.empty()) return nullptr;
    // A custom op may use a kernel registered without a domain, never a built-in one.
    auto it = m_factories.find({std::string(), type});
    return it != m_factories.end() && !it->second.builtin ? &it->second : nullptr;
}

bool KernelRegistry::supports(const Node& node) const {
    if (handled_by_executor(node.get_type_name())) return true;
    SupportCheck check;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        const Entry* entry = find_locked(node);
        if (!entry) return false;
        check = entry->check;
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
        const Entry* entry = find_locked(node);
        if (!entry)
            throw_error<NotImplemented>("no reference kernel for op type ", node.get_type_name(),
                                        node.get_op_def().domain.empty()
                                            ? std::string()
                                            : " of domain " + node.get_op_def().domain,
                                        " (", node.describe(), ")");
        factory = entry->factory;
    }
    auto kernel = factory(node);
    if (!kernel) throw_error<NotImplemented>("no reference kernel for ", node.describe());
    return kernel;
}

std::vector<std::string> KernelRegistry::types() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::vector<std::string> out;
    for (const auto& [key, f] : m_factories)
        if (key.first.empty()) out.push_back(key.second);
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
