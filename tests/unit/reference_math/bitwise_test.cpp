// Tests the bitwise kernels: And/Or/Xor/Not on every integer type and boolean, broadcasting, and
// the shifts' defined results for amounts that are negative or >= the bit width.
#include <algorithm>
#include <limits>

#include "math_test_util.hpp"

namespace vireo::reference::test {
namespace {

TEST(Bitwise, AndOrXorNotOnEveryIntegerType) {
    for (const element::Type type : integer_types()) {
        SCOPED_TRACE(type.name());
        const Tensor a = make_tensor(type, {4}, std::vector<int64_t>{0x0c, 0x0a, 0x7f, 0});
        const Tensor b = make_tensor(type, {4}, std::vector<int64_t>{0x0a, 0x05, 0x01, 0x33});
        EXPECT_EQ(ints_of(run("BitwiseAnd", {a, b})), (std::vector<int64_t>{0x08, 0x00, 0x01, 0}));
        EXPECT_EQ(ints_of(run("BitwiseOr", {a, b})),
                  (std::vector<int64_t>{0x0e, 0x0f, 0x7f, 0x33}));
        EXPECT_EQ(ints_of(run("BitwiseXor", {a, b})),
                  (std::vector<int64_t>{0x06, 0x0f, 0x7e, 0x33}));
    }
    // NOT: two's complement for signed (~x == -x - 1), 2^N - 1 - x for unsigned.
    const Tensor s = make_tensor(element::i8, {3}, std::vector<int64_t>{0, 5, -128});
    EXPECT_EQ(ints_of(run("BitwiseNot", {s})), (std::vector<int64_t>{-1, -6, 127}));
    const Tensor u = make_tensor(element::u16, {2}, std::vector<int64_t>{0, 0x00ff});
    EXPECT_EQ(ints_of(run("BitwiseNot", {u})), (std::vector<int64_t>{0xffff, 0xff00}));
    const Tensor w = make_tensor(element::i64, {1}, std::vector<int64_t>{0x0f0f});
    EXPECT_EQ(ints_of(run("BitwiseNot", {w})), (std::vector<int64_t>{~int64_t{0x0f0f}}));
}

TEST(Bitwise, BooleanActsAsOneBitAndBroadcasts) {
    const Tensor a = make_tensor(element::boolean, {2, 2}, std::vector<int64_t>{0, 0, 1, 1});
    const Tensor b = make_tensor(element::boolean, {2}, std::vector<int64_t>{0, 1});
    EXPECT_EQ(ints_of(run("BitwiseAnd", {a, b})), (std::vector<int64_t>{0, 0, 0, 1}));
    EXPECT_EQ(ints_of(run("BitwiseOr", {a, b})), (std::vector<int64_t>{0, 1, 1, 1}));
    EXPECT_EQ(ints_of(run("BitwiseXor", {a, b})), (std::vector<int64_t>{0, 1, 1, 0}));
    EXPECT_EQ(ints_of(run("BitwiseNot", {a})), (std::vector<int64_t>{1, 1, 0, 0}));
    // Integer broadcast: [2,1] with [3].
    const Tensor x = make_tensor(element::i32, {2, 1}, std::vector<int64_t>{1, 6});
    const Tensor y = make_tensor(element::i32, {3}, std::vector<int64_t>{1, 2, 4});
    const Tensor o = run("BitwiseAnd", {x, y});
    EXPECT_EQ(o.get_shape(), (Shape{2, 3}));
    EXPECT_EQ(ints_of(o), (std::vector<int64_t>{1, 0, 0, 0, 2, 4}));
}

TEST(Bitwise, ShiftsDefineEveryAmount) {
    for (const element::Type type : {element::i8, element::i16, element::i32, element::i64}) {
        SCOPED_TRACE(type.name());
        const int64_t bits = static_cast<int64_t>(type.size() * 8);
        const Tensor x = make_tensor(type, {6}, std::vector<int64_t>{1, 3, -4, 5, 5, -1});
        const Tensor n = make_tensor(type, {6}, std::vector<int64_t>{0, 2, 1, -1, bits, bits - 1});
        // -1 << (bits - 1) is the most negative value.
        const int64_t most_negative = std::numeric_limits<int64_t>::min() >> (64 - bits);
        EXPECT_EQ(ints_of(run("BitwiseLeftShift", {x, n})),
                  (std::vector<int64_t>{1, 12, -8, 0, 0, most_negative}));
        // Right shifts of negative values are arithmetic; -1 >> (bits - 1) stays -1.
        EXPECT_EQ(ints_of(run("BitwiseRightShift", {x, n})),
                  (std::vector<int64_t>{1, 0, -2, 0, 0, -1}));
    }
    for (const element::Type type : {element::u8, element::u16, element::u32, element::u64}) {
        SCOPED_TRACE(type.name());
        const int64_t bits = static_cast<int64_t>(type.size() * 8);
        const Tensor x = make_tensor(type, {4}, std::vector<int64_t>{1, 0x81, 0x81, 0x40});
        const Tensor n = make_tensor(type, {4}, std::vector<int64_t>{3, 1, bits, 6});
        const int64_t lost =
            type == element::u8 ? 0x02 : 0x102;  // 0x81 << 1, the top bit dropped in u8
        const int64_t high = type == element::u8 ? 0 : 0x1000;  // 0x40 << 6 needs 13 bits
        EXPECT_EQ(ints_of(run("BitwiseLeftShift", {x, n})),
                  (std::vector<int64_t>{8, lost, 0, high}));
        EXPECT_EQ(ints_of(run("BitwiseRightShift", {x, n})), (std::vector<int64_t>{0, 0x40, 0, 1}));
    }
    // A scalar shift amount broadcasts.
    const Tensor x = make_tensor(element::i32, {3}, std::vector<int64_t>{1, 2, 3});
    const Tensor n = make_tensor(element::i32, {}, std::vector<int64_t>{4});
    EXPECT_EQ(ints_of(run("BitwiseLeftShift", {x, n})), (std::vector<int64_t>{16, 32, 48}));
}

TEST(Bitwise, EveryBitwiseOpHasAKernel) {
    const auto types = KernelRegistry::instance().types();
    for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot",
                           "BitwiseLeftShift", "BitwiseRightShift"})
        EXPECT_NE(std::find(types.begin(), types.end(), op), types.end()) << op;
}

}  // namespace
}  // namespace vireo::reference::test
