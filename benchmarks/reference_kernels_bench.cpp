// Google Benchmark micro-benchmarks of the reference kernels: the golden models' layers (MatMul
// with and without packed weights, the cnn's convolutions, max pooling) and the ops
// PrePostProcessor inserts (per-channel Subtract/Divide, Interpolate).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "vireo/node.hpp"
#include "vireo/ops.hpp"
#include "vireo/reference/kernel.hpp"

namespace {

using vireo::element::f32;
using Ints = std::vector<int64_t>;

vireo::Tensor random_tensor(const vireo::Shape& shape, unsigned seed) {
    vireo::Tensor t(f32, shape);
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    float* p = t.data<float>();
    for (size_t i = 0; i < t.get_size(); ++i) p[i] = dist(gen);
    return t;
}

// Runs a prepared kernel in the benchmark loop and reports GFLOP/s from its own estimate.
// `output_shape` is needed only when the node's output shape is dynamic.
void run_kernel(benchmark::State& state, const vireo::NodePtr& node,
                const std::vector<vireo::Tensor>& inputs, const vireo::Shape& output_shape = {}) {
    auto kernel = vireo::reference::KernelRegistry::instance().create(*node);
    std::vector<vireo::Tensor> outputs;
    for (size_t i = 0; i < node->get_output_size(); ++i)
        outputs.emplace_back(node->get_output_element_type(i),
                             node->get_output_partial_shape(i).is_static()
                                 ? node->get_output_shape(i)
                                 : output_shape);
    for (auto _ : state) {
        kernel->execute(inputs, outputs);
        benchmark::ClobberMemory();
    }
    const double flops = kernel->flops(inputs, outputs);
    state.counters["GFLOP/s"] = benchmark::Counter(
        flops * static_cast<double>(state.iterations()) * 1e-9, benchmark::Counter::kIsRate);
}

// MatMul of [M, 1024] by constant weights [1024, 1024] (the golden mlp's layer). With a static
// M of at most 4 the kernel reads the weights in place; `packed:1` declares A's rows dynamic, so
// the kernel packs the weights at creation and runs the packed GEMM whatever M is at run time.
// `tb:1` stores the weights transposed ([N, K], as ONNX Gemm exports often do).
void BM_MatMul(benchmark::State& state) {
    const auto m = static_cast<size_t>(state.range(0));
    const bool packed = state.range(1) != 0, transpose_b = state.range(2) != 0;
    const auto a = random_tensor({m, 1024}, 1), b = random_tensor({1024, 1024}, 2);
    const vireo::PartialShape a_shape = packed
                                            ? vireo::PartialShape{vireo::Dimension::dynamic(), 1024}
                                            : vireo::PartialShape(vireo::Shape{m, 1024});
    auto node =
        vireo::make_node("MatMul", {vireo::op::parameter(f32, a_shape), vireo::op::constant(b)},
                         {{"transpose_a", false}, {"transpose_b", transpose_b}});
    run_kernel(state, node, {a, b}, vireo::Shape{m, 1024});
    state.counters["packed_MiB"] =
        static_cast<double>(
            vireo::reference::KernelRegistry::instance().create(*node)->owned_bytes()) /
        (1 << 20);
}
BENCHMARK(BM_MatMul)
    ->ArgsProduct({{1, 2, 3, 4, 32}, {0, 1}, {0, 1}})
    ->ArgNames({"M", "packed", "tb"})
    ->Unit(benchmark::kMicrosecond);

void BM_Convolution(benchmark::State& state) {
    // The golden cnn's layers: 3x3, pad 1, 3->32 on 64x64 and 32->64 on 32x32.
    const auto c_in = static_cast<size_t>(state.range(0)),
               c_out = static_cast<size_t>(state.range(1));
    const auto size = static_cast<size_t>(state.range(2));
    const auto x = random_tensor({1, c_in, size, size}, 3),
               w = random_tensor({c_out, c_in, 3, 3}, 4);
    auto node = vireo::make_node(
        "Convolution",
        {vireo::op::parameter(f32, vireo::PartialShape(vireo::Shape{1, c_in, size, size})),
         vireo::op::constant(w)},
        {{"strides", Ints{1, 1}},
         {"dilations", Ints{1, 1}},
         {"pads_begin", Ints{1, 1}},
         {"pads_end", Ints{1, 1}}});
    run_kernel(state, node, {x, w});
}
BENCHMARK(BM_Convolution)->Args({3, 32, 64})->Args({32, 64, 32})->Unit(benchmark::kMicrosecond);

void BM_MaxPool(benchmark::State& state) {
    const auto c = static_cast<size_t>(state.range(0)), size = static_cast<size_t>(state.range(1));
    const auto x = random_tensor({1, c, size, size}, 5);
    auto node = vireo::make_node(
        "MaxPool", {vireo::op::parameter(f32, vireo::PartialShape(vireo::Shape{1, c, size, size}))},
        {{"kernel", Ints{2, 2}},
         {"strides", Ints{2, 2}},
         {"pads_begin", Ints{0, 0}},
         {"pads_end", Ints{0, 0}}},
        1);
    run_kernel(state, node, {x});
}
BENCHMARK(BM_MaxPool)->Args({32, 64})->Args({64, 32})->Unit(benchmark::kMicrosecond);

// Elementwise with a per-channel constant, as preprocessing's mean/scale steps insert them:
// [1, 3, 224, 224] op [1, 3, 1, 1]. Divide costs more than Subtract because the kernel divides
// (an IEEE division per element, which the oracle keeps exact) rather than multiplying by a
// reciprocal. Arg: 0 Subtract, 1 Divide.
void BM_ChannelBroadcast(benchmark::State& state) {
    const char* op = state.range(0) ? "Divide" : "Subtract";
    const auto x = random_tensor({1, 3, 224, 224}, 5), c = random_tensor({1, 3, 1, 1}, 6);
    auto node =
        vireo::make_node(op, {vireo::op::parameter(f32, x.get_shape()), vireo::op::constant(c)});
    run_kernel(state, node, {x, c});
    state.SetLabel(op);
}
BENCHMARK(BM_ChannelBroadcast)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// Resize of a VGA image to 224 x 224 (NCHW f32), as PrePostProcessor's resize inserts it.
// Arg: 0 nearest, 1 linear (antialiased), 2 linear_onnx.
void BM_Interpolate(benchmark::State& state) {
    static const char* const kModes[] = {"nearest", "linear", "linear_onnx"};
    const char* mode = kModes[state.range(0)];
    const auto x = random_tensor({1, 3, 480, 640}, 7);
    vireo::Tensor sizes(vireo::element::i64, vireo::Shape{2});
    sizes.data<int64_t>()[0] = 224;
    sizes.data<int64_t>()[1] = 224;
    vireo::Tensor axes(vireo::element::i64, vireo::Shape{2});
    axes.data<int64_t>()[0] = 2;
    axes.data<int64_t>()[1] = 3;
    vireo::op::InterpolateAttrs attrs;
    attrs.mode = mode;
    attrs.antialias = state.range(0) == 1;
    auto node =
        vireo::op::interpolate(vireo::op::parameter(f32, x.get_shape()), vireo::op::constant(sizes),
                               attrs, vireo::op::constant(axes));
    run_kernel(state, node, {x, sizes, axes});
    state.SetLabel(mode);
}
BENCHMARK(BM_Interpolate)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
