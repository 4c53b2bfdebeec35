// Tests the request I/O every plugin gets from the SDK base, on TEMPLATE and MOCK_REMOTE: ROI
// (strided) inputs of several element types against the same data dense, the refusal of permuted
// views, zero copy of contiguous inputs, batched set_tensors against one batch tensor (batch
// axis 0 and from a layout), their errors, and the five pipeline rows of the profiling info.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "preprocess_test_utils.hpp"
#include "vireo/float16.hpp"
#include "vireo/ops.hpp"
#include "vireo/preprocess.hpp"
#include "vireo/profiling_info.hpp"
#include "vireo/properties.hpp"

namespace vireo::preprocess_test {
namespace {

std::string error_of(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const Exception& e) {
        return e.what();
    }
    return "no error";
}

#define EXPECT_CONTAINS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

// y = Convert(x, f32) over `type` [1, 3, 2, 2].
std::shared_ptr<Model> convert_model(element::Type type) {
    auto x = op::parameter(type, PartialShape({1, 3, 2, 2}), "x");
    auto y = op::convert(x, element::f32);
    y->output(0).set_names({"y"});
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "to_f32");
}

// Value of element i of the big tensor, as stored for each type.
double big_value(size_t i) {
    return static_cast<double>((i * 7) % 61);
}

template <typename T>
void fill_big(Tensor& t) {
    T* p = static_cast<T*>(t.data());
    for (size_t i = 0; i < t.get_size(); ++i) p[i] = static_cast<T>(big_value(i));
}

void fill_by_type(Tensor& t) {
    const element::Type type = t.get_element_type();
    if (type == element::u8) return fill_big<uint8_t>(t);
    if (type == element::i16) return fill_big<int16_t>(t);
    if (type == element::i32) return fill_big<int32_t>(t);
    if (type == element::i64) return fill_big<int64_t>(t);
    if (type == element::f64) return fill_big<double>(t);
    if (type == element::f16) {
        auto* p = static_cast<float16*>(t.data());
        for (size_t i = 0; i < t.get_size(); ++i) p[i] = float16(static_cast<float>(big_value(i)));
        return;
    }
    fill_big<float>(t);
}

class RequestIo : public ::testing::TestWithParam<std::string> {};

TEST_P(RequestIo, RoiInputsOfEveryByteSizeMatchTheDenseData) {
    Core core = make_core();
    for (element::Type type : {element::u8, element::f16, element::i16, element::f32, element::i32,
                               element::i64, element::f64}) {
        SCOPED_TRACE(std::string(type.name()));
        InferRequest request =
            compile(core, convert_model(type), GetParam()).create_infer_request();
        Tensor big(type, Shape{2, 5, 6, 7});
        fill_by_type(big);
        const Coordinate begin{1, 1, 2, 3};
        Tensor roi(big, begin, Coordinate{2, 4, 4, 5});  // [1, 3, 2, 2], strided
        ASSERT_FALSE(roi.is_continuous());
        request.set_tensor("x", roi);
        request.infer();
        std::vector<float> expected;  // the same box read from the big tensor by index
        for (size_t c = 0; c < 3; ++c)
            for (size_t h = 0; h < 2; ++h)
                for (size_t w = 0; w < 2; ++w) {
                    const size_t index =
                        ((1 * 5 + (begin[1] + c)) * 6 + (begin[2] + h)) * 7 + (begin[3] + w);
                    expected.push_back(static_cast<float>(big_value(index)));
                }
        EXPECT_EQ(to_vector(request.get_tensor("y")), expected);
        // The request keeps the caller's view (no copy at set_tensor time).
        EXPECT_EQ(request.get_tensor("x").data(), roi.data());
    }
}

TEST_P(RequestIo, ContiguousInputIsKeptAsGiven) {
    Core core = make_core();
    InferRequest request =
        compile(core, convert_model(element::f32), GetParam()).create_infer_request();
    std::vector<float> user(12, 1.5f);
    request.set_tensor("x", Tensor(element::f32, Shape{1, 3, 2, 2}, user.data()));
    request.infer();
    EXPECT_EQ(request.get_tensor("x").data(), user.data());
    EXPECT_EQ(to_vector(request.get_tensor("y")), user);
}

TEST_P(RequestIo, PermutedViewIsRefused) {
    Core core = make_core();
    InferRequest request =
        compile(core, convert_model(element::f32), GetParam()).create_infer_request();
    // An NHWC buffer [1, 2, 2, 3] seen as NCHW [1, 3, 2, 2]: the C stride (4) is below H's (24).
    std::vector<float> nhwc(12);
    Tensor permuted(element::f32, Shape{1, 3, 2, 2}, nhwc.data(), Strides{48, 4, 24, 12});
    const std::string message = error_of([&] { request.set_tensor("x", permuted); });
    EXPECT_CONTAINS(message, "input 'x'");
    EXPECT_CONTAINS(message, "byte strides [48,4,24,12] that do not decrease");
}

// y = x * 2 + [0, 1, 2] over f32 [4, 3] (batch first), input "x", output "y".
std::shared_ptr<Model> batch_model(const Shape& shape = {4, 3}, const std::string& layout = "") {
    auto x = op::parameter(element::f32, PartialShape(shape), "x");
    if (!layout.empty()) x->output(0).get_rt_info()["layout"] = layout;
    auto y = op::multiply(x, op::constant<float>(element::f32, {1}, {2.f}));
    y->output(0).set_names({"y"});
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "batch");
}

TEST_P(RequestIo, FourBatchOneTensorsEqualOneBatchFourTensor) {
    Core core = make_core();
    CompiledModel compiled = compile(core, batch_model(), GetParam());
    std::vector<Tensor> items;
    std::vector<float> all;
    for (int k = 0; k < 4; ++k) {
        std::vector<float> row = {1.f + k, 10.f * k, -3.f + k};
        items.push_back(make_tensor<float>(element::f32, {1, 3}, row));
        all.insert(all.end(), row.begin(), row.end());
    }
    InferRequest batched = compiled.create_infer_request();
    batched.set_tensors("x", items);
    batched.infer();
    InferRequest whole = compiled.create_infer_request();
    whole.set_tensor("x", make_tensor<float>(element::f32, {4, 3}, all));
    whole.infer();
    const auto got = to_vector(batched.get_tensor("y"));
    EXPECT_EQ(got, to_vector(whole.get_tensor("y")));
    for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(got[i], 2.f * all[i]);
}

TEST_P(RequestIo, BatchAxisFromTheLayoutIsNotTheFirst) {
    // Layout "CN": the batch is axis 1 of [3, 4]; item k is the column k.
    Core core = make_core();
    CompiledModel compiled = compile(core, batch_model({3, 4}, "CN"), GetParam());
    std::vector<Tensor> items;
    for (int k = 0; k < 4; ++k)
        items.push_back(make_tensor<float>(element::f32, {3, 1},
                                           std::vector<float>{1.f + k, 10.f + k, 100.f + k}));
    InferRequest request = compiled.create_infer_request();
    request.set_tensors("x", items);
    request.infer();
    std::vector<float> expected;
    for (int c = 0; c < 3; ++c)
        for (int k = 0; k < 4; ++k)
            expected.push_back(2.f * ((c == 0 ? 1.f : c == 1 ? 10.f : 100.f) + k));
    EXPECT_EQ(to_vector(request.get_tensor("y")), expected);
}

TEST_P(RequestIo, BatchedTensorErrors) {
    Core core = make_core();
    InferRequest request = compile(core, batch_model(), GetParam()).create_infer_request();
    const Tensor row(element::f32, Shape{1, 3});
    EXPECT_CONTAINS(error_of([&] {
                        request.set_tensors("x", {row, row, row});
                    }),
                    "3 tensors given, but the batch dimension 0 of [4,3] is 4");
    EXPECT_CONTAINS(
        error_of([&] {
            request.set_tensors("x", {row, row, row, Tensor(element::f32, Shape{1, 2})});
        }),
        "tensor #3 is f32 [1,2] but tensor #0 is f32 [1,3]");
    EXPECT_CONTAINS(
        error_of([&] {
            request.set_tensors("x", {row, row, Tensor(element::f32, Shape{2, 3}), row});
        }),
        "expected rank 2 with 1 on batch axis 0");
    EXPECT_CONTAINS(
        error_of([&] {
            request.set_tensors("x", {row, row, row, Tensor(element::i32, Shape{1, 3})});
        }),
        "tensor #3 has element type i32, expected f32");
    EXPECT_CONTAINS(error_of([&] {
                        request.set_tensors("y", {row, row, row, row});
                    }),
                    "batched tensors can only be set on inputs");
    EXPECT_CONTAINS(error_of([&] { request.set_tensors("x", {}); }),
                    "the list of tensors is empty");
    InferRequest no_batch =
        compile(core, batch_model({4, 3}, "CH"), GetParam()).create_infer_request();
    EXPECT_CONTAINS(error_of([&] {
                        no_batch.set_tensors("x", {row, row, row, row});
                    }),
                    "layout 'CH' has no batch dimension 'N'");
}

TEST_P(RequestIo, ProfilingBeginsWithTheFivePipelineRows) {
    Core core = make_core();
    AnyMap config = device_config(GetParam());
    config[enable_profiling.name()] = true;
    InferRequest request =
        core.compile_model(batch_model(), GetParam(), config).create_infer_request();
    request.infer();
    const auto rows = request.get_profiling_info();
    const char* stages[] = {kStageInputPreprocessing, kStageInputTransfer, kStageExecution,
                            kStageOutputTransfer, kStageOutputPostprocessing};
    ASSERT_GE(rows.size(), 6u);
    for (size_t i = 0; i < 5; ++i) {
        EXPECT_EQ(rows[i].node_name, stages[i]);
        EXPECT_EQ(rows[i].node_type, "Stage");
    }
    EXPECT_EQ(rows[2].status, ProfilingInfo::Status::EXECUTED);
    // Per-op rows follow the stage rows: the Multiply is among them, after every "Stage" row.
    size_t multiply = rows.size();
    size_t last_stage = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].node_type == "Stage") last_stage = i;
        if (rows[i].node_type == "Multiply" && multiply == rows.size()) multiply = i;
    }
    ASSERT_LT(multiply, rows.size());
    EXPECT_GT(multiply, last_stage);
}

TEST_P(RequestIo, ProfilingRowsBeforeTheFirstInferenceAreNotRun) {
    Core core = make_core();
    InferRequest request = compile(core, batch_model(), GetParam()).create_infer_request();
    const auto rows = request.get_profiling_info();
    ASSERT_GE(rows.size(), 5u);
    for (size_t i = 0; i < 5; ++i) {
        EXPECT_EQ(rows[i].status, ProfilingInfo::Status::NOT_RUN) << rows[i].node_name;
        EXPECT_EQ(rows[i].real_time.count(), 0) << rows[i].node_name;
    }
}

TEST(RequestIoTemplate, BatchedTensorsOnADynamicBatch) {
    // [?, 3]: the batch is the number of tensors (MOCK_REMOTE runs static shapes only).
    auto x = op::parameter(element::f32, PartialShape({Dimension(), 3}), "x");
    auto y = op::relu(x);
    y->output(0).set_names({"y"});
    Core core = make_core();
    InferRequest request =
        core.compile_model(std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "dyn"),
                           "TEMPLATE")
            .create_infer_request();
    std::vector<Tensor> items;
    std::vector<float> expected;
    for (int k = 0; k < 5; ++k) {
        std::vector<float> row = {10.f * k, -1.f, 10.f * k + 2};
        items.push_back(make_tensor<float>(element::f32, {1, 3}, row));
        for (float v : row) expected.push_back(std::max(v, 0.f));
    }
    request.set_tensors("x", items);
    request.infer();
    EXPECT_EQ(request.get_tensor("y").get_shape(), Shape({5, 3}));
    EXPECT_EQ(to_vector(request.get_tensor("y")), expected);
}

INSTANTIATE_TEST_SUITE_P(Devices, RequestIo, ::testing::ValuesIn(devices()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace vireo::preprocess_test
