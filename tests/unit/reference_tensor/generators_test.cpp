// Tests Broadcast (numpy, bidirectional, explicit), Tile, Pad (every mode, negative pads),
// ShapeOf and Range on small hand-computed cases.
#include "tensor_test_utils.hpp"

namespace vireo::test {
namespace {

Tensor i64s(const std::vector<int64_t>& v) {
    return make_tensor(element::i64, {v.size()}, v);
}

TEST(BroadcastKernel, NumpyAndBidirectional) {
    const auto x = make_tensor(element::f32, {3, 1}, std::vector<float>{1, 2, 3});
    const auto target = i64s({2, 3, 2});
    auto node = make_node("Broadcast", {param(element::f32, {3, 1}), constant(target)},
                          {{"mode", std::string("numpy")}});
    const auto out = run(node, {x, target});
    EXPECT_EQ(out[0].get_shape(), (Shape{2, 3, 2}));
    EXPECT_EQ(values_of(out[0]), (std::vector<double>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
    // Bidirectional: the target [2, 1] grows the data's 1 and keeps its 3 rows... [3,1] x [1,2] ->
    // [3,2]
    const auto target2 = i64s({1, 2});
    auto bi = make_node("Broadcast", {param(element::f32, {3, 1}), constant(target2)},
                        {{"mode", std::string("bidirectional")}}, 3);
    const auto out2 = run(bi, {x, target2});
    EXPECT_EQ(out2[0].get_shape(), (Shape{3, 2}));
    EXPECT_EQ(values_of(out2[0]), (std::vector<double>{1, 1, 2, 2, 3, 3}));
}

TEST(BroadcastKernel, ExplicitAxesMapping) {
    // data [3] placed on axis 1 of [2, 3, 2].
    const auto x = make_tensor(element::i16, {3}, std::vector<int>{4, 5, 6});
    const auto target = i64s({2, 3, 2});
    const auto mapping = i64s({1});
    auto node =
        make_node("Broadcast", {param(element::i16, {3}), constant(target), constant(mapping)},
                  {{"mode", std::string("explicit")}});
    EXPECT_EQ(values_of(run(node, {x, target, mapping})[0]),
              (std::vector<double>{4, 4, 5, 5, 6, 6, 4, 4, 5, 5, 6, 6}));
}

TEST(TileKernel, RepeatsWithRankPromotion) {
    const auto x = make_tensor(element::u8, {2, 2}, std::vector<int>{1, 2, 3, 4});
    const auto repeats = i64s({2, 1, 2});
    auto node = make_node("Tile", {param(element::u8, {2, 2}), constant(repeats)}, {});
    const auto out = run(node, {x, repeats});
    EXPECT_EQ(out[0].get_shape(), (Shape{2, 2, 4}));
    EXPECT_EQ(values_of(out[0]),
              (std::vector<double>{1, 2, 1, 2, 3, 4, 3, 4, 1, 2, 1, 2, 3, 4, 3, 4}));
}

std::vector<double> run_pad(const std::string& mode, const std::vector<int64_t>& begin,
                            const std::vector<int64_t>& end, int version, Shape* shape,
                            double value = 0) {
    const auto x = make_tensor(element::f32, {2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
    const auto b = i64s(begin), e = i64s(end);
    OutputVector inputs{param(element::f32, {2, 3}), constant(b), constant(e)};
    std::vector<Tensor> values{x, b, e};
    if (mode == "constant") {
        const auto v = make_tensor(element::f32, {}, std::vector<double>{value});
        inputs.push_back(constant(v));
        values.push_back(v);
    }
    auto node = make_node("Pad", inputs, {{"pad_mode", mode}}, version);
    const auto out = run(node, values);
    *shape = out[0].get_shape();
    return values_of(out[0]);
}

TEST(PadKernel, EveryMode) {
    // Data [[1,2,3],[4,5,6]], one row before, two columns after.
    Shape shape;
    EXPECT_EQ(run_pad("constant", {1, 0}, {0, 2}, 1, &shape, 9),
              (std::vector<double>{9, 9, 9, 9, 9, 1, 2, 3, 9, 9, 4, 5, 6, 9, 9}));
    EXPECT_EQ(shape, (Shape{3, 5}));
    EXPECT_EQ(run_pad("edge", {1, 0}, {0, 2}, 1, &shape),
              (std::vector<double>{1, 2, 3, 3, 3, 1, 2, 3, 3, 3, 4, 5, 6, 6, 6}));
    // reflect excludes the edge: row before is row 1; columns after are 2, 1.
    EXPECT_EQ(run_pad("reflect", {1, 0}, {0, 2}, 1, &shape),
              (std::vector<double>{4, 5, 6, 5, 4, 1, 2, 3, 2, 1, 4, 5, 6, 5, 4}));
    // symmetric repeats the edge: row before is row 0; columns after are 3, 2.
    EXPECT_EQ(run_pad("symmetric", {1, 0}, {0, 2}, 1, &shape),
              (std::vector<double>{1, 2, 3, 3, 2, 1, 2, 3, 3, 2, 4, 5, 6, 6, 5}));
    // Columns before in reflect and symmetric.
    EXPECT_EQ(run_pad("reflect", {0, 2}, {0, 0}, 1, &shape),
              (std::vector<double>{3, 2, 1, 2, 3, 6, 5, 4, 5, 6}));
    EXPECT_EQ(run_pad("symmetric", {0, 2}, {0, 0}, 1, &shape),
              (std::vector<double>{2, 1, 1, 2, 3, 5, 4, 4, 5, 6}));
}

TEST(PadKernel, NegativePadsCropInPad12) {
    Shape shape;
    // Remove the first column, add one zero row at the end.
    EXPECT_EQ(run_pad("constant", {0, -1}, {1, 0}, 12, &shape),
              (std::vector<double>{2, 3, 5, 6, 0, 0}));
    EXPECT_EQ(shape, (Shape{3, 2}));
    EXPECT_EQ(run_pad("edge", {-1, 1}, {0, -2}, 12, &shape), (std::vector<double>{4, 4}));
    EXPECT_EQ(shape, (Shape{1, 2}));
}

TEST(ShapeOfKernel, I32AndI64) {
    const Tensor x(element::f32, {2, 0, 5});
    auto node =
        make_node("ShapeOf", {param(element::f32, {2, 0, 5})}, {{"output_type", element::i32}}, 3);
    const auto out = run(node, {x});
    EXPECT_EQ(out[0].get_element_type(), element::i32);
    EXPECT_EQ(ints_of(out[0]), (std::vector<int64_t>{2, 0, 5}));
    auto node1 = make_node("ShapeOf", {param(element::f32, {2, 0, 5})}, {}, 1);
    EXPECT_EQ(ints_of(run(node1, {x})[0]), (std::vector<int64_t>{2, 0, 5}));
}

TEST(RangeKernel, IntegerAndRealRanges) {
    auto scalar = [](element::Type t, double v) {
        return make_tensor(t, {}, std::vector<double>{v});
    };
    {
        const auto a = scalar(element::i32, 10), b = scalar(element::i32, 1),
                   c = scalar(element::i32, -3);
        auto node = make_node("Range", {constant(a), constant(b), constant(c)}, {}, 1);
        EXPECT_EQ(values_of(run(node, {a, b, c})[0]), (std::vector<double>{10, 7, 4}));
    }
    {
        const auto a = scalar(element::f32, 0.5), b = scalar(element::f32, 2),
                   c = scalar(element::f32, 0.5);
        auto node = make_node("Range", {constant(a), constant(b), constant(c)},
                              {{"output_type", element::f64}}, 4);
        const auto out = run(node, {a, b, c});
        EXPECT_EQ(out[0].get_element_type(), element::f64);
        EXPECT_EQ(values_of(out[0]), (std::vector<double>{0.5, 1.0, 1.5}));
    }
    {
        // Integer output truncates the bounds: [1.7, 6.2) by 2.9 -> start 1, step 2 -> 1, 3, 5.
        const auto a = scalar(element::f32, 1.7), b = scalar(element::f32, 6.2),
                   c = scalar(element::f32, 2.9);
        auto node = make_node("Range", {constant(a), constant(b), constant(c)},
                              {{"output_type", element::i64}}, 4);
        EXPECT_EQ(values_of(run(node, {a, b, c})[0]), (std::vector<double>{1, 3, 5}));
    }
}

}  // namespace
}  // namespace vireo::test
