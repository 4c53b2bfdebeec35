// Declares helpers shared by the CPU plugin tests: a Core that knows the built plugins, random
// inputs, closeness checks and running one model on a device.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "vireo/core.hpp"
#include "vireo/model.hpp"
#include "vireo/tensor.hpp"

namespace vireo::cpu_test {

/// tests/data of the source tree.
std::string data_dir();
/// A Core with the build tree's plugins.xml (which lists CPU and TEMPLATE).
Core make_core();
/// Uniform values in [lo, hi) from a fixed seed.
Tensor random_tensor(const Shape& shape, unsigned seed, float lo = -1.f, float hi = 1.f);
/// |a - b| <= abs + rel * |b| everywhere (f32), naming the first element that differs.
::testing::AssertionResult all_close(const Tensor& actual, const Tensor& expected, double rel,
                                     double abs);
/// Compiles `model` on `device` with `config`, runs it once on `inputs` (per model input) and
/// returns copies of its outputs.
std::vector<Tensor> run_model(Core& core, const std::shared_ptr<Model>& model,
                              const std::string& device, const std::vector<Tensor>& inputs,
                              const AnyMap& config = {});
/// Runs `model` on CPU and on TEMPLATE with random inputs and expects the same outputs.
void expect_matches_template(const std::shared_ptr<Model>& model, double rel = 1e-4,
                             double abs = 1e-5, unsigned seed = 1);
/// Profiling rows of type `type_contains` executed by a CPU run of `model` (profiling on).
std::vector<ProfilingInfo> cpu_profile(const std::shared_ptr<Model>& model,
                                       const AnyMap& config = {});

}  // namespace vireo::cpu_test
