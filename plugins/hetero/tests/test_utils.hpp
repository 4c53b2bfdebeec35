// Shared helpers of the HETERO tests: a Core with PARTIAL registered, small models, inputs and
// expected values computed by plain loops.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "vireo/vireo.hpp"

namespace hetero_test {

/// The build tree's plugins.xml (TEMPLATE, MOCK_REMOTE, HETERO) plus PARTIAL (Add, Multiply,
/// Relu, MatMul, Convolution only) registered by path.
inline vireo::Core make_core() {
    vireo::Core core;
    core.register_plugin(VIREO_PARTIAL_PLUGIN_PATH, "PARTIAL");
    return core;
}

inline vireo::Tensor make_input(const vireo::Shape& shape, float start, float step) {
    vireo::Tensor t(vireo::element::f32, shape);
    float* p = t.data<float>();
    for (size_t i = 0; i < t.get_size(); ++i) p[i] = start + step * static_cast<float>(i);
    return t;
}

inline std::vector<float> values_of(const vireo::Tensor& t) {
    const float* p = t.data<float>();
    return std::vector<float>(p, p + t.get_size());
}

inline float sigmoid(float v) {
    return 1.f / (1.f + std::exp(-v));
}

inline void expect_near(const std::vector<float>& actual, const std::vector<float>& expected) {
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i)
        EXPECT_NEAR(actual[i], expected[i], 1e-5f) << "at " << i;
}

/// Runs `error_call` and returns the message of the vireo::Exception it throws, checking its kind.
template <typename Call>
std::string error_of(Call&& call, vireo::ErrorKind kind) {
    try {
        call();
    } catch (const vireo::Exception& e) {
        EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(kind)) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "no exception";
    return {};
}

}  // namespace hetero_test
