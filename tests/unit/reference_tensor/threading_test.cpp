// Tests the intra-op threads hook and concurrent execution: MatMul, Convolution, MaxPool and
// ROIAlign run inside a streams executor with several threads per stream give the serial results,
// and one kernel serves several streams at once.
#include <atomic>
#include <memory>

#include "tensor_test_utils.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"

namespace vireo::test {
namespace {

struct Prepared {
    NodePtr node;
    std::vector<Tensor> inputs;
    std::unique_ptr<reference::Kernel> kernel;
    Shape out_shape;
};

std::vector<Prepared> make_workloads() {
    std::vector<Prepared> w;
    {
        const auto a = make_tensor(element::f32, {37, 300}, random_values(37 * 300, 1));
        const auto b = make_tensor(element::f32, {300, 333}, random_values(300 * 333, 2));
        auto node = make_node("MatMul", {param(element::f32, {37, 300}), constant(b)}, {});
        w.push_back({node, {a, b}, reference::KernelRegistry::instance().create(*node), {37, 333}});
    }
    {
        const auto x = make_tensor(element::f32, {2, 8, 21, 19}, random_values(2 * 8 * 21 * 19, 3));
        const auto k = make_tensor(element::f32, {16, 8, 3, 3}, random_values(16 * 8 * 9, 4));
        auto node = make_node("Convolution", {param(element::f32, {2, 8, 21, 19}), constant(k)},
                              {{"strides", Ints{1, 1}},
                               {"dilations", Ints{1, 1}},
                               {"pads_begin", Ints{1, 1}},
                               {"pads_end", Ints{1, 1}}});
        w.push_back(
            {node, {x, k}, reference::KernelRegistry::instance().create(*node), {2, 16, 21, 19}});
    }
    {
        const auto x = make_tensor(element::f32, {3, 5, 16, 16}, random_values(3 * 5 * 256, 5));
        auto node = make_node("MaxPool", {param(element::f32, {3, 5, 16, 16})},
                              {{"kernel", Ints{2, 2}},
                               {"strides", Ints{2, 2}},
                               {"pads_begin", Ints{0, 0}},
                               {"pads_end", Ints{0, 0}}},
                              1);
        w.push_back({node, {x}, reference::KernelRegistry::instance().create(*node), {3, 5, 8, 8}});
    }
    {
        // 37 rois over two images, adaptive sampling: rois split over the stream's threads.
        const auto x = make_tensor(element::f32, {2, 4, 12, 10}, random_values(2 * 4 * 120, 6));
        std::vector<double> boxes;
        Ints batch;
        for (size_t r = 0; r < 37; ++r) {
            const double x0 = static_cast<double>(r % 7), y0 = static_cast<double>(r % 5);
            boxes.insert(boxes.end(), {x0, y0, x0 + 1.5 + static_cast<double>(r % 4),
                                       y0 + 2.0 + static_cast<double>(r % 3)});
            batch.push_back(static_cast<int64_t>(r % 2));
        }
        const auto rois = make_tensor(element::f32, {37, 4}, boxes);
        const auto indices = make_tensor(element::i32, {37}, batch);
        auto node = make_node("ROIAlign",
                              {param(element::f32, {2, 4, 12, 10}), param(element::f32, {37, 4}),
                               param(element::i32, {37})},
                              {{"pooled_h", int64_t{3}},
                               {"pooled_w", int64_t{2}},
                               {"sampling_ratio", int64_t{0}},
                               {"spatial_scale", 1.0},
                               {"mode", std::string("avg")},
                               {"aligned_mode", std::string("half_pixel_for_nn")}});
        w.push_back({node,
                     {x, rois, indices},
                     reference::KernelRegistry::instance().create(*node),
                     {37, 4, 3, 2}});
    }
    return w;
}

std::vector<double> execute(const Prepared& p) {
    std::vector<Tensor> outputs{Tensor(element::f32, p.out_shape)};
    p.kernel->execute(p.inputs, outputs);
    return values_of(outputs[0]);
}

TEST(TensorKernelThreads, ParallelForInsideAStreamMatchesSerial) {
    auto workloads = make_workloads();
    std::vector<std::vector<double>> serial;
    for (const auto& w : workloads) serial.push_back(execute(w));
    sdk::CPUStreamsExecutor executor(sdk::StreamsConfig{"KTensorTest", 1, 2});
    std::vector<std::vector<double>> threaded(workloads.size());
    executor.run_and_wait({[&] {
        for (size_t i = 0; i < workloads.size(); ++i) threaded[i] = execute(workloads[i]);
    }});
    for (size_t i = 0; i < workloads.size(); ++i)
        EXPECT_EQ(threaded[i], serial[i]) << workloads[i].node->describe();
}

TEST(TensorKernelThreads, OneKernelServesSeveralStreamsAtOnce) {
    auto workloads = make_workloads();
    std::vector<std::vector<double>> serial;
    for (const auto& w : workloads) serial.push_back(execute(w));
    sdk::CPUStreamsExecutor executor(sdk::StreamsConfig{"KTensorTest", 3, 2});
    std::atomic<int> mismatches{0};
    std::vector<sdk::Task> tasks;
    for (int t = 0; t < 6; ++t)
        tasks.push_back([&] {
            for (int repeat = 0; repeat < 3; ++repeat)
                for (size_t i = 0; i < workloads.size(); ++i)
                    if (execute(workloads[i]) != serial[i]) ++mismatches;
        });
    executor.run_and_wait(tasks);
    EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace vireo::test
