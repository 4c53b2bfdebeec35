// Declares the property keys of the BATCH meta-device (plugins/batch) beyond device::priorities
// and device::batch_size (AUTO_BATCH_SIZE).
#pragma once

#include <cstdint>

#include "vireo/properties.hpp"

namespace vireo::batch {

/// Milliseconds a request waits for its batch to fill before it runs alone on the unbatched
/// model (default 1000). Settable on the device, at compile time, and on the compiled model
/// afterwards (requests started later use the new value).
inline constexpr Property<uint32_t> timeout{"AUTO_BATCH_TIMEOUT"};
/// Compiled model, read-only: batches run full, and requests that ran alone after the timeout.
inline constexpr Property<uint64_t, PropertyMutability::RO> batches_run{"BATCH_BATCHES_RUN"};
inline constexpr Property<uint64_t, PropertyMutability::RO> ran_alone{"BATCH_RAN_ALONE"};

}  // namespace vireo::batch
