// Declares helpers shared by the TEMPLATE plugin tests: paths, a .npy reader, a Core that
// knows the built plugin, small model builders and a probe op whose kernel records its calls.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "vireo/core.hpp"
#include "vireo/model.hpp"
#include "vireo/tensor.hpp"

namespace vireo::template_test {

/// tests/data of the source tree.
std::string data_dir();
/// A Core with the build tree's plugins.xml; registers TEMPLATE explicitly if that file does
/// not list it (e.g. a build dir configured before the plugin existed).
Core make_core();

/// Reads a little-endian .npy file (v1/v2/v3 header, C order) of f32, f64, i32, i64 or u8.
Tensor read_npy(const std::string& path);

/// Fills a float tensor with a deterministic pattern depending on `seed`.
void fill_pattern(Tensor& t, int seed);
/// Max |a-b| <= abs + rel*|b| for every element (both f32), with a failure message naming the
/// first element that differs.
::testing::AssertionResult all_close(const Tensor& actual, const Tensor& expected, double rel,
                                     double abs);
/// Bytes equal, shapes equal, types equal.
::testing::AssertionResult identical(const Tensor& actual, const Tensor& expected);

/// The probe op ("TemplateTestProbe", one input, output = input), registered once with a
/// reference kernel that copies its input and records each call.
struct ProbeLog {
    std::mutex mutex;
    std::condition_variable changed;
    size_t executions = 0;
    const void* last_input = nullptr;
    void* last_output = nullptr;
    bool last_on_stream = false;  ///< the last execution ran on a streams executor's thread
    size_t block_at = 0;          ///< the execution with this number (1-based) waits for release
    bool blocked = false;         ///< it is waiting now
    bool released = false;
    void reset();
    /// Waits until the blocking execution has started; then release() lets it finish.
    void wait_blocked();
    void release();
};
ProbeLog& probe_log();
NodePtr probe(const Output& x);
/// Registers an op with no kernel ("TemplateTestNoKernel", output = input) for support tests.
NodePtr no_kernel_op(const Output& x);

/// y = relu(x W + b), x f32 [batch, n]; W and b from fill_pattern; with the expected output
/// computed by plain loops for a given input.
std::shared_ptr<Model> make_dense_model(size_t batch, size_t n, const std::string& name = "dense");
std::vector<float> dense_reference(const Model& model, const std::vector<float>& x, size_t batch,
                                   size_t n);

}  // namespace vireo::template_test
