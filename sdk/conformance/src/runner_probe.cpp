// vireo_conformance --probe: what a plugin library is (entry symbol, ABI version and toolchain it
// was built for versus the core's, version) and what its device reports, or why it cannot load.
#include <dlfcn.h>

#include "runner.hpp"
#include "vireo/conformance/suite.hpp"
#include "vireo/sdk/plugin_entry.hpp"

namespace vireo::conformance::runner {
namespace {

/// Reads the module's plain-C entry fields with dlopen/dlsym (never calls its factory). Returns
/// false when the library cannot be used.
bool inspect_library(const std::string& path, std::ostream& out) {
    out << "library:          " << path << '\n';
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* error = dlerror();
        out << "  cannot be loaded: " << (error ? error : "unknown dlopen error") << '\n';
        return false;
    }
    bool ok = true;
    void* symbol = dlsym(handle, VIREO_PLUGIN_ENTRY_SYMBOL);
    if (!symbol) {
        out << "entry symbol:     MISSING (" << VIREO_PLUGIN_ENTRY_SYMBOL
            << " is not exported; define it with VIREO_DEFINE_PLUGIN)\n";
        ok = false;
    } else {
        out << "entry symbol:     " << VIREO_PLUGIN_ENTRY_SYMBOL << '\n';
        auto entry_function = reinterpret_cast<sdk::PluginEntryFunction>(symbol);
        const sdk::PluginEntry* entry = entry_function();
        if (!entry) {
            out << "  the entry function returned null\n";
            ok = false;
        } else {
            const bool abi_ok = entry->abi_version == VIREO_PLUGIN_ABI_VERSION;
            const std::string tag = entry->toolchain_tag ? entry->toolchain_tag : "(null)";
            const bool tag_ok = tag == VIREO_TOOLCHAIN_TAG;
            out << "plugin ABI:       " << entry->abi_version
                << " (core: " << VIREO_PLUGIN_ABI_VERSION << ")" << (abi_ok ? "" : "  MISMATCH")
                << '\n';
            out << "toolchain tag:    " << tag << " (core: " << VIREO_TOOLCHAIN_TAG << ")"
                << (tag_ok ? "" : "  MISMATCH") << '\n';
            out << "plugin version:   "
                << (entry->plugin_version ? entry->plugin_version : "(null)") << '\n';
            ok = abi_ok && tag_ok;
        }
    }
    dlclose(handle);
    return ok;
}

template <typename F>
void print_property(std::ostream& out, const char* label, F&& get) {
    out << label;
    try {
        out << get() << '\n';
    } catch (const std::exception& e) {
        out << "(error: " << e.what() << ")\n";
    }
}

}  // namespace

int probe(const std::string& device, const std::string& plugin_path, std::ostream& out) {
    out << "device:           " << device << '\n';
    bool library_ok = true;
    if (plugin_path.empty()) {
        out << "library:          from plugins.xml (pass --plugin for the entry symbol and ABI "
               "details)\n";
    } else {
        library_ok = inspect_library(plugin_path, out);
    }
    try {
        Core& c = core();
        const auto versions = c.get_versions(device);
        for (const auto& [name, version] : versions)
            out << "version:          " << name << " " << version.build_number << " ("
                << version.description << ")\n";
        out << "runtime version:  " << get_version().build_number << '\n';
        print_property(
            out, "full name:        ", [&] { return c.get_property(device, device::full_name); });
        print_property(out, "capabilities:     ", [&] {
            return Any(c.get_property(device, device::capabilities)).to_string();
        });
        print_property(out, "available ids:    ", [&] {
            return Any(c.get_property(device, available_devices)).to_string();
        });
        print_property(out, "properties:       ", [&] {
            std::string text;
            for (const auto& p : c.get_property(device, supported_properties))
                text += (text.empty() ? "" : ", ") + p + (p.is_mutable() ? " (RW)" : " (RO)");
            return text;
        });
    } catch (const std::exception& e) {
        out << "the core cannot load the device: " << e.what() << '\n';
        return 1;
    }
    out << (library_ok ? "probe: OK\n"
                       : "probe: loaded through the core, but see the library details above\n");
    return library_ok ? 0 : 1;
}

}  // namespace vireo::conformance::runner
