// CPU_WINOGRAD: f32 3x3 convolutions of stride 1 with 16-multiple channel counts run oneDNN's
// Winograd kernels on nChw16c. Each case checks TEMPLATE's values, which convolutions took the
// Winograd kernel (profile exec_type "...wino..."), and the reorders around them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::cpu_test {
namespace winograd_cases {  // named: the unity build joins test files

using ModelPtr = std::shared_ptr<Model>;

NodePtr weights(const Shape& shape, unsigned seed, float scale = 0.2f) {
    return op::constant(random_tensor(shape, seed, -scale, scale));
}

// A k x k convolution (padded to keep the size at stride 1) with a per-channel bias Add.
NodePtr conv(const Output& x, size_t out_channels, size_t in_channels, size_t k, unsigned seed,
             int64_t stride = 1, int64_t dilation = 1) {
    const int64_t pad = static_cast<int64_t>(k / 2) * dilation;
    auto c = op::convolution(x, weights({out_channels, in_channels, k, k}, seed), {stride, stride},
                             {pad, pad}, {pad, pad}, {dilation, dilation});
    return op::add(c, weights({1, out_channels, 1, 1}, seed + 100));
}

// max |a - b| over max |b|: the error relative to the output's scale.
double scaled_error(const Tensor& a, const Tensor& b) {
    const float* x = a.data<float>();
    const float* y = b.data<float>();
    double diff = 0, scale = 0;
    for (size_t i = 0; i < b.get_size(); ++i) {
        diff = std::max(diff, static_cast<double>(std::abs(x[i] - y[i])));
        scale = std::max(scale, static_cast<double>(std::abs(y[i])));
    }
    return diff / scale;
}

struct Counts {
    size_t winograd = 0;  // steps on a Winograd kernel
    size_t in_place = 0;  // of those, steps that accumulate a residual in place
    size_t to_blocked = 0;
    size_t from_blocked = 0;
};

Counts count(const std::vector<ProfilingInfo>& rows) {
    Counts c;
    for (const auto& row : rows) {
        const bool wino = row.exec_type.find("wino") != std::string::npos;
        c.winograd += wino;
        c.in_place += wino && row.exec_type.find(" in-place") != std::string::npos;
        if (row.node_type == "Reorder") {
            c.to_blocked += row.exec_type.find("->nChw16c") != std::string::npos;
            c.from_blocked += row.exec_type.find("nChw16c->") != std::string::npos;
        }
    }
    return c;
}

TEST(Winograd, QualifyingConvolutionsRunWinogradAndGiveTemplatesValues) {
    struct Case {
        const char* name;
        Counts expected;
        std::function<ModelPtr()> make;
    };
    auto input = [](int64_t c, int64_t hw) {
        return op::parameter(element::f32, {1, c, hw, hw}, "x");
    };
    auto model = [](const OutputVector& outputs, const NodePtr& x) {
        return std::make_shared<Model>(outputs, ParameterVector{x}, "winograd");
    };
    // 64 channels at 48x48: 85M multiply-adds per 3x3 convolution, above kWinogradMinMacs.
    const std::vector<Case> cases = {
        // The second convolution reads the first one's nChw16c output as it is; the model's
        // input and output take one reorder each.
        {"two in a row",
         {2, 0, 1, 1},
         [&] {
             auto x = input(64, 48);
             auto a = op::relu(conv(x, 64, 64, 3, 1));
             return model({conv(a, 64, 64, 3, 2)}, x);
         }},
        // A ResNet basic block: the second convolution adds the residual in place, into a
        // blocked copy of it; the stem's output is also read in NHWC by that residual.
        {"residual block",
         {3, 1, 2, 2},
         [&] {
             auto x = input(64, 48);
             auto stem = op::relu(conv(x, 64, 64, 3, 3));
             auto a = op::relu(conv(stem, 64, 64, 3, 4));
             return model({op::relu(op::add(conv(a, 64, 64, 3, 5), stem))}, x);
         }},
        // One blocked output read by a Winograd convolution, a MaxPool (in NHWC) and as a model
        // output; model outputs leave nChw16c in one reorder to plain.
        {"blocked output with other readers",
         {2, 0, 1, 3},
         [&] {
             auto x = input(64, 48);
             auto a = op::relu(conv(x, 64, 64, 3, 6));
             auto pool = op::max_pool(a, {2, 2}, {0, 0}, {0, 0}, {2, 2});
             return model({conv(a, 64, 64, 3, 7), pool, a}, x);
         }},
        // None qualifies: channels not multiples of 16, stride 2, dilation 2, 5x5, 1x1,
        // grouped, an 8x8 output (below kWinogradMinPixels, though 151M multiply-adds), 16
        // channels (1.7M multiply-adds, below kWinogradMinMacs); each stays direct.
        {"non-qualifying convolutions",
         {0, 0, 0, 0},
         [&] {
             auto x = input(64, 48);
             auto odd = conv(x, 72, 64, 3, 8);
             auto strided = conv(x, 64, 64, 3, 9, 2);
             auto dilated = conv(x, 64, 64, 3, 10, 1, 2);
             auto five = conv(x, 16, 64, 5, 11);
             auto one = conv(x, 64, 64, 1, 12);
             auto grouped = op::group_convolution(x, weights({2, 32, 32, 3, 3}, 13), {1, 1}, {1, 1},
                                                  {1, 1}, {1, 1});
             auto wide = conv(op::max_pool(conv(x, 512, 64, 1, 14), {6, 6}, {0, 0}, {0, 0}, {6, 6}),
                              512, 512, 3, 15);
             auto narrow = conv(conv(x, 16, 64, 1, 16), 16, 16, 3, 17);
             return model({odd, strided, dilated, five, one, grouped, wide, narrow}, x);
         }},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        const auto m = c.make();
        // Long reductions (up to 4608 terms) in another order than TEMPLATE's: 1e-4 absolute.
        expect_matches_template(m, 1e-4, 1e-4);
        const Counts on = count(cpu_profile(m));
        EXPECT_EQ(on.winograd, c.expected.winograd);
        EXPECT_EQ(on.in_place, c.expected.in_place);
        EXPECT_EQ(on.to_blocked, c.expected.to_blocked);
        EXPECT_EQ(on.from_blocked, c.expected.from_blocked);
        // CPU_WINOGRAD NO: every convolution direct, nothing in nChw16c.
        const Counts off = count(cpu_profile(m, {{"CPU_WINOGRAD", false}}));
        EXPECT_EQ(off.winograd, 0u);
        EXPECT_EQ(off.to_blocked + off.from_blocked, 0u);
    }
}

// The Winograd kernel rounds differently from the direct one: through six stacked layers the two
// stay within 1e-5 of the output's scale (1.1e-6 measured). The compiled model reports the
// setting, which refuses a value that is not a boolean.
TEST(Winograd, StaysCloseToTheDirectKernelAndIsReported) {
    auto x = op::parameter(element::f32, {1, 64, 48, 48}, "x");
    Output y = x;
    for (unsigned i = 0; i < 6; ++i) y = op::relu(conv(y, 64, 64, 3, 20 + i, 1, 1));
    auto m = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "stack");
    Core core = make_core();
    const Tensor in = random_tensor({1, 64, 48, 48}, 3);
    const auto wino = run_model(core, m, "CPU", {in});
    const auto direct = run_model(core, m, "CPU", {in}, {{"CPU_WINOGRAD", false}});
    EXPECT_LT(scaled_error(wino[0], direct[0]), 1e-5);
    EXPECT_TRUE(core.compile_model(m, "CPU").get_property("CPU_WINOGRAD").as<bool>());
    EXPECT_FALSE(core.compile_model(m, "CPU", {{"CPU_WINOGRAD", false}})
                     .get_property("CPU_WINOGRAD")
                     .as<bool>());
    EXPECT_THROW(core.compile_model(m, "CPU", {{"CPU_WINOGRAD", std::string("maybe")}}),
                 InvalidArgument);
    EXPECT_EQ(count(cpu_profile(m)).winograd, 6u);
    // bf16 keeps its bf16 direct kernels (oneDNN has no bf16 Winograd).
    EXPECT_EQ(count(cpu_profile(m, {{"INFERENCE_PRECISION_HINT", element::bf16}})).winograd, 0u);
}

}  // namespace winograd_cases
}  // namespace vireo::cpu_test
