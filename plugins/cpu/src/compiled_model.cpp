// Implements CompiledModel: executor choice, request creation, export, properties and the
// runtime model.
#include "compiled_model.hpp"

#include <map>
#include <set>
#include <sstream>

#include "async_infer_request.hpp"
#include "compressed_matmul.hpp"
#include "einsum_lowering.hpp"
#include "graph_compiler.hpp"
#include "int8_patterns.hpp"
#include "matmul_transpose_folding.hpp"
#include "pad_folding.hpp"
#include "plugin.hpp"
#include "sync_infer_request.hpp"
#include "vireo/ir.hpp"
#include "vireo/log.hpp"
#include "vireo/ops.hpp"
#include "vireo/reference/constant_folding.hpp"
#include "vireo/sdk/blob_sections.hpp"

namespace vireo::cpu_plugin {
namespace {

std::shared_ptr<sdk::ITaskExecutor> make_task_executor(const Plugin& plugin, const Config& config) {
    return plugin.streams_executor(sdk::StreamsConfig{"CpuStreams", config.resolved_streams(),
                                                      config.omp_threads_per_stream()});
}

// The op types run on reference kernels, the bodies of If/Loop and static regions included, each
// once, sorted (the plugin's own kernels, such as sgemm MatMuls, im2col convolutions and
// compressed MatMuls, are not).
void collect_reference_types(const Graph& graph, std::set<std::string>& types) {
    for (const auto& step : graph.steps) {
        if (step.kind == StepKind::kReference && step.exec_type == "ref") types.insert(step.type);
        for (const auto& body : step.bodies) collect_reference_types(*body, types);
    }
}

}  // namespace

std::vector<std::string> reference_op_types(const Graph& graph) {
    std::set<std::string> types;
    collect_reference_types(graph, types);
    return {types.begin(), types.end()};
}

CompiledModel::CompiledModel(std::shared_ptr<Model> model, std::shared_ptr<const Graph> graph,
                             const std::shared_ptr<const Plugin>& plugin, const Config& config,
                             bool loaded_from_cache, std::shared_ptr<Model> unfused)
    : ICompiledModel(model, plugin, make_task_executor(*plugin, config)),
      m_model(std::move(model)),
      m_unfused(unfused ? std::move(unfused) : m_model),
      m_graph(std::move(graph)),
      m_config(config),
      m_loaded_from_cache(loaded_from_cache),
      m_profiling(config.enable_profiling),
      m_step_stats(new StepStats[m_graph->steps.size()]) {
    auto specs = sdk::common::compiled_model_keys(m_config, m_model->get_name(), kDeviceName,
                                                  m_loaded_from_cache);
    // The precision compiled models really use (f32 where bf16 is not native).
    const element::Type precision = m_config.resolved_precision();
    const auto scope = sdk::PropertyScope::kCompiledModel;
    specs.push_back(sdk::fixed(hint::inference_precision.name(), precision, scope));
    specs.push_back(sdk::common::profiling(m_config.enable_profiling, scope));
    specs.push_back(sdk::fixed(shape_cache_size.name(), m_config.shape_cache_size, scope));
    specs.push_back(sdk::fixed(dynamic_quantization.name(), m_config.dynamic_quantization, scope));
    specs.push_back(sdk::fixed(winograd.name(), m_config.winograd, scope));
    specs.push_back(sdk::fixed(reference_ops.name(), reference_op_types(*m_graph), scope));
    specs.push_back(sdk::fixed(serial_runs.name(), uint64_t{0}, scope));  // read from m_serial_runs
    specs.push_back(sdk::fixed(kv_cache_bytes.name(), uint64_t{0}, scope));  // m_kv_cache_bytes
    m_properties = std::make_unique<sdk::PropertyTable>(kDeviceName, std::move(specs),
                                                        /*plugin_table=*/false);
    for (size_t s = 0; s < m_graph->steps.size(); ++s)
        if (m_graph->steps[s].kind == StepKind::kRegion)
            m_region_stats[s].reset(new StepStats[m_graph->steps[s].bodies.at(0)->steps.size()]);
    // Compiled again per set of input shapes: a graph that is dynamic through its inputs (with
    // static inputs it is dynamic through values, and compiling it again changes nothing). Ifs
    // included: one on a shape folds into its branch there, one on a value stays a step.
    if (m_graph->dynamic && m_graph->variables.empty()) {
        for (const auto& parameter : m_model->get_parameters())
            m_specializable |= !parameter->get_output_partial_shape(0).is_static();
    }
}

std::shared_ptr<const Graph> CompiledModel::graph_for(
    const std::vector<Shape>& input_shapes) const {
    if (!m_specializable || m_config.shape_cache_size == 0) return nullptr;
    std::lock_guard<std::mutex> lock(m_specializations_mutex);
    auto it = m_specializations.find(input_shapes);
    if (it != m_specializations.end()) {
        m_recent.splice(m_recent.begin(), m_recent, it->second.use);
        return it->second.graph;
    }
    // Seen once: compiled when the shapes come back. Shapes that change at every call (a decoder
    // fed its past keys and values as inputs, one token longer each time) never pay a compile.
    if (!m_seen.take(input_shapes)) {
        m_seen.add(input_shapes);
        return nullptr;
    }
    std::shared_ptr<const Graph> graph;
    try {
        auto copy = m_unfused->clone();  // attention unfused: oneDNN's matmul and softmax
        std::map<Output, PartialShape> shapes;
        for (size_t i = 0; i < input_shapes.size(); ++i)
            shapes[copy->get_parameters().at(i)->output(0)] = PartialShape(input_shapes[i]);
        copy->reshape(shapes);
        mark_quantized_weights(*copy);
        protect_compressed_weights(*copy);
        reference::fold_model_constants(*copy);  // shapes computed from shapes become static
        fold_pads(*copy);
        if (lower_einsums(*copy) > 0) reference::fold_model_constants(*copy);
        fold_transposes_into_matmuls(*copy);
        const OmpTeamScope team(m_config.omp_threads_per_stream());
        graph = compile_graph(std::move(copy), nullptr, m_config.resolved_precision(),
                              m_config.dynamic_quantization, m_config.winograd);
        // Still dynamic (value-dependent shapes): worth keeping when its static region now
        // runs on oneDNN, otherwise the generic graph does as well.
        if (graph->dynamic && !graph->has_region) graph = nullptr;
    } catch (const Exception&) {
        graph = nullptr;  // the reference graph runs these shapes and reports what is wrong
    }
    if (m_specializations.size() >= m_config.shape_cache_size) {
        // Its shapes were in use: compiled again at their next call, not their second.
        m_seen.add(m_recent.back());
        m_specializations.erase(m_recent.back());
        m_recent.pop_back();
    }
    m_recent.push_front(input_shapes);
    m_specializations[input_shapes] = Specialization{graph, m_recent.begin()};
    return graph;
}

std::shared_ptr<const Graph> CompiledModel::one_thread_graph() const {
    std::lock_guard<std::mutex> lock(m_one_thread_mutex);
    if (m_one_thread_tried) return m_one_thread_graph;
    m_one_thread_tried = true;
    if (m_graph->dynamic || m_config.omp_threads_per_stream() < 2) return nullptr;
    // The team graph's packed weights, by the same keys the import path uses: a primitive made
    // for one thread that wants the same layout reads them in place (no second copy).
    PackedWeightsMap packed;
    for (const auto& [key, memory] : m_graph->packed) {
        const dnnl::memory::desc desc = memory.get_desc();
        packed[key] = PackedWeights{
            desc, Tensor(element::u8, Shape{desc.get_size()}, memory.get_data_handle())};
    }
    try {
        const OmpTeamScope team(1);
        auto graph = compile_graph(m_model, &packed, m_config.resolved_precision(),
                                   m_config.dynamic_quantization, m_config.winograd);
        VIREO_LOG(INFO) << kDeviceName << ": model '" << m_model->get_name()
                        << "': one-thread graph compiled for a busy machine ("
                        << graph->weights_from_blob << " packed weights shared, "
                        << graph->weights_reordered << " reordered)";
        if (!graph->dynamic) m_one_thread_graph = std::move(graph);
    } catch (const std::exception& e) {
        VIREO_LOG(WARNING) << kDeviceName << ": model '" << m_model->get_name()
                           << "': no one-thread graph for a busy machine: " << e.what();
    }
    return m_one_thread_graph;
}

CompiledModel::~CompiledModel() = default;

std::shared_ptr<sdk::ISyncInferRequest> CompiledModel::create_sync_infer_request() const {
    return std::make_shared<InferRequest>(
        std::static_pointer_cast<const CompiledModel>(shared_from_this()));
}

std::shared_ptr<sdk::IAsyncInferRequest> CompiledModel::create_infer_request() const {
    auto request = std::static_pointer_cast<InferRequest>(create_sync_infer_request());
    // The hop to a stream pays two thread wake-ups (~0.1 ms on a VM: silero_vad_v5's infer()
    // took 0.16 ms against 0.06 ms run on a stream) for the reference kernels' parallel_for, which
    // has nothing to share with a one-thread stream.
    const bool hop = m_graph->dynamic && m_config.omp_threads_per_stream() > 1;
    return std::make_shared<AsyncInferRequest>(request, get_task_executor(),
                                               get_callback_executor(), hop);
}

void CompiledModel::export_model(std::ostream& out) const {
    AnyMap saved = m_config.values;
    saved[enable_profiling.name()] = profiling_enabled();
    sdk::BlobSectionWriter blob(out, kDeviceName);
    blob.properties(saved);
    // The weights in the primitives' layouts, so that an import skips their reorders: per entry
    // i, "packed<i>.port" (its source port), "packed<i>.desc" (the raw oneDNN descriptor) and
    // "packed<i>.weights".
    size_t i = 0;
    for (const auto& [key, memory] : m_graph->packed) {
        const dnnl::memory::desc desc = memory.get_desc();
        const std::string prefix = "packed" + std::to_string(i++);
        blob.section(prefix + ".port", key);
        blob.section(prefix + ".desc", std::string_view(reinterpret_cast<const char*>(&desc.data),
                                                        sizeof(desc.data)));
        blob.section(
            prefix + ".weights",
            std::string_view(static_cast<const char*>(memory.get_data_handle()), desc.get_size()));
    }
    // Last, so that a blob cut at a section boundary lacks a required section.
    blob.model(*m_unfused);  // import fuses it again, as this compile did
    blob.check();
}

void CompiledModel::set_property(const AnyMap& properties) {
    m_properties->set(properties);
    // Read once per inference: kept in an atomic rather than asked of the table each time.
    m_profiling.store(m_properties->get(enable_profiling.name()).as<bool>(),
                      std::memory_order_relaxed);
}

Any CompiledModel::get_property(const std::string& name) const {
    if (name == serial_runs.name()) return m_serial_runs.load(std::memory_order_relaxed);
    if (name == kv_cache_bytes.name()) return m_kv_cache_bytes->load(std::memory_order_relaxed);
    return m_properties->get(name);
}

namespace {

template <typename Stats>
void add_times(Stats* stats, const std::vector<StepTiming>& timings) {
    for (size_t s = 0; s < timings.size(); ++s) {
        if (!timings[s].executed) continue;
        stats[s].total_us.fetch_add(static_cast<uint64_t>(timings[s].real.count()),
                                    std::memory_order_relaxed);
        stats[s].runs.fetch_add(1, std::memory_order_relaxed);
    }
}

template <typename Stats>
double average_of(const Stats& stats) {
    const uint64_t runs = stats.runs.load(std::memory_order_relaxed);
    if (runs == 0) return -1;
    return static_cast<double>(stats.total_us.load(std::memory_order_relaxed)) /
           static_cast<double>(runs);
}

}  // namespace

void CompiledModel::record_step_times(const std::vector<StepTiming>& timings) const {
    add_times(m_step_stats.get(), timings);
    for (const auto& [s, stats] : m_region_stats)
        if (s < timings.size() && timings[s].executed) add_times(stats.get(), timings[s].inner);
}

double CompiledModel::average_step_time(size_t s) const {
    return average_of(m_step_stats[s]);
}

double CompiledModel::average_step_time(size_t s, size_t inner) const {
    return average_of(m_region_stats.at(s)[inner]);
}

std::shared_ptr<const Model> CompiledModel::get_runtime_model() const {
    // Each step's anchor op is cloned once; the ops a step absorbed map to the anchor's copy, and
    // values computed at compile time become Constants. Reorders show in the consumers' rt_info
    // (outputLayouts of the producer differs from what they read).
    const Graph& g = *m_graph;
    std::map<const Node*, size_t> step_of;
    std::set<const Node*> views;
    for (const auto& n : g.views) views.insert(n.get());
    // A static region's ops keep their own nodes, each described by the region's step that
    // computes it (or as a view).
    struct InRegion {
        size_t step;   // the kRegion step
        size_t inner;  // the region's step computing the op; SIZE_MAX: none (a view)
    };
    std::map<const Node*, InRegion> in_region;
    for (size_t s = 0; s < g.steps.size(); ++s) {
        const Step& step = g.steps[s];
        if (step.kind != StepKind::kRegion) {
            for (const auto& n : step.fused) step_of[n.get()] = s;
            continue;
        }
        const Graph& body = *step.bodies.at(0);
        std::map<const Node*, size_t> inner_of;
        for (size_t i = 0; i < body.steps.size(); ++i)
            for (const auto& n : body.steps[i].fused) inner_of[n.get()] = i;
        std::set<const Node*> body_views;
        for (const auto& n : body.views) body_views.insert(n.get());
        for (size_t k = 0; k < step.fused.size(); ++k) {
            const Node* copy = step.region_copies.at(k).get();
            const auto it = inner_of.find(copy);
            in_region[step.fused[k].get()] = {s, it == inner_of.end() ? SIZE_MAX : it->second};
            if (body_views.count(copy)) views.insert(step.fused[k].get());
        }
    }
    std::map<const Node*, NodePtr> copies;  // original node -> node standing for its outputs
    NodeVector results, sinks;
    const auto ordered = m_model->get_ordered_ops();
    auto copy_of = [&](const Output& port) -> Output {
        return Output(copies.at(port.get_node()), port.get_index());
    };
    for (const auto& node : ordered) {
        const auto it = step_of.find(node.get());
        const bool anchor = it != step_of.end() && g.steps[it->second].node == node;
        if (it != step_of.end() && !anchor) {
            copies[node.get()] = copies.at(g.steps[it->second].node.get());
            continue;
        }
        NodePtr copy;
        if (!copy) {
            OutputVector inputs;
            for (const auto& in : node->input_values()) inputs.push_back(copy_of(in));
            copy = node->clone_with_new_inputs(inputs);
        }
        RTMap& info = copy->get_rt_info();
        info["layerType"] = node->get_type_name();
        info["execOrder"] = static_cast<int64_t>(-1);  // not a step: input, output or constant
        info["execTimeMcs"] = std::string("not_executed");
        if (views.count(node.get()))
            info["primitiveType"] = std::string("view");  // no step: its input's bytes
        else if (it == step_of.end() && !node->get_rt_info().count("primitiveType"))
            info["primitiveType"] = std::string(node->get_type_name() == "Parameter" ||
                                                        node->get_type_name() == "Result"
                                                    ? "host"
                                                    : "constant");
        if (const auto r = in_region.find(node.get()); r != in_region.end()) {
            info["execOrder"] = static_cast<int64_t>(r->second.step);
            info["primitiveType"] = std::string(views.count(node.get()) ? "view" : "region");
            if (r->second.inner != SIZE_MAX) {
                const Step& inner = g.steps[r->second.step].bodies[0]->steps[r->second.inner];
                info["layerType"] = inner.type;
                info["originalLayersNames"] = inner.name;
                info["primitiveType"] = inner.exec_type;
                const double average = average_step_time(r->second.step, r->second.inner);
                info["execTimeMcs"] =
                    average < 0 ? std::string("not_executed") : std::to_string(average);
            }
        }
        if (it != step_of.end()) {
            const Step& step = g.steps[it->second];
            info["layerType"] = step.type;
            info["originalLayersNames"] = step.name;
            info["primitiveType"] = step.exec_type;
            info["execOrder"] = static_cast<int64_t>(it->second);
            const double average = average_step_time(it->second);
            info["execTimeMcs"] =
                average < 0 ? std::string("not_executed") : std::to_string(average);
            if (!step.outputs.empty())
                info["outputLayouts"] = std::string(
                    g.values[step.outputs[0]].layout == Layout::kPlain       ? "plain"
                    : g.values[step.outputs[0]].layout == Layout::kBlocked16 ? "nChw16c"
                                                                             : "channels_last");
        }
        copies[node.get()] = copy;
    }
    // Results and sinks in the model's order.
    for (const auto& r : m_model->get_results()) results.push_back(copies.at(r.get()));
    for (const auto& s : m_model->get_sinks()) sinks.push_back(copies.at(s.get()));
    NodeVector params;
    for (const auto& p : m_model->get_parameters()) params.push_back(copies.at(p.get()));
    auto runtime = std::make_shared<Model>(results, sinks, params, m_model->get_name());
    runtime->get_rt_info() = m_model->get_rt_info();
    runtime->get_rt_info()["weightsReordered"] = static_cast<int64_t>(g.weights_reordered);
    runtime->get_rt_info()["weightsFromBlob"] = static_cast<int64_t>(g.weights_from_blob);
    return runtime;
}

}  // namespace vireo::cpu_plugin
