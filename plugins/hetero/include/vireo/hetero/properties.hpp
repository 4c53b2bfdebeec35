// Declares the HETERO plugin's own property keys (the standard ones it uses, such as
// device::priorities and device::properties, are in vireo/properties.hpp).
#pragma once

#include <cstdint>

#include "vireo/properties.hpp"

namespace vireo::hetero {

/// A HETERO compiled model's number of parts (submodels), each compiled on one device:
///
///     auto compiled = core.compile_model(model, "HETERO:PARTIAL,TEMPLATE");
///     uint32_t parts = compiled.get_property(hetero::number_of_submodels);
inline constexpr Property<uint32_t, PropertyMutability::RO> number_of_submodels{
    "HETERO_NUMBER_OF_SUBMODELS"};

}  // namespace vireo::hetero
