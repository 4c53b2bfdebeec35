// Tests that values ONNX calls errors are errors naming the node, at import (constants folded
// while importing) and at run time on TEMPLATE (issue 35): Gather indices out of range, Compress
// conditions longer than the axis, Range and Resize sizes that overflow.
#include <gtest/gtest.h>

#include <limits>

#include "onnx_test_util.hpp"
#include "vireo/core.hpp"
#include "vireo/frontend.hpp"

namespace vireo {
namespace {

using test::OnnxBuilder;
constexpr int32_t kF32 = onnx::TensorProto::FLOAT;
constexpr int32_t kI64 = onnx::TensorProto::INT64;
constexpr int32_t kBool = onnx::TensorProto::BOOL;

void int64_initializer(OnnxBuilder& b, const std::string& name, const std::vector<int64_t>& dims,
                       const std::vector<int64_t>& values) {
    auto* t = b.proto().mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(kI64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) t->add_int64_data(v);
}

using test::f32;
Tensor i64s(const std::vector<int64_t>& v) {
    Tensor t(element::i64, Shape{v.size()});
    std::copy(v.begin(), v.end(), t.data<int64_t>());
    return t;
}
Tensor bools(const std::vector<bool>& v) {
    Tensor t(element::boolean, Shape{v.size()});
    for (size_t i = 0; i < v.size(); ++i) static_cast<uint8_t*>(t.data())[i] = v[i] ? 1 : 0;
    return t;
}

std::shared_ptr<Model> read_bytes(const OnnxBuilder& b) {
    const std::string bytes = b.bytes();
    return read_onnx_model(bytes.data(), bytes.size());
}

// The message of the E that `f` throws; fails the test for another kind or no exception.
template <typename E, typename F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "wrong exception kind: " << e.what();
        return {};
    }
    ADD_FAILURE() << "no exception";
    return {};
}

void expect_contains(const std::string& message, const std::vector<std::string>& parts) {
    for (const auto& p : parts)
        EXPECT_NE(message.find(p), std::string::npos) << p << " in: " << message;
}

TEST(OnnxBadValues, GatherIndexOutOfRangeAtRunTimeIsAnError) {
    OnnxBuilder b(13);
    b.input("i", kI64, {1}).output("y", kF32, {1});
    b.initializer("data", {3}, {10.f, 20.f, 30.f});
    b.node("Gather", {"data", "i"}, {"y"}, "pick");
    Core core;
    auto request =
        core.compile_model(core.read_model(b.bytes(), Tensor()), "TEMPLATE").create_infer_request();
    for (auto [index, expected] : std::vector<std::pair<int64_t, float>>{{1, 20.f}, {-1, 30.f}}) {
        request.set_tensor("i", i64s({index}));
        request.infer();
        EXPECT_EQ(request.get_tensor("y").data<float>()[0], expected) << "index " << index;
    }
    for (int64_t index : std::vector<int64_t>{3, -4, int64_t{1} << 40}) {
        request.set_tensor("i", i64s({index}));
        const std::string m = error_of<InvalidArgument>([&] { request.infer(); });
        expect_contains(m, {"'pick'", "index " + std::to_string(index), "axis 0 of size 3"});
    }
}

TEST(OnnxBadValues, GatherIndexOutOfRangeWhileFoldingIsAnImportError) {
    OnnxBuilder b(13);
    b.input("x", kF32, {1}).output("y", kF32, {1});
    b.initializer("data", {3}, {10.f, 20.f, 30.f});
    int64_initializer(b, "i", {1}, {7});
    b.node("Gather", {"data", "i"}, {"g"}, "pick");
    b.node("Add", {"x", "g"}, {"y"}, "add");
    const std::string m = error_of<InvalidArgument>([&] { read_bytes(b); });
    expect_contains(m, {"ONNX node Gather-13 'pick'", "index 7", "axis 0 of size 3"});
}

TEST(OnnxBadValues, CompressConditionLongerThanTheAxisIsAnError) {
    {  // Both lengths known while importing.
        OnnxBuilder b(11);
        b.input("x", kF32, {3}).input("c", kBool, {5}).output("y", kF32, {-1});
        b.node("Compress", {"x", "c"}, {"y"}, "squeeze_out");
        const std::string m = error_of<InvalidArgument>([&] { read_bytes(b); });
        expect_contains(m, {"'squeeze_out'", "condition has 5 entries", "3 of axis 0"});
    }
    // Lengths known at run time: a true entry past the axis is refused, shorter ones select.
    OnnxBuilder b(11);
    b.input("x", kF32, {-1}).input("c", kBool, {-1}).output("y", kF32, {-1});
    b.node("Compress", {"x", "c"}, {"y"}, "squeeze_out");
    Core core;
    auto request =
        core.compile_model(core.read_model(b.bytes(), Tensor()), "TEMPLATE").create_infer_request();
    request.set_tensor("x", f32({3}, {1.f, 2.f, 3.f}));
    request.set_tensor("c", bools({false, true}));
    request.infer();
    ASSERT_EQ(request.get_tensor("y").get_shape(), Shape{1});
    EXPECT_EQ(request.get_tensor("y").data<float>()[0], 2.f);
    request.set_tensor("c", bools({true, false, false, true}));
    const std::string m = error_of<InvalidArgument>([&] { request.infer(); });
    expect_contains(m, {"'squeeze_out'", "index 3", "size 3"});
}

// Sizes computed from values fed at run time: the re-inferred shape's error names the node.
TEST(OnnxBadValues, RangeAndResizeSizesFromRunTimeValuesNameTheNode) {
    Core core;
    {
        OnnxBuilder b(11);
        b.input("start", kI64, {}).input("limit", kI64, {}).input("delta", kI64, {});
        b.output("y", kI64, {-1});
        b.node("Range", {"start", "limit", "delta"}, {"y"}, "big_range");
        auto request = core.compile_model(core.read_model(b.bytes(), Tensor()), "TEMPLATE")
                           .create_infer_request();
        auto scalar = [](int64_t v) {
            Tensor t(element::i64, Shape{});
            *t.data<int64_t>() = v;
            return t;
        };
        request.set_tensor("start", scalar(2));
        request.set_tensor("limit", scalar(8));
        request.set_tensor("delta", scalar(3));
        request.infer();
        ASSERT_EQ(request.get_tensor("y").get_shape(), Shape{2});
        EXPECT_EQ(request.get_tensor("y").data<int64_t>()[1], 5);
        request.set_tensor("start", scalar(-9000000000000000000));
        request.set_tensor("limit", scalar(9000000000000000000));
        request.set_tensor("delta", scalar(1));
        const std::string m = error_of<InvalidArgument>([&] { request.infer(); });
        expect_contains(m, {"'big_range'", "more than a dimension can hold"});
    }
    OnnxBuilder b(13);
    b.input("x", kF32, {1, 1, 2, 2}).input("scales", kF32, {4});
    b.output("y", kF32, {-1, -1, -1, -1});
    b.node("Resize", {"x", "", "scales"}, {"y"}, "bad_resize");
    auto request =
        core.compile_model(core.read_model(b.bytes(), Tensor()), "TEMPLATE").create_infer_request();
    request.set_tensor("x", f32({1, 1, 2, 2}, {1.f, 2.f, 3.f, 4.f}));
    request.set_tensor("scales", f32({4}, {1.f, 1.f, 1.f, 2.f}));
    request.infer();
    EXPECT_EQ(request.get_tensor("y").get_shape(), (Shape{1, 1, 2, 4}));
    request.set_tensor("scales",
                       f32({4}, {1.f, 1.f, std::numeric_limits<float>::quiet_NaN(), 1.f}));
    const std::string m = error_of<InvalidArgument>([&] { request.infer(); });
    expect_contains(m, {"'bad_resize'", "scale nan for axis 2"});
}

}  // namespace
}  // namespace vireo
