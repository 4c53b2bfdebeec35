// Declares load_plugin: dlopen a plugin library, check its entry point and create the plugin.
#pragma once

#include <memory>

#include "plugin.hpp"
#include "plugin_descriptor.hpp"

namespace vireo::runtime {

/// Finds the library among the descriptor's candidates, dlopens it (RTLD_NOW | RTLD_LOCAL),
/// reads VIREO_PLUGIN_ENTRY_SYMBOL, checks abi_version and toolchain_tag, calls create(), then
/// names the plugin (set_device_name) and sets its version {plugin_version, library name}.
/// Does not push properties. On failure nothing stays loaded, and the error names the device and
/// the library:
/// - NotFound: no candidate file exists (lists every path tried);
/// - InvalidArgument: not a loadable library (dlerror), no entry symbol, ABI version or
///   toolchain tag mismatch (both values);
/// - Unavailable: the plugin's factory failed (its message).
std::shared_ptr<Plugin> load_plugin(const PluginDescriptor& descriptor);

}  // namespace vireo::runtime
