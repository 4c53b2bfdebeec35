// Tests Shape, Dimension and PartialShape: parsing, printing, merging and broadcasting.
#include <gtest/gtest.h>

#include "vireo/exception.hpp"
#include "vireo/partial_shape.hpp"

using namespace vireo;

TEST(Shape, SizeAndOverflow) {
    EXPECT_EQ(shape_size(Shape{}), 1u);
    EXPECT_EQ(shape_size(Shape{2, 3, 4}), 24u);
    EXPECT_EQ(shape_size(Shape{2, 0, 4}), 0u);
    EXPECT_THROW(shape_size(Shape{size_t(1) << 40, size_t(1) << 40}), InvalidArgument);
    // Empty whatever the other axes: the zero may come after an overflowing prefix.
    EXPECT_EQ(shape_size(Shape{size_t(1) << 40, size_t(1) << 40, 0}), 0u);
    EXPECT_EQ(shape_size(Shape{0, size_t(1) << 40, size_t(1) << 40}), 0u);
    EXPECT_EQ(row_major_strides(Shape{2, 3, 4}, 4), (Strides{48, 16, 4}));
}

TEST(Dimension, ParsesEveryForm) {
    EXPECT_EQ(Dimension::parse("5"), Dimension(5));
    EXPECT_EQ(Dimension::parse(" 5 "), Dimension(5));
    EXPECT_TRUE(Dimension::parse("?").is_dynamic());
    EXPECT_TRUE(Dimension::parse("-1").is_dynamic());
    EXPECT_EQ(Dimension::parse("1..10"), Dimension(1, 10));
    EXPECT_EQ(Dimension::parse("2.."), Dimension(2, Dimension::kInfinity));
    EXPECT_EQ(Dimension::parse("..8"), Dimension(0, 8));
    EXPECT_THROW(Dimension::parse("-2"), InvalidArgument);
    EXPECT_THROW(Dimension::parse("abc"), InvalidArgument);
    EXPECT_THROW(Dimension::parse("10..1"), InvalidArgument);
    EXPECT_THROW(Dimension(-5), InvalidArgument);
}

TEST(Dimension, PrintsAsParsed) {
    for (const char* text : {"5", "?", "1..10", "2..", "..8"})
        EXPECT_EQ(Dimension::parse(text).to_string(), text);
}

TEST(Dimension, CompatibilityAndMerge) {
    EXPECT_TRUE(Dimension(1, 10).compatible(Dimension(5)));
    EXPECT_FALSE(Dimension(1, 4).compatible(Dimension(5)));
    EXPECT_TRUE(Dimension(1, 10).relaxes(Dimension(5)));
    EXPECT_FALSE(Dimension(5).relaxes(Dimension(1, 10)));
    Dimension d;
    EXPECT_TRUE(Dimension::merge(d, Dimension(1, 10), Dimension(5, 20)));
    EXPECT_EQ(d, Dimension(5, 10));
    EXPECT_FALSE(Dimension::merge(d, Dimension(3), Dimension(4)));
}

TEST(Dimension, Broadcast) {
    Dimension d;
    EXPECT_TRUE(Dimension::broadcast_merge(d, Dimension(1), Dimension(7)));
    EXPECT_EQ(d, Dimension(7));
    EXPECT_TRUE(Dimension::broadcast_merge(d, Dimension(7), Dimension(7)));
    EXPECT_FALSE(Dimension::broadcast_merge(d, Dimension(3), Dimension(7)));
    EXPECT_TRUE(Dimension::broadcast_merge(d, Dimension(), Dimension(7)));
    EXPECT_EQ(d, Dimension(7));
}

TEST(PartialShape, ParsesIrAndCommandLineForms) {
    EXPECT_EQ(PartialShape::parse("1,3,224,224"), PartialShape({1, 3, 224, 224}));
    EXPECT_EQ(PartialShape::parse("1, 3, 224, 224"), PartialShape({1, 3, 224, 224}));
    EXPECT_EQ(PartialShape::parse("[1,3,?,-1]").to_string(), "[1,3,?,?]");
    EXPECT_EQ(PartialShape::parse("?,?").to_string(), "[?,?]");
    EXPECT_EQ(PartialShape::parse("1..10,3").to_string(), "[1..10,3]");
    EXPECT_FALSE(PartialShape::parse("...").rank_is_static());
    EXPECT_EQ(PartialShape::parse(""), PartialShape());
    EXPECT_EQ(PartialShape::parse("[]").size(), 0u);
    EXPECT_THROW(PartialShape::parse("1,x"), InvalidArgument);
    EXPECT_THROW(PartialShape::parse("[1,2"), InvalidArgument);
}

TEST(PartialShape, StaticAndDynamic) {
    PartialShape p{1, Dimension(), 3};
    EXPECT_FALSE(p.is_static());
    EXPECT_THROW(p.to_shape(), InvalidArgument);
    EXPECT_EQ(PartialShape({2, 3}).to_shape(), (Shape{2, 3}));
    EXPECT_TRUE(p.relaxes(PartialShape({1, 9, 3})));
    EXPECT_FALSE(p.relaxes(PartialShape({2, 9, 3})));
    EXPECT_TRUE(PartialShape::dynamic().relaxes(PartialShape({2})));
    EXPECT_FALSE(PartialShape({2}).relaxes(PartialShape({2, 1})));
}

TEST(PartialShape, NumpyBroadcast) {
    PartialShape a{8, 1, 6, 1};
    EXPECT_TRUE(PartialShape::broadcast_merge_into(a, PartialShape{7, 1, 5}));
    EXPECT_EQ(a, PartialShape({8, 7, 6, 5}));
    PartialShape b{2, 3};
    EXPECT_FALSE(PartialShape::broadcast_merge_into(b, PartialShape{4}));
    PartialShape c{Dimension(), 3};
    EXPECT_TRUE(PartialShape::broadcast_merge_into(c, PartialShape{5, 1}));
    EXPECT_EQ(c, PartialShape({5, 3}));
    PartialShape d = PartialShape::dynamic();
    EXPECT_TRUE(PartialShape::broadcast_merge_into(d, PartialShape{5, 1}));
    EXPECT_FALSE(d.rank_is_static());
}

TEST(PartialShape, NormalizeAxis) {
    EXPECT_EQ(normalize_axis(-1, 4, "test"), 3u);
    EXPECT_EQ(normalize_axis(2, 4, "test"), 2u);
    EXPECT_THROW(normalize_axis(4, 4, "test"), InvalidArgument);
    EXPECT_THROW(normalize_axis(-5, 4, "test"), InvalidArgument);
}
