// Helpers for the preprocessing tests: a Core on the build tree's plugins, the devices the value
// tests run on (TEMPLATE and MOCK_REMOTE with fast modelled timings), and tensor builders.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "vireo/core.hpp"
#include "vireo/model.hpp"
#include "vireo/tensor.hpp"

namespace vireo::preprocess_test {

inline Core make_core() {
    return Core(std::string(VIREO_BUILD_LIB_DIR) + "/plugins.xml");
}

/// Devices every value test runs on.
inline std::vector<std::string> devices() {
    return {"TEMPLATE", "MOCK_REMOTE"};
}

/// Compile properties for `device`: MOCK_REMOTE gets small modelled costs so tests stay fast.
inline AnyMap device_config(const std::string& device) {
    if (device.rfind("MOCK_REMOTE", 0) != 0) return {};
    return {{"MOCK_REMOTE_LATENCY_US", Any(uint32_t{50})},
            {"MOCK_REMOTE_COMPILE_MS", Any(uint32_t{0})},
            {"MOCK_REMOTE_BUS_LATENCY_US", Any(uint32_t{0})},
            {"MOCK_REMOTE_GFLOPS", Any(1000.0)},
            {"MOCK_REMOTE_DEVICE_GBPS", Any(1000.0)},
            {"MOCK_REMOTE_BUS_GBPS", Any(100.0)}};
}

inline CompiledModel compile(Core& core, const std::shared_ptr<Model>& model,
                             const std::string& device) {
    return core.compile_model(model, device, device_config(device));
}

/// Copies `values` into a new tensor of type T.
template <typename T>
Tensor make_tensor(element::Type type, const Shape& shape, const std::vector<T>& values) {
    Tensor t(type, shape);
    EXPECT_EQ(t.get_size(), values.size());
    T* p = static_cast<T*>(t.data());
    for (size_t i = 0; i < values.size() && i < t.get_size(); ++i) p[i] = values[i];
    return t;
}

/// The elements of an f32 tensor (any strides).
inline std::vector<float> to_vector(const Tensor& t) {
    Tensor dense = t.clone();
    const float* p = dense.data<float>();
    return std::vector<float>(p, p + dense.get_size());
}

}  // namespace vireo::preprocess_test
