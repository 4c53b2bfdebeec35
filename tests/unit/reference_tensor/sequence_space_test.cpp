// Tests CumSum (axis, exclusive, reverse, integer wrap), ReverseSequence (ONNX's examples, bad
// lengths) and DepthToSpace/SpaceToDepth (ONNX's DCR/CRD example, 1-D and 3-D spatial, inverse).
#include "tensor_test_utils.hpp"

namespace vireo::test {
namespace {

std::vector<Tensor> eval(const std::string& type, const std::vector<Tensor>& inputs,
                         Attrs attrs = {}) {
    OutputVector args;
    for (const auto& t : inputs) args.push_back(param(t.get_element_type(), t.get_shape()));
    return run(make_node(type, args, std::move(attrs)), inputs);
}

TEST(CumSumKernel, AxesExclusiveAndReverse) {
    const auto x = make_tensor(element::f32, {2, 3}, std::vector<double>{1, 2, 3, 4, 5, 6});
    const auto axis1 = make_tensor(element::i64, {}, Ints{1});
    const auto axis_m2 = make_tensor(element::i32, {}, Ints{-2});
    EXPECT_EQ(values_of(eval("CumSum", {x, axis1})[0]), (std::vector<double>{1, 3, 6, 4, 9, 15}));
    EXPECT_EQ(values_of(eval("CumSum", {x, axis1}, {{"exclusive", true}})[0]),
              (std::vector<double>{0, 1, 3, 0, 4, 9}));
    EXPECT_EQ(values_of(eval("CumSum", {x, axis1}, {{"reverse", true}})[0]),
              (std::vector<double>{6, 5, 3, 15, 11, 6}));
    EXPECT_EQ(values_of(eval("CumSum", {x, axis1}, {{"exclusive", true}, {"reverse", true}})[0]),
              (std::vector<double>{5, 3, 0, 11, 6, 0}));
    EXPECT_EQ(values_of(eval("CumSum", {x, axis_m2})[0]), (std::vector<double>{1, 2, 3, 5, 7, 9}));
    EXPECT_EQ(values_of(eval("CumSum", {x})[0]),
              (std::vector<double>{1, 2, 3, 5, 7, 9}));  // axis defaults to 0
}

TEST(CumSumKernel, IntegersWrapHalvesRoundAndEmptyWorks) {
    const auto x = make_tensor(element::i8, {3}, Ints{100, 100, -1});
    EXPECT_EQ(ints_of(eval("CumSum", {x})[0]), (Ints{100, -56, -57}));
    const auto h = make_tensor(element::f16, {3}, std::vector<double>{0.5, 0.25, 1});
    EXPECT_EQ(values_of(eval("CumSum", {h})[0]), (std::vector<double>{0.5, 0.75, 1.75}));
    const auto e = make_tensor(element::f32, {0, 3}, std::vector<double>{});
    EXPECT_EQ(eval("CumSum", {e, make_tensor(element::i64, {}, Ints{1})})[0].get_shape(),
              (Shape{0, 3}));
    const auto bad_axis = make_tensor(element::i64, {}, Ints{2});
    EXPECT_THROW(
        eval("CumSum", {make_tensor(element::f32, {2}, std::vector<double>{1, 2}), bad_axis}),
        InvalidArgument);
}

TEST(ReverseSequenceKernel, OnnxExamples) {
    std::vector<double> x(16);
    for (size_t i = 0; i < 16; ++i) x[i] = static_cast<double>(i);
    // batch_axis 1, seq_axis 0: column b reverses its first lengths[b] rows.
    const auto by_column =
        make_tensor(element::f32, {4, 4},
                    std::vector<double>{0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15});
    const auto lengths = make_tensor(element::i64, {4}, Ints{4, 3, 2, 1});
    EXPECT_EQ(values_of(eval("ReverseSequence", {by_column, lengths},
                             {{"batch_axis", int64_t{1}}, {"seq_axis", int64_t{0}}})[0]),
              (std::vector<double>{3, 6, 9, 12, 2, 5, 8, 13, 1, 4, 10, 14, 0, 7, 11, 15}));
    const auto by_row = make_tensor(element::i32, {4, 4}, x);
    const auto rising = make_tensor(element::i32, {4}, Ints{1, 2, 3, 4});
    EXPECT_EQ(ints_of(eval("ReverseSequence", {by_row, rising},
                           {{"batch_axis", int64_t{0}}, {"seq_axis", int64_t{-1}}})[0]),
              (Ints{0, 1, 2, 3, 5, 4, 6, 7, 10, 9, 8, 11, 15, 14, 13, 12}));
    const auto too_long = make_tensor(element::i32, {4}, Ints{1, 2, 3, 5});
    try {
        eval("ReverseSequence", {by_row, too_long});
        ADD_FAILURE() << "expected InvalidArgument";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("ReverseSequence"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("5"), std::string::npos) << e.what();
    }
}

std::vector<double> iota(size_t n) {
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<double>(i);
    return v;
}

TEST(DepthToSpaceKernel, OnnxBlocksFirstAndDepthFirstExamples) {
    const auto x = make_tensor(element::f32, {1, 8, 2, 3}, iota(48));
    const auto dcr = eval("DepthToSpace", {x},
                          {{"block_size", int64_t{2}}, {"mode", std::string("blocks_first")}})[0];
    EXPECT_EQ(dcr.get_shape(), (Shape{1, 2, 4, 6}));
    EXPECT_EQ(values_of(dcr), (std::vector<double>{0, 12, 1,  13, 2,  14, 24, 36, 25, 37, 26, 38,
                                                   3, 15, 4,  16, 5,  17, 27, 39, 28, 40, 29, 41,
                                                   6, 18, 7,  19, 8,  20, 30, 42, 31, 43, 32, 44,
                                                   9, 21, 10, 22, 11, 23, 33, 45, 34, 46, 35, 47}));
    const auto crd = eval("DepthToSpace", {x},
                          {{"block_size", int64_t{2}}, {"mode", std::string("depth_first")}})[0];
    EXPECT_EQ(values_of(crd), (std::vector<double>{
                                  0,  6,  1,  7,  2,  8,  12, 18, 13, 19, 14, 20, 3,  9,  4,  10,
                                  5,  11, 15, 21, 16, 22, 17, 23, 24, 30, 25, 31, 26, 32, 36, 42,
                                  37, 43, 38, 44, 27, 33, 28, 34, 29, 35, 39, 45, 40, 46, 41, 47}));
}

TEST(DepthToSpaceKernel, OneSpatialAxisByHandAndSpaceToDepthInverts) {
    // [1, 4, 2], block 2, blocks_first: out[c][2w + j] = x[2j + c][w].
    const auto x = make_tensor(element::i16, {1, 4, 2}, iota(8));
    const auto d2s = eval("DepthToSpace", {x},
                          {{"block_size", int64_t{2}}, {"mode", std::string("blocks_first")}})[0];
    EXPECT_EQ(d2s.get_shape(), (Shape{1, 2, 4}));
    EXPECT_EQ(ints_of(d2s), (Ints{0, 4, 1, 5, 2, 6, 3, 7}));
    for (const char* mode : {"blocks_first", "depth_first"}) {
        SCOPED_TRACE(mode);
        for (const Shape& shape : {Shape{1, 4, 2}, Shape{2, 8, 2, 3}, Shape{1, 16, 2, 1, 3}}) {
            const auto t = make_tensor(element::f32, shape, iota(shape_size(shape)));
            const Attrs attrs{{"block_size", int64_t{2}}, {"mode", std::string(mode)}};
            const auto space = eval("DepthToSpace", {t}, attrs)[0];
            const auto back = eval("SpaceToDepth", {space}, attrs)[0];
            EXPECT_EQ(back.get_shape(), shape);
            EXPECT_EQ(values_of(back), values_of(t));
        }
    }
    // SpaceToDepth by hand: [1, 1, 4] block 2 -> [1, 2, 2]: channel j holds x[2w + j].
    const auto s = make_tensor(element::f32, {1, 1, 4}, std::vector<double>{10, 11, 12, 13});
    const auto s2d = eval("SpaceToDepth", {s},
                          {{"block_size", int64_t{2}}, {"mode", std::string("depth_first")}})[0];
    EXPECT_EQ(s2d.get_shape(), (Shape{1, 2, 2}));
    EXPECT_EQ(values_of(s2d), (std::vector<double>{10, 12, 11, 13}));
}

}  // namespace
}  // namespace vireo::test
