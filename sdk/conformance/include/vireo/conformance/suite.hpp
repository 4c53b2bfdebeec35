// The test-side API of the plugin conformance suite: what a test file in sdk/conformance/tests
// needs — the device under test, its Core, capability skips, and the suite's models with their
// independently computed reference values.
//
// A test file is a plain GoogleTest file; the test suite name is the category shown in the
// runner's summary ("Plugin", "InferRequestIO", ...):
//
//     #include "vireo/conformance/suite.hpp"
//     namespace vireo::conformance {
//     TEST(States, KeptAcrossInferences) {
//         VIREO_CONFORMANCE_REQUIRE(device::capability::kStates);   // skipped with the reason
//         ReferenceModel m = stateful_model();
//         CompiledModel compiled = compile(m.model);
//         ...
//         EXPECT_TRUE(values_near(to_vector(request.get_output_tensor()), expected));
//     }
//     }  // namespace vireo::conformance
//
// Every test runs in its own process (the runner forks and execs itself per test), so a test may
// load and unload the plugin, crash or hang without affecting the others. The runner sets the
// options before any test runs; core() is created on first use in the test's process.
//
// Thread safety: options() and core() may be used from any thread once a test has started.
// Errors: core() and make_core() throw what Core::register_plugin / set_property throw.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "vireo/vireo.hpp"

namespace vireo::conformance {

/// What the runner was asked to test.
struct SuiteOptions {
    std::string device;       ///< "NAME" or "NAME.N"
    std::string plugin_path;  ///< empty: the device comes from plugins.xml
    AnyMap properties;        ///< --property KEY=VALUE: set on the device in every Core made here
    /// From the expectations file's "capabilities:" line, when it has one: what the plugin's
    /// author says the device claims (Plugin.DeclaredCapabilities checks it).
    bool capabilities_declared = false;
    std::vector<std::string> declared_capabilities;
};

void set_options(const SuiteOptions& options);
const SuiteOptions& options();

/// The device under test as given ("MOCK_REMOTE.1") and its plugin name ("MOCK_REMOTE").
const std::string& device_name();
std::string device_base_name();
/// For a meta-device name ("HETERO:A,B"): the listed devices, in order; empty for a plain one.
/// A meta-device's query_model and EXECUTION_DEVICES name these devices instead of its own.
std::vector<std::string> listed_devices();

/// The test process's shared Core (plugin registered, properties set), made on first use.
Core& core();
/// A new, independent Core set up like core() (for lifetime and leak tests).
Core make_core();

/// device::capabilities of the device under test (asked once per process).
const std::vector<std::string>& device_capabilities();
bool has_capability(const std::string& capability);

/// Skips the current test, with the reason, when the device lacks `capability`.
#define VIREO_CONFORMANCE_REQUIRE(capability)                                \
    do {                                                                     \
        if (!::vireo::conformance::has_capability(capability))               \
            GTEST_SKIP() << "device " << ::vireo::conformance::device_name() \
                         << " does not claim capability " << (capability);   \
    } while (0)

/// Compiles `model` on the device under test with core(). Throws ModelUnavailable first when
/// query_model leaves computation ops of `model` out (the test is then reported not run).
CompiledModel compile(const std::shared_ptr<const Model>& model, const AnyMap& properties = {});

// ---- Models and their reference values ----
//
// The suite's behaviour models are op-aware: each model function below has variants (the
// first is the richest; later ones are built only from Add, Multiply, Relu, MatMul and
// Convolution, with the same inputs, output names and reference values) and returns the first
// variant whose computation ops the device's query_model reports supported. When none fits it
// throws ModelUnavailable naming the model and, per variant, the ops the device lacks; the
// runner reports such a test as "not-run" with that reason — never as passed or failed.

/// Starts every ModelUnavailable message; the runner recognises "not run" tests by it.
inline constexpr const char* kNotRunMarker = "[not run] ";

/// The test cannot be built from the ops the device supports. Deliberately not a
/// vireo::Exception, so tests that expect vireo errors do not catch it.
class ModelUnavailable : public std::runtime_error {
  public:
    explicit ModelUnavailable(const std::string& reason)
        : std::runtime_error(kNotRunMarker + reason) {}
};

/// Throws ModelUnavailable naming the computation ops of `model` (as "Type 'name'") that the
/// device's query_model leaves out; `what` names the model in the message. Nothing happens when
/// query_model itself fails (compile_model then decides).
void require_supported(const std::shared_ptr<const Model>& model, const std::string& what);

/// Values of each output computed from the values of each input (row-major f32).
using ReferenceFunction =
    std::function<std::vector<std::vector<float>>(const std::vector<std::vector<float>>&)>;

/// A model of the suite with the plain-loop computation of its outputs. Every input and output
/// is f32 and has one tensor name (listed here in model order).
struct ReferenceModel {
    std::shared_ptr<Model> model;
    ReferenceFunction reference;
    std::vector<std::string> input_names;
    std::vector<std::string> output_names;
};

/// "x", "y" [2,3,4] -> "z" = max(x * y + x, 0) - 0.25 (Subtract; or Add of -0.25).
ReferenceModel elementwise_model();
/// "x" [2,8] -> MatMul 8x16 + bias, ReLU, MatMul 16x4 + bias, Softmax -> "probs" [2,4]
/// (or, without Softmax, the logits under the same name).
ReferenceModel mlp_model();
/// "image" [1,2,6,6] -> Convolution 3x3 (3 filters, pad 1) + bias, ReLU, MaxPool 2x2/2,
/// Reshape [1,27], MatMul 27x5 -> "logits" [1,5] (or, instead of the pooling and MatMul, a
/// 6x6 Convolution with 5 filters -> "logits" [1,5,1,1]).
ReferenceModel cnn_model();
/// "x" [2,4] -> "plus_one" = x + 1 [2,4], "relu" = max(x, 0) [2,4], "row_sum" = sum over axis 1
/// [2] (ReduceSum; or MatMul by a vector of ones).
ReferenceModel multi_output_model();
/// "s" scalar -> "square_plus_one" = s * s + 1 (scalar).
ReferenceModel scalar_model();
/// "x" [?,4] -> "y" = max(3x - 1, 0) (any batch; Subtract or Add of -1).
ReferenceModel dynamic_model();
/// "x" [1,3]; variable "acc" (zeros at first); "acc_out" = acc + x, which is assigned to "acc".
/// The reference is for one inference from a zero state: acc_out = x.
ReferenceModel stateful_model();

/// Every variant of every model, whatever the device supports (for tests of query_model).
std::vector<ReferenceModel> all_model_variants();

// ---- Helpers ----

/// `count` deterministic values in [-1.25, 1.25], multiples of 1/16 (exact in f32); `seed` picks
/// the sequence.
std::vector<float> make_values(size_t count, uint32_t seed);
/// An owning f32 host tensor of `shape` holding `values`.
Tensor make_tensor(const Shape& shape, const std::vector<float>& values);
/// The elements of an f32 tensor (host or remote: copied through a host tensor).
std::vector<float> to_vector(const Tensor& tensor);
/// Compares element by element: |a - e| <= abs_tol + rel_tol * |e|; the message names the first
/// differing index and the counts.
::testing::AssertionResult values_near(const std::vector<float>& actual,
                                       const std::vector<float>& expected, float abs_tol = 1e-4f,
                                       float rel_tol = 1e-4f);
/// Runs `f`; success when it throws a vireo::Exception of `kind` whose message contains `mention`
/// (when not empty), so tests can require that an error names the thing at fault.
template <typename F>
::testing::AssertionResult throws_kind(F&& f, ErrorKind kind, const std::string& mention = "") {
    try {
        f();
    } catch (const Exception& e) {
        if (e.kind() != kind)
            return ::testing::AssertionFailure()
                   << "expected a " << to_string(kind) << " error, got " << to_string(e.kind())
                   << ": " << e.what();
        if (!mention.empty() && std::string(e.what()).find(mention) == std::string::npos)
            return ::testing::AssertionFailure()
                   << "the error does not name '" << mention << "': " << e.what();
        return ::testing::AssertionSuccess();
    } catch (const std::exception& e) {
        return ::testing::AssertionFailure() << "expected a vireo::Exception, got: " << e.what();
    }
    return ::testing::AssertionFailure()
           << "expected a " << to_string(kind) << " error, nothing was thrown";
}
/// Sets fresh input tensors of `request` (static shapes of `compiled`) from make_values(seed + i)
/// and returns their values.
std::vector<std::vector<float>> set_inputs(InferRequest& request, const CompiledModel& compiled,
                                           uint32_t seed);
/// The values of every output of `request`, in output order.
std::vector<std::vector<float>> get_outputs(const InferRequest& request,
                                            const CompiledModel& compiled);
/// Asserts that outputs of `request` equal `m.reference(inputs)`.
::testing::AssertionResult outputs_match(const InferRequest& request, const CompiledModel& compiled,
                                         const ReferenceModel& m,
                                         const std::vector<std::vector<float>>& inputs);

}  // namespace vireo::conformance
