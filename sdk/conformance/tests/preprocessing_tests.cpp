// Conformance category "Preprocessing": models built by PrePostProcessor (u8 NHWC images through
// convert, mean/scale, resize and reverse_channels; outputs converted to f16) give the suite's
// reference values on the device; ROI (strided) and batched inputs give the same outputs as dense
// ones; a permuted view and a type mismatch without preprocessing are clear errors.
#include <cmath>

#include "vireo/conformance/suite.hpp"

namespace vireo::conformance {
namespace {

constexpr size_t kChannels = 2, kSide = 6;  // cnn_model's "image" is [1, 2, 6, 6] NCHW

// u8 NHWC pixels [1, h, w, 2] with distinct values.
std::vector<uint8_t> pixels(size_t h, size_t w) {
    std::vector<uint8_t> p(h * w * kChannels);
    for (size_t i = 0; i < p.size(); ++i) p[i] = static_cast<uint8_t>((i * 37 + 11) % 251);
    return p;
}

Tensor u8_tensor(const Shape& shape, std::vector<uint8_t>& data) {
    return Tensor(element::u8, shape, data.data());
}

std::vector<float> infer_one(const std::shared_ptr<Model>& model, const std::string& input,
                             const Tensor& tensor) {
    const CompiledModel compiled = compile(model);
    InferRequest request = compiled.create_infer_request();
    request.set_tensor(input, tensor);
    request.infer();
    return to_vector(request.get_output_tensor());
}

}  // namespace

TEST(Preprocessing, U8NhwcImageThroughConvertMeanScale) {
    ReferenceModel m = cnn_model();
    const std::vector<float> mean = {100.f, 50.f};
    PrePostProcessor ppp(m.model);
    ppp.input("image").tensor().set_element_type(element::u8).set_layout("NHWC");
    ppp.input("image").preprocess().convert_element_type(element::f32).mean(mean).scale(64.f);
    ppp.input("image").model().set_layout("NCHW");
    auto data = pixels(kSide, kSide);
    const auto actual =
        infer_one(ppp.build(), "image", u8_tensor({1, kSide, kSide, kChannels}, data));
    std::vector<float> image;  // NCHW, (pixel - mean[c]) / 64
    for (size_t c = 0; c < kChannels; ++c)
        for (size_t hw = 0; hw < kSide * kSide; ++hw)
            image.push_back((static_cast<float>(data[hw * kChannels + c]) - mean[c]) / 64.f);
    EXPECT_TRUE(values_near(actual, m.reference({image})[0], 1e-3f, 1e-3f));
}

TEST(Preprocessing, LinearResizeOfATwiceLargerImage) {
    // Half-pixel bilinear at an exact factor of 2 is the mean of each 2x2 block.
    ReferenceModel m = cnn_model();
    PrePostProcessor ppp(m.model);
    ppp.input()
        .tensor()
        .set_element_type(element::u8)
        .set_layout("NHWC")
        .set_spatial_static_shape(2 * kSide, 2 * kSide);
    ppp.input().preprocess().convert_element_type().scale(255.f).resize(ResizeAlgorithm::kLinear);
    ppp.input().model().set_layout("NCHW");
    auto data = pixels(2 * kSide, 2 * kSide);
    const auto actual =
        infer_one(ppp.build(), "image", u8_tensor({1, 2 * kSide, 2 * kSide, kChannels}, data));
    auto at = [&](size_t y, size_t x, size_t c) {
        return static_cast<float>(data[(y * 2 * kSide + x) * kChannels + c]) / 255.f;
    };
    std::vector<float> image;
    for (size_t c = 0; c < kChannels; ++c)
        for (size_t y = 0; y < kSide; ++y)
            for (size_t x = 0; x < kSide; ++x)
                image.push_back((at(2 * y, 2 * x, c) + at(2 * y, 2 * x + 1, c) +
                                 at(2 * y + 1, 2 * x, c) + at(2 * y + 1, 2 * x + 1, c)) /
                                4.f);
    EXPECT_TRUE(values_near(actual, m.reference({image})[0], 1e-3f, 1e-3f));
}

TEST(Preprocessing, ReverseChannels) {
    ReferenceModel m = cnn_model();
    PrePostProcessor ppp(m.model);
    ppp.input().tensor().set_layout("NCHW");
    ppp.input().preprocess().reverse_channels();
    const std::vector<float> image = make_values(kChannels * kSide * kSide, 5);
    const auto actual =
        infer_one(ppp.build(), "image", make_tensor({1, kChannels, kSide, kSide}, image));
    std::vector<float> reversed;
    for (size_t c = kChannels; c-- > 0;)
        reversed.insert(reversed.end(), image.begin() + static_cast<long>(c * kSide * kSide),
                        image.begin() + static_cast<long>((c + 1) * kSide * kSide));
    EXPECT_TRUE(values_near(actual, m.reference({reversed})[0]));
}

TEST(Preprocessing, OutputConvertedToF16) {
    ReferenceModel m = mlp_model();
    PrePostProcessor ppp(m.model);
    ppp.output().tensor().set_element_type(element::f16);
    const CompiledModel compiled = compile(ppp.build());
    InferRequest request = compiled.create_infer_request();
    const std::vector<float> x = make_values(16, 3);
    request.set_tensor("x", make_tensor({2, 8}, x));
    request.infer();
    const Tensor probs = request.get_tensor("probs");
    ASSERT_EQ(probs.get_element_type(), element::f16);
    const Tensor host = probs.clone();
    std::vector<float> actual;
    for (size_t i = 0; i < host.get_size(); ++i)
        actual.push_back(static_cast<float>(host.data<float16>()[i]));
    EXPECT_TRUE(values_near(actual, m.reference({x})[0], 2e-3f, 2e-3f));  // f16 keeps ~3 digits
}

TEST(Preprocessing, RoiInputEqualsTheDenseData) {
    ReferenceModel m = elementwise_model();  // "x", "y" [2,3,4]
    const CompiledModel compiled = compile(m.model);
    InferRequest request = compiled.create_infer_request();
    const std::vector<float> big_values = make_values(4 * 5 * 6, 9);
    Tensor big = make_tensor({4, 5, 6}, big_values);
    const Tensor roi(big, Coordinate{1, 2, 1}, Coordinate{3, 5, 5});  // [2,3,4], strided
    ASSERT_FALSE(roi.is_continuous());
    std::vector<float> dense;
    for (size_t a = 1; a < 3; ++a)
        for (size_t b = 2; b < 5; ++b)
            for (size_t c = 1; c < 5; ++c) dense.push_back(big_values[(a * 5 + b) * 6 + c]);
    const std::vector<float> y = make_values(24, 2);
    request.set_tensor("x", roi);
    request.set_tensor("y", make_tensor({2, 3, 4}, y));
    request.infer();
    EXPECT_TRUE(values_near(to_vector(request.get_tensor("z")), m.reference({dense, y})[0]));
}

TEST(Preprocessing, PermutedViewIsRefused) {
    ReferenceModel m = elementwise_model();
    InferRequest request = compile(m.model).create_infer_request();
    std::vector<float> memory(24);
    // [2,3,4] over memory laid out as [4,3,2]: strides increase from the first axis to the last.
    const Tensor permuted(element::f32, Shape{2, 3, 4}, memory.data(), Strides{4, 8, 24});
    EXPECT_TRUE(throws_kind([&] { request.set_tensor("x", permuted); }, ErrorKind::kInvalidArgument,
                            "'x'"));
}

TEST(Preprocessing, BatchedTensorsEqualOneBatchTensor) {
    ReferenceModel m = mlp_model();  // "x" [2,8]
    const CompiledModel compiled = compile(m.model);
    const std::vector<float> first = make_values(8, 11), second = make_values(8, 12);
    InferRequest batched = compiled.create_infer_request();
    batched.set_tensors("x", {make_tensor({1, 8}, first), make_tensor({1, 8}, second)});
    batched.infer();
    std::vector<float> both(first);
    both.insert(both.end(), second.begin(), second.end());
    EXPECT_TRUE(values_near(to_vector(batched.get_tensor("probs")), m.reference({both})[0]));
    EXPECT_TRUE(throws_kind(
        [&] {
            batched.set_tensors("x", {make_tensor({1, 8}, first)});
        },
        ErrorKind::kInvalidArgument, "'x'"));  // one tensor of batch 1 for batch 2
}

TEST(Preprocessing, TypeMismatchWithoutPreprocessingIsAnError) {
    ReferenceModel m = cnn_model();
    InferRequest request = compile(m.model).create_infer_request();
    EXPECT_TRUE(throws_kind(
        [&] {
            request.set_tensor("image", Tensor(element::u8, {1, kChannels, kSide, kSide}));
        },
        ErrorKind::kInvalidArgument, "u8"));
}

}  // namespace vireo::conformance
