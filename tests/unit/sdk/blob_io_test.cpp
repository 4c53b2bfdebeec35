// Tests of sdk::BlobWriter / sdk::BlobReader (the fields of plugins' export blobs) and of the
// device-list helpers of meta-plugins: byte layout, round trips, and the errors for truncated,
// damaged and foreign input.
// BlobWriter and BlobReader are deprecated but must keep working until they go: their tests stay.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include "vireo/sdk/blob_io.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "sdk_test_helpers.hpp"
#include "vireo/exception.hpp"
#include "vireo/properties.hpp"
#include "vireo/sdk/device_list.hpp"

namespace vireo::sdk {
namespace {

using test::invalid_argument_of;

TEST(BlobIo, IntegersAreLittleEndianAndStringsLengthPrefixed) {
    std::ostringstream out;
    BlobWriter writer(out, "DEV");
    writer.bytes("MAG", 3);
    writer.u8(0xab);
    writer.u32(0x01020304u);
    writer.u64(0x1122334455667788ull);
    writer.string("hi");
    writer.check();
    const std::string expected = std::string("MAG") + "\xab" + "\x04\x03\x02\x01" +
                                 "\x88\x77\x66\x55\x44\x33\x22\x11" +
                                 std::string("\x02\0\0\0\0\0\0\0", 8) + "hi";
    EXPECT_EQ(out.str(), expected);

    std::istringstream in(out.str());
    BlobReader reader(in, "DEV");
    reader.expect_magic("MAG");
    EXPECT_EQ(reader.u8("a"), 0xab);
    EXPECT_EQ(reader.u32("b"), 0x01020304u);
    EXPECT_EQ(reader.u64("c"), 0x1122334455667788ull);
    EXPECT_EQ(reader.string("d"), "hi");
    EXPECT_EQ(invalid_argument_of([&] { reader.u8("the end"); }),
              "DEV blob is truncated: reading the end needed 1 bytes, found 0");
}

TEST(BlobIo, ALongStringReadsAcrossBlocks) {
    const std::string text(3 * (1 << 20) + 17, 'x');
    std::ostringstream out;
    BlobWriter(out, "DEV").string(text);
    std::istringstream in(out.str());
    EXPECT_EQ(BlobReader(in, "DEV").string("the text"), text);
}

TEST(BlobIo, TruncatedDamagedAndForeignInputAreNamed) {
    {
        // A length of 1 GiB with 10 bytes behind it: truncated after what the stream had.
        std::ostringstream out;
        BlobWriter writer(out, "DEV");
        writer.u64(uint64_t{1} << 30);
        writer.bytes("0123456789", 10);
        std::istringstream in(out.str());
        BlobReader reader(in, "DEV");
        EXPECT_EQ(invalid_argument_of([&] { reader.string("the weights"); }),
                  "DEV blob is truncated: reading the weights needed 1073741824 bytes, found 10");
    }
    {
        // A length beyond the reader's bound is refused before anything is read or allocated.
        std::ostringstream out;
        BlobWriter(out, "DEV").u64(5000);
        std::istringstream in(out.str());
        BlobReader reader(in, "DEV", 4096);
        EXPECT_EQ(invalid_argument_of([&] { reader.length("the xml"); }),
                  "DEV blob is damaged: the xml claims 5000 bytes");
    }
    {
        std::istringstream in("VIREOXYZ...");
        BlobReader reader(in, "DEV");
        EXPECT_EQ(invalid_argument_of([&] { reader.expect_magic("VIREODEV"); }),
                  "not a blob exported by the DEV plugin: expected the magic 'VIREODEV', found "
                  "'VIREOXYZ'");
    }
    {
        std::istringstream in("VIR");
        BlobReader reader(in, "DEV");
        EXPECT_EQ(
            invalid_argument_of([&] { reader.expect_magic("VIREODEV"); }),
            "not a blob exported by the DEV plugin: expected the magic 'VIREODEV', found 'VIR'");
    }
}

// A stream that can be read but not sought (a pipe, a socket): tellg() answers -1.
class UnseekableBuf : public std::streambuf {
  public:
    explicit UnseekableBuf(std::string data) : m_data(std::move(data)) {
        setg(m_data.data(), m_data.data(), m_data.data() + m_data.size());
    }

  private:
    std::string m_data;
};

TEST(BlobIo, ALengthIsCheckedAgainstWhatASeekableStreamHoldsBeforeAnyAllocation) {
    std::ostringstream out;
    BlobWriter writer(out, "DEV");
    writer.u64(4);
    writer.bytes("abcd", 4);
    writer.u64(uint64_t{1} << 30);  // 1 GiB claimed, 10 bytes follow
    writer.bytes("0123456789", 10);
    {
        std::istringstream in(out.str());
        BlobReader reader(in, "DEV");
        // A length that fits leaves the position where it was: the bytes read next are its own.
        EXPECT_EQ(reader.length("the name"), 4u);
        char name[4];
        reader.bytes(name, 4, "the name");
        EXPECT_EQ(std::string(name, 4), "abcd");
        EXPECT_EQ(invalid_argument_of([&] { reader.length("the weights"); }),
                  "DEV blob is truncated: reading the weights needed 1073741824 bytes, found 10");
    }
    {
        // Unseekable: the length cannot be checked up front, so it is returned; a caller's
        // bytes() then reports the truncation.
        UnseekableBuf buf(out.str());
        std::istream in(&buf);
        BlobReader reader(in, "DEV");
        EXPECT_EQ(reader.string("the name"), "abcd");
        EXPECT_EQ(reader.length("the weights"), uint64_t{1} << 30);
        std::string head(16, '\0');
        EXPECT_EQ(invalid_argument_of([&] { reader.bytes(head.data(), 16, "the weights"); }),
                  "DEV blob is truncated: reading the weights needed 16 bytes, found 10");
    }
}

TEST(BlobIo, AFailedStreamIsUnavailable) {
    std::ostringstream out;
    out.setstate(std::ios::badbit);
    BlobWriter writer(out, "DEV");
    writer.u32(1);
    try {
        writer.check();
        FAIL() << "no exception";
    } catch (const Unavailable& e) {
        EXPECT_EQ(std::string(e.what()), "DEV: writing the exported model failed (stream error)");
    }
}

TEST(DeviceList, SplitsTrimsJoinsAndRefusesEmptyOrRepeatedEntries) {
    EXPECT_EQ(split_device_list("META", " A, B.1 ,C"), (std::vector<std::string>{"A", "B.1", "C"}));
    EXPECT_TRUE(split_device_list("META", "").empty());
    EXPECT_EQ(join_device_list({"A", "B.1", "C"}), "A,B.1,C");
    EXPECT_EQ(join_device_list({"A", "B"}, ", "), "A, B");
    EXPECT_EQ(join_device_list({}), "");
    EXPECT_EQ(invalid_argument_of([] { split_device_list("META", "A,,B"); }),
              "META: MULTI_DEVICE_PRIORITIES 'A,,B' has an empty entry");
    EXPECT_EQ(invalid_argument_of([] { split_device_list("META", "A, "); }),
              "META: MULTI_DEVICE_PRIORITIES 'A, ' has an empty entry");
    EXPECT_EQ(invalid_argument_of([] { split_device_list("META", "A,B, A"); }),
              "META: MULTI_DEVICE_PRIORITIES 'A,B, A' lists 'A' twice");
}

TEST(DeviceList, TakeListedDevicesLeavesWhatATableTakes) {
    AnyMap arguments{{device::priorities.name(), std::string("A,B")},
                     {device::batch_size.name(), uint32_t{4}},
                     {device::id.name(), std::string("1")}};
    EXPECT_EQ(take_listed_devices(arguments), "A,B");
    ASSERT_EQ(arguments.size(), 1u);
    EXPECT_EQ(arguments.begin()->first, device::id.name());
    AnyMap none{{device::id.name(), std::string("0")}};
    EXPECT_EQ(take_listed_devices(none), "");
    EXPECT_EQ(none.size(), 1u);
}

}  // namespace
}  // namespace vireo::sdk
