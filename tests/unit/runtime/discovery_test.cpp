// Tests plugin discovery: plugins.xml (relative and absolute locations, properties, errors),
// the VIREO_PLUGINS_XML variable, the default file beside libvireo, register_plugin(s) rules.
#include <cstdlib>
#include <regex>

#include "runtime_test_utils.hpp"

namespace vireo::runtime_test {
namespace {

class EnvVar {
  public:
    EnvVar(const char* name, const std::string& value) : m_name(name) {
        ::setenv(name, value.c_str(), 1);
    }
    ~EnvVar() { ::unsetenv(m_name); }

  private:
    const char* m_name;
};

TEST(Discovery, AbsoluteLocationAndDefaultProperties) {
    ScratchDir dir;
    write_file(dir.file("plugins.xml"),
               plugins_xml({{"TEST", test_plugin_path(), {{"TEST_ADDEND", "7"}}}}));
    Core core(dir.file("plugins.xml"));
    EXPECT_FLOAT_EQ(core.get_property("TEST", tp::addend), 7.0f);
    CompiledModel compiled = core.compile_model(tiny_model(), "TEST");
    expect_adds(compiled, 7.0f);
}

TEST(Discovery, RelativeLocationResolvesAgainstTheXmlFolder) {
    ScratchDir dir;
    fs::create_directories(dir.path() / "sub" / "plugins");
    fs::copy_file(test_plugin_path(), dir.path() / "sub" / "plugins" / "libmine.so");
    // "plugins/libmine.so" is relative to sub/, where the XML is, not to the current directory.
    write_file(dir.file("sub/p.xml"), plugins_xml({{"MINE", "plugins/libmine.so", {}}}));
    Core core(dir.file("sub/p.xml"));
    EXPECT_EQ(core.get_versions("MINE").at("MINE").description, "mine");
    CompiledModel compiled = core.compile_model(tiny_model(), "MINE");
    expect_adds(compiled, 1.0f);
}

TEST(Discovery, BareNameFindsLibPrefixedFileBesideTheXml) {
    ScratchDir dir;
    fs::copy_file(test_plugin_path(), dir.path() / "libbare_plugin.so");
    write_file(dir.file("plugins.xml"), plugins_xml({{"BARE", "bare_plugin", {}}}));
    Core core(dir.file("plugins.xml"));
    EXPECT_EQ(core.get_versions("BARE").at("BARE").build_number, "1.0.0");
}

TEST(Discovery, SeveralPluginsAreListedButNotLoadedUntilUsed) {
    ScratchDir dir;
    write_file(dir.file("plugins.xml"),
               plugins_xml({{"A", test_plugin_path(), {}}, {"B", dir.file("libmissing.so"), {}}}));
    Core core(dir.file("plugins.xml"));  // B's file is missing, but nothing is loaded yet
    EXPECT_EQ(core.get_versions("A").size(), 1u);
    EXPECT_THROW(core.get_versions("B"), NotFound);
}

TEST(Discovery, EnvironmentVariableNamesThePluginsXml) {
    ScratchDir dir;
    write_file(dir.file("env.xml"), plugins_xml({{"FROM_ENV", test_plugin_path(), {}}}));
    EnvVar env("VIREO_PLUGINS_XML", dir.file("env.xml"));
    Core core;
    EXPECT_EQ(core.get_versions("FROM_ENV").count("FROM_ENV"), 1u);
}

TEST(Discovery, ArgumentTakesPrecedenceOverEnvironment) {
    ScratchDir dir;
    write_file(dir.file("env.xml"), plugins_xml({{"FROM_ENV", test_plugin_path(), {}}}));
    write_file(dir.file("arg.xml"), plugins_xml({{"FROM_ARG", test_plugin_path(), {}}}));
    EnvVar env("VIREO_PLUGINS_XML", dir.file("env.xml"));
    Core core(dir.file("arg.xml"));
    EXPECT_NO_THROW(core.get_versions("FROM_ARG"));
    EXPECT_THROW(core.get_versions("FROM_ENV"), NotFound);
}

TEST(Discovery, MissingExplicitXmlIsAnError) {
    ScratchDir dir;
    const std::string message = error_of<NotFound>([&] { Core core(dir.file("nope.xml")); });
    EXPECT_NE(message.find("nope.xml"), std::string::npos) << message;
}

TEST(Discovery, MissingEnvironmentXmlIsAnError) {
    ScratchDir dir;
    EnvVar env("VIREO_PLUGINS_XML", dir.file("absent.xml"));
    const std::string message = error_of<NotFound>([] { Core core; });
    EXPECT_NE(message.find("VIREO_PLUGINS_XML"), std::string::npos) << message;
    EXPECT_NE(message.find("absent.xml"), std::string::npos) << message;
}

TEST(Discovery, DefaultXmlBesideLibvireoIsUsed) {
    // The build tree writes lib/plugins.xml next to libvireo; every device it lists is
    // registered by a default Core, so registering one of those names again must fail.
    const std::string text = read_file(lib_dir() + "/plugins.xml");
    ASSERT_FALSE(text.empty());
    std::regex name_re("name=\"([^\"]+)\"");
    std::vector<std::string> names;
    for (std::sregex_iterator it(text.begin(), text.end(), name_re), end; it != end; ++it)
        names.push_back((*it)[1]);
    Core core;
    for (const auto& name : names)
        EXPECT_THROW(core.register_plugin(test_plugin_path(), name), InvalidArgument) << name;
    EXPECT_NO_THROW(core.register_plugin(test_plugin_path(), "NOT_IN_DEFAULT_XML"));
}

TEST(Discovery, MalformedXmlNamesFileAndProblem) {
    ScratchDir dir;
    write_file(dir.file("bad.xml"), "<ie><plugins><plugin name=\"X\"");
    std::string message = error_of<InvalidArgument>([&] { Core core(dir.file("bad.xml")); });
    EXPECT_NE(message.find("bad.xml"), std::string::npos) << message;

    write_file(dir.file("noloc.xml"), "<ie>\n<plugins>\n<plugin name=\"X\"/>\n</plugins>\n</ie>\n");
    message = error_of<InvalidArgument>([&] { Core core(dir.file("noloc.xml")); });
    EXPECT_NE(message.find("line 3"), std::string::npos) << message;
    EXPECT_NE(message.find("location"), std::string::npos) << message;

    write_file(dir.file("noplugins.xml"), "<ie><devices/></ie>");
    message = error_of<InvalidArgument>([&] { Core core(dir.file("noplugins.xml")); });
    EXPECT_NE(message.find("<plugins>"), std::string::npos) << message;
}

TEST(Discovery, DuplicateAndDottedNamesAreRejectedAtomically) {
    ScratchDir dir;
    write_file(dir.file("dup.xml"),
               plugins_xml({{"A", test_plugin_path(), {}}, {"A", test_plugin_path(), {}}}));
    std::string message = error_of<InvalidArgument>([&] { Core core(dir.file("dup.xml")); });
    EXPECT_NE(message.find("'A' is already registered"), std::string::npos) << message;

    Core core = empty_core(dir);
    write_file(dir.file("dot.xml"),
               plugins_xml({{"OK", test_plugin_path(), {}}, {"B.1", test_plugin_path(), {}}}));
    message = error_of<InvalidArgument>([&] { core.register_plugins(dir.file("dot.xml")); });
    EXPECT_NE(message.find("'B.1'"), std::string::npos) << message;
    // Nothing of the rejected file was registered, so "OK" is still free.
    EXPECT_NO_THROW(core.register_plugin(test_plugin_path(), "OK"));
}

TEST(Discovery, RegisterPluginRules) {
    ScratchDir dir;
    Core core = empty_core(dir);
    core.register_plugin(test_plugin_path(), "T1", {tp::addend(3.0f)});
    EXPECT_FLOAT_EQ(core.get_property("T1", tp::addend), 3.0f);
    EXPECT_THROW(core.register_plugin(test_plugin_path(), "T1"), InvalidArgument);
    EXPECT_THROW(core.register_plugin(test_plugin_path(), "T.2"), InvalidArgument);
    EXPECT_THROW(core.register_plugin(test_plugin_path(), ""), InvalidArgument);
    EXPECT_THROW(core.register_plugin("", "EMPTY_PATH"), InvalidArgument);
}

TEST(Discovery, RegisterPluginBareNameFindsLibraryBesideLibvireo) {
    ScratchDir dir;
    Core core = empty_core(dir);
    core.register_plugin("vireo_test_plugin",
                         "BY_NAME");  // -> <libvireo dir>/libvireo_test_plugin.so
    EXPECT_EQ(core.get_versions("BY_NAME").at("BY_NAME").description, "vireo_test_plugin");
}

TEST(Discovery, RegisterPluginRelativePathIsRelativeToCurrentDirectory) {
    ScratchDir dir;
    fs::copy_file(test_plugin_path(), dir.path() / "librel.so");
    const fs::path old = fs::current_path();
    fs::current_path(dir.path());
    Core core = empty_core(dir);
    core.register_plugin("./librel.so", "REL");
    fs::current_path(old);  // registered paths were made absolute, so this does not matter now
    EXPECT_EQ(core.get_versions("REL").at("REL").description, "rel");
}

TEST(Discovery, UnloadPluginRules) {
    ScratchDir dir;
    Core core = empty_core(dir);
    EXPECT_THROW(core.unload_plugin("NOPE"), NotFound);
    core.register_plugin(test_plugin_path(), "T");
    EXPECT_NO_THROW(core.unload_plugin("T"));  // registered, never loaded: nothing to do
    core.get_versions("T");
    EXPECT_TRUE(is_loaded(test_plugin_path()));
    core.unload_plugin("T.3");                    // the id is ignored: the plugin is per name
    EXPECT_FALSE(is_loaded(test_plugin_path()));  // nothing else held it: really unloaded
    // With a holder alive the module stays, and the reload makes a fresh plugin object.
    const Any first = core.get_property("T", tp::instance_id.name());
    core.unload_plugin("T");
    EXPECT_TRUE(is_loaded(test_plugin_path()));
    EXPECT_NE(core.get_property("T", tp::instance_id), first.as<uint64_t>());
}

}  // namespace
}  // namespace vireo::runtime_test
