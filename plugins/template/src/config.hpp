// Declares the TEMPLATE plugin's property table and its Config (the SDK's ExecutionConfig).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "vireo/properties.hpp"
#include "vireo/sdk/execution_config.hpp"
#include "vireo/sdk/property_table.hpp"

namespace vireo::template_plugin {

/// The device name, as the core registers it by default.
inline constexpr const char* kDeviceName = "TEMPLATE";
/// RO compiled-model property: how many times requests of the compiled model allocated (or
/// grew) their working memory. Static models allocate once per request at creation.
inline constexpr Property<uint64_t, PropertyMutability::RO> arena_allocations{
    "TEMPLATE_ARENA_ALLOCATIONS"};
/// RO compiled-model property: bytes of the per-request arena of a static model (0 if dynamic).
inline constexpr Property<uint64_t, PropertyMutability::RO> arena_bytes{"TEMPLATE_ARENA_BYTES"};

/// The plugin's table: the SDK's common keys (hint, streams, threads, requests, profiling) and
/// the read-only device keys; one instance.
std::unique_ptr<sdk::PropertyTable> make_property_table();

/// The settings a compiled model runs with: the SDK's common execution settings (TEMPLATE has
/// no others).
using Config = sdk::ExecutionConfig;

}  // namespace vireo::template_plugin
