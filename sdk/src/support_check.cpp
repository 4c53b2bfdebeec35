// Implements the support check shared by query_model and compile_model.
#include "vireo/sdk/support_check.hpp"

namespace vireo::sdk {
namespace {

bool always_runs(const Node& node, SupportScope scope) {
    if (scope == SupportScope::kAllNodes) return false;
    const std::string& type = node.get_type_name();
    return type == "Parameter" || type == "Result" || type == "Constant";
}

}  // namespace

SupportedOpsMap supported_ops(const Model& model, const std::string& device,
                              const OpSupport& supported, SupportScope scope) {
    SupportedOpsMap out;
    for (const auto& node : model.get_ordered_ops())
        if (always_runs(*node, scope) || supported(*node)) out[node->get_friendly_name()] = device;
    return out;
}

void check_supported(const Model& model, const std::string& device, const OpSupport& supported,
                     SupportScope scope) {
    std::string refused;
    for (const auto& node : model.get_ordered_ops()) {
        if (always_runs(*node, scope)) continue;
        const Support answer = supported(*node);
        if (answer) continue;
        refused += (refused.empty() ? "" : ", ") + node->get_type_name() + " '" +
                   node->get_friendly_name() + "'";
        if (!answer.reason().empty()) refused += " (" + answer.reason() + ")";
    }
    if (!refused.empty())
        throw_error<NotImplemented>(device,
                                    ": the model has ops this device does not run: ", refused);
}

}  // namespace vireo::sdk
