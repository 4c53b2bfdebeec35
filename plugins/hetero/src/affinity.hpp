// Declares the HETERO affinity pass: which device runs each op of a model.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "vireo/model.hpp"

namespace hetero {

/// Op -> device. Parameters, Constants and Results have none: they go wherever they are used.
using Affinity = std::unordered_map<const vireo::Node*, std::string>;

/// What query_model said for one device: op friendly name -> device.
using QueryFunction = std::function<std::map<std::string, std::string>(const std::string& device)>;

/// The rt_info key of an op that pins it to a device (manual affinity).
inline constexpr const char* kAffinityKey = "affinity";

/// True for the ops HETERO places itself (Parameter, Constant, Result).
bool is_placed_by_hetero(const vireo::Node& node);

/// Assigns every other op of `model` a device:
/// 1. an op whose rt_info has "affinity" goes to that device, which must be one of `devices`
///    (InvalidArgument naming the op and the device otherwise);
/// 2. each remaining op goes to the first device of `devices` whose query_model answer (asked
///    lazily, once per device, through `query`) names it;
/// 3. every ReadValue and Assign of one variable, and every op on a path between them, go to
///    one device: the ReadValue's, if it runs them all, else the first listed device that does
///    (a variable's state lives in one request of one device).
/// Throws NotImplemented naming every op no listed device runs, and the devices asked.
Affinity assign_affinity(const vireo::Model& model, const std::vector<std::string>& devices,
                         const QueryFunction& query);

}  // namespace hetero
