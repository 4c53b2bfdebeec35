// Issue 23 item 8: the plugin location rules, pinned so that code and docs/plugins.md say the
// same: absolute -> itself; with a '/' -> against the XML's folder, "../" included (the file is
// as trusted as any absolute path it could name); a bare name -> the XML's folder (also as
// lib<name>.so), then the system's library search, deliberately, as OpenVINO does, so plugins
// installed in the system library directories are found.
#include "hostile_util.hpp"
#include "plugin_descriptor.hpp"

namespace vireo::hostile {
namespace {

using runtime::candidates_for_xml_location;

TEST(PluginPaths, LocationsResolveAsDocumented) {
    EXPECT_EQ(candidates_for_xml_location("/opt/p/libx.so", "/etc/vireo"),
              (std::vector<std::string>{"/opt/p/libx.so"}));
    EXPECT_EQ(candidates_for_xml_location("sub/libx.so", "/etc/vireo"),
              (std::vector<std::string>{"/etc/vireo/sub/libx.so"}));
    EXPECT_EQ(candidates_for_xml_location("../lib/libx.so", "/etc/vireo"),
              (std::vector<std::string>{"/etc/lib/libx.so"}));
    EXPECT_EQ(candidates_for_xml_location("libx.so", "/etc/vireo"),
              (std::vector<std::string>{"/etc/vireo/libx.so", "libx.so"}));
    EXPECT_EQ(candidates_for_xml_location("x", "/etc/vireo"),
              (std::vector<std::string>{"/etc/vireo/x", "/etc/vireo/libx.so", "x"}));
}

TEST(PluginPaths, AMissingBareNameSaysTheSystemSearchWasTried) {
    const std::string dir = temp_dir();
    write_file(dir + "/plugins.xml",
               "<ie><plugins><plugin name=\"GONE\" "
               "location=\"libvireo_no_such_plugin.so\"/></plugins></ie>");
    Core core(dir + "/plugins.xml");
    expect_error<NotFound>(
        [&] { core.get_versions("GONE"); },
        {"GONE", dir + "/libvireo_no_such_plugin.so", "system library search path"});
}

}  // namespace
}  // namespace vireo::hostile
