// Tests Tensor: owning and wrapping memory, views (ROI), copies and shape changes.
#include "vireo/tensor.hpp"

#include <gtest/gtest.h>

#include <numeric>

using namespace vireo;

TEST(Tensor, OwningIsZeroedAndAligned) {
    Tensor t(element::f32, Shape{2, 3});
    EXPECT_EQ(t.get_size(), 6u);
    EXPECT_EQ(t.get_byte_size(), 24u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % 64, 0u);
    for (size_t i = 0; i < 6; ++i) EXPECT_EQ(t.data<float>()[i], 0.f);
    EXPECT_TRUE(t.is_continuous());
    EXPECT_EQ(t.get_strides(), (Strides{12, 4}));
}

TEST(Tensor, TypedAccessChecksType) {
    Tensor t(element::f32, Shape{1});
    EXPECT_THROW(t.data<int32_t>(), InvalidArgument);
    Tensor empty;
    EXPECT_FALSE(empty);
    EXPECT_EQ(empty.data(), nullptr);
    EXPECT_THROW(empty.get_shape(), InvalidArgument);
}

TEST(Tensor, WrapsUserMemoryWithoutCopy) {
    std::vector<float> mine(6, 1.5f);
    Tensor t(element::f32, Shape{2, 3}, mine.data());
    EXPECT_EQ(t.data(), mine.data());
    t.data<float>()[0] = 7.f;
    EXPECT_EQ(mine[0], 7.f);
    // A wrapping tensor may shrink but not grow.
    t.set_shape(Shape{1, 3});
    EXPECT_EQ(t.get_size(), 3u);
    EXPECT_THROW(t.set_shape(Shape{4, 3}), InvalidArgument);
}

TEST(Tensor, OwningGrowsOnSetShape) {
    Tensor t(element::i32, Shape{2});
    t.set_shape(Shape{100});
    EXPECT_EQ(t.get_size(), 100u);
    t.data<int32_t>()[99] = 5;
    EXPECT_EQ(t.data<int32_t>()[99], 5);
}

TEST(Tensor, RoiViewSharesMemoryAndCopiesOut) {
    Tensor big(element::i32, Shape{4, 5});
    std::iota(big.data<int32_t>(), big.data<int32_t>() + 20, 0);
    Tensor roi(big, Coordinate{1, 2}, Coordinate{3, 5});
    EXPECT_EQ(roi.get_shape(), (Shape{2, 3}));
    EXPECT_FALSE(roi.is_continuous());
    Tensor dense(element::i32, Shape{2, 3});
    roi.copy_to(dense);
    const int32_t expected[] = {7, 8, 9, 12, 13, 14};
    for (size_t i = 0; i < 6; ++i) EXPECT_EQ(dense.data<int32_t>()[i], expected[i]);
    // And back into the view.
    for (size_t i = 0; i < 6; ++i) dense.data<int32_t>()[i] = -1;
    dense.copy_to(roi);
    EXPECT_EQ(big.data<int32_t>()[7], -1);
    EXPECT_EQ(big.data<int32_t>()[6], 6);
    EXPECT_THROW(Tensor(big, Coordinate{0, 0}, Coordinate{5, 1}), InvalidArgument);
}

TEST(Tensor, CopyToChecksTypeAndReshapesOwningDestination) {
    Tensor a(element::f32, Shape{2, 2});
    a.data<float>()[3] = 4.f;
    Tensor b(element::f32, Shape{1});
    a.copy_to(b);
    EXPECT_EQ(b.get_shape(), (Shape{2, 2}));
    EXPECT_EQ(b.data<float>()[3], 4.f);
    Tensor c(element::i32, Shape{2, 2});
    EXPECT_THROW(a.copy_to(c), InvalidArgument);
    Tensor d = a.clone();
    EXPECT_NE(d.data(), a.data());
    EXPECT_EQ(d.data<float>()[3], 4.f);
}

TEST(Tensor, ByteSizeOverflowIsCaught) {
    EXPECT_THROW(Tensor(element::f32, Shape{size_t(1) << 62, 8}), InvalidArgument);
    EXPECT_THROW(Tensor(element::dynamic, Shape{1}), InvalidArgument);
}

TEST(Tensor, SubByteTypesPack) {
    Tensor t(element::u1, Shape{9});
    EXPECT_EQ(t.get_byte_size(), 2u);
    Tensor u(element::u4, Shape{3});
    EXPECT_EQ(u.get_byte_size(), 2u);
}
