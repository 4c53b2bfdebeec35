// Modules that fail the core's load checks, one per build of this file (TEST_BROKEN_KIND picks
// which): no entry symbol, a wrong ABI version, a wrong toolchain tag, a throwing factory.
#include <stdexcept>

#include "vireo/sdk/plugin_entry.hpp"

#if TEST_BROKEN_KIND == 2 || TEST_BROKEN_KIND == 3
namespace {

// Never reached for the entry-check failures: the core must refuse before calling create().
std::shared_ptr<vireo::sdk::IPlugin> must_not_be_called(std::string* error) {
    if (error) *error = "create() was called although the entry point should have been refused";
    return nullptr;
}

}  // namespace
#endif

#if TEST_BROKEN_KIND == 1  // no entry symbol: exports an unrelated function only
extern "C" __attribute__((visibility("default"))) int vireo_test_not_an_entry() {
    return 42;
}

#elif TEST_BROKEN_KIND == 2  // built for another ABI version
extern "C" __attribute__((visibility("default"))) const vireo::sdk::PluginEntry*
vireo_plugin_entry() {
    static const vireo::sdk::PluginEntry entry{VIREO_PLUGIN_ABI_VERSION + 41, VIREO_TOOLCHAIN_TAG,
                                               "1.0.0", &must_not_be_called};
    return &entry;
}

#elif TEST_BROKEN_KIND == 3  // built with another C++ standard library
extern "C" __attribute__((visibility("default"))) const vireo::sdk::PluginEntry*
vireo_plugin_entry() {
    static const vireo::sdk::PluginEntry entry{VIREO_PLUGIN_ABI_VERSION, "libfancy++/abi=7",
                                               "1.0.0", &must_not_be_called};
    return &entry;
}

#elif TEST_BROKEN_KIND == 4  // a factory that throws (as a plugin whose device is missing would)
namespace {
class NoDevicePlugin : public vireo::sdk::IPlugin {
  public:
    NoDevicePlugin() { throw std::runtime_error("no test accelerator present on this machine"); }
    std::shared_ptr<vireo::sdk::ICompiledModel> compile_model(
        const std::shared_ptr<const vireo::Model>&, const vireo::AnyMap&) const override {
        return nullptr;
    }
    std::shared_ptr<vireo::sdk::ICompiledModel> import_model(std::istream&,
                                                             const vireo::AnyMap&) const override {
        return nullptr;
    }
    vireo::sdk::SupportedOpsMap query_model(const std::shared_ptr<const vireo::Model>&,
                                            const vireo::AnyMap&) const override {
        return {};
    }
    void set_property(const vireo::AnyMap&) override {}
    vireo::Any get_property(const std::string&, const vireo::AnyMap&) const override { return {}; }
};
}  // namespace
VIREO_DEFINE_PLUGIN(NoDevicePlugin, "1.0.0")

#else
#error "TEST_BROKEN_KIND must be 1..4"
#endif
