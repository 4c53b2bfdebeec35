// Declares the property keys of the AUTO and MULTI meta-devices (plugins/auto), beyond the
// standard ones (device::priorities, device::properties, the performance hints).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vireo/properties.hpp"

namespace vireo::auto_device {

/// Default true. When an inference fails on a device with a device error (Unavailable), the
/// request is re-run on the next device (AUTO: the next listed device able to run the model,
/// compiled there on demand, and later requests follow it; MULTI: another listed device) and the
/// caller sees success. false: the error reaches the caller. Settable on the device, at compile
/// time and later on the compiled model.
inline constexpr Property<bool> enable_runtime_fallback{"ENABLE_RUNTIME_FALLBACK"};
/// AUTO, default true. When the chosen device is not the host device (CPU, else TEMPLATE, when
/// listed and able to run the model), AUTO compiles on the host too, serves requests there
/// until the chosen device's compile (run in the background) finishes, then moves to it and
/// releases the host copy. false: compile_model waits for the chosen device.
inline constexpr Property<bool> enable_startup_fallback{"ENABLE_STARTUP_FALLBACK"};
/// Compiled model, read-only: every compile the meta-device started, in order, as "DEVICE"
/// (succeeded), "DEVICE (failed)" or "DEVICE (compiling)" (in the background, not done yet).
inline constexpr Property<std::vector<std::string>, PropertyMutability::RO> compiles{
    "AUTO_COMPILES"};
/// Compiled model, read-only: how many inferences failed with a device error and were re-run
/// on another device (runtime fallback).
inline constexpr Property<uint64_t, PropertyMutability::RO> failovers{"AUTO_FAILOVERS"};

}  // namespace vireo::auto_device
