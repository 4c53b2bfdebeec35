// Tests TopK: max and min modes, sort by value, by index and none, ties keeping the lower index,
// inner axes, k larger than the axis, i32 and i64 index outputs.
#include "tensor_test_utils.hpp"

namespace vireo::test {
namespace {

std::vector<Tensor> topk(const Tensor& x, int64_t k, int64_t axis, const std::string& mode,
                         const std::string& sort, element::Type index_type = element::i32,
                         int version = 11) {
    const auto kt = make_tensor(element::i64, {}, std::vector<int64_t>{k});
    Attrs attrs{{"axis", axis}, {"mode", mode}, {"sort", sort}, {"index_element_type", index_type}};
    if (version >= 11) attrs["stable"] = true;
    auto node = make_node("TopK", {param(x.get_element_type(), x.get_shape()), constant(kt)}, attrs,
                          version);
    return run(node, {x, kt});
}

TEST(TopKKernel, MaxAndMinSortedByValue) {
    const auto x = make_tensor(element::f32, {6}, std::vector<float>{3, 9, 1, 7, 5, 2});
    auto max = topk(x, 3, 0, "max", "value");
    EXPECT_EQ(values_of(max[0]), (std::vector<double>{9, 7, 5}));
    EXPECT_EQ(ints_of(max[1]), (std::vector<int64_t>{1, 3, 4}));
    auto min = topk(x, 2, -1, "min", "value", element::i64, 3);
    EXPECT_EQ(values_of(min[0]), (std::vector<double>{1, 2}));
    EXPECT_EQ(ints_of(min[1]), (std::vector<int64_t>{2, 5}));
    EXPECT_EQ(min[1].get_element_type(), element::i64);
}

TEST(TopKKernel, SortByIndexKeepsPositionOrder) {
    const auto x = make_tensor(element::i32, {6}, std::vector<int>{3, 9, 1, 7, 5, 2});
    auto out = topk(x, 3, 0, "max", "index", element::i32, 1);
    EXPECT_EQ(values_of(out[0]), (std::vector<double>{9, 7, 5}));
    EXPECT_EQ(ints_of(out[1]), (std::vector<int64_t>{1, 3, 4}));
    auto out2 = topk(x, 3, 0, "min", "index");
    EXPECT_EQ(values_of(out2[0]), (std::vector<double>{3, 1, 2}));
    EXPECT_EQ(ints_of(out2[1]), (std::vector<int64_t>{0, 2, 5}));
}

TEST(TopKKernel, TiesKeepTheLowerIndexFirst) {
    const auto x = make_tensor(element::f16, {7}, std::vector<float>{4, 1, 4, 2, 4, 1, 0});
    auto out = topk(x, 4, 0, "max", "value");
    EXPECT_EQ(values_of(out[0]), (std::vector<double>{4, 4, 4, 2}));
    EXPECT_EQ(ints_of(out[1]), (std::vector<int64_t>{0, 2, 4, 3}));
    auto low = topk(x, 3, 0, "min", "value");
    EXPECT_EQ(ints_of(low[1]), (std::vector<int64_t>{6, 1, 5}));
    auto none = topk(x, 2, 0, "max", "none");
    EXPECT_EQ(values_of(none[0]), (std::vector<double>{4, 4}));
}

TEST(TopKKernel, InnerAxisAndLargeK) {
    // [2, 3, 2] along axis 1 with k = 5 (more than 3): every element, sorted.
    const auto x = make_tensor(element::f64, {2, 3, 2},
                               std::vector<double>{1, 6, 3, 4, 2, 5, 9, 7, 8, 8, 7, 9});
    auto out = topk(x, 5, 1, "max", "value");
    EXPECT_EQ(out[0].get_shape(), (Shape{2, 3, 2}));
    EXPECT_EQ(values_of(out[0]), (std::vector<double>{3, 6, 2, 5, 1, 4, 9, 9, 8, 8, 7, 7}));
    EXPECT_EQ(ints_of(out[1]), (std::vector<int64_t>{1, 0, 2, 2, 0, 1, 0, 2, 1, 1, 2, 0}));
}

}  // namespace
}  // namespace vireo::test
