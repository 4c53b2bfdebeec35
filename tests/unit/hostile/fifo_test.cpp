// Issue 23 item 4 (runtime files other than the IR): a plugin "library" or a plugins.xml that
// is a FIFO is refused at once with a named error instead of blocking in open() or dlopen().
// (The IR's .xml/.bin are in mmap_test.cpp, the .npy reader in tests/unit/npy.)
#include <sys/stat.h>

#include <string>

#include "hostile_util.hpp"

namespace vireo::hostile {
namespace {

TEST(Fifo, PluginLibraryThatIsAFifoIsRefusedWithoutBlocking) {
    const std::string dir = temp_dir();
    const std::string library = dir + "/libfifo_plugin.so";
    ASSERT_EQ(::mkfifo(library.c_str(), 0600), 0);
    Core core = make_core();
    core.register_plugin(library, "FIFO");
    expect_error<InvalidArgument>([&] { core.get_versions("FIFO"); },
                                  {"FIFO", library, "not a regular file"});
    // The Core is intact: other devices still load.
    EXPECT_EQ(core.get_versions("TEMPLATE").count("TEMPLATE"), 1u);
}

TEST(Fifo, PluginLibraryNamedInPluginsXmlThatIsAFifoIsRefused) {
    const std::string dir = temp_dir();
    ASSERT_EQ(::mkfifo((dir + "/libfifo_plugin.so").c_str(), 0600), 0);
    write_file(
        dir + "/plugins.xml",
        "<ie><plugins><plugin name=\"FIFO\" location=\"libfifo_plugin.so\"/></plugins></ie>");
    Core core(dir + "/plugins.xml");
    expect_error<InvalidArgument>([&] { core.get_versions("FIFO"); },
                                  {"FIFO", "not a regular file"});
}

TEST(Fifo, PluginsXmlThatIsAFifoIsRefusedWithoutBlocking) {
    const std::string dir = temp_dir();
    const std::string xml = dir + "/plugins.xml";
    ASSERT_EQ(::mkfifo(xml.c_str(), 0600), 0);
    expect_error<NotFound>([&] { Core core(xml); }, {xml, "not a file"});
}

}  // namespace
}  // namespace vireo::hostile
