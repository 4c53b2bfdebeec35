// Implements load_plugin: the checks a library passes before the core trusts its C++ code.
#include "plugin_loader.hpp"

#include <filesystem>

#include "vireo/exception.hpp"
#include "vireo/sdk/plugin_entry.hpp"

namespace vireo::runtime {
namespace fs = std::filesystem;

namespace {

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + ("'" + item + "'");
    return out;
}

// "libvireo_template_plugin.so" -> "vireo_template_plugin": the plugin's identity in versions
// and blob headers.
std::string library_stem(const std::string& path) {
    std::string name = fs::path(path).filename().string();
    if (name.rfind("lib", 0) == 0) name = name.substr(3);
    const size_t so = name.find(".so");
    return so == std::string::npos ? name : name.substr(0, so);
}

struct Opened {
    SharedLibrary library;
    std::string path;
};

Opened open_library(const PluginDescriptor& d) {
    const std::string who = "device '" + d.device_name + "'";
    std::error_code ec;
    for (const auto& candidate : d.candidates) {
        if (candidate.find('/') != std::string::npos) {
            if (!fs::exists(candidate, ec)) continue;
            // dlopen would block forever on a FIFO (its open() waits for a writer): only a
            // regular file (or a symlink to one) is opened.
            if (!fs::is_regular_file(candidate, ec))
                throw_error<InvalidArgument>(who, ": '", candidate, "' (from ", d.origin,
                                             ") is not a regular file, so not a loadable library");
            std::string error;
            SharedLibrary library = open_shared_library(candidate, error);
            if (!library)
                throw_error<InvalidArgument>(who, ": '", candidate, "' (from ", d.origin,
                                             ") is not a loadable library: ", error);
            return {std::move(library), candidate};
        }
        // A bare file name: the system's library search (LD_LIBRARY_PATH, RPATH, ld.so.cache).
        std::string error;
        if (SharedLibrary library = open_shared_library(candidate, error))
            return {std::move(library), candidate};
    }
    throw_error<NotFound>(who, ": plugin library '", d.location, "' (from ", d.origin,
                          ") not found; tried ", joined(d.candidates),
                          d.candidates.back().find('/') == std::string::npos
                              ? " (the last one with the system library search path)"
                              : "");
}

}  // namespace

std::shared_ptr<Plugin> load_plugin(const PluginDescriptor& d) {
    Opened opened = open_library(d);
    const std::string who = "device '" + d.device_name + "', library '" + opened.path + "'";

    std::string error;
    void* symbol = find_symbol(opened.library, VIREO_PLUGIN_ENTRY_SYMBOL, error);
    if (!symbol)
        throw_error<InvalidArgument>(
            who, ": no entry symbol '", VIREO_PLUGIN_ENTRY_SYMBOL,
            "' (not a Vireo plugin, or built without VIREO_DEFINE_PLUGIN): ", error);
    const auto entry_function = reinterpret_cast<sdk::PluginEntryFunction>(symbol);
    const sdk::PluginEntry* entry = entry_function();
    if (!entry) throw_error<InvalidArgument>(who, ": the entry point returned no PluginEntry");
    // Only plain-C fields are read until both checks pass.
    if (entry->abi_version != VIREO_PLUGIN_ABI_VERSION)
        throw_error<InvalidArgument>(
            who, ": plugin ABI version mismatch: the plugin was built for ABI version ",
            entry->abi_version, ", this runtime implements ABI version ", VIREO_PLUGIN_ABI_VERSION,
            "; rebuild the plugin against this SDK");
    const std::string tag = entry->toolchain_tag ? entry->toolchain_tag : "(none)";
    if (tag != VIREO_TOOLCHAIN_TAG)
        throw_error<InvalidArgument>(
            who, ": toolchain mismatch: the plugin was built with C++ library '", tag,
            "', this runtime with '", VIREO_TOOLCHAIN_TAG,
            "'; rebuild the plugin with the same standard library");
    if (!entry->create)
        throw_error<InvalidArgument>(who, ": the PluginEntry has no factory (create is null)");

    std::string factory_error;
    std::shared_ptr<sdk::IPlugin> impl;
    try {
        impl = entry->create(&factory_error);
    } catch (const std::exception& e) {
        factory_error = e.what();
    } catch (...) {
        factory_error = "unknown exception";
    }
    if (!impl)
        throw_error<Unavailable>(
            who, ": the plugin factory failed: ",
            factory_error.empty() ? "it returned null without a message" : factory_error);

    impl->set_device_name(d.device_name);
    impl->set_version(
        Version{entry->plugin_version ? entry->plugin_version : "", library_stem(opened.path)});
    return std::make_shared<Plugin>(std::move(impl), std::move(opened.library), opened.path);
}

}  // namespace vireo::runtime
