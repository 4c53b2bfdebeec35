// Declares the support check: one predicate per op from which both IPlugin::query_model's
// answer and compile_model's NotImplemented message come, so the two cannot disagree.
#pragma once

#include <functional>
#include <string>

#include "vireo/model.hpp"
#include "vireo/sdk/iplugin.hpp"

namespace vireo::sdk {

/// True when the device runs `node`. Parameters, Results and Constants are never asked about:
/// every device takes them.
using OpSupport = std::function<bool(const Node& node)>;

/// query_model's answer: every op of `model` that `supported` accepts (and every Parameter,
/// Result and Constant), by friendly name, mapped to `device`.
SupportedOpsMap supported_ops(const Model& model, const std::string& device,
                              const OpSupport& supported);

/// For compile_model: throws NotImplemented "<device>: the model has ops this device does not
/// run: Type 'name', ..." naming every op `supported` refuses, in model order. Returns quietly
/// when all run.
///
///     sdk::OpSupport runs = [](const Node& n) { return n.get_type_name() == "Add"; };
///     sdk::check_supported(*model, "MYDEV", runs);          // in compile_model
///     return sdk::supported_ops(*model, get_device_name(), runs);  // in query_model
void check_supported(const Model& model, const std::string& device, const OpSupport& supported);

}  // namespace vireo::sdk
