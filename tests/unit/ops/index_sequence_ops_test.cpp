// Shape and type inference of GatherND, ScatterNDUpdate, ScatterElementsUpdate, CumSum,
// ReverseSequence, DepthToSpace, SpaceToDepth, OneHot, NonZero and LRN: static, dynamic and
// value-driven shapes, attribute defaults and the errors that name the node.
#include <limits>

#include "ops_test_utils.hpp"

namespace vireo::test {
namespace {

TEST(GatherND, OutputShapesOfBothVersions) {
    EXPECT_EQ(shape_of(make_node("GatherND", {param("5,6,7"), param("2,2", element::i32)}, {}, 8)),
              "[2,7]");
    EXPECT_EQ(shape_of(make_node("GatherND", {param("5,6,7"), param("2,3", element::i32)}, {}, 8)),
              "[2]");
    EXPECT_EQ(shape_of(make_node("GatherND", {param("5,6,7"), param("4,1", element::i64)}, {}, 8)),
              "[4,6,7]");
    EXPECT_EQ(shape_of(make_node("GatherND", {param("2,3,4,5"), param("2,3,8,1", element::i64)},
                                 {{"batch_dims", int64_t{2}}}, 8)),
              "[2,3,8,5]");
    EXPECT_EQ(shape_of(make_node("GatherND", {param("2,3,4,5"), param("2,3,8,1", element::i64)},
                                 {{"batch_dims", int64_t{2}}}, 5)),
              "[6,8,5]");
    // Dynamic: batch dims merge; an unknown last indices dim or rank gives a dynamic rank.
    EXPECT_EQ(shape_of(make_node("GatherND", {param("?,3,4"), param("2,?,1", element::i64)},
                                 {{"batch_dims", int64_t{1}}}, 8)),
              "[2,?,4]");
    EXPECT_EQ(shape_of(make_node("GatherND", {param("?,3,4"), param("2,?", element::i64)}, {}, 8)),
              "[...]");
    EXPECT_EQ(shape_of(make_node("GatherND", {param("..."), param("2,1", element::i64)}, {}, 8)),
              "[...]");
    EXPECT_EQ(make_node("GatherND", {param("2", element::u8), param("1,1", element::i32)})
                  ->get_output_element_type(0),
              element::u8);
    EXPECT_EQ(OpRegistry::instance().resolve("GatherND", "opset7").version, 5);
    expect_invalid(
        [] {
            make_node("GatherND", {param("2,3"), param("1,3", element::i64)});
        },
        {"GatherND '", "[1,3]"});
    expect_invalid(
        [] {
            make_node("GatherND", {param("2,3"), param("3,1", element::i64)},
                      {{"batch_dims", int64_t{1}}});
        },
        {"GatherND '", "batch dimension 0"});
    expect_invalid(
        [] {
            make_node("GatherND", {param("2,3"), param("1,1")});
        },
        {"GatherND '", "indices", "integer"});
}

TEST(ScatterNDUpdate, UpdatesMustMatchIndicesAndData) {
    auto node =
        make_node("ScatterNDUpdate", {param("4,5,6"), param("2,1", element::i64), param("2,5,6")});
    EXPECT_EQ(shape_of(node), "[4,5,6]");
    EXPECT_EQ(shape_of(make_node("ScatterNDUpdate",
                                 {param("?,5"), param("3,2", element::i64), param("3")})),
              "[?,5]");
    expect_invalid(
        [] {
            make_node("ScatterNDUpdate", {param("4,5"), param("2,1", element::i64), param("2,4")});
        },
        {"ScatterNDUpdate '", "updates", "[2,4]", "[2,5]"});
    expect_invalid(
        [] {
            make_node("ScatterNDUpdate", {param("4"), param("2,2", element::i64), param("2")});
        },
        {"ScatterNDUpdate '", "rank of data"});
}

TEST(ScatterElementsUpdate, ShapesAndReductionAttributes) {
    auto v12 =
        make_node("ScatterElementsUpdate", {param("4,5", element::i32), param("2,5", element::i64),
                                            param("2,5", element::i32), i64_scalar(-1)});
    EXPECT_EQ(shape_of(v12), "[4,5]");
    EXPECT_EQ(v12->get_attribute<std::string>("reduction"), "none");
    EXPECT_TRUE(v12->get_attribute<bool>("use_init_val"));
    EXPECT_EQ(OpRegistry::instance().resolve("ScatterElementsUpdate", "opset11").version, 3);
    expect_invalid(
        [] {
            make_node("ScatterElementsUpdate",
                      {param("4,5"), param("2,5", element::i64), param("2,4"), i64_scalar(0)});
        },
        {"ScatterElementsUpdate '", "[2,5]", "[2,4]"});
    expect_invalid(
        [] {
            make_node("ScatterElementsUpdate",
                      {param("4,5"), param("2", element::i64), param("2"), i64_scalar(0)});
        },
        {"ScatterElementsUpdate '", "rank"});
    expect_invalid(
        [] {
            make_node("ScatterElementsUpdate",
                      {param("4,5"), param("2,5", element::i64), param("2,5"), i64_scalar(2)});
        },
        {"ScatterElementsUpdate '", "axis"});
    expect_invalid(
        [] {
            make_node("ScatterElementsUpdate",
                      {param("4"), param("2", element::i64), param("2"), i64_scalar(0)},
                      {{"reduction", std::string("avg")}});
        },
        {"ScatterElementsUpdate '", "reduction", "avg"});
}

TEST(CumSum, KeepsShapeChecksAxisAndDefaults) {
    auto node = make_node("CumSum", {param("2,?,4", element::i32), i64_scalar(-1)});
    EXPECT_EQ(shape_of(node), "[2,?,4]");
    EXPECT_EQ(node->get_output_element_type(0), element::i32);
    EXPECT_FALSE(node->get_attribute<bool>("exclusive"));
    EXPECT_FALSE(node->get_attribute<bool>("reverse"));
    EXPECT_EQ(shape_of(make_node("CumSum", {param("3")})), "[3]");
    expect_invalid(
        [] {
            make_node("CumSum", {param("2,3"), i64_scalar(2)});
        },
        {"CumSum '", "axis", "2"});
    expect_invalid([] { make_node("CumSum", {param("")}); }, {"CumSum '", "rank"});
}

TEST(ReverseSequence, BatchAxisMergesWithSeqLengths) {
    auto node = make_node("ReverseSequence", {param("?,10,3"), param("4", element::i32)});
    EXPECT_EQ(shape_of(node), "[4,10,3]");
    EXPECT_EQ(node->get_attribute<int64_t>("batch_axis"), 0);
    EXPECT_EQ(node->get_attribute<int64_t>("seq_axis"), 1);
    expect_invalid(
        [] {
            make_node("ReverseSequence", {param("5,10"), param("4", element::i32)});
        },
        {"ReverseSequence '", "seq_lengths", "[4]"});
    expect_invalid(
        [] {
            make_node("ReverseSequence", {param("5,10"), param("5", element::i32)},
                      {{"seq_axis", int64_t{-2}}});
        },
        {"ReverseSequence '", "must differ"});
}

TEST(SpaceDepth, BlockArithmeticBothWays) {
    const std::map<std::string, AttrValue> attrs{{"block_size", int64_t{2}},
                                                 {"mode", std::string("blocks_first")}};
    EXPECT_EQ(shape_of(make_node("DepthToSpace", {param("1,8,2,3")}, attrs)), "[1,2,4,6]");
    EXPECT_EQ(shape_of(make_node("DepthToSpace", {param("1,16,2,?,3")}, attrs)), "[1,2,4,?,6]");
    EXPECT_EQ(shape_of(make_node("DepthToSpace", {param("1,?,2")}, attrs)), "[1,?,4]");
    EXPECT_EQ(shape_of(make_node("SpaceToDepth", {param("1,2,4,6")}, attrs)), "[1,8,2,3]");
    EXPECT_EQ(shape_of(make_node("SpaceToDepth", {param("1,3,?,6")}, attrs)), "[1,12,?,3]");
    EXPECT_EQ(shape_of(make_node("SpaceToDepth", {param("...")}, attrs)), "[...]");
    expect_invalid([&] { make_node("DepthToSpace", {param("1,6,2,3")}, attrs); },
                   {"DepthToSpace '", "divisible"});
    expect_invalid([&] { make_node("SpaceToDepth", {param("1,2,5,6")}, attrs); },
                   {"SpaceToDepth '", "divisible"});
    expect_invalid(
        [] {
            make_node("DepthToSpace", {param("1,4,2")}, {{"block_size", int64_t{2}}});
        },
        {"DepthToSpace '", "mode"});
    EXPECT_EQ(make_node("SpaceToDepth", {param("1,1,1")}, {{"mode", std::string("depth_first")}})
                  ->get_attribute<int64_t>("block_size"),
              1);
}

TEST(OneHot, DepthInsertedAtAxis) {
    const auto on = op::constant<float>(element::f32, {}, {1.0f});
    const auto off = op::constant<float>(element::f32, {}, {0.0f});
    EXPECT_EQ(shape_of(make_node("OneHot", {param("2,3", element::i64), i64_scalar(5), on, off},
                                 {{"axis", int64_t{-1}}})),
              "[2,3,5]");
    EXPECT_EQ(shape_of(make_node("OneHot", {param("2,3", element::i64), i64_scalar(5), on, off},
                                 {{"axis", int64_t{0}}})),
              "[5,2,3]");
    auto dynamic_depth =
        make_node("OneHot", {param("?,3", element::i32), param("", element::i64), on, off},
                  {{"axis", int64_t{1}}});
    EXPECT_EQ(shape_of(dynamic_depth), "[?,?,3]");
    EXPECT_EQ(dynamic_depth->get_output_element_type(0), element::f32);
    EXPECT_EQ(shape_of(make_node("OneHot", {param("...", element::i32), i64_scalar(5), on, off},
                                 {{"axis", int64_t{1}}})),
              "[...]");
    expect_invalid(
        [&] {
            make_node("OneHot", {param("2,3", element::i64), i64_scalar(5), on, off},
                      {{"axis", int64_t{3}}});
        },
        {"OneHot '", "axis"});
    expect_invalid(
        [&] {
            make_node("OneHot", {param("2", element::i64), i64_scalar(-1), on, off},
                      {{"axis", int64_t{0}}});
        },
        {"OneHot '", "depth"});
    expect_invalid(
        [&] {
            make_node("OneHot", {param("2", element::i64), i64({2, 3}), on, off},
                      {{"axis", int64_t{0}}});
        },
        {"OneHot '", "depth", "scalar"});
    expect_invalid(
        [&] {
            make_node("OneHot",
                      {param("2", element::i64), i64_scalar(2), on, param("", element::i32)},
                      {{"axis", int64_t{0}}});
        },
        {"OneHot '", "f32", "i32"});
    expect_invalid(
        [] {
            make_node("OneHot", {param("2", element::i64), i64_scalar(2), param("2"), param("")},
                      {{"axis", int64_t{0}}});
        },
        {"OneHot '", "on_value", "scalar"});
}

TEST(NonZero, RankByCountUntilTheValueIsKnown) {
    auto node = make_node("NonZero", {param("2,3")});
    EXPECT_EQ(shape_of(node), "[2,..6]");
    EXPECT_EQ(node->get_output_element_type(0), element::i64);
    EXPECT_EQ(shape_of(make_node("NonZero", {param("?,3")}, {{"output_type", element::i32}})),
              "[2,?]");
    EXPECT_EQ(shape_of(make_node("NonZero", {param("...")})), "[?,?]");
    auto known = make_node("NonZero",
                           {op::constant<float>(element::f32, {2, 2}, {0.0f, 1.5f, -0.0f, 2.0f})});
    EXPECT_EQ(shape_of(known), "[2,2]");
    auto known_bool =
        make_node("NonZero", {op::constant<uint8_t>(element::boolean, {3}, {1, 1, 0})});
    EXPECT_EQ(shape_of(known_bool), "[1,2]");
    expect_invalid(
        [] {
            make_node("NonZero", {param("2")}, {{"output_type", element::f32}});
        },
        {"NonZero '", "output_type", "f32"});
}

TEST(Lrn, KeepsShapeAndChecksAxesAndSize) {
    const std::map<std::string, AttrValue> attrs{
        {"alpha", 1e-4}, {"beta", 0.75}, {"bias", 1.0}, {"size", int64_t{5}}};
    EXPECT_EQ(shape_of(make_node("LRN", {param("1,?,4,4"), i64({1})}, attrs)), "[1,?,4,4]");
    EXPECT_EQ(shape_of(make_node("LRN", {param("1,3,4,4"), param("?", element::i64)}, attrs)),
              "[1,3,4,4]");
    expect_invalid([&] { make_node("LRN", {param("1,3"), i64({2})}, attrs); }, {"LRN '", "axes"});
    expect_invalid(
        [&] {
            make_node("LRN", {param("1,3", element::i32), i64({1})}, attrs);
        },
        {"LRN '", "floating-point"});
    expect_invalid(
        [] {
            make_node("LRN", {param("1,3"), i64({1})},
                      {{"alpha", 1.0}, {"beta", 1.0}, {"bias", 1.0}});
        },
        {"LRN '", "size"});
}

TEST(Eye, BatchShapePlusRowsAndColumns) {
    const std::map<std::string, AttrValue> f32{{"output_type", element::f32}};
    auto node = make_node("Eye", {i64_scalar(3), i64({4}), i64_scalar(-1)}, f32);
    EXPECT_EQ(shape_of(node), "[3,4]");
    EXPECT_EQ(node->get_output_element_type(0), element::f32);
    EXPECT_EQ(
        shape_of(make_node("Eye", {i64_scalar(2), i64_scalar(2), i64_scalar(0), i64({2, 3})}, f32)),
        "[2,3,2,2]");
    EXPECT_EQ(shape_of(make_node(
                  "Eye",
                  {param("", element::i32), i64_scalar(5), i64_scalar(0), param("2", element::i64)},
                  f32)),
              "[?,?,?,5]");
    EXPECT_EQ(
        shape_of(make_node(
            "Eye", {i64_scalar(2), i64_scalar(2), i64_scalar(0), param("?", element::i64)}, f32)),
        "[...]");
    expect_invalid(
        [] {
            make_node("Eye", {i64_scalar(2), i64_scalar(2), i64_scalar(0)});
        },
        {"Eye '", "output_type", "missing"});
    expect_invalid(
        [&] {
            make_node("Eye", {i64_scalar(-2), i64_scalar(2), i64_scalar(0)}, f32);
        },
        {"Eye '", "num_rows", "-2"});
    expect_invalid(
        [&] {
            make_node("Eye", {param("", element::f32), i64_scalar(2), i64_scalar(0)}, f32);
        },
        {"Eye '", "num_rows", "f32"});
    expect_invalid(
        [&] {
            make_node("Eye", {i64({2, 3}), i64_scalar(2), i64_scalar(0)}, f32);
        },
        {"Eye '", "num_rows"});
}

TEST(Unique, OutputsBoundedByTheInputUntilItsValueIsKnown) {
    auto flat = make_node("Unique", {param("2,3", element::i32)});
    ASSERT_EQ(flat->get_output_size(), 4u);
    EXPECT_EQ(shape_of(flat, 0), "[1..6]");
    EXPECT_EQ(shape_of(flat, 1), "[1..6]");
    EXPECT_EQ(shape_of(flat, 2), "[6]");
    EXPECT_EQ(shape_of(flat, 3), "[1..6]");
    EXPECT_EQ(flat->get_output_element_type(0), element::i32);
    EXPECT_EQ(flat->get_output_element_type(1), element::i64);
    EXPECT_TRUE(flat->get_attribute<bool>("sorted"));
    auto by_axis =
        make_node("Unique", {param("2,?,4"), i64_scalar(-2)},
                  {{"index_element_type", element::i32}, {"count_element_type", element::i32}});
    EXPECT_EQ(shape_of(by_axis, 0), "[2,?,4]");
    EXPECT_EQ(shape_of(by_axis, 2), "[?]");
    EXPECT_EQ(by_axis->get_output_element_type(1), element::i32);
    EXPECT_EQ(by_axis->get_output_element_type(3), element::i32);
    EXPECT_EQ(shape_of(make_node("Unique", {param("0,2")}), 0), "[0]");
    EXPECT_EQ(shape_of(make_node("Unique", {param("2,3"), param("", element::i64)}), 0), "[...]");
    // Known values: exact counts (-0.0 equals 0.0, NaNs equal each other).
    const float nan = std::numeric_limits<float>::quiet_NaN();
    auto known = make_node("Unique",
                           {op::constant<float>(element::f32, {5}, {nan, 0.0f, -0.0f, nan, 1.0f})});
    EXPECT_EQ(shape_of(known, 0), "[3]");
    EXPECT_EQ(shape_of(known, 2), "[5]");
    auto rows = make_node(
        "Unique", {op::constant<int64_t>(element::i64, {3, 2}, {1, 2, 3, 4, 1, 2}), i64_scalar(0)});
    EXPECT_EQ(shape_of(rows, 0), "[2,2]");
    expect_invalid(
        [] {
            make_node("Unique", {param("2")}, {{"count_element_type", element::f32}});
        },
        {"Unique '", "count_element_type", "f32"});
    expect_invalid(
        [] {
            make_node("Unique", {param("2,3"), i64_scalar(2)});
        },
        {"Unique '", "axis"});
}

TEST(NonMaxSuppression, RowsAreTheUpperBound) {
    auto node = make_node("NonMaxSuppression", {param("2,10,4"), param("2,3,10"), i64_scalar(4)});
    ASSERT_EQ(node->get_output_size(), 3u);
    EXPECT_EQ(shape_of(node, 0), "[24,3]");  // 2 batches * 3 classes * min(10, 4)
    EXPECT_EQ(shape_of(node, 1), "[24,3]");
    EXPECT_EQ(shape_of(node, 2), "[1]");
    EXPECT_EQ(node->get_output_element_type(0), element::i64);
    EXPECT_EQ(node->get_output_element_type(1), element::f32);
    EXPECT_EQ(node->get_attribute<std::string>("box_encoding"), "corner");
    EXPECT_TRUE(node->get_attribute<bool>("sort_result_descending"));
    EXPECT_EQ(
        shape_of(make_node("NonMaxSuppression", {param("1,3,4"), param("1,1,3"), i64_scalar(100)}),
                 0),
        "[3,3]");
    EXPECT_EQ(shape_of(make_node("NonMaxSuppression", {param("1,3,4"), param("1,1,3")}), 0),
              "[0,3]");
    EXPECT_EQ(
        shape_of(make_node("NonMaxSuppression", {param("?,3,4"), param("1,1,?"), i64_scalar(2)}),
                 0),
        "[2,3]");
    EXPECT_EQ(shape_of(make_node("NonMaxSuppression",
                                 {param("1,3,4"), param("1,1,3"), param("", element::i64)}),
                       0),
              "[?,3]");
    expect_invalid(
        [] {
            make_node("NonMaxSuppression", {param("1,3,4"), param("1,1,4")});
        },
        {"NonMaxSuppression '", "scores"});
    expect_invalid(
        [] {
            make_node("NonMaxSuppression", {param("1,3,5"), param("1,1,3")});
        },
        {"NonMaxSuppression '", "4 coordinates"});
    expect_invalid(
        [] {
            make_node("NonMaxSuppression", {param("1,3,4"), param("1,1,3"), i64({1, 2})});
        },
        {"NonMaxSuppression '", "max_output_boxes_per_class", "scalar"});
    expect_invalid(
        [] {
            make_node("NonMaxSuppression", {param("1,3,4"), param("1,1,3")},
                      {{"box_encoding", std::string("xyxy")}});
        },
        {"NonMaxSuppression '", "box_encoding"});
}

TEST(RoiAlign, RoisByChannelsByPooledSize) {
    const std::map<std::string, AttrValue> attrs{{"pooled_h", int64_t{6}},
                                                 {"pooled_w", int64_t{5}},
                                                 {"sampling_ratio", int64_t{2}},
                                                 {"spatial_scale", 0.0625},
                                                 {"mode", std::string("avg")}};
    auto node =
        make_node("ROIAlign", {param("2,256,?,?"), param("?,4"), param("10", element::i32)}, attrs);
    EXPECT_EQ(shape_of(node), "[10,256,6,5]");
    EXPECT_EQ(node->get_attribute<std::string>("aligned_mode"), "asymmetric");
    expect_invalid(
        [&] {
            make_node("ROIAlign", {param("2,3,8,8"), param("4,4"), param("5", element::i32)},
                      attrs);
        },
        {"ROIAlign '", "batch_indices"});
    expect_invalid(
        [&] {
            make_node("ROIAlign", {param("2,3,8,8"), param("4,5"), param("4", element::i32)},
                      attrs);
        },
        {"ROIAlign '", "rois"});
    auto bad = attrs;
    bad["pooled_h"] = int64_t{0};
    expect_invalid(
        [&] {
            make_node("ROIAlign", {param("2,3,8,8"), param("4,4"), param("4", element::i32)}, bad);
        },
        {"ROIAlign '", "pooled_h"});
}

TEST(GridSample, BatchAndChannelsOfDataBySizeOfGrid) {
    auto node =
        make_node("GridSample", {param("?,3,10,10", element::f16), param("2,5,?,2", element::f32)});
    EXPECT_EQ(shape_of(node), "[2,3,5,?]");
    EXPECT_EQ(node->get_output_element_type(0), element::f16);
    EXPECT_FALSE(node->get_attribute<bool>("align_corners"));
    EXPECT_EQ(node->get_attribute<std::string>("mode"), "bilinear");
    EXPECT_EQ(node->get_attribute<std::string>("padding_mode"), "zeros");
    expect_invalid(
        [] {
            make_node("GridSample", {param("1,3,4,4"), param("2,5,5,2")});
        },
        {"GridSample '", "batch"});
    expect_invalid(
        [] {
            make_node("GridSample", {param("1,3,4,4"), param("1,5,5,3")});
        },
        {"GridSample '", "2 coordinates"});
    expect_invalid(
        [] {
            make_node("GridSample", {param("1,3,4,4"), param("1,5,5,2")},
                      {{"mode", std::string("linear")}});
        },
        {"GridSample '", "mode"});
}

}  // namespace
}  // namespace vireo::test
