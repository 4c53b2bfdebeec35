// The CPU device beyond fusion: layout changes inside a graph, dynamic batch, states, many requests
// at once, both performance hints, export/import, the runtime model and the properties.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <sstream>

#include "test_utils.hpp"
#include "vireo/ops.hpp"
#include "vireo/sdk/icompiled_model.hpp"
#include "vireo/sdk/iplugin.hpp"

namespace vireo::cpu_test {
namespace {

NodePtr weights(const Shape& shape, unsigned seed) {
    return op::constant(random_tensor(shape, seed, -0.3f, 0.3f));
}

NodePtr conv3x3(const Output& x, size_t out, size_t in, unsigned seed) {
    return op::convolution(x, weights({out, in, 3, 3}, seed), {1, 1}, {1, 1}, {1, 1}, {1, 1});
}

// conv -> relu -> maxpool (NHWC) -> softmax over channels (reference kernel, plain) -> conv ->
// avgpool(ceil) -> result: the layout changes twice inside the graph.
std::shared_ptr<Model> mixed_layout_model(const PartialShape& input) {
    auto x = op::parameter(element::f32, input, "x");
    auto c1 = op::relu(conv3x3(x, 8, 3, 1));
    auto p1 = op::max_pool(c1, {2, 2}, {0, 0}, {0, 0}, {2, 2});
    auto s = op::softmax(p1, 1);
    auto c2 = conv3x3(s, 4, 8, 2);
    auto y = op::avg_pool(c2, {2, 2}, {0, 0}, {0, 0}, {3, 3}, true, "ceil");
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "mixed");
}

size_t count_type(const std::vector<ProfilingInfo>& rows, const std::string& type) {
    size_t n = 0;
    for (const auto& r : rows) n += r.node_type == type;
    return n;
}

TEST(Layouts, ReordersOnlyWhereTheLayoutChanges) {
    auto model = mixed_layout_model(PartialShape{2, 3, 12, 12});
    expect_matches_template(model);
    const auto rows = cpu_profile(model);
    // x -> NHWC, pool output -> plain for Softmax, Softmax -> NHWC, avgpool output -> plain.
    EXPECT_EQ(count_type(rows, "Reorder"), 4u);
    EXPECT_EQ(count_type(rows, "MaxPool"), 1u);
    EXPECT_EQ(count_type(rows, "AvgPool"), 1u);
    for (const auto& r : rows)
        if (r.node_type == "MaxPool" || r.node_type == "Convolution") {
            EXPECT_NE(r.exec_type.find("nhwc"), std::string::npos)
                << r.node_name << ": " << r.exec_type;
        }
}

TEST(DynamicShapes, BatchChangesBetweenRuns) {
    auto model = mixed_layout_model(PartialShape{Dimension::dynamic(), 3, 12, 12});
    Core core = make_core();
    CompiledModel cpu = core.compile_model(model, "CPU");
    CompiledModel ref = core.compile_model(model, "TEMPLATE");
    InferRequest a = cpu.create_infer_request(), b = ref.create_infer_request();
    for (size_t batch : {1u, 3u, 2u, 3u}) {
        const Tensor x = random_tensor({batch, 3, 12, 12}, static_cast<unsigned>(batch));
        a.set_input_tensor(x);
        b.set_input_tensor(x);
        a.infer();
        b.infer();
        EXPECT_EQ(a.get_output_tensor().get_shape(), (Shape{batch, 4, 3, 3}));
        EXPECT_TRUE(all_close(a.get_output_tensor(), b.get_output_tensor(), 1e-4, 1e-5))
            << "batch " << batch;
    }
}

// Issue 35: an empty batch is legal and gives empty outputs (a MatMul of batch 0 was SIGFPE
// inside oneDNN 2.6, which the reference kernels now run); the next batch runs on oneDNN again.
TEST(DynamicShapes, BatchZeroGivesEmptyOutputs) {
    auto x = op::parameter(element::f32, PartialShape{Dimension::dynamic(), 16}, "x");
    auto mm = op::matmul(x, weights({16, 8}, 3));
    auto dense = op::relu(op::add(mm, weights({8}, 4)));
    auto dense_model = std::make_shared<Model>(OutputVector{dense}, ParameterVector{x}, "dense");
    Core core = make_core();
    for (const auto& model :
         {dense_model, mixed_layout_model(PartialShape{Dimension::dynamic(), 3, 12, 12})}) {
        SCOPED_TRACE(model->get_name());
        CompiledModel cpu = core.compile_model(model, "CPU");
        CompiledModel ref = core.compile_model(model, "TEMPLATE");
        InferRequest a = cpu.create_infer_request(), b = ref.create_infer_request();
        const bool dense_input = model == dense_model;
        for (size_t batch : {2u, 0u, 1u}) {
            const Shape shape = dense_input ? Shape{batch, 16} : Shape{batch, 3, 12, 12};
            const Tensor input = random_tensor(shape, static_cast<unsigned>(batch + 7));
            a.set_input_tensor(input);
            b.set_input_tensor(input);
            a.infer();
            b.infer();
            EXPECT_EQ(a.get_output_tensor().get_shape(), b.get_output_tensor().get_shape());
            EXPECT_EQ(a.get_output_tensor().get_shape()[0], batch);
            EXPECT_TRUE(all_close(a.get_output_tensor(), b.get_output_tensor(), 1e-4, 1e-5))
                << "batch " << batch;
        }
    }
}

TEST(DynamicShapes, EachNewBatchIsCompiledOnceOnOneDnn) {
    auto model = mixed_layout_model(PartialShape{Dimension::dynamic(), 3, 12, 12});
    Core core = make_core();
    CompiledModel cpu = core.compile_model(
        model, "CPU", {{enable_profiling.name(), true}, {"CPU_SHAPE_CACHE_SIZE", 4}});
    CompiledModel ref = core.compile_model(model, "TEMPLATE");
    InferRequest a = cpu.create_infer_request(), b = ref.create_infer_request();
    // More batch sizes than the compiled model keeps (CPU_SHAPE_CACHE_SIZE, 16 by default, here
    // 4): the least recently used shapes are dropped and every batch still runs on oneDNN.
    for (size_t batch = 1; batch <= 10; ++batch) {
        const Tensor x = random_tensor({batch, 3, 12, 12}, static_cast<unsigned>(40 + batch));
        a.set_input_tensor(x);
        b.set_input_tensor(x);
        a.infer();
        b.infer();
        EXPECT_TRUE(all_close(a.get_output_tensor(), b.get_output_tensor(), 1e-4, 1e-5))
            << "batch " << batch;
        size_t onednn_convs = 0;
        for (const auto& row : a.get_profiling_info())
            onednn_convs += row.node_type == "Convolution+Relu" ||
                            (row.node_type == "Convolution" && row.exec_type != "ref");
        EXPECT_EQ(onednn_convs, 2u) << "batch " << batch;
    }
}

TEST(DynamicShapes, ConcurrentRequestsWithDifferentBatches) {
    // Requests on two streams ask the compiled model for specializations at the same time.
    auto model = mixed_layout_model(PartialShape{Dimension::dynamic(), 3, 12, 12});
    Core core = make_core();
    CompiledModel cpu = core.compile_model(model, "CPU", {{num_streams.name(), 2}});
    CompiledModel ref = core.compile_model(model, "TEMPLATE");
    std::vector<InferRequest> requests;
    std::vector<Tensor> expected;
    for (size_t i = 0; i < 6; ++i) {
        const size_t batch = 1 + i % 3;
        const Tensor x = random_tensor({batch, 3, 12, 12}, static_cast<unsigned>(60 + i));
        requests.push_back(cpu.create_infer_request());
        requests.back().set_input_tensor(x);
        InferRequest r = ref.create_infer_request();
        r.set_input_tensor(x);
        r.infer();
        expected.push_back(r.get_output_tensor().clone());
    }
    for (int round = 0; round < 2; ++round) {
        for (auto& r : requests) r.start_async();
        for (auto& r : requests) r.wait();
        for (size_t i = 0; i < requests.size(); ++i)
            EXPECT_TRUE(all_close(requests[i].get_output_tensor(), expected[i], 1e-4, 1e-5))
                << "request " << i << " round " << round;
    }
}

TEST(States, AccumulatorKeepsItsValueAndResets) {
    auto x = op::parameter(element::f32, {2, 3}, "x");
    auto read = op::read_value("acc", element::f32, PartialShape{2, 3});
    auto sum = op::add(read, x);
    auto assign = op::assign(sum, "acc");
    auto model = std::make_shared<Model>(ResultVector{op::result(sum)}, SinkVector{assign},
                                         ParameterVector{x}, "acc");
    Core core = make_core();
    InferRequest request = core.compile_model(model, "CPU").create_infer_request();
    Tensor ones(element::f32, {2, 3});
    std::fill_n(ones.data<float>(), 6, 1.f);
    request.set_input_tensor(ones);
    for (int i = 1; i <= 3; ++i) {
        request.infer();
        EXPECT_FLOAT_EQ(request.get_output_tensor().data<float>()[5], static_cast<float>(i));
    }
    ASSERT_EQ(request.query_state().size(), 1u);
    request.reset_state();
    request.infer();
    EXPECT_FLOAT_EQ(request.get_output_tensor().data<float>()[0], 1.f);
}

TEST(Requests, ManyAtOnceGiveEachItsOwnResult) {
    auto model = mixed_layout_model(PartialShape{1, 3, 12, 12});
    Core core = make_core();
    for (const auto hint : {hint::PerformanceMode::LATENCY, hint::PerformanceMode::THROUGHPUT}) {
        CompiledModel cpu =
            core.compile_model(model, "CPU", {{hint::performance_mode.name(), hint}});
        CompiledModel ref = core.compile_model(model, "TEMPLATE");
        constexpr size_t kRequests = 6;
        std::vector<InferRequest> requests;
        std::vector<Tensor> expected;
        for (size_t i = 0; i < kRequests; ++i) {
            requests.push_back(cpu.create_infer_request());
            const Tensor x = random_tensor({1, 3, 12, 12}, static_cast<unsigned>(100 + i));
            requests.back().set_input_tensor(x);
            InferRequest r = ref.create_infer_request();
            r.set_input_tensor(x);
            r.infer();
            expected.push_back(r.get_output_tensor().clone());
        }
        for (int round = 0; round < 3; ++round) {
            for (auto& r : requests) r.start_async();
            for (auto& r : requests) r.wait();
            for (size_t i = 0; i < kRequests; ++i)
                EXPECT_TRUE(all_close(requests[i].get_output_tensor(), expected[i], 1e-4, 1e-5))
                    << "request " << i << " round " << round << " hint " << hint;
        }
    }
}

TEST(Properties, HintsResolveToStreamsAndThreads) {
    Core core = make_core();
    auto model = mixed_layout_model(PartialShape{1, 3, 12, 12});
    CompiledModel latency = core.compile_model(
        model, "CPU", {{hint::performance_mode.name(), hint::PerformanceMode::LATENCY}});
    EXPECT_EQ(latency.get_property(num_streams), 1);
    EXPECT_EQ(latency.get_property(optimal_number_of_infer_requests), 1u);
    CompiledModel throughput = core.compile_model(
        model, "CPU", {{hint::performance_mode.name(), hint::PerformanceMode::THROUGHPUT}});
    const int streams = throughput.get_property(num_streams);
    EXPECT_GE(streams, 1);
    EXPECT_EQ(throughput.get_property(inference_num_threads),
              std::max(1, latency.get_property(inference_num_threads) / streams));
    CompiledModel fixed = core.compile_model(
        model, "CPU", {{num_streams.name(), 2}, {inference_num_threads.name(), 1}});
    EXPECT_EQ(fixed.get_property(num_streams), 2);
    EXPECT_EQ(fixed.get_property(inference_num_threads), 1);
    EXPECT_EQ(fixed.get_property(execution_devices), std::vector<std::string>{"CPU"});
    EXPECT_THROW(core.compile_model(model, "CPU", {{num_streams.name(), -1}}), InvalidArgument);
    EXPECT_THROW(core.compile_model(model, "CPU", {{"CPU_NO_SUCH_KEY", 1}}), NotFound);
}

// The plugin's properties come from the SDK's table: the common keys' one wording and range,
// atomic multi-key sets, DEVICE_ID checked, SUPPORTED_PROPERTIES from the declarations.
TEST(Properties, DeclaredOnceWithTheSdkTablesErrorsAndAtomicSets) {
    Core core = make_core();
    auto message_of = [&](const AnyMap& properties) {
        try {
            core.set_property("CPU", properties);
        } catch (const Exception& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    const std::string streams = message_of({{num_streams.name(), -2}});
    EXPECT_NE(streams.find("NUM_STREAMS has a bad value '-2' (expected an integer from 0 to 256)"),
              std::string::npos)
        << streams;
    // One bad value in a map: nothing of the map is applied.
    EXPECT_NE(message_of({{num_streams.name(), 3}, {enable_profiling.name(), std::string("maybe")}})
                  .find("PERF_COUNT"),
              std::string::npos);
    EXPECT_EQ(core.get_property("CPU", num_streams), 0);
    EXPECT_EQ(core.get_property("CPU", enable_profiling), false);
    EXPECT_NE(message_of({{device::full_name.name(), std::string("x")}}).find("read-only"),
              std::string::npos);
    EXPECT_NE(message_of({{device::id.name(), std::string("1")}, {num_streams.name(), 1}})
                  .find("DEVICE_ID has a bad value '1'"),
              std::string::npos);
    core.set_property("CPU", {{num_streams.name(), 3}, {hint::num_requests.name(), 2u}});
    EXPECT_EQ(core.get_property("CPU", num_streams), 3);
    EXPECT_EQ(core.get_property("CPU", hint::num_requests), 2u);
    const std::vector<PropertyName> keys = core.get_property("CPU", supported_properties);
    size_t rw = 0;
    for (const auto& key : keys) rw += key.is_mutable();
    // PERFORMANCE_HINT, NUM_STREAMS, INFERENCE_NUM_THREADS, PERFORMANCE_HINT_NUM_REQUESTS,
    // PERF_COUNT, INFERENCE_PRECISION_HINT, CPU_SHAPE_CACHE_SIZE, CPU_DYNAMIC_QUANTIZATION,
    // CPU_WINOGRAD and DEVICE_ID, then the core's CACHE_DIR and ALLOW_FALLBACK.
    EXPECT_EQ(rw, 12u);
    // A compiled model's read-only keys refuse a set; PERF_COUNT may change.
    CompiledModel compiled =
        core.compile_model(mixed_layout_model(PartialShape{1, 3, 8, 8}), "CPU");
    EXPECT_EQ(compiled.get_property(num_streams), 3);
    EXPECT_THROW(compiled.set_property({{num_streams.name(), 1}}), InvalidArgument);
    compiled.set_property({{enable_profiling.name(), true}});
    EXPECT_TRUE(compiled.get_property(enable_profiling));
}

TEST(ExportImport, ImportedModelGivesTheSameResults) {
    auto model = mixed_layout_model(PartialShape{1, 3, 12, 12});
    Core core = make_core();
    CompiledModel compiled = core.compile_model(model, "CPU", {{num_streams.name(), 2}});
    std::stringstream blob;
    compiled.export_model(blob);
    CompiledModel imported = core.import_model(blob, "CPU");
    EXPECT_EQ(imported.get_property(num_streams), 2);
    const Tensor x = random_tensor({1, 3, 12, 12}, 5);
    InferRequest a = compiled.create_infer_request(), b = imported.create_infer_request();
    a.set_input_tensor(x);
    b.set_input_tensor(x);
    a.infer();
    b.infer();
    EXPECT_TRUE(all_close(b.get_output_tensor(), a.get_output_tensor(), 0, 0));
}

// What the plugin's own import says of `bytes` (the Core's blob header and checksum would refuse
// a changed blob before the plugin sees it, so these tests call the plugin directly).
std::string invalid_argument_of_import(const sdk::IPlugin& plugin, const std::string& bytes) {
    std::istringstream blob(bytes, std::ios::binary);
    try {
        plugin.import_model(blob, {});
    } catch (const InvalidArgument& e) {
        return e.what();
    }
    return "imported";
}

// Another version's blob, a foreign one and every truncation of a real one are InvalidArgument
// naming what is wrong: never a crash, a partial model or an allocation of a damaged size.
TEST(ExportImport, ForeignOldAndTruncatedBlobsAreRefusedByName) {
    Core core = make_core();
    CompiledModel compiled =
        core.compile_model(mixed_layout_model(PartialShape{1, 3, 12, 12}), "CPU");
    std::ostringstream exported(std::ios::binary);
    compiled.impl()->export_model(exported);
    const std::string blob = exported.str();
    const auto plugin = compiled.impl()->get_plugin();
    EXPECT_EQ(invalid_argument_of_import(*plugin, blob), "imported");

    // The plugin version is the core's blob header's to check (sdk::BlobContainer). The plugin's
    // own earlier formats (a magic, then fields) are not sections.
    EXPECT_NE(invalid_argument_of_import(*plugin, "VIREO_CPU_BLOB v2\n0.1.0\n")
                  .find("CPU blob: the section name at byte 0 claims 1163020630 bytes"),
              std::string::npos);

    // Cuts across every section: the properties, the reordered weights, the model and its
    // weights (written last, so a cut at a section boundary lacks them).
    const size_t step = std::max<size_t>(1, blob.size() / 400);
    size_t refused = 0, cuts = 0;
    for (size_t cut = 0; cut < blob.size(); cut += step, ++cuts) {
        const std::string message = invalid_argument_of_import(*plugin, blob.substr(0, cut));
        if (message.find("truncated") != std::string::npos ||
            message.find("missing required section") != std::string::npos)
            ++refused;
        else
            ADD_FAILURE() << "cut at " << cut << " of " << blob.size() << ": " << message;
    }
    EXPECT_EQ(refused, cuts);
    EXPECT_GT(cuts, 100u);

    // A size field damaged to claim more than the stream holds is refused before allocating.
    std::string huge = blob;
    uint32_t name_size = 0;  // the first section's size follows its name's u32 length and name
    std::memcpy(&name_size, huge.data(), sizeof(name_size));
    huge[4 + name_size + 5] = '\x01';  // + 2^40
    EXPECT_NE(invalid_argument_of_import(*plugin, huge).find("is truncated: it claims"),
              std::string::npos);
}

int64_t runtime_count(const CompiledModel& compiled, const char* key) {
    return compiled.get_runtime_model()->get_rt_info().at(key).as<int64_t>();
}

// The blob carries the weights in the primitives' layouts: an import takes both convolutions'
// weights as they are (no reorder), and so does an import of a re-export.
TEST(ExportImport, ImportTakesTheReorderedWeightsFromTheBlob) {
    auto model = mixed_layout_model(PartialShape{1, 3, 12, 12});
    Core core = make_core();
    CompiledModel compiled = core.compile_model(model, "CPU");
    EXPECT_EQ(runtime_count(compiled, "weightsReordered"), 2);
    EXPECT_EQ(runtime_count(compiled, "weightsFromBlob"), 0);
    std::stringstream blob;
    compiled.export_model(blob);
    CompiledModel imported = core.import_model(blob, "CPU");
    EXPECT_EQ(runtime_count(imported, "weightsReordered"), 0);
    EXPECT_EQ(runtime_count(imported, "weightsFromBlob"), 2);
    std::stringstream again;
    imported.export_model(again);
    CompiledModel twice = core.import_model(again, "CPU");
    EXPECT_EQ(runtime_count(twice, "weightsFromBlob"), 2);

    const Tensor x = random_tensor({1, 3, 12, 12}, 7);
    InferRequest a = compiled.create_infer_request(), b = twice.create_infer_request();
    a.set_input_tensor(x);
    b.set_input_tensor(x);
    a.infer();
    b.infer();
    EXPECT_TRUE(all_close(b.get_output_tensor(), a.get_output_tensor(), 0, 0));
}

// Weights are found in the blob by the name of the op that produced them: when two ops share a
// name, their entries would be ambiguous, so none is written and the import reorders them.
TEST(ExportImport, AmbiguousWeightNamesAreReorderedAgain) {
    auto x = op::parameter(element::f32, PartialShape{1, 3, 10, 10}, "x");
    auto w1 = weights({8, 3, 3, 3}, 11), w2 = weights({4, 8, 3, 3}, 12);
    w1->set_friendly_name("w");
    w2->set_friendly_name("w");
    auto c1 = op::relu(op::convolution(x, w1, {1, 1}, {1, 1}, {1, 1}, {1, 1}));
    auto c2 = op::convolution(c1, w2, {1, 1}, {1, 1}, {1, 1}, {1, 1});
    auto model = std::make_shared<Model>(OutputVector{c2}, ParameterVector{x}, "same_names");
    Core core = make_core();
    CompiledModel compiled = core.compile_model(model, "CPU");
    std::stringstream blob;
    compiled.export_model(blob);
    CompiledModel imported = core.import_model(blob, "CPU");
    EXPECT_EQ(runtime_count(imported, "weightsFromBlob"), 0);
    EXPECT_EQ(runtime_count(imported, "weightsReordered"), 2);
    const Tensor in = random_tensor({1, 3, 10, 10}, 13);
    InferRequest a = compiled.create_infer_request(), b = imported.create_infer_request();
    a.set_input_tensor(in);
    b.set_input_tensor(in);
    a.infer();
    b.infer();
    EXPECT_TRUE(all_close(b.get_output_tensor(), a.get_output_tensor(), 0, 0));
}

TEST(RuntimeModel, ShowsTheFusedSteps) {
    auto x = op::parameter(element::f32, {1, 3, 8, 8}, "x");
    auto c = conv3x3(x, 4, 3, 9);
    c->set_friendly_name("conv1");
    auto b = op::add(c, weights({1, 4, 1, 1}, 10));
    b->set_friendly_name("bias");
    auto y = op::relu(b);
    y->set_friendly_name("relu");
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "fused");
    Core core = make_core();
    CompiledModel compiled = core.compile_model(model, "CPU");
    auto runtime = compiled.get_runtime_model();
    size_t convs = 0, relus = 0;
    for (const auto& node : runtime->get_ordered_ops()) {
        const auto& rt = node->get_rt_info();
        relus += node->get_type_name() == "Relu";
        if (node->get_type_name() != "Convolution") continue;
        ++convs;
        EXPECT_EQ(rt.at("originalLayersNames").as<std::string>(), "conv1+bias+relu");
        EXPECT_EQ(rt.at("layerType").as<std::string>(), "Convolution+Add+Relu");
        EXPECT_EQ(rt.at("outputLayouts").as<std::string>(), "channels_last");
    }
    EXPECT_EQ(convs, 1u);
    EXPECT_EQ(relus, 0u);  // folded into the convolution
}

TEST(Query, EveryOpOfASupportedModel) {
    Core core = make_core();
    const auto supported = core.query_model(mixed_layout_model(PartialShape{1, 3, 12, 12}), "CPU");
    EXPECT_EQ(supported.size(),
              mixed_layout_model(PartialShape{1, 3, 12, 12})->get_ordered_ops().size());
}

}  // namespace
}  // namespace vireo::cpu_test

namespace vireo::cpu_test {
namespace {

TEST(Subgraphs, IfPicksTheBranchByItsCondition) {
    auto make_body = [](bool relu) {
        auto p = op::parameter(element::f32, {1, 3, 6, 6}, "p");
        auto c = op::convolution(p, op::constant(random_tensor({4, 3, 3, 3}, relu ? 30 : 31)),
                                 {1, 1}, {1, 1}, {1, 1}, {1, 1});
        Output y = relu ? op::relu(c) : op::sigmoid(c);
        return std::make_shared<Model>(OutputVector{y}, ParameterVector{p}, relu ? "then" : "else");
    };
    auto cond = op::parameter(element::boolean, {}, "cond");
    auto x = op::parameter(element::f32, {1, 3, 6, 6}, "x");
    auto y = op::if_op(cond, {x}, make_body(true), make_body(false));
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{cond, x}, "if");
    Core core = make_core();
    const Tensor input = random_tensor({1, 3, 6, 6}, 32);
    for (bool c : {true, false}) {
        Tensor flag(element::boolean, Shape{});
        *static_cast<char*>(flag.data()) = c;
        const auto expected = run_model(core, model, "TEMPLATE", {flag, input});
        const auto actual = run_model(core, model, "CPU", {flag, input});
        EXPECT_TRUE(all_close(actual[0], expected[0], 1e-4, 1e-5)) << "cond " << c;
    }
}

// An If branch: a 3x3 convolution of a [?, 3, 6, 6] input, then Relu ("then") or Sigmoid ("else").
std::shared_ptr<Model> conv_branch(bool relu, unsigned seed) {
    auto p = op::parameter(element::f32, PartialShape{-1, 3, 6, 6}, "p");
    auto c = op::convolution(p, op::constant(random_tensor({4, 3, 3, 3}, seed)), {1, 1}, {1, 1},
                             {1, 1}, {1, 1});
    Output y = relu ? op::relu(c) : op::sigmoid(c);
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{p}, relu ? "then" : "else");
}

TEST(Subgraphs, AnIfOnAnInputsShapeFoldsInTheGraphCompiledForThatShape) {
    // torch's rank and size checks: an If on a dimension of a dynamic input (here the batch is 1
    // or not). The graph compiled for each input shape decides it, so the taken branch's
    // convolution runs on oneDNN with no If step; the generic graph ran the If, and the body's
    // convolution as im2col + sgemm (Silero VAD's opset-15 export: 0.33 -> 0.04 ms).
    auto make_body = [](bool relu) { return conv_branch(relu, relu ? 40 : 41); };
    auto x = op::parameter(element::f32, PartialShape{-1, 3, 6, 6}, "x");
    auto batch = op::gather(op::shape_of(x), op::constant<int64_t>(element::i64, {1}, {0}),
                            op::constant<int64_t>(element::i64, {}, {0}));
    auto cond = op::reshape(op::equal(batch, op::constant<int64_t>(element::i64, {1}, {1})),
                            op::constant<int64_t>(element::i64, {0}, {}), false);
    auto y = op::if_op(cond, {x}, make_body(true), make_body(false));
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "shape_if");
    Core core = make_core();
    auto request = core.compile_model(model, "CPU", {{"PERF_COUNT", true}}).create_infer_request();
    // A shape's first run is the generic graph's (If step, im2col convolution); from its second
    // on, the graph compiled for it.
    std::set<size_t> seen;
    for (size_t n : {1u, 2u, 1u, 3u, 3u}) {
        SCOPED_TRACE("batch " + std::to_string(n));
        const bool compiled = !seen.insert(n).second;
        const Tensor input = random_tensor({n, 3, 6, 6}, static_cast<unsigned>(42 + n));
        const auto expected = run_model(core, model, "TEMPLATE", {input});
        request.set_input_tensor(input);
        request.infer();
        EXPECT_TRUE(all_close(request.get_output_tensor(), expected[0], 1e-4, 1e-5));
        size_t ifs = 0, onednn_convolutions = 0;
        for (const auto& row : request.get_profiling_info()) {
            ifs += row.node_type == "If";
            onednn_convolutions += row.node_type.rfind("Convolution", 0) == 0 &&
                                   row.exec_type != "ref" && row.exec_type != "im2col_sgemm";
        }
        EXPECT_EQ(ifs, compiled ? 0u : 1u);
        EXPECT_EQ(onednn_convolutions, compiled ? 1u : 0u);
    }
}

TEST(Subgraphs, ABodyIsCompiledForItsShapesAtTheirSecondUseAndNeverDowngradedForGood) {
    // An If on a value, whose bodies take a dynamic batch; CPU_SHAPE_CACHE_SIZE 0 keeps the model
    // itself on its generic graph, so only the body's own compilation is seen. The If's profile
    // row says which body graph ran: a batch's first run the generic body, its second the body
    // compiled for it; eleven batches (more than the 8 compiled bodies kept per body) each twice,
    // then the first again: evicted, it is compiled again at once instead of running the generic
    // body for good.
    auto make_body = [](bool relu) { return conv_branch(relu, relu ? 50 : 51); };
    auto x = op::parameter(element::f32, PartialShape{-1, 3, 6, 6}, "x");
    auto cond = op::parameter(element::boolean, PartialShape{}, "cond");
    auto y = op::if_op(cond, {x}, make_body(true), make_body(false));
    y->set_friendly_name("branch");
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x, cond}, "value_if");
    Core core = make_core();
    auto request =
        core.compile_model(model, "CPU", {{"PERF_COUNT", true}, {"CPU_SHAPE_CACHE_SIZE", 0}})
            .create_infer_request();
    Tensor condition(element::boolean, Shape{});
    *static_cast<char*>(condition.data()) = 1;
    auto run = [&](size_t n) {
        const Tensor input = random_tensor({n, 3, 6, 6}, static_cast<unsigned>(60 + n));
        const auto expected = run_model(core, model, "TEMPLATE", {input, condition});
        request.set_input_tensor(0, input);
        request.set_input_tensor(1, condition);
        request.infer();
        EXPECT_TRUE(all_close(request.get_output_tensor(), expected[0], 1e-4, 1e-5));
        std::string how;
        for (const auto& row : request.get_profiling_info())
            if (row.node_name == "branch") how = row.exec_type;
        return how;
    };
    for (size_t n = 1; n <= 11; ++n) {
        SCOPED_TRACE("batch " + std::to_string(n));
        EXPECT_EQ(run(n), "generic body");
        EXPECT_EQ(run(n), "compiled body");
    }
    SCOPED_TRACE("batch 1, evicted");
    EXPECT_EQ(run(1), "compiled body");
}

TEST(Subgraphs, LoopWithBackEdgeAndConcatenatedOutput) {
    // body: acc' = acc * 0.5 + x; outputs acc' (last) and acc' (concatenated along axis 0).
    auto acc = op::parameter(element::f32, {1, 4}, "acc");
    auto xb = op::parameter(element::f32, {1, 4}, "xb");
    auto next = op::add(op::multiply(acc, op::constant<float>(element::f32, {}, {0.5f})), xb);
    auto keep = op::constant<bool>(element::boolean, {}, {true});
    auto body =
        std::make_shared<Model>(OutputVector{next, keep, next}, ParameterVector{acc, xb}, "body");
    op::LoopPorts ports;
    ports.body_condition_output_idx = 1;
    ports.input_ports = {2, 3};
    ports.back_edges = {0, -1};
    ports.output_results = {0, 2};
    ports.output_slicing = {-1, 0, 1, -1, 1, 0, 0, 1, -1, 1};
    auto init = op::parameter(element::f32, {1, 4}, "init");
    auto x = op::parameter(element::f32, {1, 4}, "x");
    auto loop = op::loop(op::constant<int64_t>(element::i64, {}, {5}),
                         op::constant<bool>(element::boolean, {}, {true}), {init, x}, body, ports);
    auto model = std::make_shared<Model>(OutputVector{Output(loop, 0), Output(loop, 1)},
                                         ParameterVector{init, x}, "loop");
    Core core = make_core();
    const std::vector<Tensor> inputs{random_tensor({1, 4}, 33), random_tensor({1, 4}, 34)};
    const auto expected = run_model(core, model, "TEMPLATE", inputs);
    const auto actual = run_model(core, model, "CPU", inputs);
    ASSERT_EQ(actual.size(), 2u);
    EXPECT_EQ(actual[1].get_shape(), (Shape{5, 4}));
    for (size_t j = 0; j < 2; ++j)
        EXPECT_TRUE(all_close(actual[j], expected[j], 1e-5, 1e-6)) << "output " << j;
}

TEST(Subgraphs, LoopSlicesAnInputAndConcatenatesBackwardsLikeTemplate) {
    // x [5, 3] sliced into rows, running sums carried back, the sums concatenated in reverse
    // order and the rows concatenated forwards again; trip counts 5, 2 and 0 (the last sum is
    // then the initial value, the concatenations empty). The SDK's Loop semantics
    // (reference::SubgraphRunner), which CPU refused for sliced inputs before.
    auto row = op::parameter(element::f32, {1, 3}, "row");
    auto acc = op::parameter(element::f32, {1, 3}, "acc");
    auto sum = op::add(acc, op::relu(row));
    auto body = std::make_shared<Model>(OutputVector{sum, row}, ParameterVector{row, acc}, "body");
    op::LoopPorts ports;
    ports.input_ports = {2, 3};
    ports.input_slicing = {0, 0, 1, -1, 1, -1, 0, 1, -1, 1};
    ports.back_edges = {-1, 0};
    ports.output_results = {0, 0, 1};
    ports.output_slicing = {-1, 0, 1, -1, 1, 0, -1, -1, 0, 1, 0, 0, 1, -1, 1};
    auto x = op::parameter(element::f32, {5, 3}, "x");
    auto trips = op::parameter(element::i64, {}, "trips");
    auto loop = op::loop(trips, op::constant<bool>(element::boolean, {}, {true}),
                         {x, op::constant<float>(element::f32, {1, 3}, {1.f})}, body, ports);
    loop->set_friendly_name("scan");
    auto model =
        std::make_shared<Model>(OutputVector{Output(loop, 0), Output(loop, 1), Output(loop, 2)},
                                ParameterVector{x, trips}, "sliced_loop");
    Core core = make_core();
    EXPECT_EQ(core.query_model(model, "CPU").count("scan"), 1u);
    const Tensor input = random_tensor({5, 3}, 35);
    for (int64_t n : {5, 2, 0}) {
        Tensor count(element::i64, Shape{});
        *count.data<int64_t>() = n;
        const auto expected = run_model(core, model, "TEMPLATE", {input, count});
        const auto actual = run_model(core, model, "CPU", {input, count});
        ASSERT_EQ(actual.size(), 3u);
        EXPECT_EQ(actual[1].get_shape(), (Shape{static_cast<size_t>(n), 3})) << n;
        for (size_t j = 0; j < 3; ++j) {
            ASSERT_EQ(actual[j].get_shape(), expected[j].get_shape()) << n << " output " << j;
            EXPECT_TRUE(all_close(actual[j], expected[j], 1e-6, 1e-6)) << n << " output " << j;
        }
    }
}

}  // namespace
}  // namespace vireo::cpu_test

namespace vireo::cpu_test {
namespace {

// A detector's shape: convolutions over a static image (the static region), then a NonZero over
// the thresholded scores and a Gather of the scores it selects (shapes known only from values).
// Outputs: the selected scores doubled, the NonZero indices, and a sum over the feature map read
// straight from the region.
std::shared_ptr<Model> detector_like_model(const PartialShape& input) {
    auto x = op::parameter(element::f32, input, "image");
    auto c1 = op::relu(conv3x3(x, 8, 3, 81));
    c1->set_friendly_name("conv1_relu");
    auto p = op::max_pool(c1, {2, 2}, {0, 0}, {0, 0}, {2, 2});
    auto c2 = conv3x3(p, 4, 8, 82);
    c2->set_friendly_name("conv2");
    auto score = op::sigmoid(c2);
    auto flat = op::reshape(score, op::constant<int64_t>(element::i64, {1}, {-1}), false);
    auto mask = op::greater(flat, op::constant<float>(element::f32, {}, {0.5f}));
    auto nz = make_node("NonZero", {mask});
    nz->set_friendly_name("nonzero");
    auto idx = op::reshape(nz, op::constant<int64_t>(element::i64, {1}, {-1}), false);
    auto picked = op::gather(flat, idx, op::constant<int64_t>(element::i64, {}, {0}));
    auto doubled = op::multiply(picked, op::constant<float>(element::f32, {}, {2.f}));
    auto total = op::reduce_sum(c2, op::constant<int64_t>(element::i64, {3}, {1, 2, 3}));
    return std::make_shared<Model>(OutputVector{doubled, nz, total}, ParameterVector{x},
                                   "detector_like");
}

void expect_same_outputs(InferRequest& cpu, InferRequest& ref, const std::string& what) {
    for (size_t o = 0; o < 3; ++o) {
        const Tensor a = cpu.get_output_tensor(o), b = ref.get_output_tensor(o);
        ASSERT_EQ(a.get_shape(), b.get_shape()) << what << ", output " << o;
        if (a.get_element_type() == element::f32) {
            EXPECT_TRUE(all_close(a, b, 1e-4, 1e-5)) << what << ", output " << o;
        } else {
            ASSERT_EQ(a.get_element_type(), element::i64);
            EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.get_byte_size()))
                << what << ", output " << o;
        }
    }
}

TEST(StaticRegion, ValueDependentShapesKeepTheConvolutionsOnOneDnn) {
    auto model = detector_like_model(PartialShape{1, 3, 16, 16});
    Core core = make_core();
    CompiledModel cpu = core.compile_model(model, "CPU", {{enable_profiling.name(), true}});
    InferRequest a = cpu.create_infer_request();
    InferRequest b = core.compile_model(model, "TEMPLATE").create_infer_request();
    // Several inputs through the same request: the region's arena is reused, the selections
    // (and so the dynamic shapes after it) differ from run to run.
    std::set<size_t> selected;
    for (unsigned seed = 0; seed < 4; ++seed) {
        const Tensor x = random_tensor({1, 3, 16, 16}, 90 + seed, -2.f, 2.f);
        a.set_input_tensor(x);
        b.set_input_tensor(x);
        a.infer();
        b.infer();
        expect_same_outputs(a, b, "seed " + std::to_string(seed));
        selected.insert(a.get_output_tensor(0).get_size());
    }
    EXPECT_GT(selected.size(), 1u) << "the inputs should select different numbers of scores";

    size_t onednn_convs = 0, reference_nonzero = 0;
    for (const auto& row : a.get_profiling_info()) {
        if (row.node_type.rfind("Convolution", 0) == 0) {
            EXPECT_NE(row.exec_type, "ref") << row.node_name;
            EXPECT_EQ(row.status, ProfilingInfo::Status::EXECUTED) << row.node_name;
            ++onednn_convs;
        }
        reference_nonzero += row.node_type == "NonZero" && row.exec_type == "ref";
    }
    EXPECT_EQ(onednn_convs, 2u);
    EXPECT_EQ(reference_nonzero, 1u);
    const auto reference = cpu.get_property("CPU_REFERENCE_OPS").as<std::vector<std::string>>();
    EXPECT_NE(std::find(reference.begin(), reference.end(), "NonZero"), reference.end());
    EXPECT_EQ(std::find(reference.begin(), reference.end(), "Convolution"), reference.end());

    // The runtime model names, for each op of the region, the step that computed it.
    size_t region_convs = 0;
    for (const auto& node : cpu.get_runtime_model()->get_ordered_ops()) {
        if (node->get_type_name() != "Convolution") continue;
        const auto& rt = node->get_rt_info();
        EXPECT_NE(rt.at("primitiveType").as<std::string>(), "ref") << node->get_friendly_name();
        EXPECT_NE(rt.at("execTimeMcs").as<std::string>(), "not_executed");
        ++region_convs;
    }
    EXPECT_EQ(region_convs, 2u);
}

TEST(StaticRegion, DynamicImageSizeIsCompiledPerSize) {
    auto model =
        detector_like_model(PartialShape{1, 3, Dimension::dynamic(), Dimension::dynamic()});
    Core core = make_core();
    CompiledModel cpu = core.compile_model(model, "CPU", {{enable_profiling.name(), true}});
    InferRequest a = cpu.create_infer_request();
    InferRequest b = core.compile_model(model, "TEMPLATE").create_infer_request();
    for (size_t side : {16u, 24u, 16u}) {
        const Tensor x = random_tensor({1, 3, side, side}, static_cast<unsigned>(side), -2.f, 2.f);
        a.set_input_tensor(x);
        b.set_input_tensor(x);
        a.infer();
        b.infer();
        expect_same_outputs(a, b, "side " + std::to_string(side));
        size_t onednn_convs = 0;
        for (const auto& row : a.get_profiling_info())
            onednn_convs += row.node_type.rfind("Convolution", 0) == 0 && row.exec_type != "ref";
        EXPECT_EQ(onednn_convs, 2u) << "side " << side;
    }
}

TEST(StaticRegion, CancelledInsideTheRegionLeavesTheRequestUsable) {
    auto model = detector_like_model(PartialShape{1, 3, 16, 16});
    Core core = make_core();
    InferRequest a = core.compile_model(model, "CPU").create_infer_request();
    InferRequest b = core.compile_model(model, "TEMPLATE").create_infer_request();
    const Tensor x = random_tensor({1, 3, 16, 16}, 95, -2.f, 2.f);
    a.set_input_tensor(x);
    b.set_input_tensor(x);
    b.infer();
    // A cancel lands at a step boundary, the region's own steps included (whether this one
    // lands depends on timing); either way the next run computes everything again.
    a.start_async();
    a.cancel();
    try {
        a.wait();
    } catch (const Cancelled&) {
    }
    a.infer();
    expect_same_outputs(a, b, "after a cancel");
}

}  // namespace
}  // namespace vireo::cpu_test
