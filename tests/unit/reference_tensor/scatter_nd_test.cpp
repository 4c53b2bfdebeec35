// Tests GatherND-5/8, ScatterNDUpdate-3/15 and ScatterElementsUpdate-3/12 with hand-computed
// values: batch_dims, negative and out-of-range indices, duplicates, every reduction, empty
// tensors.
#include "tensor_test_utils.hpp"

namespace vireo::test {
namespace {

/// Builds `type` over Parameters shaped like `inputs` and runs it once.
std::vector<Tensor> eval(const std::string& type, const std::vector<Tensor>& inputs,
                         Attrs attrs = {}, int version = -1) {
    OutputVector args;
    for (const auto& t : inputs) args.push_back(param(t.get_element_type(), t.get_shape()));
    return run(make_node(type, args, std::move(attrs), version), inputs);
}

void expect_invalid_naming(const std::function<void()>& f, const std::string& op,
                           const std::string& piece) {
    try {
        f();
        ADD_FAILURE() << "expected InvalidArgument from " << op;
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find(op), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(piece), std::string::npos) << e.what();
    }
}

TEST(GatherNDKernel, ElementsAndSlicesWithNegativeIndices) {
    const auto data = make_tensor(element::f32, {2, 2}, std::vector<double>{0, 1, 2, 3});
    const auto pairs = make_tensor(element::i64, {3, 2}, Ints{0, 0, 1, 1, -1, -2});
    auto out = eval("GatherND", {data, pairs}, {}, 8);
    EXPECT_EQ(out[0].get_shape(), (Shape{3}));
    EXPECT_EQ(values_of(out[0]), (std::vector<double>{0, 3, 2}));
    const auto rows = make_tensor(element::i32, {2, 1}, Ints{1, 0});
    out = eval("GatherND", {data, rows}, {}, 5);
    EXPECT_EQ(out[0].get_shape(), (Shape{2, 2}));
    EXPECT_EQ(values_of(out[0]), (std::vector<double>{2, 3, 0, 1}));
}

TEST(GatherNDKernel, BatchDimsKeptInV8AndFlattenedInV5) {
    // data [2, 3, 4] = 0..23, indices [2, 3, 1], batch_dims 2: out[b0][b1] = data[b0][b1][idx].
    std::vector<double> d(24);
    for (size_t i = 0; i < d.size(); ++i) d[i] = static_cast<double>(i);
    const auto data = make_tensor(element::i32, {2, 3, 4}, d);
    const Ints idx{3, 0, -1, 2, 1, 0};
    const auto indices = make_tensor(element::i64, {2, 3, 1}, idx);
    std::vector<double> expected;
    for (size_t b = 0; b < 6; ++b)
        expected.push_back(static_cast<double>(b * 4 + static_cast<size_t>((idx[b] + 4) % 4)));
    const auto v8 = eval("GatherND", {data, indices}, {{"batch_dims", int64_t{2}}}, 8);
    EXPECT_EQ(v8[0].get_shape(), (Shape{2, 3}));
    EXPECT_EQ(values_of(v8[0]), expected);
    const auto v5 = eval("GatherND", {data, indices}, {{"batch_dims", int64_t{2}}}, 5);
    EXPECT_EQ(v5[0].get_shape(), (Shape{6}));
    EXPECT_EQ(values_of(v5[0]), expected);
}

TEST(GatherNDKernel, OutOfRangeIndexIsRejectedAndEmptyIndicesGiveEmptyOutput) {
    const auto data = make_tensor(element::f32, {2, 2}, std::vector<double>{0, 1, 2, 3});
    const auto bad = make_tensor(element::i64, {1, 2}, Ints{0, 2});
    expect_invalid_naming([&] { eval("GatherND", {data, bad}, {}, 8); }, "GatherND", "index 2");
    const auto bad_negative = make_tensor(element::i64, {1, 1}, Ints{-3});
    expect_invalid_naming([&] { eval("GatherND", {data, bad_negative}, {}, 8); }, "GatherND", "-3");
    const auto none = make_tensor(element::i64, {0, 2}, Ints{});
    const auto out = eval("GatherND", {data, none}, {}, 8);
    EXPECT_EQ(out[0].get_shape(), (Shape{0}));
}

TEST(ScatterNDUpdateKernel, ElementsSlicesDuplicatesAndNegativeIndices) {
    const auto data = make_tensor(element::f32, {4}, std::vector<double>{1, 2, 3, 4});
    const auto idx = make_tensor(element::i64, {2, 1}, Ints{1, -1});
    const auto upd = make_tensor(element::f32, {2}, std::vector<double>{9, 10});
    EXPECT_EQ(values_of(eval("ScatterNDUpdate", {data, idx, upd})[0]),
              (std::vector<double>{1, 9, 3, 10}));
    // Whole rows; the repeated row takes the last update.
    const auto grid = make_tensor(element::i32, {2, 3}, std::vector<double>{0, 0, 0, 0, 0, 0});
    const auto rows = make_tensor(element::i32, {2, 1}, Ints{1, 1});
    const auto vals = make_tensor(element::i32, {2, 3}, std::vector<double>{7, 8, 9, 4, 5, 6});
    EXPECT_EQ(ints_of(eval("ScatterNDUpdate", {grid, rows, vals})[0]), (Ints{0, 0, 0, 4, 5, 6}));
    const auto bad = make_tensor(element::i32, {2, 1}, Ints{0, 2});
    expect_invalid_naming(
        [&] {
            eval("ScatterNDUpdate", {grid, bad, vals});
        },
        "ScatterNDUpdate", "index 2");
    // No updates: the data comes through.
    const auto none = make_tensor(element::i64, {0, 1}, Ints{});
    const auto no_vals = make_tensor(element::f32, {0}, std::vector<double>{});
    EXPECT_EQ(values_of(eval("ScatterNDUpdate", {data, none, no_vals})[0]),
              (std::vector<double>{1, 2, 3, 4}));
}

TEST(ScatterNDUpdateKernel, ReductionsApplyEveryUpdateInOrderToTheValueThere) {
    // data [2, 2]; rows 1, 0, 1 again: row 1 receives two updates, row 0 one.
    const auto data = make_tensor(element::f32, {2, 2}, std::vector<double>{1, 2, 3, 4});
    const auto rows = make_tensor(element::i64, {3, 1}, Ints{1, 0, -1});
    const auto upd = make_tensor(element::f32, {3, 2}, std::vector<double>{10, 1, 5, 5, 2, 20});
    struct Case {
        std::string reduction;
        std::vector<double> expected;
    };
    const std::vector<Case> cases{
        {"none", {5, 5, 2, 20}}, {"sum", {6, 7, 15, 25}}, {"prod", {5, 10, 60, 80}},
        {"min", {1, 2, 2, 1}},   {"max", {5, 5, 10, 20}},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.reduction);
        EXPECT_EQ(values_of(eval("ScatterNDUpdate", {data, rows, upd}, {{"reduction", c.reduction}},
                                 15)[0]),
                  c.expected);
    }
    // Integers wrap like the element-wise ops; an index out of range names the op.
    const auto bytes = make_tensor(element::u8, {2}, std::vector<double>{250, 1});
    const auto at0 = make_tensor(element::i64, {2, 1}, Ints{0, 0});
    const auto add = make_tensor(element::u8, {2}, std::vector<double>{3, 4});
    EXPECT_EQ(ints_of(eval("ScatterNDUpdate", {bytes, at0, add},
                           {{"reduction", std::string("sum")}}, 15)[0]),
              (Ints{1, 1}));
    const auto bad = make_tensor(element::i64, {3, 1}, Ints{1, 0, 2});
    expect_invalid_naming(
        [&] {
            eval("ScatterNDUpdate", {data, bad, upd}, {{"reduction", std::string("sum")}}, 15);
        },
        "ScatterNDUpdate", "index 2");
}

TEST(ScatterElementsUpdateKernel, OnnxExamplesOnBothAxes) {
    const auto axis0 = make_tensor(element::i64, {}, Ints{0});
    const auto data = make_tensor(element::f32, {3, 3}, std::vector<double>(9, 0.0));
    const auto idx = make_tensor(element::i64, {2, 3}, Ints{1, 0, 2, 0, 2, 1});
    const auto upd =
        make_tensor(element::f32, {2, 3}, std::vector<double>{1.0, 1.1, 1.2, 2.0, 2.1, 2.2});
    for (int version : {3, 12})
        expect_near(
            values_of(eval("ScatterElementsUpdate", {data, idx, upd, axis0}, {}, version)[0]),
            {2.0, 1.1, 0, 1.0, 0, 2.2, 0, 2.1, 1.2}, 1e-6);
    const auto row = make_tensor(element::f32, {1, 5}, std::vector<double>{1, 2, 3, 4, 5});
    const auto ridx = make_tensor(element::i32, {1, 2}, Ints{1, -2});
    const auto rupd = make_tensor(element::f32, {1, 2}, std::vector<double>{1.1, 2.1});
    const auto minus1 = make_tensor(element::i32, {1}, Ints{-1});
    expect_near(values_of(eval("ScatterElementsUpdate", {row, ridx, rupd, minus1}, {}, 3)[0]),
                {1, 1.1, 3, 2.1, 5}, 1e-6);
    const auto bad = make_tensor(element::i32, {1, 2}, Ints{1, 5});
    expect_invalid_naming(
        [&] {
            eval("ScatterElementsUpdate", {row, bad, rupd, minus1}, {}, 3);
        },
        "ScatterElementsUpdate", "index 5");
}

// Indices shorter than data along the other axes, on every axis of a rank-4 tensor, with i64, i32
// and i16 indices (the last through the general path): each update lands at its own coordinates
// with the axis one replaced by its index, computed here element by element.
TEST(ScatterElementsUpdateKernel, PartialIndicesOnEveryAxisMatchTheDefinition) {
    const Shape data_shape{3, 4, 2, 5}, index_shape{2, 3, 2, 4};
    const size_t n = shape_size(data_shape), m = shape_size(index_shape);
    std::vector<double> data(n), upd(m);
    for (size_t i = 0; i < n; ++i) data[i] = static_cast<double>(i);
    for (size_t i = 0; i < m; ++i) upd[i] = 1000.0 + static_cast<double>(i);
    for (int64_t axis = 0; axis < 4; ++axis)
        for (const element::Type itype : {element::i64, element::i32, element::i16}) {
            SCOPED_TRACE("axis " + std::to_string(axis) + ", " + std::string(itype.name()));
            const auto dim = static_cast<int64_t>(data_shape[static_cast<size_t>(axis)]);
            Ints idx(m);
            for (size_t i = 0; i < m; ++i)  // distinct per row of the axis, some negative
                idx[i] = static_cast<int64_t>((i * 7 + 3) % static_cast<size_t>(dim)) -
                         (i % 3 == 0 ? dim : 0);
            std::vector<double> expected = data;
            for (size_t p = 0; p < m; ++p) {
                size_t rest = p, offset = 0, stride = 1;
                std::vector<size_t> coord(4);
                for (size_t i = 4; i-- > 0;) {
                    coord[i] = rest % index_shape[i];
                    rest /= index_shape[i];
                }
                coord[static_cast<size_t>(axis)] =
                    static_cast<size_t>(idx[p] < 0 ? idx[p] + dim : idx[p]);
                for (size_t i = 4; i-- > 0;) {
                    offset += coord[i] * stride;
                    stride *= data_shape[i];
                }
                expected[offset] = upd[p];
            }
            const auto result = eval(
                "ScatterElementsUpdate",
                {make_tensor(element::f32, data_shape, data), make_tensor(itype, index_shape, idx),
                 make_tensor(element::f32, index_shape, upd),
                 make_tensor(element::i64, {}, Ints{axis})},
                {}, 12);
            expect_near(values_of(result[0]), expected, 0.0);
        }
}

TEST(ScatterElementsUpdateKernel, EveryReductionWithAndWithoutInitialValues) {
    const auto data = make_tensor(element::f32, {4}, std::vector<double>{1, 2, 3, 4});
    const auto idx = make_tensor(element::i64, {5}, Ints{0, 0, 2, 2, -2});
    const auto upd = make_tensor(element::f32, {5}, std::vector<double>{10, 20, 1, 2, 3});
    const auto axis = make_tensor(element::i64, {}, Ints{0});
    struct Case {
        std::string reduction;
        bool init;
        std::vector<double> expected;
    };
    const std::vector<Case> cases{
        {"none", true, {20, 2, 3, 4}},   {"sum", true, {31, 2, 9, 4}},
        {"sum", false, {30, 2, 6, 4}},   {"prod", true, {200, 2, 18, 4}},
        {"prod", false, {200, 2, 6, 4}}, {"min", true, {1, 2, 1, 4}},
        {"min", false, {10, 2, 1, 4}},   {"max", true, {20, 2, 3, 4}},
        {"max", false, {20, 2, 3, 4}},   {"mean", true, {31.0 / 3, 2, 9.0 / 4, 4}},
        {"mean", false, {15, 2, 2, 4}},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.reduction + (c.init ? " init" : " no init"));
        expect_near(values_of(eval("ScatterElementsUpdate", {data, idx, upd, axis},
                                   {{"reduction", c.reduction}, {"use_init_val", c.init}}, 12)[0]),
                    c.expected, 1e-6);
    }
    // Integer mean truncates toward zero.
    const auto idata = make_tensor(element::i32, {4}, Ints{1, 2, 3, -4});
    const auto iupd = make_tensor(element::i32, {5}, Ints{10, 20, 1, 2, -3});
    const auto iidx = make_tensor(element::i64, {5}, Ints{0, 0, 2, 2, 3});
    EXPECT_EQ(ints_of(eval("ScatterElementsUpdate", {idata, iidx, iupd, axis},
                           {{"reduction", std::string("mean")}}, 12)[0]),
              (Ints{10, 2, 2, -3}));  // 31/3, (3+1+2)/3, (-4-3)/2
}

}  // namespace
}  // namespace vireo::test
