// hint::inference_precision on CPU: f32 by default; bf16 (where the CPU has AVX-512 BF16) runs
// convolutions and weight MatMuls in bf16 with f32 accumulation, writing bf16 where every reader
// reads bf16 (pooling, the squeeze-excitation gate, Concat, batch normalization and activations
// then run in bf16 too), within bf16's
// rounding of TEMPLATE's f32 results; the choice is reported, survives export/import, and bad
// values are refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "test_utils.hpp"
#include "vireo/float16.hpp"
#include "vireo/ops.hpp"

namespace vireo::cpu_test {
namespace {

// conv -> relu -> conv (+ residual) -> flatten -> matmul + bias: every bf16 path of the compiler.
std::shared_ptr<Model> conv_matmul_model() {
    auto x = op::parameter(element::f32, {1, 8, 6, 6}, "x");
    auto w1 = op::constant(random_tensor({8, 8, 3, 3}, 1, -0.3f, 0.3f));
    auto w2 = op::constant(random_tensor({8, 8, 3, 3}, 2, -0.3f, 0.3f));
    auto c1 = op::relu(op::convolution(x, w1, {1, 1}, {1, 1}, {1, 1}, {1, 1}));
    auto c2 = op::add(op::convolution(c1, w2, {1, 1}, {1, 1}, {1, 1}, {1, 1}), c1);
    auto flat = op::reshape(c2, op::constant<int64_t>(element::i64, {2}, {1, 288}), false);
    auto m = op::matmul(flat, op::constant(random_tensor({288, 10}, 3, -0.1f, 0.1f)));
    auto y = op::add(m, op::constant(random_tensor({10}, 4)));
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "precision");
}

std::vector<ProfilingInfo> profile(CompiledModel& compiled, const Tensor& x, Tensor* y) {
    InferRequest request = compiled.create_infer_request();
    request.set_input_tensor(x);
    request.infer();
    *y = request.get_output_tensor().clone();
    return request.get_profiling_info();
}

TEST(Precision, F32ByDefaultAndBf16WhereTheCpuHasIt) {
    Core core = make_core();
    EXPECT_EQ(core.get_property("CPU", hint::inference_precision), element::f32);
    const auto model = conv_matmul_model();
    const Tensor x = random_tensor({1, 8, 6, 6}, 9);
    const auto expected = run_model(core, model, "TEMPLATE", {x});

    CompiledModel f32 = core.compile_model(model, "CPU", {{enable_profiling.name(), true}});
    EXPECT_EQ(f32.get_property(hint::inference_precision), element::f32);
    Tensor y32;
    for (const auto& row : profile(f32, x, &y32))
        EXPECT_EQ(row.exec_type.find("bf16"), std::string::npos) << row.node_name;
    EXPECT_TRUE(all_close(y32, expected[0], 1e-4, 1e-5));

    CompiledModel low = core.compile_model(
        model, "CPU",
        {{enable_profiling.name(), true}, {hint::inference_precision.name(), std::string("bf16")}});
    Tensor y16;
    const auto rows = profile(low, x, &y16);
    size_t conversions = 0;
    for (const auto& row : rows)
        conversions += row.exec_type.find("f32->bf16") != std::string::npos;
    if (low.get_property(hint::inference_precision) == element::bf16) {
        // The model's input and the MatMul's source are converted once; c1 is written in bf16
        // by its convolution: the second convolution reads it, and so does that convolution's
        // residual add (a binary post-op reading a bf16 operand).
        EXPECT_EQ(conversions, 2u);
        // bf16 keeps 8 bits of mantissa: relative error ~2^-8 per product, summed over 72-288.
        EXPECT_TRUE(all_close(y16, expected[0], 3e-2, 3e-2));
        EXPECT_FALSE(all_close(y16, expected[0], 0, 1e-6)) << "bf16 gave f32's exact results";
    } else {
        // A CPU without AVX-512 BF16: the hint is accepted and f32 runs.
        EXPECT_EQ(low.get_property(hint::inference_precision), element::f32);
        EXPECT_EQ(conversions, 0u);
        EXPECT_TRUE(all_close(y16, y32, 0, 0));
    }
}

// 1x1 conv + relu -> depthwise 3x3 -> 1x1 conv, and MatMul + relu -> MatMul. With
// `expose_inner`, the first convolution's and the first MatMul's outputs are model outputs too.
std::shared_ptr<Model> bf16_chain_model(bool expose_inner) {
    auto x = op::parameter(element::f32, {1, 8, 10, 10}, "x");
    auto c1 = op::relu(op::convolution(x, op::constant(random_tensor({16, 8, 1, 1}, 11)), {1, 1},
                                       {0, 0}, {0, 0}, {1, 1}));
    auto dw = op::group_convolution(c1, op::constant(random_tensor({16, 1, 1, 3, 3}, 12)), {1, 1},
                                    {1, 1}, {1, 1}, {1, 1});
    auto c3 = op::convolution(dw, op::constant(random_tensor({8, 16, 1, 1}, 13)), {1, 1}, {0, 0},
                              {0, 0}, {1, 1});
    auto t = op::parameter(element::f32, {4, 32}, "t");
    auto m1 = op::relu(op::matmul(t, op::constant(random_tensor({32, 64}, 14, -0.3f, 0.3f))));
    auto m2 = op::matmul(m1, op::constant(random_tensor({64, 16}, 15, -0.3f, 0.3f)));
    OutputVector outputs{c3, m2};
    if (expose_inner) outputs.insert(outputs.end(), {c1, m1});
    return std::make_shared<Model>(outputs, ParameterVector{x, t}, "bf16_chain");
}

struct Bf16Run {
    std::vector<Tensor> outputs;
    size_t to_bf16 = 0, to_f32 = 0;  // reorder steps converting precision
};

Bf16Run run_bf16_chain(Core& core, bool expose_inner, const Tensor& x, const Tensor& t) {
    CompiledModel compiled = core.compile_model(
        bf16_chain_model(expose_inner), "CPU",
        {{enable_profiling.name(), true}, {hint::inference_precision.name(), std::string("bf16")}});
    InferRequest request = compiled.create_infer_request();
    request.set_tensor("x", x);
    request.set_tensor("t", t);
    request.infer();
    Bf16Run run;
    for (size_t i = 0; i < compiled.outputs().size(); ++i)
        run.outputs.push_back(request.get_output_tensor(i).clone());
    for (const auto& row : request.get_profiling_info()) {
        run.to_bf16 += row.exec_type.find("f32->bf16") != std::string::npos;
        run.to_f32 += row.exec_type.find("bf16->f32") != std::string::npos;
    }
    return run;
}

// One profiled bf16 inference of a one-input model on `x`: its outputs, its profile rows and
// the precision conversions among them; nothing where the CPU has no AVX-512 BF16.
struct ProfiledBf16Run : Bf16Run {
    std::vector<ProfilingInfo> rows;
};

std::optional<ProfiledBf16Run> run_in_bf16(Core& core, const std::shared_ptr<Model>& model,
                                           const Tensor& x) {
    CompiledModel compiled = core.compile_model(
        model, "CPU",
        {{enable_profiling.name(), true}, {hint::inference_precision.name(), std::string("bf16")}});
    if (compiled.get_property(hint::inference_precision) != element::bf16) return std::nullopt;
    InferRequest request = compiled.create_infer_request();
    request.set_input_tensor(x);
    request.infer();
    ProfiledBf16Run run;
    for (size_t i = 0; i < compiled.outputs().size(); ++i)
        run.outputs.push_back(request.get_output_tensor(i).clone());
    run.rows = request.get_profiling_info();
    for (const auto& row : run.rows) {
        run.to_bf16 += row.exec_type.find("f32->bf16") != std::string::npos;
        run.to_f32 += row.exec_type.find("bf16->f32") != std::string::npos;
    }
    return run;
}

// A profile row of a step that writes bf16 (its exec_type ends in " bf16").
bool writes_bf16(const std::string& exec_type) {
    return exec_type.size() >= 5 && exec_type.substr(exec_type.size() - 5) == " bf16";
}

TEST(Precision, Bf16ConvolutionsAndMatMulsHandBf16ToTheirBf16Readers) {
    Core core = make_core();
    if (core.compile_model(bf16_chain_model(false), "CPU",
                           {{hint::inference_precision.name(), std::string("bf16")}})
            .get_property(hint::inference_precision) != element::bf16)
        GTEST_SKIP() << "this CPU has no AVX-512 BF16: bf16 runs as f32 (tested above)";
    const Tensor x = random_tensor({1, 8, 10, 10}, 16), t = random_tensor({4, 32}, 17);
    // Each step whose only readers compute in bf16 writes bf16: the model's two inputs are the
    // only values converted, and nothing is converted back.
    const Bf16Run chained = run_bf16_chain(core, false, x, t);
    EXPECT_EQ(chained.to_bf16, 2u);
    EXPECT_EQ(chained.to_f32, 0u);
    // A value that is also a model output stays f32 and is converted for its bf16 reader.
    const Bf16Run exposed = run_bf16_chain(core, true, x, t);
    EXPECT_EQ(exposed.to_bf16, 4u);
    EXPECT_EQ(exposed.to_f32, 0u);
    // Writing bf16 rounds as the converting reorder did: the same bits either way.
    ASSERT_EQ(chained.outputs.size(), 2u);
    ASSERT_EQ(exposed.outputs.size(), 4u);
    for (size_t i = 0; i < 2; ++i)
        EXPECT_TRUE(all_close(chained.outputs[i], exposed.outputs[i], 0, 0)) << "output " << i;
    const auto expected = run_model(core, bf16_chain_model(false), "TEMPLATE", {x, t});
    for (size_t i = 0; i < 2; ++i)
        EXPECT_TRUE(all_close(chained.outputs[i], expected[i], 3e-2, 3e-2)) << "output " << i;
}

// conv + relu -> max pool -> conv + relu -> squeeze-excitation (global mean -> 1x1 conv + relu
// -> 1x1 conv + sigmoid -> broadcast Multiply) -> 1x1 conv: pooling and the gate's Multiply run in
// bf16 on the bf16 the convolutions write.
// With `expose_pool`, the max pool's output is a model output too.
std::shared_ptr<Model> bf16_squeeze_excitation_model(bool expose_pool = false) {
    auto x = op::parameter(element::f32, {1, 8, 12, 12}, "x");
    auto conv = [](const Output& in, size_t out_c, size_t in_c, size_t k, unsigned seed) {
        const int64_t pad = static_cast<int64_t>(k / 2);
        return op::convolution(in,
                               op::constant(random_tensor({out_c, in_c, k, k}, seed, -0.3f, 0.3f)),
                               {1, 1}, {pad, pad}, {pad, pad}, {1, 1});
    };
    auto c1 = op::relu(conv(x, 16, 8, 3, 21));
    auto pooled = op::max_pool(c1, {2, 2}, {0, 0}, {0, 0}, {2, 2});
    auto c2 = op::relu(conv(pooled, 16, 16, 3, 22));
    auto mean =
        op::reduce_mean(c2, op::constant<int64_t>(element::i64, {2}, {2, 3}), /*keep_dims=*/true);
    auto gate = op::sigmoid(conv(op::relu(conv(mean, 4, 16, 1, 23)), 16, 4, 1, 24));
    auto y = conv(op::multiply(c2, gate), 8, 16, 1, 25);
    OutputVector outputs{y};
    if (expose_pool) outputs.push_back(pooled);
    return std::make_shared<Model>(outputs, ParameterVector{x}, "bf16_se");
}

TEST(Precision, Bf16PoolingAndTheSqueezeExcitationGateStayInBf16) {
    Core core = make_core();
    const auto model = bf16_squeeze_excitation_model();
    const Tensor x = random_tensor({1, 8, 12, 12}, 26);
    const auto run = run_in_bf16(core, model, x);
    if (!run) GTEST_SKIP() << "this CPU has no AVX-512 BF16: bf16 runs as f32 (tested above)";
    size_t pools = 0;
    for (const auto& row : run->rows) {
        if (row.node_type == "MaxPool" || row.node_type == "ReduceMean") {
            ++pools;
            EXPECT_NE(row.exec_type.find("bf16"), std::string::npos) << row.node_name;
        }
    }
    EXPECT_EQ(pools, 2u);
    // Only the model's input is converted; every value after it is written in bf16 by the step
    // that computes it, and the last convolution writes the f32 output.
    EXPECT_EQ(run->to_bf16, 1u);
    EXPECT_EQ(run->to_f32, 0u);
    const auto expected = run_model(core, model, "TEMPLATE", {x});
    EXPECT_TRUE(all_close(run->outputs[0], expected[0], 3e-2, 3e-2));

    // A pool whose output is also read in f32 (a model output here, a residual add in ResNet)
    // runs in f32 on the f32 its convolution writes, and its bf16 reader converts it.
    const auto second = run_in_bf16(core, bf16_squeeze_excitation_model(true), x);
    ASSERT_TRUE(second);
    for (const auto& row : second->rows) {
        if (row.node_type == "MaxPool") {
            EXPECT_EQ(row.exec_type.find("bf16"), std::string::npos);
        }
    }
    EXPECT_EQ(second->to_bf16, 2u);
    EXPECT_EQ(second->to_f32, 0u);
    const auto pooled = run_model(core, bf16_squeeze_excitation_model(true), "TEMPLATE", {x});
    EXPECT_TRUE(all_close(second->outputs[1], pooled[1], 3e-2, 3e-2));
}

// Branches joined by a Concat, then a pre-activation batch normalization with its Relu and a
// convolution (Inception's and DenseNet's blocks): the Concat, the batch normalization and a
// standalone activation read and write bf16. The Concat's inputs: two convolutions and a max
// pool that write bf16, a convolution also read as a model output (f32, converted for the
// Concat) and a constant.
std::shared_ptr<Model> bf16_concat_model() {
    auto x = op::parameter(element::f32, {1, 8, 10, 10}, "x");
    auto conv = [](const Output& in, size_t out_c, size_t in_c, size_t k, unsigned seed) {
        const int64_t pad = static_cast<int64_t>(k / 2);
        return op::convolution(in,
                               op::constant(random_tensor({out_c, in_c, k, k}, seed, -0.3f, 0.3f)),
                               {1, 1}, {pad, pad}, {pad, pad}, {1, 1});
    };
    auto stem = op::relu(conv(x, 16, 8, 3, 31));
    auto a = op::relu(conv(stem, 8, 16, 1, 32));
    auto b = op::max_pool(stem, {1, 1}, {1, 1}, {1, 1}, {3, 3});
    auto exposed = conv(stem, 4, 16, 1, 33);
    auto fixed = op::constant(random_tensor({1, 2, 10, 10}, 34));
    auto cat = op::concat({a, b, exposed, fixed}, 1);  // 30 channels
    const size_t c = 30;
    auto bn = op::batch_norm_inference(cat, op::constant(random_tensor({c}, 35, 0.5f, 1.5f)),
                                       op::constant(random_tensor({c}, 36)),
                                       op::constant(random_tensor({c}, 37)),
                                       op::constant(random_tensor({c}, 38, 0.1f, 2.f)), 1e-5);
    auto dense = conv(op::relu(bn), 8, c, 3, 39);
    // A standalone activation between two convolutions (the first one's chain ends at a second
    // reader, so the Tanh is its own step).
    auto inner = conv(dense, 8, 8, 1, 40);
    auto y = op::add(conv(op::tanh(inner), 8, 8, 1, 41), conv(inner, 8, 8, 1, 42));
    return std::make_shared<Model>(OutputVector{y, exposed}, ParameterVector{x}, "bf16_concat");
}

TEST(Precision, Bf16ConcatBatchNormAndActivationsStayInBf16) {
    Core core = make_core();
    const auto model = bf16_concat_model();
    const Tensor x = random_tensor({1, 8, 10, 10}, 43);
    const auto run = run_in_bf16(core, model, x);
    if (!run) GTEST_SKIP() << "this CPU has no AVX-512 BF16: bf16 runs as f32 (tested above)";
    std::map<std::string, std::string> exec;  // op type -> exec_type
    for (const auto& row : run->rows) exec[row.node_type] = row.exec_type;
    for (const char* type : {"Concat", "BatchNormInference+Relu", "Tanh", "MaxPool"}) {
        ASSERT_EQ(exec.count(type), 1u) << type;
        EXPECT_TRUE(writes_bf16(exec[type])) << type << ": " << exec[type];
    }
    // The model's input, and the convolution the model also outputs in f32 (for the Concat).
    EXPECT_EQ(run->to_bf16, 2u);
    EXPECT_EQ(run->to_f32, 0u);
    const auto expected = run_model(core, model, "TEMPLATE", {x});
    EXPECT_TRUE(all_close(run->outputs[0], expected[0], 3e-2, 3e-2));
    EXPECT_TRUE(all_close(run->outputs[1], expected[1], 3e-2, 3e-2));
}

// Residual blocks (ResNet's: conv + bias + relu -> conv + bias -> Add(the block's input) ->
// relu), the first with a projection convolution on its shortcut: every block output is written
// in bf16 and read as it is by the next block's convolution and by its residual Add, a binary
// post-op of that block's last convolution.
std::shared_ptr<Model> bf16_residual_model() {
    auto x = op::parameter(element::f32, {1, 8, 9, 9}, "x");
    unsigned seed = 50;
    auto conv = [&](const Output& in, size_t out_c, size_t in_c, size_t k) {
        const int64_t pad = static_cast<int64_t>(k / 2);
        auto c = op::convolution(
            in, op::constant(random_tensor({out_c, in_c, k, k}, seed++, -0.3f, 0.3f)), {1, 1},
            {pad, pad}, {pad, pad}, {1, 1});
        return op::add(c, op::constant(random_tensor({1, out_c, 1, 1}, seed++)));
    };
    auto block = [&](const Output& in, size_t in_c, bool project) {
        auto inner = conv(op::relu(conv(in, 16, in_c, 3)), 16, 16, 3);
        Output shortcut = project ? Output(conv(in, 16, in_c, 1)) : in;
        return op::relu(op::add(inner, shortcut));
    };
    auto b1 = block(x, 8, true);
    auto b2 = block(b1, 16, false);
    auto b3 = block(b2, 16, false);
    auto y = op::reduce_mean(b3, op::constant<int64_t>(element::i64, {2}, {2, 3}), true);
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "bf16_residual");
}

TEST(Precision, Bf16ResidualBlocksStayInBf16) {
    Core core = make_core();
    const auto model = bf16_residual_model();
    const Tensor x = random_tensor({1, 8, 9, 9}, 60);
    const auto run = run_in_bf16(core, model, x);
    if (!run) GTEST_SKIP() << "this CPU has no AVX-512 BF16: bf16 runs as f32 (tested above)";
    size_t residual = 0, residual_bf16 = 0;
    for (const auto& row : run->rows) {
        if (row.node_type == "Convolution+Add+Add+Relu") {
            ++residual;
            residual_bf16 += writes_bf16(row.exec_type);
        }
    }
    EXPECT_EQ(residual, 3u);  // each block's Add and Relu in its last convolution's step
    // The first two blocks write bf16; the last one's reader, the global pooling, writes the
    // model's (f32) output, so it reads f32.
    EXPECT_EQ(residual_bf16, 2u);
    EXPECT_EQ(run->to_bf16, 1u);  // the model's input only
    EXPECT_EQ(run->to_f32, 0u);
    const auto expected = run_model(core, model, "TEMPLATE", {x});
    EXPECT_TRUE(all_close(run->outputs[0], expected[0], 3e-2, 3e-2));
}

TEST(Precision, SurvivesExportAndImportWithItsWeights) {
    Core core = make_core();
    CompiledModel low = core.compile_model(conv_matmul_model(), "CPU",
                                           {{hint::inference_precision.name(), element::bf16}});
    std::stringstream blob;
    low.export_model(blob);
    CompiledModel imported = core.import_model(blob, "CPU");
    EXPECT_EQ(imported.get_property(hint::inference_precision),
              low.get_property(hint::inference_precision));
    const auto info = imported.get_runtime_model()->get_rt_info();
    EXPECT_EQ(info.at("weightsFromBlob").as<int64_t>(), 3);  // both convolutions and the MatMul
    EXPECT_EQ(info.at("weightsReordered").as<int64_t>(), 0);
    const Tensor x = random_tensor({1, 8, 6, 6}, 11);
    const auto a = run_model(core, conv_matmul_model(), "CPU", {x},
                             {{hint::inference_precision.name(), element::bf16}});
    InferRequest request = imported.create_infer_request();
    request.set_input_tensor(x);
    request.infer();
    EXPECT_TRUE(all_close(request.get_output_tensor(), a[0], 0, 0));
}

TEST(Precision, OtherValuesAreRefusedByName) {
    Core core = make_core();
    for (const std::string bad : {"f16", "i8", "float32x"}) {
        try {
            core.set_property("CPU", {{hint::inference_precision.name(), bad}});
            ADD_FAILURE() << bad << " accepted";
        } catch (const InvalidArgument& e) {
            EXPECT_NE(std::string(e.what()).find("INFERENCE_PRECISION_HINT"), std::string::npos)
                << e.what();
            EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(core.get_property("CPU", hint::inference_precision), element::f32);
    core.set_property("CPU", {{hint::inference_precision.name(), std::string("BF16")}});
    EXPECT_EQ(core.get_property("CPU", hint::inference_precision), element::bf16);
}

}  // namespace
}  // namespace vireo::cpu_test

namespace vireo::cpu_test {
namespace {

Tensor to_f16(const Tensor& f32) {
    Tensor out(element::f16, f32.get_shape());
    for (size_t i = 0; i < f32.get_size(); ++i)
        static_cast<float16*>(out.data())[i] = float16(f32.data<float>()[i]);
    return out;
}

Tensor to_f32(const Tensor& f16) {
    Tensor out(element::f32, f16.get_shape());
    for (size_t i = 0; i < f16.get_size(); ++i)
        out.data<float>()[i] = static_cast<float>(static_cast<const float16*>(f16.data())[i]);
    return out;
}

float f16_at(const Tensor& t, size_t i) {
    return static_cast<float>(static_cast<const float16*>(t.data())[i]);
}

// x -> Convolution -> Add (bias) -> Relu, and its ReduceMean, in f16 or in f32 (with the f16
// weights' exact values).
std::shared_ptr<Model> small_cnn(element::Type type) {
    auto x = op::parameter(type, {1, 8, 10, 10}, "x");
    const Tensor weights = to_f16(random_tensor({16, 8, 3, 3}, 61, -0.3f, 0.3f));
    const Tensor bias = to_f16(random_tensor({1, 16, 1, 1}, 62));
    auto w = op::constant(type == element::f16 ? weights : to_f32(weights));
    auto b = op::constant(type == element::f16 ? bias : to_f32(bias));
    Output y = op::relu(op::add(op::convolution(x, w, {1, 1}, {1, 1}, {1, 1}, {1, 1}), b));
    auto mean = op::reduce_mean(y, op::constant<int64_t>(element::i64, {2}, {2, 3}), true);
    y.set_names({"y"});
    mean->output(0).set_names({"mean"});
    // The input as an output too: a Result of a Parameter.
    return std::make_shared<Model>(OutputVector{y, mean, x}, ParameterVector{x}, "f16_cnn");
}

TEST(Precision, AnF16ModelComputesInF32BetweenItsF16InputsAndOutputs) {
    // The CPU has no f16 arithmetic: as OpenVINO's CPU plugin and ONNX Runtime do, the f16
    // interior is computed in f32 (the convolution on oneDNN, not every op on a reference kernel
    // rounding to f16), and only the model's inputs and outputs stay f16. So the outputs are the
    // f32 model's rounded once to f16, where TEMPLATE rounds every op's result.
    const Tensor x16 = to_f16(random_tensor({1, 8, 10, 10}, 63));
    Core core = make_core();
    auto compiled =
        core.compile_model(small_cnn(element::f16), "CPU", {{enable_profiling.name(), true}});
    EXPECT_EQ(compiled.output(0).get_element_type(), element::f16);
    EXPECT_EQ(compiled.output(1).get_element_type(), element::f16);
    // The outputs keep their names (the Converts back to f16 take them), and so does the input.
    EXPECT_EQ(compiled.output(0).get_names(), (std::set<std::string>{"y"}));
    EXPECT_EQ(compiled.output(1).get_names(), (std::set<std::string>{"mean"}));
    EXPECT_EQ(compiled.input(0).get_names(), (std::set<std::string>{"x"}));
    EXPECT_EQ(compiled.output(2).get_element_type(), element::f16);
    auto request = compiled.create_infer_request();
    request.set_input_tensor(x16);
    request.infer();
    const auto exact = run_model(core, small_cnn(element::f32), "TEMPLATE", {to_f32(x16)});
    const Tensor echo = request.get_output_tensor(2);
    ASSERT_EQ(echo.get_element_type(), element::f16);
    EXPECT_EQ(std::memcmp(echo.data(), x16.data(), x16.get_byte_size()), 0);
    for (size_t k = 0; k < 2; ++k) {
        SCOPED_TRACE("output " + std::to_string(k));
        const Tensor out = request.get_output_tensor(k);
        ASSERT_EQ(out.get_element_type(), element::f16);
        ASSERT_EQ(out.get_size(), exact[k].get_size());
        size_t not_rounded_f32 = 0;
        for (size_t i = 0; i < out.get_size(); ++i) {
            const float want = exact[k].data<float>()[i];
            // One f16 rounding of the f32 result (half an ulp: 2^-11 relative), plus f32 noise.
            EXPECT_NEAR(f16_at(out, i), want, std::fabs(want) * 0x1p-11f + 1e-5f) << i;
            not_rounded_f32 += f16_at(out, i) != static_cast<float>(float16(want));
        }
        // Ties to the f32 summation order's last bit aside, every element is f32's rounded.
        EXPECT_LE(not_rounded_f32 * 50, out.get_size());
    }
    size_t onednn_convolutions = 0;
    for (const auto& row : request.get_profiling_info())
        onednn_convolutions += row.node_type.rfind("Convolution", 0) == 0 && row.exec_type != "ref";
    EXPECT_EQ(onednn_convolutions, 1u);
    // Exported and imported (the widened graph is compiled again): the same types, names, bits.
    std::stringstream blob;
    compiled.export_model(blob);
    CompiledModel imported = core.import_model(blob, "CPU");
    EXPECT_EQ(imported.output(0).get_names(), (std::set<std::string>{"y"}));
    EXPECT_EQ(imported.output(0).get_element_type(), element::f16);
    auto again = imported.create_infer_request();
    again.set_input_tensor(x16);
    again.infer();
    const Tensor first = request.get_output_tensor(0), second = again.get_output_tensor(0);
    EXPECT_EQ(std::memcmp(first.data(), second.data(), first.get_byte_size()), 0);
}

TEST(Precision, AnExplicitRoundingToF16IsKept) {
    // An f32 model that rounds through f16 on purpose (PyTorch's (x * 3).half().float() + 1, and
    // f16's overflow to infinity past 65504): the interior computes in f32, but the conversion
    // into f16 still rounds, as TEMPLATE and ONNX Runtime do.
    auto x = op::parameter(element::f32, {64}, "x");
    auto rounded = op::convert(
        op::convert(op::multiply(x, op::constant<float>(element::f32, {}, {3.f})), element::f16),
        element::f32);
    auto model = std::make_shared<Model>(
        OutputVector{op::add(rounded, op::constant<float>(element::f32, {}, {1.f}))},
        ParameterVector{x}, "f16_rounding");
    Tensor input = random_tensor({64}, 65, -2.f, 2.f);
    input.data<float>()[0] = 30000.f;  // 90000 is past f16's largest finite value
    Core core = make_core();
    const auto cpu = run_model(core, model, "CPU", {input});
    ASSERT_EQ(cpu[0].get_element_type(), element::f32);
    for (size_t i = 0; i < 64; ++i) {
        const float want = static_cast<float>(float16(input.data<float>()[i] * 3.f)) + 1.f;
        EXPECT_EQ(cpu[0].data<float>()[i], want) << i;
    }
    EXPECT_TRUE(std::isinf(cpu[0].data<float>()[0]));
}

TEST(Precision, AnF16VariableKeepsItsModelComputedAsWritten) {
    // The application reads and writes a variable's state in its type: a model with an f16
    // variable is not widened, and its state stays f16 (acc += x, twice).
    auto x = op::parameter(element::f16, {1, 4}, "x");
    auto read = op::read_value("acc", element::f16, PartialShape{1, 4});
    auto sum = op::add(read, x);
    auto model =
        std::make_shared<Model>(ResultVector{op::result(sum)}, SinkVector{op::assign(sum, "acc")},
                                ParameterVector{x}, "f16_state");
    Core core = make_core();
    auto request = core.compile_model(model, "CPU").create_infer_request();
    const Tensor x16 = to_f16(random_tensor({1, 4}, 64));
    request.set_input_tensor(x16);
    request.infer();
    request.infer();
    auto states = request.query_state();
    ASSERT_EQ(states.size(), 1u);
    const Tensor state = states[0].get_state();
    ASSERT_EQ(state.get_element_type(), element::f16);
    for (size_t i = 0; i < 4; ++i)
        EXPECT_EQ(f16_at(state, i), static_cast<float>(float16(2.f * f16_at(x16, i))));
}

}  // namespace
}  // namespace vireo::cpu_test
