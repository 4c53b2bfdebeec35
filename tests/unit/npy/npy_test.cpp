// Tests the .npy reader and writer: dtypes, shapes, C order and clear errors on bad files.
#include "npy.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <sstream>

#include "vireo/float16.hpp"

using namespace vireo;

namespace {

// Builds a .npy image by hand (independently of write_npy).
std::string make_npy(const std::string& dict, const std::string& payload, char major = 1) {
    std::string header = dict;
    const size_t prefix = major == 1 ? 10 : 12;
    header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
    header += '\n';
    std::string out("\x93NUMPY", 6);
    out += major;
    out += '\0';
    if (major == 1) {
        out += static_cast<char>(header.size() & 0xff);
        out += static_cast<char>(header.size() >> 8);
    } else {
        for (int i = 0; i < 4; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
    }
    return out + header + payload;
}

std::string bytes_of(const void* p, size_t n) {
    return std::string(static_cast<const char*>(p), n);
}

void expect_error(const std::string& image, const std::string& fragment) {
    try {
        npy::read_npy_bytes(image, "x.npy");
        FAIL() << "expected an error containing " << fragment;
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("x.npy"), std::string::npos) << e.what();
    }
}

}  // namespace

TEST(Npy, ReadsHandMadeFloatFile) {
    const float values[] = {1.5f, -2.f, 3.25f, 0.f, 5.f, 6.f};
    const auto image = make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                                bytes_of(values, sizeof values));
    Tensor t = npy::read_npy_bytes(image);
    EXPECT_EQ(t.get_element_type(), element::f32);
    EXPECT_EQ(t.get_shape(), (Shape{2, 3}));
    for (int i = 0; i < 6; ++i) EXPECT_EQ(t.data<float>()[i], values[i]);
}

TEST(Npy, ReadsEveryDtypeAndRank) {
    const int64_t v64[] = {-1, 2, 3};
    Tensor a = npy::read_npy_bytes(
        make_npy("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", bytes_of(v64, 24)));
    EXPECT_EQ(a.get_element_type(), element::i64);
    EXPECT_EQ(a.data<int64_t>()[0], -1);
    const uint8_t b[] = {1, 0};
    Tensor c = npy::read_npy_bytes(
        make_npy("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", bytes_of(b, 2)));
    EXPECT_EQ(c.get_element_type(), element::boolean);
    const double d = 2.5;
    Tensor s = npy::read_npy_bytes(
        make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", bytes_of(&d, 8)));
    EXPECT_EQ(s.get_shape(), Shape{});
    EXPECT_EQ(s.data<double>()[0], 2.5);
    Tensor v2 =
        npy::read_npy_bytes(make_npy("{'descr': '<u2', 'fortran_order': False, 'shape': (1, 1), }",
                                     std::string("\x07\x00", 2), 2));
    EXPECT_EQ(v2.get_element_type(), element::u16);
    EXPECT_EQ(v2.data<uint16_t>()[0], 7);
}

TEST(Npy, WriteThenReadRoundTrips) {
    for (auto type : {element::f32, element::f16, element::i32, element::u8, element::i64,
                      element::f64, element::boolean}) {
        Tensor t(type, Shape{2, 1, 3});
        auto* p = static_cast<uint8_t*>(t.data());
        for (size_t i = 0; i < t.get_byte_size(); ++i)
            p[i] = static_cast<uint8_t>(type == element::boolean ? i % 2 : i * 7);
        std::ostringstream out;
        npy::write_npy(out, t);
        EXPECT_EQ(out.str().size() % 64,
                  t.get_byte_size() % 64);  // data starts on a 64-byte boundary
        Tensor back = npy::read_npy_bytes(out.str());
        EXPECT_EQ(back.get_element_type(), type);
        EXPECT_EQ(back.get_shape(), t.get_shape());
        EXPECT_EQ(std::memcmp(back.data(), t.data(), t.get_byte_size()), 0);
    }
}

TEST(Npy, WritesStridedViewsDensely) {
    Tensor big(element::i32, Shape{3, 4});
    for (int i = 0; i < 12; ++i) big.data<int32_t>()[i] = i;
    Tensor roi(big, Coordinate{1, 1}, Coordinate{3, 3});
    std::ostringstream out;
    npy::write_npy(out, roi);
    Tensor back = npy::read_npy_bytes(out.str());
    EXPECT_EQ(back.get_shape(), (Shape{2, 2}));
    const int32_t expected[] = {5, 6, 9, 10};
    for (int i = 0; i < 4; ++i) EXPECT_EQ(back.data<int32_t>()[i], expected[i]);
}

TEST(Npy, BadFilesGiveClearErrors) {
    const float f[] = {1.f, 2.f};
    expect_error("hello world, not numpy", "bad magic");
    expect_error(
        make_npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", bytes_of(f, 8)),
        "Fortran");
    expect_error(
        make_npy("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", bytes_of(f, 8)),
        "big-endian");
    expect_error(
        make_npy("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", bytes_of(f, 8)),
        "unsupported dtype");
    expect_error(
        make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", bytes_of(f, 8)),
        "truncated data");
    expect_error(
        make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }",
                 ""),
        "more elements");
    expect_error(make_npy("{'descr': '<f4', 'fortran_order': False, }", ""), "shape");
    expect_error(make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,x), }", ""),
                 "bad dimension");
    expect_error(std::string("\x93NUMPY\x01\x00\x10", 9), "truncated");
    expect_error(std::string("\x93NUMPY\x09\x00", 8), "version 9");
    EXPECT_THROW(npy::read_npy("/nonexistent/file.npy"), NotFound);
}

// Issue 23 item 6: headers the old text search misread.
TEST(Npy, FortranOrderOtherThanTrueOrFalseIsRefused) {
    const float f[] = {1.f, 2.f};
    // Fortran order spelled as NumPy never writes it used to be read as C order.
    expect_error(make_npy("{'descr': '<f4', 'fortran_order': 1, 'shape': (2,), }", bytes_of(f, 8)),
                 "fortran_order must be True or False, found '1'");
    expect_error(
        make_npy("{'descr': '<f4', 'fortran_order': true, 'shape': (2,), }", bytes_of(f, 8)),
        "fortran_order must be True or False, found 'true'");
    expect_error(make_npy("{'descr': '<f4', 'shape': (2,), }", bytes_of(f, 8)),
                 "no 'fortran_order' entry");
}

TEST(Npy, KeyTextInsideAnotherValueIsNotAKey) {
    const float f[] = {1.f, 2.f, 3.f, 4.f};
    // A value holding "'shape': (1,)" before the real shape: the old search found it first.
    const Tensor t = npy::read_npy_bytes(make_npy(
        "{'descr': '<f4', 'note': \"'shape': (1,)\", 'fortran_order': False, 'shape': (2, 2), }",
        bytes_of(f, 16)));
    EXPECT_EQ(t.get_shape(), (Shape{2, 2}));
    EXPECT_EQ(t.data<float>()[3], 4.f);
    // "True" inside another value does not make the array Fortran-ordered.
    const Tensor u = npy::read_npy_bytes(
        make_npy("{'descr': '<f4', 'note': 'True', 'fortran_order': False, 'shape': (4,), }",
                 bytes_of(f, 16)));
    EXPECT_EQ(u.get_shape(), (Shape{4}));
    expect_error(
        make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'shape': (4,), }",
                 bytes_of(f, 16)),
        "'shape' appears twice");
    expect_error(
        make_npy("{'descr': '<f4', 'fortran_order': False 'shape': (4,), }", bytes_of(f, 16)),
        "expected ',' or '}'");
}

TEST(Npy, FifoIsRefusedWithoutBlocking) {
    const std::string path =
        ::testing::TempDir() + "/vireo_npy_fifo_" + std::to_string(::getpid()) + ".npy";
    ::unlink(path.c_str());
    ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
    try {
        npy::read_npy(path);
        ADD_FAILURE() << "a FIFO was accepted";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
    }
    ::unlink(path.c_str());
}

TEST(Npy, WriteToAFullDeviceIsAnError) {
    // The bytes sit in the stream's buffer until close: the failure must still be reported.
    Tensor t(element::f32, Shape{4});
    for (int i = 0; i < 4; ++i) t.data<float>()[i] = 1.0f;
    try {
        npy::write_npy("/dev/full", t);
        ADD_FAILURE() << "writing to /dev/full reported success";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("failed writing npy file '/dev/full'"),
                  std::string::npos)
            << e.what();
    }
}

TEST(Npy, TypesWithoutNumpyDtypeAreRejectedOnWrite) {
    Tensor t(element::u4, Shape{2});
    std::ostringstream out;
    EXPECT_THROW(npy::write_npy(out, t), InvalidArgument);
}

// bf16 has no NumPy dtype: written as 2-byte void ('<V2', as ml_dtypes' bfloat16 saves), read
// back as bf16 from '<V2' or '|V2'.
TEST(Npy, Bf16IsTwoByteVoidBothWays) {
    Tensor t(element::bf16, Shape{2});
    t.data<bfloat16>()[0] = bfloat16(1.5f);
    t.data<bfloat16>()[1] = bfloat16(-2.0f);
    std::ostringstream out;
    npy::write_npy(out, t);
    EXPECT_NE(out.str().find("'descr': '<V2'"), std::string::npos) << out.str().substr(0, 80);
    const Tensor back = npy::read_npy_bytes(out.str());
    ASSERT_EQ(back.get_element_type(), element::bf16);
    EXPECT_EQ(static_cast<float>(back.data<bfloat16>()[0]), 1.5f);
    EXPECT_EQ(static_cast<float>(back.data<bfloat16>()[1]), -2.0f);
    const uint16_t one = bfloat16(1.0f).to_bits();
    const Tensor piped = npy::read_npy_bytes(
        make_npy("{'descr': '|V2', 'fortran_order': False, 'shape': (1,), }", bytes_of(&one, 2)));
    ASSERT_EQ(piped.get_element_type(), element::bf16);
    EXPECT_EQ(static_cast<float>(piped.data<bfloat16>()[0]), 1.0f);
}
