// Tests Gather (axis, batch_dims, negative and out-of-range indices: zeros in v8, an error in v7),
// GatherElements and ScatterUpdate with hand-computed values.
#include "tensor_test_utils.hpp"

namespace vireo::test {
namespace {

TEST(GatherKernel, RowsAlongAxisZeroWithNegativeIndices) {
    const auto data = make_tensor(element::f32, {3, 2}, std::vector<float>{1, 2, 3, 4, 5, 6});
    const auto idx = make_tensor(element::i32, {2, 2}, std::vector<int>{2, 0, -1, 1});
    const auto axis = make_tensor(element::i64, {}, std::vector<int64_t>{0});
    auto node = make_node(
        "Gather", {param(element::f32, {3, 2}), param(element::i32, {2, 2}), constant(axis)}, {});
    const auto out = run(node, {data, idx, axis});
    EXPECT_EQ(out[0].get_shape(), (Shape{2, 2, 2}));
    EXPECT_EQ(values_of(out[0]), (std::vector<double>{5, 6, 1, 2, 5, 6, 3, 4}));
}

TEST(GatherKernel, InnerAxisAndOutOfRangeGivesZeros) {
    const auto data =
        make_tensor(element::i64, {2, 3}, std::vector<int64_t>{10, 11, 12, 20, 21, 22});
    const auto idx = make_tensor(element::i64, {3}, std::vector<int64_t>{2, 7, -3});
    const auto axis = make_tensor(element::i32, {}, std::vector<int>{-1});
    auto node =
        make_node("Gather", {param(element::i64, {2, 3}), constant(idx), constant(axis)}, {});
    EXPECT_EQ(values_of(run(node, {data, idx, axis})[0]),
              (std::vector<double>{12, 0, 10, 22, 0, 20}));
}

TEST(GatherKernel, OutOfRangeIsAnErrorBeforeVersion8) {
    // v1/v7 leave it undefined in OpenVINO; the reference kernel names the node, index and axis.
    const auto data = make_tensor(element::f32, {2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
    const auto axis = make_tensor(element::i64, {}, std::vector<int64_t>{1});
    for (int64_t bad : {3, -4}) {
        const auto idx = make_tensor(element::i64, {2}, std::vector<int64_t>{0, bad});
        auto node = make_node(
            "Gather", {param(element::f32, {2, 3}), param(element::i64, {2}), constant(axis)},
            {{"batch_dims", int64_t{0}}}, 7);
        node->set_friendly_name("g7");
        try {
            run(node, {data, idx, axis});
            ADD_FAILURE() << "index " << bad << " was accepted";
        } catch (const InvalidArgument& e) {
            const std::string m = e.what();
            EXPECT_NE(m.find("Gather 'g7': index " + std::to_string(bad) +
                             " is out of range for axis 1 of size 3"),
                      std::string::npos)
                << m;
        }
    }
    // In range, negative included, v7 gathers as v8 does.
    const auto idx = make_tensor(element::i64, {2}, std::vector<int64_t>{2, -3});
    auto node = make_node(
        "Gather", {param(element::f32, {2, 3}), param(element::i64, {2}), constant(axis)}, {}, 7);
    EXPECT_EQ(values_of(run(node, {data, idx, axis})[0]), (std::vector<double>{3, 1, 6, 4}));
}

TEST(GatherKernel, BatchDims) {
    // data [2, 3], indices [2, 2], batch_dims 1, axis 1: out[b][i] = data[b][idx[b][i]].
    const auto data = make_tensor(element::u8, {2, 3}, std::vector<int>{1, 2, 3, 4, 5, 6});
    const auto idx = make_tensor(element::i32, {2, 2}, std::vector<int>{0, 2, 1, 1});
    const auto axis = make_tensor(element::i64, {}, std::vector<int64_t>{1});
    for (int64_t batch_dims : {1, -1}) {
        auto node = make_node(
            "Gather", {param(element::u8, {2, 3}), param(element::i32, {2, 2}), constant(axis)},
            {{"batch_dims", batch_dims}}, 8);
        const auto out = run(node, {data, idx, axis});
        EXPECT_EQ(out[0].get_shape(), (Shape{2, 2}));
        EXPECT_EQ(values_of(out[0]), (std::vector<double>{1, 3, 5, 5}));
    }
}

TEST(GatherElementsKernel, PicksAlongAxis) {
    // ONNX's example: data [[1,2],[3,4]], indices [[0,0],[1,0]], axis 1 -> [[1,1],[4,3]].
    const auto data = make_tensor(element::f32, {2, 2}, std::vector<float>{1, 2, 3, 4});
    const auto idx = make_tensor(element::i32, {2, 2}, std::vector<int>{0, 0, 1, 0});
    auto node =
        make_node("GatherElements", {param(element::f32, {2, 2}), param(element::i32, {2, 2})},
                  {{"axis", int64_t{1}}});
    EXPECT_EQ(values_of(run(node, {data, idx})[0]), (std::vector<double>{1, 1, 4, 3}));
    // Axis 0 with more index rows than data rows and a negative index.
    const auto idx0 = make_tensor(element::i64, {3, 2}, std::vector<int64_t>{1, 0, -1, 1, 0, 0});
    auto node0 =
        make_node("GatherElements", {param(element::f32, {2, 2}), param(element::i64, {3, 2})},
                  {{"axis", int64_t{0}}});
    EXPECT_EQ(values_of(run(node0, {data, idx0})[0]), (std::vector<double>{3, 2, 3, 4, 1, 2}));
}

TEST(ScatterUpdateKernel, WritesSlicesAtIndices) {
    // data zeros [3, 2]; rows 2 and 0 (as -3) take the updates.
    const auto data = make_tensor(element::f32, {3, 2}, std::vector<float>(6, 0.f));
    const auto idx = make_tensor(element::i32, {2}, std::vector<int>{2, -3});
    const auto upd = make_tensor(element::f32, {2, 2}, std::vector<float>{1, 2, 3, 4});
    const auto axis = make_tensor(element::i64, {}, std::vector<int64_t>{0});
    auto node = make_node("ScatterUpdate",
                          {param(element::f32, {3, 2}), param(element::i32, {2}),
                           param(element::f32, {2, 2}), constant(axis)},
                          {});
    EXPECT_EQ(values_of(run(node, {data, idx, upd, axis})[0]),
              (std::vector<double>{3, 4, 0, 0, 1, 2}));
    // Along axis 1 with 2-D indices: updates [3, 1, 2].
    const auto idx2 = make_tensor(element::i64, {1, 2}, std::vector<int64_t>{1, 0});
    const auto upd2 = make_tensor(element::f32, {3, 1, 2}, std::vector<float>{1, 2, 3, 4, 5, 6});
    const auto axis1 = make_tensor(element::i64, {}, std::vector<int64_t>{1});
    auto node2 = make_node("ScatterUpdate",
                           {param(element::f32, {3, 2}), param(element::i64, {1, 2}),
                            param(element::f32, {3, 1, 2}), constant(axis1)},
                           {});
    EXPECT_EQ(values_of(run(node2, {data, idx2, upd2, axis1})[0]),
              (std::vector<double>{2, 1, 4, 3, 6, 5}));
}

}  // namespace
}  // namespace vireo::test
