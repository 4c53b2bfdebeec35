// The dynamic graph's own kernels and executor (CPU_SHAPE_CACHE_SIZE 0 keeps a model on it): f32
// MatMul on sgemm, Convolution as im2col and sgemm, and the steps it does not run again when their
// inputs did not change. Every case is checked against TEMPLATE.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::cpu_test {
namespace {

// As the plugin decides (cpu_isa.hpp): AVX-512F with FMA, unless VIREO_GEMM_ISA names another.
bool cpu_has_avx512() {
    __builtin_cpu_init();
    const char* forced = std::getenv("VIREO_GEMM_ISA");
    if (forced && std::string(forced) != "avx512") return false;
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
}

// A dynamic graph's f32 MatMul runs on oneDNN's sgemm (CPU_SHAPE_CACHE_SIZE 0 keeps the graph
// dynamic: no per-shape compile), one or two rows against a 2-D B on the GEMV kernel (on
// AVX-512), the shapes neither takes on the reference kernel, weights that are constants
// included. The profile names the implementation each run took.
TEST(DynamicMatMul, SgemmForEveryLayoutItTakesReferenceForTheRest) {
    struct Case {
        std::string what;
        PartialShape a, b;  // b static: a constant; else a second input
        Shape a_run, b_run;
        bool ta, tb;
        std::string path;  // "gemv" is "sgemm" without AVX-512 or on one thread
    };
    const auto dyn = Dimension::dynamic();
    const std::vector<Case> cases{
        {"rank-3 activations, 2-D weights",
         {dyn, dyn, 16},
         {16, 8},
         {2, 5, 16},
         {},
         false,
         false,
         "sgemm"},
        {"weights transposed", {dyn, 16}, {8, 16}, {7, 16}, {}, false, true, "sgemm"},
        {"activations transposed", {16, dyn}, {16, 8}, {16, 3}, {}, true, false, "sgemm"},
        {"zero rows", {dyn, 16}, {16, 8}, {0, 16}, {}, false, false, "sgemm"},
        {"one row", {dyn, dyn, 16}, {16, 8}, {1, 1, 16}, {}, false, false, "gemv"},
        {"two rows", {dyn, 16}, {dyn, 8}, {2, 16}, {16, 8}, false, false, "gemv"},
        {"one row, weights transposed", {dyn, 16}, {8, 16}, {1, 16}, {}, false, true, "sgemm"},
        {"three rows", {dyn, 16}, {16, 8}, {3, 16}, {}, false, false, "sgemm"},
        {"batched, both inputs",
         {2, 3, dyn, 5},
         {2, 3, 5, dyn},
         {2, 3, 4, 5},
         {2, 3, 5, 6},
         false,
         false,
         "sgemm"},
        {"batched, both transposed",
         {2, dyn, 4},
         {2, 6, dyn},
         {2, 5, 4},
         {2, 6, 5},
         true,
         true,
         "sgemm"},
        {"broadcast batch (reference)",
         {dyn, 4, 5},
         {1, 5, dyn},
         {3, 4, 5},
         {1, 5, 6},
         false,
         false,
         "ref"},
        {"vector (reference)", {dyn}, {dyn, 3}, {4}, {4, 3}, false, false, "ref"},
        // Constant weights sgemm does not take: the reference kernel reads them from its inputs
        // (it keeps no packed copy of its own).
        {"vector weights (reference)", {dyn, 4}, {4}, {3, 4}, {}, false, false, "ref"},
        {"broadcast batch of weights (reference)",
         {dyn, 4, 5},
         {1, 5, 6},
         {3, 4, 5},
         {},
         false,
         false,
         "ref"},
    };
    Core core = make_core();
    unsigned seed = 200;
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        auto a = op::parameter(element::f32, c.a, "a");
        ParameterVector params{a};
        std::vector<Tensor> inputs{random_tensor(c.a_run, ++seed)};
        NodePtr b;
        if (c.b.is_static()) {
            b = op::constant(random_tensor(c.b.to_shape(), ++seed));
        } else {
            b = op::parameter(element::f32, c.b, "b");
            params.push_back(b);
            inputs.push_back(random_tensor(c.b_run, ++seed));
        }
        auto y = op::matmul(a, b, c.ta, c.tb);
        y->set_friendly_name("product");
        auto model = std::make_shared<Model>(OutputVector{y}, params, "matmul");
        const auto expected = run_model(core, model, "TEMPLATE", inputs);
        CompiledModel cpu = core.compile_model(
            model, "CPU", {{enable_profiling.name(), true}, {"CPU_SHAPE_CACHE_SIZE", 0}});
        InferRequest request = cpu.create_infer_request();
        for (size_t i = 0; i < inputs.size(); ++i) request.set_input_tensor(i, inputs[i]);
        request.infer();
        ASSERT_EQ(request.get_output_tensor().get_shape(), expected[0].get_shape());
        EXPECT_TRUE(all_close(request.get_output_tensor(), expected[0], 1e-5, 1e-5));
        std::vector<std::string> paths;
        for (const auto& row : request.get_profiling_info())
            if (row.node_name == "product") paths.push_back(row.exec_type);
        const bool gemv =
            cpu_has_avx512() && cpu.get_property(inference_num_threads.name()).as<int32_t>() > 1;
        const std::string expected_path = c.path == "gemv" && !gemv ? "sgemm" : c.path;
        EXPECT_EQ(paths, std::vector<std::string>{expected_path});
        const auto reference = cpu.get_property("CPU_REFERENCE_OPS").as<std::vector<std::string>>();
        EXPECT_EQ(std::find(reference.begin(), reference.end(), "MatMul"), reference.end());
    }
}

// The GEMV kernel (one or two rows against a 2-D B) over widths and depths that are not a
// multiple of its 16 columns or of its 8 rows of B per pass, on one thread and on two (B of
// 128 KiB and more is split by rows of B, each thread summing a partial result; some with fewer
// passes than threads, so that a thread has no rows), against TEMPLATE.
TEST(DynamicMatMul, GemvMatchesTemplateForEveryTailAndThreadCount) {
    struct Size {
        size_t k, n;
    };
    const std::vector<Size> sizes{{1, 1},      {7, 15},    {8, 16},    {9, 17},  {17, 33},
                                  {300, 1000}, {1001, 40}, {2, 40000}, {64, 600}};
    const auto dyn = Dimension::dynamic();
    Core core = make_core();
    unsigned seed = 700;
    for (const auto& size : sizes) {
        auto a = op::parameter(element::f32, PartialShape{dyn, static_cast<int64_t>(size.k)}, "a");
        auto y = op::matmul(a, op::constant(random_tensor({size.k, size.n}, ++seed)), false, false);
        y->set_friendly_name("product");
        auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{a}, "gemv");
        for (size_t rows : {1, 2}) {
            // Two sets of rows: the second run reuses the first's buffers (and a thread's
            // partial sums) with new values.
            std::vector<Tensor> inputs, expected;
            for (int run = 0; run < 2; ++run) {
                inputs.push_back(random_tensor({rows, size.k}, ++seed));
                expected.push_back(run_model(core, model, "TEMPLATE", {inputs.back()})[0]);
            }
            for (int threads : {1, 2}) {
                SCOPED_TRACE("k " + std::to_string(size.k) + ", n " + std::to_string(size.n) +
                             ", rows " + std::to_string(rows) + ", threads " +
                             std::to_string(threads));
                CompiledModel cpu = core.compile_model(model, "CPU",
                                                       {{enable_profiling.name(), true},
                                                        {"CPU_SHAPE_CACHE_SIZE", 0},
                                                        {inference_num_threads.name(), threads}});
                InferRequest request = cpu.create_infer_request();
                for (int run = 0; run < 2; ++run) {
                    request.set_input_tensor(0, inputs[run]);
                    request.infer();
                    EXPECT_TRUE(all_close(request.get_output_tensor(), expected[run], 1e-4, 1e-4));
                    std::vector<std::string> paths;
                    for (const auto& row : request.get_profiling_info())
                        if (row.node_name == "product") paths.push_back(row.exec_type);
                    // One thread keeps sgemm (as fast there).
                    const bool gemv = cpu_has_avx512() && threads > 1;
                    EXPECT_EQ(paths, std::vector<std::string>{gemv ? "gemv" : "sgemm"});
                }
            }
        }
    }
}

// Written-out RMSNorm and LayerNorm (and MVN) of a dynamic graph are one step each on the
// plugin's normalization kernel, in every form the matchers take; forms they must not take run
// as written. Each case runs three shapes on one compiled model (a decode row, a few rows, and
// enough rows for the kernel to split them over two threads), against TEMPLATE.
TEST(DynamicNorm, WrittenOutNormsAreOneStepEachAndMatchTemplate) {
    constexpr int64_t d = 37;  // not a multiple of the kernel's 16 lanes
    const auto f32 = [](float v) {
        return op::constant(element::f32, Shape{}, std::vector<float>{v});
    };
    const auto last_axis = op::constant(element::i64, Shape{1}, std::vector<int64_t>{-1});
    const auto axis_2 = op::constant(element::i64, Shape{1}, std::vector<int64_t>{2});
    const auto gamma = op::constant(random_tensor({static_cast<size_t>(d)}, 901, 0.5f, 1.5f));
    const auto beta = op::constant(random_tensor({1, 1, static_cast<size_t>(d)}, 902));
    struct Case {
        std::string what;
        std::function<NodePtr(const Output&)> build;
        std::string norm;  // the norm step's exec_type ("" for none)
        size_t ref_steps;  // steps left on reference kernels
    };
    const std::vector<Case> cases{
        {"RMSNorm: Pow, x * (1 / Sqrt), gamma first",
         [&](const Output& x) {
             auto v = op::reduce_mean(op::power(x, f32(2.f)), last_axis, true);
             auto r = op::divide(f32(1.f), op::sqrt(op::add(v, f32(1e-5f))));
             return op::multiply(gamma, op::multiply(x, r));
         },
         "rms_norm", 0},
        {"RMSNorm: x * x, x / Sqrt, eps first, no scale",
         [&](const Output& x) {
             auto v = op::reduce_mean(op::multiply(x, x), axis_2, true);
             return op::divide(x, op::sqrt(op::add(f32(1e-6f), v)));
         },
         "rms_norm", 0},
        {"RMSNorm: Power -0.5, scale and shift",
         [&](const Output& x) {
             auto v = op::reduce_mean(op::power(x, f32(2.f)), last_axis, true);
             auto r = op::power(op::add(v, f32(1e-5f)), f32(-0.5f));
             return op::add(op::multiply(op::multiply(r, x), gamma), beta);
         },
         "rms_norm", 0},
        {"LayerNorm written out, scale and shift",
         [&](const Output& x) {
             auto centred = op::subtract(x, op::reduce_mean(x, last_axis, true));
             auto v = op::reduce_mean(op::power(centred, f32(2.f)), last_axis, true);
             auto y = op::divide(centred, op::sqrt(op::add(v, f32(1e-5f))));
             return op::add(op::multiply(y, gamma), beta);
         },
         "layer_norm", 0},
        {"MVN over the last axis, scale",
         [&](const Output& x) { return op::multiply(op::mvn(x, last_axis, true, 1e-5), gamma); },
         "layer_norm", 0},
        {"RMSNorm whose scale adds an axis: the scale runs as written",
         [&](const Output& x) {
             auto v = op::reduce_mean(op::power(x, f32(2.f)), last_axis, true);
             auto y = op::divide(x, op::sqrt(op::add(v, f32(1e-5f))));
             auto wide = op::constant(random_tensor({1, 1, 1, static_cast<size_t>(d)}, 903));
             return op::multiply(y, wide);
         },
         "rms_norm", 1},
        {"a cube, not a square: as written",
         [&](const Output& x) {
             auto v = op::reduce_mean(op::power(x, f32(3.f)), last_axis, true);
             return op::divide(x, op::sqrt(op::add(v, f32(1e-5f))));
         },
         "", 5},
        {"a negative epsilon: as written",
         [&](const Output& x) {
             auto v = op::reduce_mean(op::power(x, f32(2.f)), last_axis, true);
             return op::divide(x, op::sqrt(op::add(v, f32(-1e-3f))));
         },
         "", 5},
    };
    const auto dyn = Dimension::dynamic();
    Core core = make_core();
    unsigned seed = 910;
    for (const auto& c : cases) {
        auto x = op::parameter(element::f32, PartialShape{dyn, dyn, d}, "x");
        auto y = c.build(x);
        y->set_friendly_name("normalized");
        auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "norm");
        CompiledModel cpu = core.compile_model(model, "CPU",
                                               {{enable_profiling.name(), true},
                                                {"CPU_SHAPE_CACHE_SIZE", 0},
                                                {inference_num_threads.name(), 2}});
        InferRequest request = cpu.create_infer_request();
        for (const Shape& shape : {Shape{1, 1, d}, Shape{2, 5, d}, Shape{4, 500, d}}) {
            SCOPED_TRACE(c.what + ", input " + shape.to_string());
            // Rows far from zero mean, as a residual stream's are.
            const Tensor input = random_tensor(shape, ++seed, -2.f, 3.f);
            const auto expected = run_model(core, model, "TEMPLATE", {input});
            request.set_input_tensor(0, input);
            request.infer();
            EXPECT_TRUE(all_close(request.get_output_tensor(), expected[0], 1e-5, 1e-5));
            size_t norms = 0, refs = 0;
            for (const auto& row : request.get_profiling_info()) {
                if (row.status != ProfilingInfo::Status::EXECUTED || row.node_type == "Stage")
                    continue;
                norms += row.exec_type == "rms_norm" || row.exec_type == "layer_norm";
                refs += row.exec_type == "ref";
                if (!c.norm.empty() && row.exec_type == c.norm && c.ref_steps == 0)
                    EXPECT_EQ(row.node_name, "normalized");
            }
            EXPECT_EQ(norms, c.norm.empty() ? 0u : 1u);
            EXPECT_EQ(refs, c.ref_steps);
        }
    }
}

// The rotary embedding as Llama-style decoders write it ("rotate half": x * cos +
// Concat(-x[..., D/2:], x[..., :D/2]) * sin) is one step of a dynamic graph, its Slice bounds
// constants or computed from x's shape (ShapeOf, Gather, Divide, Unsqueeze: the head size is
// static even where the batch and the sequence are not); other rotations run as written.
TEST(DynamicRotary, RotateHalfIsOneStepAndMatchesTemplate) {
    constexpr int64_t d = 20;  // even, not a multiple of 16
    const auto dyn = Dimension::dynamic();
    const auto i64 = [](std::vector<int64_t> v) {
        return op::constant(element::i64, Shape{v.size()}, v);
    };
    const auto last = i64({-1});
    const auto one = i64({1});
    const auto end = i64({std::numeric_limits<int64_t>::max()});
    struct Case {
        std::string what;
        // x, cos, sin -> y
        std::function<NodePtr(const Output&, const Output&, const Output&)> build;
        bool fused;
    };
    auto rotate_half = [&](const Output& x, bool computed_bounds, bool swapped) -> NodePtr {
        Output half = i64({d / 2});
        if (computed_bounds) {
            auto size = op::gather(op::shape_of(x), i64({3}),
                                   op::constant(element::i64, Shape{}, std::vector<int64_t>{0}));
            half = op::divide(size, i64({2}));
        }
        auto x1 = op::slice(x, i64({0}), half, one, last);
        auto x2 = op::slice(x, half, end, one, last);
        return swapped ? op::concat({op::unary("Negative", x1), x2}, -1)
                       : op::concat({op::unary("Negative", x2), x1}, -1);
    };
    const std::vector<Case> cases{
        {"constant bounds",
         [&](const Output& x, const Output& c, const Output& s) {
             return op::add(op::multiply(x, c), op::multiply(rotate_half(x, false, false), s));
         },
         true},
        {"bounds from the shape, factors swapped",
         [&](const Output& x, const Output& c, const Output& s) {
             return op::add(op::multiply(s, rotate_half(x, true, false)), op::multiply(c, x));
         },
         true},
        {"the other rotation (-x1 first): as written",
         [&](const Output& x, const Output& c, const Output& s) {
             return op::add(op::multiply(x, c), op::multiply(rotate_half(x, false, true), s));
         },
         false},
    };
    Core core = make_core();
    unsigned seed = 950;
    for (const auto& c : cases) {
        // x [batch, heads, seq, d]; cos and sin [seq, d] as a decoder gathers them by position.
        auto x = op::parameter(element::f32, PartialShape{dyn, 3, dyn, d}, "x");
        auto cos = op::parameter(element::f32, PartialShape{dyn, d}, "cos");
        auto sin = op::parameter(element::f32, PartialShape{dyn, d}, "sin");
        auto y = c.build(x, cos, sin);
        y->set_friendly_name("rotated");
        auto model =
            std::make_shared<Model>(OutputVector{y}, ParameterVector{x, cos, sin}, "rotary");
        CompiledModel cpu = core.compile_model(
            model, "CPU", {{enable_profiling.name(), true}, {"CPU_SHAPE_CACHE_SIZE", 0}});
        InferRequest request = cpu.create_infer_request();
        for (size_t seq : {1, 7}) {
            SCOPED_TRACE(c.what + ", seq " + std::to_string(seq));
            const std::vector<Tensor> inputs{random_tensor({2, 3, seq, d}, ++seed),
                                             random_tensor({seq, d}, ++seed),
                                             random_tensor({seq, d}, ++seed)};
            const auto expected = run_model(core, model, "TEMPLATE", inputs);
            for (size_t i = 0; i < inputs.size(); ++i) request.set_input_tensor(i, inputs[i]);
            request.infer();
            EXPECT_TRUE(all_close(request.get_output_tensor(), expected[0], 1e-6, 1e-6));
            size_t rotary = 0, executed = 0;
            for (const auto& row : request.get_profiling_info()) {
                if (row.status != ProfilingInfo::Status::EXECUTED || row.node_type == "Stage")
                    continue;
                ++executed;
                if (row.exec_type == "rotary") {
                    ++rotary;
                    EXPECT_EQ(row.node_name, "rotated");
                }
            }
            EXPECT_EQ(rotary, c.fused ? 1u : 0u);
            // The rotary step alone: the bounds' shape arithmetic has no reader left.
            if (c.fused) EXPECT_EQ(executed, 1u);
        }
    }
    // A cos that does not broadcast to x at run time is an error naming the step.
    auto x = op::parameter(element::f32, PartialShape{dyn, 3, dyn, d}, "x");
    auto cs = op::parameter(element::f32, PartialShape{dyn, d}, "cs");
    auto y = op::add(op::multiply(x, cs), op::multiply(rotate_half(x, false, false), cs));
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x, cs}, "rotary");
    InferRequest request =
        core.compile_model(model, "CPU", {{"CPU_SHAPE_CACHE_SIZE", 0}}).create_infer_request();
    request.set_input_tensor(0, random_tensor({1, 3, 4, d}, 1));
    request.set_input_tensor(1, random_tensor({5, d}, 2));
    EXPECT_THROW(request.infer(), Exception);
}

}  // namespace
}  // namespace vireo::cpu_test

namespace vireo::cpu_test {
namespace {

Tensor i64_tensor(const std::vector<int64_t>& values) {
    Tensor t(element::i64, Shape{values.size()});
    std::copy(values.begin(), values.end(), static_cast<int64_t*>(t.data()));
    return t;
}

// A dynamic graph's step whose inputs are the same as at its last run (constants, small tensors
// compared by their bytes, ShapeOf's input by its shape) is not run again, and its outputs still
// hold what it wrote; a changed value, a changed shape, a large input or a random op runs. Every
// run is checked against TEMPLATE, and the profile says which steps were skipped.
TEST(DynamicGraph, StepsWhoseInputsDidNotChangeAreNotRunAgain) {
    const auto dyn = Dimension::dynamic();
    auto x = op::parameter(element::f32, PartialShape{dyn, dyn}, "x");
    auto target = op::parameter(element::i64, PartialShape{2}, "target");
    auto v = op::parameter(element::f32, PartialShape{dyn}, "v");
    // Shape arithmetic on x: [rows * cols] from ShapeOf, Gather, Multiply, Unsqueeze.
    auto shape = op::shape_of(x);
    shape->set_friendly_name("shape");
    auto rows = op::gather(shape, op::int64_scalar(0), op::int64_scalar(0));
    auto cols = op::gather(shape, op::int64_scalar(1), op::int64_scalar(0));
    auto count = op::multiply(rows, cols);
    count->set_friendly_name("count");
    auto flat_shape = op::unsqueeze(count, op::int64_scalar(0));
    auto flat = op::reshape(x, flat_shape, false);
    auto scaled = op::multiply(flat, op::constant(element::f32, Shape{1}, std::vector<float>{2.f}));
    scaled->set_friendly_name("scaled");
    // A Reshape to a target given as a small input: same shape, other values between runs.
    auto shaped = op::reshape(x, target, true);
    // Small values: recomputed when they change, skipped when they do not.
    auto offset = op::add(v, op::constant(element::f32, Shape{1}, std::vector<float>{0.5f}));
    offset->set_friendly_name("offset");
    auto model = std::make_shared<Model>(OutputVector{scaled, shaped, offset},
                                         ParameterVector{x, target, v}, "memo");
    Core core = make_core();
    CompiledModel cpu = core.compile_model(
        model, "CPU", {{enable_profiling.name(), true}, {"CPU_SHAPE_CACHE_SIZE", 0}});
    InferRequest request = cpu.create_infer_request();
    struct Run {
        Shape x;
        std::vector<int64_t> target;
        Shape v;
        unsigned v_seed;
        bool shape_steps_skipped, offset_skipped;
    };
    const std::vector<Run> runs{
        {{2, 40}, {40, 2}, {3}, 1, false, false},
        {{2, 40}, {40, 2}, {3}, 1, true, true},    // nothing small changed
        {{2, 40}, {4, 20}, {3}, 2, true, false},   // the target's and v's values changed
        {{3, 40}, {-1, 8}, {3}, 2, false, true},   // x's shape changed
        {{3, 40}, {-1, 8}, {5}, 2, true, false},   // v's shape changed
        {{2, 40}, {40, 2}, {3}, 1, false, false},  // back to the first run's inputs
    };
    unsigned seed = 700;
    for (size_t r = 0; r < runs.size(); ++r) {
        SCOPED_TRACE("run " + std::to_string(r));
        const Run& run = runs[r];
        const std::vector<Tensor> inputs{random_tensor(run.x, ++seed), i64_tensor(run.target),
                                         random_tensor(run.v, run.v_seed)};
        const auto expected = run_model(core, model, "TEMPLATE", inputs);
        for (size_t i = 0; i < inputs.size(); ++i) request.set_input_tensor(i, inputs[i]);
        request.infer();
        for (size_t o = 0; o < expected.size(); ++o) {
            ASSERT_EQ(request.get_output_tensor(o).get_shape(), expected[o].get_shape()) << o;
            EXPECT_TRUE(all_close(request.get_output_tensor(o), expected[o], 1e-6, 1e-6)) << o;
        }
        std::map<std::string, std::string> how;
        size_t skipped = 0;
        for (const auto& row : request.get_profiling_info()) {
            how[row.node_name] = row.exec_type;
            skipped += row.exec_type == "not run: inputs unchanged";
        }
        const std::string not_run = "not run: inputs unchanged";
        EXPECT_EQ(how.at("shape") == not_run, run.shape_steps_skipped);
        EXPECT_EQ(how.at("count") == not_run, run.shape_steps_skipped);
        EXPECT_EQ(how.at("offset") == not_run, run.offset_skipped);
        EXPECT_NE(how.at("scaled"), not_run);  // 80 or 120 elements: never memoised
        // ShapeOf, two Gathers, Multiply, Unsqueeze, and the Add on v.
        EXPECT_EQ(skipped, (run.shape_steps_skipped ? 5u : 0u) + (run.offset_skipped ? 1u : 0u));
    }
}

// A random op runs at every inference, though its inputs are small and unchanged.
TEST(DynamicGraph, RandomOpsAlwaysRun) {
    auto v = op::parameter(element::f32, PartialShape{Dimension::dynamic()}, "v");
    auto noise = op::random_uniform(
        op::shape_of(v), op::constant(element::f32, Shape{}, std::vector<float>{0.f}),
        op::constant(element::f32, Shape{}, std::vector<float>{1.f}), element::f32);
    noise->set_friendly_name("noise");
    auto model =
        std::make_shared<Model>(OutputVector{op::add(v, noise)}, ParameterVector{v}, "noise");
    Core core = make_core();
    CompiledModel cpu = core.compile_model(
        model, "CPU", {{enable_profiling.name(), true}, {"CPU_SHAPE_CACHE_SIZE", 0}});
    InferRequest request = cpu.create_infer_request();
    request.set_input_tensor(random_tensor({4}, 5));
    for (int r = 0; r < 3; ++r) {
        request.infer();
        size_t runs = 0;
        for (const auto& row : request.get_profiling_info())
            runs += row.node_name == "noise" && row.exec_type != "not run: inputs unchanged";
        EXPECT_EQ(runs, 1u) << "inference " << r;
    }
}

}  // namespace
}  // namespace vireo::cpu_test

namespace vireo::cpu_test {
namespace {

// A dynamic graph's f32 2-D Convolution runs as im2col and sgemm (the boxes of a two-stage
// detector's heads come out of NMS with a batch known only at run time); what that kernel does not
// take — other ranks, SAME padding resolved per shape — runs the reference kernel. Every case is
// checked against TEMPLATE at two run-time shapes.
TEST(DynamicConvolution, Im2colSgemmMatchesTheReferenceForEveryGeometry) {
    struct Case {
        std::string what;
        Shape filter;  // [O, C, k...]
        std::vector<int64_t> strides, begin, end, dilations;
        std::string auto_pad;
        std::vector<Shape> runs;
    };
    const std::vector<Case> cases{
        {"3x3, pad 1",
         {8, 4, 3, 3},
         {1, 1},
         {1, 1},
         {1, 1},
         {1, 1},
         "explicit",
         {{2, 4, 9, 7}, {5, 4, 6, 6}}},
        {"1x1 read in place",
         {6, 5, 1, 1},
         {1, 1},
         {0, 0},
         {0, 0},
         {1, 1},
         "explicit",
         {{3, 5, 4, 4}, {1, 5, 7, 3}}},
        {"1x1 stride 2",
         {6, 5, 1, 1},
         {2, 2},
         {0, 0},
         {0, 0},
         {1, 1},
         "explicit",
         {{2, 5, 7, 8}, {1, 5, 4, 4}}},
        {"stride 2, asymmetric pads",
         {4, 3, 3, 2},
         {2, 3},
         {0, 2},
         {1, 0},
         {1, 1},
         "explicit",
         {{1, 3, 11, 13}, {2, 3, 5, 9}}},
        {"dilation 2 and 3",
         {4, 3, 3, 3},
         {1, 1},
         {2, 3},
         {2, 3},
         {2, 3},
         "explicit",
         {{1, 3, 10, 12}, {3, 3, 6, 6}}},
        {"pads wider than the image",
         {2, 2, 2, 2},
         {1, 1},
         {3, 3},
         {3, 3},
         {1, 1},
         "explicit",
         {{1, 2, 1, 1}, {2, 2, 3, 2}}},
        {"valid",
         {3, 2, 3, 3},
         {1, 1},
         {5, 5},
         {5, 5},
         {1, 1},
         "valid",
         {{2, 2, 5, 6}, {1, 2, 3, 3}}},
        {"empty batch",
         {3, 2, 3, 3},
         {1, 1},
         {1, 1},
         {1, 1},
         {1, 1},
         "explicit",
         {{0, 2, 5, 5}, {1, 2, 5, 5}}},
        {"SAME (reference)",
         {3, 2, 3, 3},
         {2, 2},
         {0, 0},
         {0, 0},
         {1, 1},
         "same_upper",
         {{1, 2, 7, 6}, {2, 2, 4, 5}}},
        {"1-D (reference)", {3, 2, 3}, {1}, {1}, {1}, {1}, "explicit", {{2, 2, 9}, {1, 2, 4}}},
    };
    Core core = make_core();
    unsigned seed = 300;
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        const size_t rank = c.filter.size();
        std::vector<Dimension> dims(rank, Dimension::dynamic());
        dims[1] = Dimension(static_cast<int64_t>(c.filter[1]));
        auto x = op::parameter(element::f32, PartialShape(dims), "x");
        auto w = op::constant(random_tensor(c.filter, ++seed));
        auto y = op::convolution(x, w, c.strides, c.begin, c.end, c.dilations, c.auto_pad);
        y->set_friendly_name("conv");
        auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "conv");
        CompiledModel cpu = core.compile_model(
            model, "CPU", {{enable_profiling.name(), true}, {"CPU_SHAPE_CACHE_SIZE", 0}});
        InferRequest request = cpu.create_infer_request();
        for (const Shape& run : c.runs) {
            SCOPED_TRACE(run.to_string());
            const std::vector<Tensor> inputs{random_tensor(run, ++seed)};
            const auto expected = run_model(core, model, "TEMPLATE", inputs);
            request.set_input_tensor(inputs[0]);
            request.infer();
            ASSERT_EQ(request.get_output_tensor().get_shape(), expected[0].get_shape());
            EXPECT_TRUE(all_close(request.get_output_tensor(), expected[0], 1e-4, 1e-4));
        }
        size_t rows = 0;
        for (const auto& row : request.get_profiling_info())
            rows += row.node_name == "conv" && row.exec_type == "im2col_sgemm";
        EXPECT_EQ(rows, 1u);
        const auto reference = cpu.get_property("CPU_REFERENCE_OPS").as<std::vector<std::string>>();
        EXPECT_EQ(std::find(reference.begin(), reference.end(), "Convolution"), reference.end());
    }
}

}  // namespace
}  // namespace vireo::cpu_test
