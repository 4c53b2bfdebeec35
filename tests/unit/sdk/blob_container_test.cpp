// Tests of the one compiled-model blob format: sdk::BlobSectionWriter / BlobSectionReader (a
// plugin's sections) and sdk::BlobContainer (the core's header and checksum around them) — byte
// layout, round trips, every truncation point, flipped bytes, forged lengths, duplicate, missing
// and unknown sections, blobs of another format version or plugin.
#include "vireo/sdk/blob_container.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <string>

#include "sdk_test_helpers.hpp"
#include "vireo/exception.hpp"
#include "vireo/ops.hpp"
#include "vireo/sdk/blob_sections.hpp"

namespace vireo::sdk::container_test {
namespace {

using test::invalid_argument_of;

const BlobIdentity kIdentity{"vireo_dev_plugin", "1.2.3", 7};

// Three sections as a plugin writes them.
std::string plugin_sections() {
    std::ostringstream out;
    BlobSectionWriter blob(out, "DEV");
    blob.properties({{"PERF_COUNT", true}, {"NUM_STREAMS", 2}});
    blob.section("dev.kernels", "kernel bytes");
    blob.section("dev.empty", "");
    blob.check();
    return out.str();
}

std::string container_of(std::string_view plugin_bytes, const std::string& origin = "") {
    std::ostringstream out;
    BlobContainer::write(out, kIdentity, plugin_bytes, origin);
    return out.str();
}

std::string read_error(const std::string& bytes, const std::string* origin = nullptr) {
    return invalid_argument_of([&] {
        std::istringstream in(bytes);
        BlobContainer blob(in, kIdentity, "test", origin);
    });
}

std::string section_error(const std::string& bytes) {
    return invalid_argument_of([&] {
        std::istringstream in(bytes);
        BlobSectionReader blob(in, "DEV");
        for (const std::string& name : blob.names("")) blob.string(name);
        blob.expect_all_read();
    });
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

TEST(BlobSections, LayoutIsNameLengthNameSizeBytes) {
    std::ostringstream out;
    BlobSectionWriter blob(out, "DEV");
    blob.section("ab", "xyz");
    blob.check();
    EXPECT_EQ(out.str(),
              std::string("\x02\0\0\0", 4) + "ab" + std::string("\x03\0\0\0\0\0\0\0", 8) + "xyz");
}

TEST(BlobSections, RoundTripWithPropertiesAndPrefixes) {
    std::istringstream in(plugin_sections());
    BlobSectionReader blob(in, "DEV");
    EXPECT_TRUE(blob.has("dev.kernels"));
    EXPECT_FALSE(blob.has("dev.other"));
    EXPECT_EQ(blob.names("dev."), (std::vector<std::string>{"dev.kernels", "dev.empty"}));
    const AnyMap properties = blob.properties();
    ASSERT_EQ(properties.size(), 2u);
    EXPECT_EQ(properties.at("NUM_STREAMS").as<std::string>(), "2");
    EXPECT_EQ(blob.size("dev.kernels"), 12u);
    EXPECT_EQ(blob.string("dev.kernels"), "kernel bytes");
    EXPECT_EQ(blob.string("dev.empty"), "");
    EXPECT_NO_THROW(blob.expect_all_read());
}

TEST(BlobSections, MissingUnknownAndDuplicateSectionsAreNamed) {
    {
        std::istringstream in(plugin_sections());
        BlobSectionReader blob(in, "DEV");
        EXPECT_EQ(invalid_argument_of([&] { blob.string("ir.xml"); }),
                  "DEV blob: missing required section 'ir.xml'");
        blob.properties();
        blob.string("dev.kernels");
        EXPECT_EQ(invalid_argument_of([&] { blob.expect_all_read(); }),
                  "DEV blob: unknown section 'dev.empty'");
    }
    const std::string one = [] {
        std::ostringstream out;
        BlobSectionWriter blob(out, "DEV");
        blob.section("a", "1");
        return out.str();
    }();
    EXPECT_EQ(section_error(one + one), "DEV blob: duplicate section 'a'");
    std::ostringstream out;
    BlobSectionWriter blob(out, "DEV");
    blob.section("a", "1");
    EXPECT_THROW(blob.section("a", "2"), InvalidArgument);
    EXPECT_THROW(blob.section("", "2"), InvalidArgument);
    EXPECT_THROW(blob.section("vireo.raw", "2"), InvalidArgument);  // the core's
}

TEST(BlobSections, EveryTruncationIsTruncatedOrMissing) {
    const std::string bytes = plugin_sections();
    for (size_t cut = 0; cut < bytes.size(); ++cut) {
        const std::string message = invalid_argument_of([&] {
            std::istringstream in(bytes.substr(0, cut));
            BlobSectionReader blob(in, "DEV");
            blob.properties();
            blob.string("dev.kernels");
            blob.string("dev.empty");
        });
        EXPECT_TRUE(contains(message, "truncated") || contains(message, "missing required"))
            << cut << ": " << message;
    }
}

TEST(BlobSections, ForgedLengthsAreBoundedByTheBytesLeft) {
    std::string bytes = plugin_sections();
    // The first section's name length, then its size (after the name).
    std::string name_forged = bytes;
    const uint32_t huge_name = 0x7fffffff;
    std::memcpy(name_forged.data(), &huge_name, 4);
    EXPECT_TRUE(contains(section_error(name_forged), "claims 2147483647 bytes"))
        << section_error(name_forged);
    uint32_t name_size = 0;
    std::memcpy(&name_size, bytes.data(), 4);
    const uint64_t huge = uint64_t{1} << 62;
    std::memcpy(bytes.data() + 4 + name_size, &huge, 8);
    const std::string message = section_error(bytes);
    EXPECT_TRUE(contains(message, "is truncated: it claims 4611686018427387904 bytes")) << message;
}

TEST(BlobSections, UnseekableStreamsAreReadToo) {
    struct Unseekable : std::streambuf {
        explicit Unseekable(std::string b) : bytes(std::move(b)) {
            setg(bytes.data(), bytes.data(), bytes.data() + bytes.size());
        }
        std::string bytes;
    } buffer(plugin_sections());
    std::istream in(&buffer);
    BlobSectionReader blob(in, "DEV");
    EXPECT_EQ(blob.string("dev.kernels"), "kernel bytes");
}

TEST(BlobSections, ABegunSectionMustKeepItsSize) {
    std::ostringstream out;
    BlobSectionWriter blob(out, "DEV");
    blob.begin_section("a", 4) << "abc";
    EXPECT_THROW(blob.check(), Exception);
}

TEST(BlobSections, ModelRoundTripsThroughIrSections) {
    auto x = op::parameter(element::f32, PartialShape(Shape{1, 2}), "x");
    auto y = op::add(x, op::constant<float>(element::f32, {1, 2}, {1.5f, -2.0f}));
    y->output(0).set_names({"y"});
    const auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "m");
    std::ostringstream out;
    BlobSectionWriter writer(out, "DEV");
    writer.model(*model);
    writer.check();
    std::istringstream in(out.str());
    BlobSectionReader reader(in, "DEV");
    EXPECT_EQ(reader.names(""), (std::vector<std::string>{"ir.xml", "ir.bin"}));
    // Into memory of the caller's: the Constants share it.
    Tensor weights(element::u8, Shape{static_cast<size_t>(reader.size("ir.bin"))});
    const auto read = reader.model(weights);
    reader.expect_all_read();
    EXPECT_EQ(read->get_name(), "m");
    size_t constants = 0;
    for (const auto& node : read->get_ordered_ops()) {
        if (node->get_type_name() != "Constant") continue;
        ++constants;
        const auto* data = static_cast<const char*>(node->get_constant_value().data());
        const auto* begin = static_cast<const char*>(weights.data());
        EXPECT_TRUE(data >= begin && data < begin + weights.get_byte_size());
        EXPECT_EQ(static_cast<const float*>(node->get_constant_value().data())[1], -2.0f);
    }
    EXPECT_EQ(constants, 1u);
    // A tensor of the wrong size is the caller's error, not the blob's.
    std::istringstream again(out.str());
    BlobSectionReader second(again, "DEV");
    EXPECT_THROW(second.model(Tensor(element::u8, Shape{3})), InvalidArgument);
}

TEST(BlobContainer, LayoutHeaderPayloadChecksum) {
    const std::string sections = plugin_sections();
    const std::string bytes = container_of(sections, "key");
    EXPECT_EQ(bytes.substr(0, 8), "VIREOBLB");
    uint32_t format = 0;
    std::memcpy(&format, bytes.data() + 8, 4);
    EXPECT_EQ(format, kBlobFormatVersion);
    // The payload is the plugin's bytes as they are, right before the checksum of all before it.
    const size_t payload_at = bytes.size() - 8 - sections.size();
    EXPECT_EQ(bytes.substr(payload_at, sections.size()), sections);
    uint64_t stored = 0;
    std::memcpy(&stored, bytes.data() + bytes.size() - 8, 8);
    EXPECT_EQ(stored, blob_checksum(bytes.data(), bytes.size() - 8));
}

TEST(BlobContainer, RoundTripHandsThePluginItsBytes) {
    for (const std::string& plugin_bytes :
         {plugin_sections(), std::string(), std::string("not sections: a plugin's own format")}) {
        const std::string origin = "0123456789abcdef";
        std::istringstream in(container_of(plugin_bytes, origin));
        BlobContainer blob(in, kIdentity, "test", &origin);
        std::ostringstream back;
        back << blob.plugin_stream().rdbuf();
        EXPECT_EQ(back.str(), plugin_bytes);
    }
}

TEST(BlobContainer, EveryTruncationIsRefused) {
    const std::string bytes = container_of(plugin_sections());
    for (size_t cut = 0; cut < bytes.size(); ++cut) {
        const std::string message = read_error(bytes.substr(0, cut));
        EXPECT_TRUE(contains(message, cut < 8 ? "not a Vireo compiled-model blob" : "truncated"))
            << cut << ": " << message;
    }
}

TEST(BlobContainer, AFlippedPayloadOrChecksumByteIsAChecksumError) {
    const std::string sections = plugin_sections();
    const std::string bytes = container_of(sections);
    for (size_t at = bytes.size() - 8 - sections.size(); at < bytes.size(); ++at) {
        std::string flipped = bytes;
        flipped[at] ^= 0x10;
        const std::string message = read_error(flipped);
        EXPECT_TRUE(contains(message, "test: damaged blob: checksum")) << at << ": " << message;
    }
    // A header byte: whichever check meets it first, never a pass.
    for (size_t at = 0; at < bytes.size() - 8 - sections.size(); ++at) {
        std::string flipped = bytes;
        flipped[at] ^= 0x10;
        EXPECT_NE(read_error(flipped), "(no InvalidArgument)") << at;
    }
}

TEST(BlobContainer, ForgedLengthsAreRefusedBeforeAllocating) {
    const std::string bytes = container_of(plugin_sections());
    std::string name = bytes;
    const uint32_t long_name = 1u << 30;
    std::memcpy(name.data() + 16, &long_name, 4);  // the plugin name's length
    EXPECT_TRUE(contains(read_error(name), "damaged blob header: plugin name is 1073741824 bytes"))
        << read_error(name);
    std::string payload = bytes;
    const size_t size_at = bytes.size() - 8 - plugin_sections().size() - 8;
    const uint64_t huge = uint64_t{1} << 62;
    std::memcpy(payload.data() + size_at, &huge, 8);
    EXPECT_TRUE(contains(read_error(payload),
                         "truncated blob: the header announces a payload of 4611686018427387904"))
        << read_error(payload);
}

TEST(BlobContainer, AnotherFormatVersionAsksForAReExport) {
    std::string bytes = container_of(plugin_sections());
    bytes[8] = 3;
    EXPECT_EQ(read_error(bytes),
              "test: blob format version 3 is not supported by this build (expected 4); "
              "re-export the model");
}

TEST(BlobContainer, ABlobOfAnotherPluginOrOriginIsNamed) {
    std::ostringstream out;
    BlobContainer::write(out, {"vireo_other_plugin", "1.2.3", 7}, plugin_sections());
    const std::string message = read_error(out.str());
    EXPECT_TRUE(contains(message, "exported by plugin 'vireo_other_plugin' version '1.2.3'"))
        << message;
    EXPECT_TRUE(contains(message, "imported by plugin 'vireo_dev_plugin'")) << message;
    const std::string expected = "key-b";
    EXPECT_TRUE(contains(read_error(container_of(plugin_sections(), "key-a"), &expected),
                         "compiled from 'key-a', expected 'key-b'"));
}

TEST(BlobContainer, ForeignBytesAreNotABlob) {
    EXPECT_TRUE(contains(read_error("hello world"), "not a Vireo compiled-model blob"));
    EXPECT_TRUE(contains(read_error(""), "not a Vireo compiled-model blob"));
}

}  // namespace
}  // namespace vireo::sdk::container_test
