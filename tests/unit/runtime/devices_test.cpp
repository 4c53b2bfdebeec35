// Tests device names ("NAME", "NAME.N", malformed ones), get_available_devices and get_versions.
#include "runtime_test_utils.hpp"

namespace vireo::runtime_test {
namespace {

TEST(Devices, MalformedNamesAreInvalidArguments) {
    ScratchDir dir;
    Core core = empty_core(dir);
    core.register_plugin(test_plugin_path(), "TEST");
    for (const std::string bad : {"", ".", "TEST.", ".1", "TE ST"})
        EXPECT_THROW(core.compile_model(tiny_model(), bad), InvalidArgument) << "'" << bad << "'";
}

TEST(Devices, IdIsEverythingAfterTheFirstDot) {
    ScratchDir dir;
    Core core = empty_core(dir);
    core.register_plugin(test_plugin_path(), "TEST");
    core.compile_model(tiny_model(), "TEST.0.1");
    EXPECT_EQ(core.get_property("TEST", tp::last_config), "DEVICE_ID=0.1");
    core.compile_model(tiny_model(), "TEST");
    EXPECT_EQ(core.get_property("TEST", tp::last_config), "");
}

TEST(Devices, AvailableDevicesExpandsSeveralIds) {
    ScratchDir dir;
    write_file(dir.file("p.xml"),
               plugins_xml({{"MULTI_ID", test_plugin_path(), {{"TEST_DEVICE_IDS", "0,1,2"}}},
                            {"ONE_ID", test_plugin_path(), {{"TEST_DEVICE_IDS", "7"}}},
                            {"NO_ID", test_plugin_path(), {}}}));
    Core core(dir.file("p.xml"));
    EXPECT_EQ(
        core.get_available_devices(),
        (std::vector<std::string>{"MULTI_ID.0", "MULTI_ID.1", "MULTI_ID.2", "NO_ID", "ONE_ID"}));
    EXPECT_EQ(
        core.get_property(available_devices),
        (std::vector<std::string>{"MULTI_ID.0", "MULTI_ID.1", "MULTI_ID.2", "NO_ID", "ONE_ID"}));
    EXPECT_EQ(core.get_property("MULTI_ID", available_devices),
              (std::vector<std::string>{"0", "1", "2"}));
}

TEST(Devices, Versions) {
    ScratchDir dir;
    Core core = empty_core(dir);
    core.register_plugin(test_plugin_path(), "TEST");
    core.register_plugin(plugin_path("vireo_test_plugin_v2"), "TEST2");
    auto versions = core.get_versions("TEST.3");
    ASSERT_EQ(versions.size(), 1u);
    EXPECT_EQ(versions.at("TEST").build_number, "1.0.0");
    EXPECT_EQ(versions.at("TEST").description, "vireo_test_plugin");
    EXPECT_EQ(core.get_versions("TEST2").at("TEST2").build_number, "2.0.0");
    EXPECT_THROW(core.get_versions("NOPE"), NotFound);
}

}  // namespace
}  // namespace vireo::runtime_test
