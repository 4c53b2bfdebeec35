// Declares the module entry point (VIREO_DEFINE_PLUGIN) and the ABI version the core checks.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <string>

#include "vireo/sdk/iplugin.hpp"
#include "vireo/version.hpp"  // VIREO_TOOLCHAIN_TAG

/// The plugin ABI version. Bump it on any change a built plugin would not survive: a virtual
/// method of an SDK interface added, removed or reordered, a change of signature, a layout
/// change of a type passed across the boundary (Tensor, Any, Model, Node, OpDef, ProfilingInfo).
///
/// History: 3 added IPlugin's core handle (a weak_ptr member: IPlugin's layout changed). 4: the
/// public handles CompiledModel, InferRequest, RemoteContext and VariableState hold a
/// PluginObject (their layout changed; ICore returns CompiledModel and RemoteContext by value).
/// 5: the run context — ISyncInferRequest::infer(RunContext&) replaces infer() and cancel(),
/// create_port_tensor() added, pipeline stages take a RunContext. 6: IAsyncInferRequest gained
/// its OnDestroy choice (a data member and a constructor argument), the support check's
/// predicate returns sdk::Support (check_supported / supported_ops changed signature). 7:
/// HostVariableState gained a data member. 8: sdk::ICore returns SDK handles
/// (device_handles.hpp: CompiledModelHandle, RemoteContextHandle) instead of the public
/// CompiledModel and RemoteContext (ICore's signatures changed).
#define VIREO_PLUGIN_ABI_VERSION 8

/// Name of the single exported symbol.
#define VIREO_PLUGIN_ENTRY_SYMBOL "vireo_plugin_entry"

namespace vireo::sdk {

/// What the entry point returns. The first three fields are plain C so the core can read them
/// safely before it trusts anything C++; only after abi_version and toolchain_tag match does it
/// call create().
struct PluginEntry {
    uint32_t abi_version;
    const char* toolchain_tag;
    const char* plugin_version;
    /// Creates the plugin. Returns null and fills `error` (if room) on failure.
    std::shared_ptr<IPlugin> (*create)(std::string* error);
};

using PluginEntryFunction = const PluginEntry* (*)();

}  // namespace vireo::sdk

/// Defines the module's entry point for `PluginClass` (default-constructible, derived from
/// vireo::sdk::IPlugin). Use once per module, at namespace scope:
///     VIREO_DEFINE_PLUGIN(my_device::Plugin, "1.2.0")
#define VIREO_DEFINE_PLUGIN(PluginClass, version)                                      \
    extern "C" __attribute__((visibility("default"))) const ::vireo::sdk::PluginEntry* \
    vireo_plugin_entry() {                                                             \
        static const ::vireo::sdk::PluginEntry entry{                                  \
            VIREO_PLUGIN_ABI_VERSION, VIREO_TOOLCHAIN_TAG, version,                    \
            [](std::string* error) -> std::shared_ptr<::vireo::sdk::IPlugin> {         \
                try {                                                                  \
                    return std::make_shared<PluginClass>();                            \
                } catch (const std::exception& e) {                                    \
                    if (error) *error = e.what();                                      \
                } catch (...) {                                                        \
                    if (error) *error = "unknown exception";                           \
                }                                                                      \
                return nullptr;                                                        \
            }};                                                                        \
        return &entry;                                                                 \
    }
