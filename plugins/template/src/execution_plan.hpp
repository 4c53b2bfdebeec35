// Declares TEMPLATE's execution plan: the SDK's GraphPlan (vireo/reference/graph_plan.hpp) built
// with TEMPLATE's name in its messages and a memory plan for the request's arena or slots.
#pragma once

#include <memory>

#include "config.hpp"
#include "vireo/reference/graph_plan.hpp"

namespace vireo::template_plugin {

using ExecutionPlan = reference::GraphPlan;
using reference::PlanStep;
using reference::PlanValue;
using reference::StepKind;
using reference::ValueKind;

/// Builds the plan of a transformed model (throws as GraphPlan's constructor does).
inline std::shared_ptr<const ExecutionPlan> make_execution_plan(
    std::shared_ptr<const Model> model) {
    reference::GraphPlanOptions options;
    options.device_name = kDeviceName;
    return std::make_shared<const ExecutionPlan>(std::move(model), std::move(options));
}

}  // namespace vireo::template_plugin
