// The runtime's model-format registry (runtime/src/frontend_registry.hpp): a format is picked by
// its probe over the first bytes, then by file extension; an unknown format's error names the file
// and lists the formats the registry knows; a frontend module that is missing or cannot be loaded
// is named with why. The formats here are made up, so nothing depends on IR or ONNX.
#include <gtest/gtest.h>

#include <cstring>

#include "frontend_registry.hpp"
#include "runtime_test_utils.hpp"

namespace vireo::runtime_test {
namespace {

using runtime::FormatRegistry;
using runtime::ModelFormatReader;

// A format whose files start with "TOY1"; its reader names the model after what it read.
ModelFormatReader toy_format() {
    ModelFormatReader f;
    f.name = "TOY";
    f.extensions = {".toy"};
    f.probe = [](const unsigned char* head, size_t size) {
        return size >= 4 && std::memcmp(head, "TOY1", 4) == 0;
    };
    f.read_file = [](const std::string& path, const std::string&, bool) {
        auto model = tiny_model();
        model->set_name("toy file " + path);
        return model;
    };
    f.read_memory = [](const void*, size_t size, const Tensor&) {
        auto model = tiny_model();
        model->set_name("toy bytes " + std::to_string(size));
        return model;
    };
    f.origin = "the test";
    return f;
}

// A format known only by its extensions (no probe).
ModelFormatReader text_format() {
    ModelFormatReader f = toy_format();
    f.name = "TEXT";
    f.extensions = {".txt", ".text"};
    f.probe = nullptr;
    return f;
}

FormatRegistry toy_registry(std::vector<std::string> modules = {}) {
    return FormatRegistry({toy_format(), text_format()}, std::move(modules), "the test's list");
}

TEST(FormatRegistry, PicksTheFormatByContentThenByExtension) {
    ScratchDir dir;
    FormatRegistry registry = toy_registry();
    // Content decides, whatever the extension says.
    write_file(dir.file("model.bin"), "TOY1 and the rest");
    write_file(dir.file("model.txt"), "TOY1 named like text");
    EXPECT_EQ(registry.detect(dir.file("model.bin"))->name, "TOY");
    EXPECT_EQ(registry.detect(dir.file("model.txt"))->name, "TOY");
    // No probe claims it: the extension (any case) decides.
    write_file(dir.file("notes.TXT"), "hello");
    write_file(dir.file("notes.text"), "hello");
    EXPECT_EQ(registry.detect(dir.file("notes.TXT"))->name, "TEXT");
    EXPECT_EQ(registry.detect(dir.file("notes.text"))->name, "TEXT");
    // The reader the registry returns is the format's own.
    const auto toy = registry.detect(dir.file("model.bin"));
    EXPECT_EQ(toy->read_file(dir.file("model.bin"), "", true)->get_name(),
              "toy file " + dir.file("model.bin"));
    // In memory there is no extension: content only.
    const std::string bytes = "TOY1xyz";
    EXPECT_EQ(registry.detect(bytes.data(), bytes.size())->name, "TOY");
    EXPECT_EQ(registry.find("TEXT")->name, "TEXT");
    EXPECT_EQ(registry.known_formats(), "TOY (.toy), TEXT (.txt, .text)");
}

TEST(FormatRegistry, UnknownFormatNamesTheFileAndListsTheKnownFormats) {
    ScratchDir dir;
    FormatRegistry registry = toy_registry();
    write_file(dir.file("model.dat"), "\x01\x02 not a toy");
    const std::string message =
        error_of<InvalidArgument>([&] { registry.detect(dir.file("model.dat")); });
    EXPECT_NE(message.find("'" + dir.file("model.dat") + "'"), std::string::npos) << message;
    EXPECT_NE(message.find("known formats: TOY (.toy), TEXT (.txt, .text)"), std::string::npos)
        << message;
    EXPECT_NE(message.find("no frontend module (looked for the test's list)"), std::string::npos)
        << message;
    const std::string junk = "junk";
    const std::string in_memory =
        error_of<InvalidArgument>([&] { registry.detect(junk.data(), junk.size()); });
    EXPECT_NE(in_memory.find("model in memory"), std::string::npos) << in_memory;
    EXPECT_NE(in_memory.find("TOY (.toy)"), std::string::npos) << in_memory;
    // Not found, not a file, empty bytes: the file's own errors come first.
    EXPECT_THROW(registry.detect(dir.file("none.toy")), NotFound);
    EXPECT_THROW(registry.detect(dir.str()), InvalidArgument);
    EXPECT_THROW(registry.detect(junk.data(), 0), InvalidArgument);
    // A format's name is taken once.
    EXPECT_THROW(registry.add(toy_format()), InvalidArgument);
}

TEST(FormatRegistry, AMissingOrBrokenFrontendModuleIsNamedWithWhy) {
    ScratchDir dir;
    const std::string missing = "/nonexistent/libvireo_missing_frontend.so";
    const std::string not_a_library = plugin_path("vireo_test_plugin_not_a_library");
    const std::string no_entry = test_plugin_path();  // a plugin, not a frontend
    FormatRegistry registry = toy_registry({missing, not_a_library, no_entry});
    write_file(dir.file("model.dat"), "\x01\x02 unknown");
    const std::string message =
        error_of<Unavailable>([&] { registry.detect(dir.file("model.dat")); });
    EXPECT_NE(message.find("'" + dir.file("model.dat") + "'"), std::string::npos) << message;
    EXPECT_NE(message.find("known formats: TOY (.toy), TEXT (.txt, .text)"), std::string::npos)
        << message;
    EXPECT_NE(message.find("frontend module '" + missing + "' is not installed"), std::string::npos)
        << message;
    EXPECT_NE(message.find("frontend module '" + not_a_library + "' cannot be loaded"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("frontend module '" + no_entry + "': no entry symbol " +
                           "'vireo_frontend_entry'"),
              std::string::npos)
        << message;
    // A format asked for by name that no module gave: the same reasons.
    const std::string by_name = error_of<Unavailable>([&] { registry.find("ONNX"); });
    EXPECT_NE(by_name.find("no frontend reads ONNX models"), std::string::npos) << by_name;
    EXPECT_NE(by_name.find(missing), std::string::npos) << by_name;
    // The broken modules do not stop the formats that are known.
    write_file(dir.file("model.toy"), "TOY1");
    EXPECT_EQ(registry.detect(dir.file("model.toy"))->name, "TOY");
}

TEST(FormatRegistry, TheProcessRegistryReadsIrWithoutLoadingAFrontend) {
    const std::string xml = "\xEF\xBB\xBF  <?xml version=\"1.0\"?><net/>";
    EXPECT_EQ(runtime::FormatRegistry::process().detect(xml.data(), xml.size())->name, "IR");
    // Nothing but IR was asked for: no frontend module was mapped to answer.
    for (const auto& item : fs::directory_iterator(lib_dir())) {
        const std::string file = item.path().filename().string();
        if (file.rfind("libvireo_", 0) == 0 && file.find("_frontend.so") != std::string::npos) {
            EXPECT_FALSE(is_loaded(item.path().string())) << file;
        }
    }
}

}  // namespace
}  // namespace vireo::runtime_test
