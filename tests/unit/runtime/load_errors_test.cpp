// Tests every plugin load failure (its kind and message, nothing left loaded, the core still
// usable) and the guard around plugin calls (kind kept, device name prefixed).
#include "runtime_test_utils.hpp"
#include "vireo/sdk/plugin_entry.hpp"

namespace vireo::runtime_test {
namespace {

class LoadErrors : public ::testing::Test {
  protected:
    void SetUp() override {
        core = empty_core(dir);
        core.register_plugin(test_plugin_path(), "GOOD");
    }
    // After a failure, the core must still load and run other plugins.
    void expect_core_usable() {
        CompiledModel compiled = core.compile_model(tiny_model(), "GOOD");
        expect_adds(compiled, 1.0f);
    }
    ScratchDir dir;
    Core core;
};

void expect_contains(const std::string& message, const std::string& part) {
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
}

TEST_F(LoadErrors, FileNotFoundListsThePathsTried) {
    write_file(dir.file("p.xml"), plugins_xml({{"GHOST", "ghost_plugin", {}}}));
    core.register_plugins(dir.file("p.xml"));
    const std::string message =
        error_of<NotFound>([&] { core.compile_model(tiny_model(), "GHOST"); });
    expect_contains(message, "device 'GHOST'");
    expect_contains(message, dir.file("ghost_plugin"));
    expect_contains(message, dir.file("libghost_plugin.so"));
    expect_contains(message, "system library search path");
    expect_core_usable();
}

TEST_F(LoadErrors, NotALoadableLibraryQuotesDlerror) {
    const std::string path = plugin_path("vireo_test_plugin_not_a_library");
    core.register_plugin(path, "TEXT");
    const std::string message = error_of<InvalidArgument>([&] { core.get_versions("TEXT"); });
    expect_contains(message, "device 'TEXT'");
    expect_contains(message, path);
    expect_contains(message, "not a loadable library");
    expect_contains(message, "invalid ELF header");  // dlerror's own words
    expect_core_usable();
}

TEST_F(LoadErrors, MissingEntrySymbol) {
    const std::string path = plugin_path("vireo_test_plugin_no_entry");
    core.register_plugin(path, "NOENTRY");
    const std::string message =
        error_of<InvalidArgument>([&] { core.compile_model(tiny_model(), "NOENTRY"); });
    expect_contains(message, "device 'NOENTRY'");
    expect_contains(message, path);
    expect_contains(message, "vireo_plugin_entry");
    EXPECT_FALSE(is_loaded(path));  // the failed load was dlclose'd
    expect_core_usable();
}

TEST_F(LoadErrors, AbiMismatchNamesBothVersions) {
    const std::string path = plugin_path("vireo_test_plugin_bad_abi");
    core.register_plugin(path, "OLDABI");
    const std::string message =
        error_of<InvalidArgument>([&] { core.get_property("OLDABI", "ANY"); });
    expect_contains(message, "ABI version " + std::to_string(VIREO_PLUGIN_ABI_VERSION + 41));
    expect_contains(message, "ABI version " + std::to_string(VIREO_PLUGIN_ABI_VERSION));
    expect_contains(message, path);
    EXPECT_EQ(message.find("create() was called"), std::string::npos) << message;
    EXPECT_FALSE(is_loaded(path));
    expect_core_usable();
}

TEST_F(LoadErrors, ToolchainMismatchNamesBothTags) {
    const std::string path = plugin_path("vireo_test_plugin_bad_toolchain");
    core.register_plugin(path, "OTHERLIB");
    const std::string message = error_of<InvalidArgument>([&] { core.get_versions("OTHERLIB"); });
    expect_contains(message, "libfancy++/abi=7");
    expect_contains(message, VIREO_TOOLCHAIN_TAG);
    EXPECT_FALSE(is_loaded(path));
    expect_core_usable();
}

TEST_F(LoadErrors, FactoryFailureCarriesItsMessage) {
    const std::string path = plugin_path("vireo_test_plugin_factory_throws");
    core.register_plugin(path, "NODEV");
    const std::string message =
        error_of<Unavailable>([&] { core.compile_model(tiny_model(), "NODEV"); });
    expect_contains(message, "device 'NODEV'");
    expect_contains(message, "no test accelerator present on this machine");
    EXPECT_FALSE(is_loaded(path));
    // A second attempt tries again (nothing was cached) and fails the same way.
    EXPECT_THROW(core.compile_model(tiny_model(), "NODEV"), Unavailable);
    expect_core_usable();
}

TEST_F(LoadErrors, UnknownDeviceListsRegisteredOnes) {
    core.register_plugin(test_plugin_path(), "OTHER");
    const std::string message =
        error_of<NotFound>([&] { core.compile_model(tiny_model(), "NOPE"); });
    expect_contains(message, "'NOPE'");
    expect_contains(message, "GOOD, OTHER");
    expect_core_usable();
}

TEST_F(LoadErrors, RejectedDefaultPropertyFailsTheLoadAndNamesTheXml) {
    write_file(dir.file("p.xml"),
               plugins_xml({{"BADDEFAULT", test_plugin_path(), {{"TEST_ADDEND", "abc"}}}}));
    core.register_plugins(dir.file("p.xml"));
    const std::string message = error_of<InvalidArgument>([&] { core.get_versions("BADDEFAULT"); });
    expect_contains(message, "p.xml");
    expect_contains(message, "TEST_ADDEND");
    expect_core_usable();
}

TEST_F(LoadErrors, PluginExceptionsKeepTheirKindAndGetTheDeviceName) {
    core.register_plugin(plugin_path("vireo_test_plugin_throwing"), "BOOM");
    std::string message = error_of<Exception>([&] { core.compile_model(tiny_model(), "BOOM"); });
    expect_contains(message, "BOOM: compile_model exploded");  // std::runtime_error -> Exception
    message = error_of<InvalidArgument>([&] { core.query_model(tiny_model(), "BOOM"); });
    expect_contains(message, "BOOM: query_model refuses this model");
    message = error_of<Busy>([&] { core.set_property("BOOM", {{"KEY", "1"}}); });
    expect_contains(message, "BOOM: set_property: busy");
    message = error_of<Unavailable>([&] { core.get_property("BOOM", "SOME_KEY"); });
    expect_contains(message, "BOOM: get_property('SOME_KEY'): device unreachable");
    message = error_of<Exception>([&] { core.create_context("BOOM", {}); });
    expect_contains(message, "BOOM: unknown exception");
    message = error_of<Cancelled>([&] { core.get_default_context("BOOM"); });
    expect_contains(message, "BOOM: get_default_context cancelled");
    std::stringstream blob;
    CompiledModel good = core.compile_model(tiny_model(), "GOOD");
    // A blob for another plugin is refused by the core before the plugin sees it.
    good.export_model(blob);
    EXPECT_THROW(core.import_model(blob, "BOOM"), InvalidArgument);
    // get_available_devices skips the device that fails and lists the others.
    const auto devices = core.get_available_devices();
    EXPECT_EQ(devices, std::vector<std::string>{"GOOD"});
    expect_core_usable();
}

TEST_F(LoadErrors, AvailableDevicesSkipsPluginsThatFailToLoad) {
    core.register_plugin(plugin_path("vireo_test_plugin_bad_abi"), "BROKEN");
    core.register_plugin(dir.file("libnothing.so"), "MISSING");
    EXPECT_EQ(core.get_available_devices(), std::vector<std::string>{"GOOD"});
}

}  // namespace
}  // namespace vireo::runtime_test
