// Declares the support check: one predicate per op from which both IPlugin::query_model's
// answer and compile_model's NotImplemented message come, so the two cannot disagree.
#pragma once

#include <functional>
#include <string>
#include <utility>

#include "vireo/model.hpp"
#include "vireo/sdk/iplugin.hpp"

namespace vireo::sdk {

/// A support predicate's answer about one node: it runs, or it is refused with a reason that the
/// compile-time error quotes. Converts from bool, so a predicate may simply return true/false.
class Support {
  public:
    Support(bool runs) : m_runs(runs) {}  // NOLINT: implicit by design (see above)
    /// Refused, saying why ("f64 inputs are not supported", "dynamic output shape [?,4]").
    static Support refused(std::string reason) {
        Support s(false);
        s.m_reason = std::move(reason);
        return s;
    }
    operator bool() const { return m_runs; }  // NOLINT: `bool b = runs(node)` still compiles
    /// Why the node is refused ("" when the predicate gave no reason or the node runs).
    const std::string& reason() const { return m_reason; }

  private:
    bool m_runs;
    std::string m_reason;
};

/// Answers whether the device runs `node` (return a bool, or Support::refused("why")).
using OpSupport = std::function<Support(const Node& node)>;

/// Which nodes a predicate is asked about.
enum class SupportScope {
    kOps,       ///< every node but Parameter, Result and Constant, which always run (default)
    kAllNodes,  ///< every node, Parameters, Results and Constants included: for limits on a
                ///< model's inputs, outputs and weights (element types, dynamic shapes), so one
                ///< predicate states them for query and compile alike
};

/// query_model's answer: every node of `model` that `supported` accepts (and, with
/// SupportScope::kOps, every Parameter, Result and Constant), by friendly name, mapped to `device`.
SupportedOpsMap supported_ops(const Model& model, const std::string& device,
                              const OpSupport& supported, SupportScope scope = SupportScope::kOps);

/// For compile_model: throws NotImplemented "<device>: the model has ops this device does not
/// run: Type 'name' (reason), ..." naming every node `supported` refuses, in model order, each
/// with its reason when the predicate gave one. Returns quietly when all run.
///
///     sdk::OpSupport runs = [](const Node& n) -> sdk::Support {
///         if (n.get_type_name() != "Add") return false;
///         if (n.get_output_element_type(0) != element::f32)
///             return sdk::Support::refused("only f32 additions");
///         return true;
///     };
///     sdk::check_supported(*model, "MYDEV", runs);                  // in compile_model
///     return sdk::supported_ops(*model, get_device_name(), runs);  // in query_model
void check_supported(const Model& model, const std::string& device, const OpSupport& supported,
                     SupportScope scope = SupportScope::kOps);

}  // namespace vireo::sdk
