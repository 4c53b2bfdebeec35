// Tests that models made with the op builders (vireo/ops.hpp) round-trip through IR v11: many
// op versions and attribute kinds, multi-output ops, dynamic shapes and a stateful model, with
// identical results from the reference kernels before and after.
#include <cstring>

#include "ir_test_util.hpp"
#include "vireo/ops.hpp"

using namespace vireo;
using namespace vireo::ir_test;

namespace {

Tensor iota_f32(const Shape& shape, float scale) {
    Tensor t(element::f32, shape);
    float* p = t.data<float>();
    for (size_t i = 0; i < t.get_size(); ++i)
        p[i] = scale * static_cast<float>(static_cast<int>(i % 13) - 6);
    return t;
}

void expect_same_bytes(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(a[i].get_element_type(), b[i].get_element_type()) << "output " << i;
        ASSERT_EQ(a[i].get_shape(), b[i].get_shape()) << "output " << i;
        EXPECT_EQ(0, std::memcmp(a[i].data(), b[i].data(), a[i].get_byte_size())) << "output " << i;
    }
}

}  // namespace

TEST(IrBuilders, ConvNetRoundTripsWithIdenticalResults) {
    auto x = op::parameter(element::f32, {1, 2, 8, 8}, "x");
    auto w = op::constant(iota_f32({4, 2, 3, 3}, 0.05f));
    auto conv = op::convolution(x, w, {1, 1}, {1, 1}, {1, 1}, {1, 1});
    auto gw = op::constant(iota_f32({2, 2, 2, 3, 3}, 0.03f));
    auto gconv =
        op::group_convolution(op::relu(conv), gw, {2, 2}, {0, 0}, {0, 0}, {1, 1}, "same_upper");
    auto pool = op::max_pool(gconv, {1, 1}, {0, 0}, {0, 0}, {2, 2}, "ceil");
    auto avg = op::avg_pool(pool, {1, 1}, {1, 1}, {1, 1}, {3, 3}, true);
    auto gap = op::reduce_mean(avg, op::int64_vector({2, 3}), false);
    auto fc = op::matmul(gap, op::constant(iota_f32({5, 4}, 0.1f)), false, true);
    auto logits = op::add(fc, op::constant(iota_f32({1, 5}, 0.01f)));
    auto y = op::softmax(logits, -1);
    y->output(0).set_names({"y"});
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "builder_cnn");
    auto again = round_trip(*model);
    expect_same_graph(*model, *again);
    const Tensor input = iota_f32({1, 2, 8, 8}, 0.25f);
    expect_same_bytes(run_reference(*model, {input}), run_reference(*again, {input}));
}

TEST(IrBuilders, ShapeOpsAndMultiOutputOpsRoundTrip) {
    auto x = op::parameter(element::f32, {2, 6, 4}, "x");
    auto halves = op::split(x, op::int64_scalar(1), 2);  // two outputs
    auto parts = op::variadic_split(x, op::int64_scalar(2), op::int64_vector({1, -1}));
    auto joined = op::concat({halves->output(1), halves->output(0)}, 1);
    auto moved = op::transpose(joined, op::int64_vector({2, 0, 1}));
    auto flat = op::reshape(moved, op::int64_vector({0, -1}), true);
    auto sliced = op::strided_slice(flat, op::int64_vector({0, 1}), op::int64_vector({0, 9}),
                                    op::int64_vector({1, 2}), {1, 0}, {1, 0});
    auto top = op::topk(sliced, op::int64_scalar(2), -1, "max", "value", element::i64);
    auto picked =
        op::gather(x, op::constant<int32_t>(element::i32, {2}, {3, -1}), op::int64_scalar(1));
    auto shape = op::shape_of(picked, element::i32);
    auto as_float = op::convert(parts->output(1), element::f16);
    auto padded = op::pad(x, op::int64_vector({0, 1, 0}), op::int64_vector({1, 0, 2}), "reflect");
    auto model = std::make_shared<Model>(
        OutputVector{top->output(0), top->output(1), shape, as_float, padded,
                     op::unsqueeze(parts->output(0), op::int64_vector({0}))},
        ParameterVector{x}, "shapes");
    auto again = round_trip(*model);
    expect_same_graph(*model, *again);
    const Tensor input = iota_f32({2, 6, 4}, 0.5f);
    expect_same_bytes(run_reference(*model, {input}), run_reference(*again, {input}));
}

TEST(IrBuilders, DynamicShapesRoundTrip) {
    auto x = op::parameter(element::f32, PartialShape::parse("?,3,1..16,16"), "x");
    auto y =
        op::relu(op::multiply(x, op::constant<float>(element::f32, {1, 3, 1, 1}, {1.f, 2.f, 3.f})));
    auto n = op::shape_of(y);
    auto model = std::make_shared<Model>(OutputVector{y, n}, ParameterVector{x}, "dynamic");
    std::string xml;
    auto again = round_trip(*model, &xml);
    expect_same_graph(*model, *again);
    // Bounds survive in the Parameter's shape; <dim> writes -1.
    EXPECT_EQ(again->output(0).get_partial_shape(), PartialShape::parse("?,3,1..16,16"));
    EXPECT_NE(xml.find("<dim>-1</dim>"), std::string::npos);
}

TEST(IrBuilders, StatefulModelRoundTripsWithItsSinks) {
    auto x = op::parameter(element::f32, {1, 4}, "x");
    auto state = op::read_value("acc", element::f32, PartialShape{1, 4},
                                op::constant<float>(element::f32, {1, 4}, {0.f}));
    auto sum = op::add(x, state);
    auto write = op::assign(sum, "acc");
    auto model = std::make_shared<Model>(ResultVector{op::result(sum)}, SinkVector{write},
                                         ParameterVector{x}, "acc");
    auto again = round_trip(*model);
    expect_same_graph(*model, *again);
    ASSERT_EQ(again->get_sinks().size(), 1u);
    EXPECT_EQ(again->get_sinks()[0]->get_type_name(), "Assign");
    ASSERT_EQ(again->get_variables().size(), 1u);
    EXPECT_EQ(again->get_variables()[0].id, "acc");
}
