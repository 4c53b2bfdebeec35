// Implements Plugin: properties, compile, import and query for the CPU device.
#include "plugin.hpp"

#include <dlfcn.h>

#include <cstring>
#include <sstream>

#include "compiled_model.hpp"
#include "compressed_matmul.hpp"
#include "einsum_lowering.hpp"
#include "f16_compute.hpp"
#include "graph_compiler.hpp"
#include "int8_patterns.hpp"
#include "matmul_transpose_folding.hpp"
#include "pad_folding.hpp"
#include "subgraph_runner.hpp"
#include "vireo/ir.hpp"
#include "vireo/log.hpp"
#include "vireo/reference/constant_folding.hpp"
#include "vireo/reference/kernel.hpp"
#include "vireo/sdk/blob_sections.hpp"
#include "vireo/sdk/plugin_entry.hpp"
#include "vireo/transformations.hpp"

#ifndef VIREO_PLUGIN_VERSION
#define VIREO_PLUGIN_VERSION "0.0.0"
#endif

namespace vireo::cpu_plugin {

Plugin::Plugin() : m_properties(make_property_table()) {
    set_device_name(kDeviceName);
    // oneDNN's OpenMP worker threads outlive every call into it: if unload_plugin took libgomp
    // and libdnnl down with this module, those idle threads would wake into unmapped code. The
    // two libraries (loaded with this module) stay loaded; this module itself still unloads.
    for (const char* lib : {"libgomp.so.1", "libdnnl.so.2"})
        dlopen(lib, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

Plugin::~Plugin() = default;

std::shared_ptr<sdk::CPUStreamsExecutor> Plugin::streams_executor(
    const sdk::StreamsConfig& config) const {
    std::lock_guard<std::mutex> lock(m_executors_mutex);
    // use_count() == 1: only this list holds it, and only this function copies it (under the
    // lock), so the check cannot race.
    for (const auto& executor : m_executors)
        if (executor.use_count() == 1 && executor->get_config() == config) return executor;
    auto executor = std::make_shared<sdk::CPUStreamsExecutor>(config);
    m_executors.push_back(executor);
    return executor;
}

const char* Plugin::version() {
    return VIREO_PLUGIN_VERSION;
}

Config Plugin::config_with(const AnyMap& properties) const {
    return Config::from(m_properties->resolve(properties));
}

namespace {

bool has_dynamic_shape(const Model& model) {
    for (const auto& node : model.get_ordered_ops())
        for (size_t i = 0; i < node->get_output_size(); ++i)
            if (!node->get_output_partial_shape(i).is_static()) return true;
    return false;
}

}  // namespace

std::shared_ptr<sdk::ICompiledModel> Plugin::compile(std::shared_ptr<Model> model,
                                                     const Config& config, bool loaded_from_cache,
                                                     const PackedWeightsMap* packed) const {
    const OmpTeamScope team(config.omp_threads_per_stream());
    // ShapeOf of static shapes and every constant subgraph fold first, so a model reshaped to
    // static input shapes is static everywhere and nothing waits for run-time shapes.
    // Integer weights are marked first: folding makes their dequantization an f32 Constant.
    compute_f16_in_f32(*model);  // no f16 arithmetic here: an f16 graph's interior runs in f32
    mark_quantized_weights(*model);
    protect_compressed_weights(*model);  // compressed MatMul weights stay integers
    reference::fold_model_constants(*model);
    fold_pads(*model);  // zero Pads become the padding of the pooling or convolution after them
    // Einsum contractions become MatMuls between views; what they read from constants folds again.
    if (lower_einsums(*model) > 0) reference::fold_model_constants(*model);
    // Attention subgraphs of a model with dynamic shapes become one op on the flash kernel for the
    // dynamic graph (decoders with a KV cache: against its reference sgemm and Softmax steps, an
    // 896-token prompt's attention 2.1-2.3x faster), before the fold below takes their key
    // Transposes. A graph compiled for static shapes keeps attention on oneDNN's matmul and softmax
    // primitives, which are faster there (the corpus encoder with a dynamic batch: 0.57 ms of
    // attention against 1.6 ms fused, one thread): static models are not fused, and the per-shape
    // graphs of a dynamic one start from `unfused`, the model as it was before the fusion.
    std::shared_ptr<Model> unfused;
    if (has_dynamic_shape(*model)) {
        unfused = model->clone();
        if (fuse_scaled_dot_product_attention(model) == 0) unfused.reset();
    }
    fold_transposes_into_matmuls(*model);  // k.transpose(-1, -2) read by the MatMul as it lies
    auto graph = compile_graph(model, packed, config.resolved_precision(),
                               config.dynamic_quantization, config.winograd);
    if (graph->dynamic) {
        VIREO_LOG(INFO) << kDeviceName << ": model '" << model->get_name()
                        << "' has dynamic shapes: each input-shape set is compiled on first use";
    } else if (const auto reference = reference_op_types(*graph); !reference.empty()) {
        std::string list;
        for (const auto& type : reference) list += (list.empty() ? "" : ", ") + type;
        VIREO_LOG(INFO) << kDeviceName << ": model '" << model->get_name()
                        << "': ops on reference kernels (CPU_REFERENCE_OPS): " << list;
    }
    auto self = std::static_pointer_cast<const Plugin>(shared_from_this());
    return std::make_shared<CompiledModel>(std::move(model), std::move(graph), self, config,
                                           loaded_from_cache, std::move(unfused));
}

std::shared_ptr<sdk::ICompiledModel> Plugin::compile_model(
    const std::shared_ptr<const Model>& model, const AnyMap& properties) const {
    if (!model) throw_error<InvalidArgument>(kDeviceName, ": compile_model got no model");
    const Config config = config_with(properties);
    return compile(model->clone(), config, false);
}

std::shared_ptr<sdk::ICompiledModel> Plugin::import_model(std::istream& in,
                                                          const AnyMap& properties) const {
    // The core has checked the blob's plugin version and checksum (sdk/blob_container.hpp).
    sdk::BlobSectionReader blob(in, kDeviceName);
    // The exported values, then the call's own arguments over them.
    AnyMap arguments = blob.properties();
    for (const auto& [key, value] : properties) arguments[key] = value;
    const Config config = config_with(arguments);
    std::shared_ptr<Model> model = blob.model();  // the required sections, written last
    PackedWeightsMap packed;
    for (size_t i = 0; blob.has("packed" + std::to_string(i) + ".port"); ++i) {
        const std::string prefix = "packed" + std::to_string(i);
        std::string key = blob.string(prefix + ".port");
        PackedWeights entry;
        if (blob.size(prefix + ".desc") != sizeof(entry.desc.data))
            throw_error<InvalidArgument>(
                kDeviceName, ": the blob is damaged (the descriptor of packed weights '", key,
                "' has ", blob.size(prefix + ".desc"), " bytes, expected ", sizeof(entry.desc.data),
                ")");
        blob.read(prefix + ".desc", &entry.desc.data);
        entry.bytes =
            Tensor(element::u8, Shape{static_cast<size_t>(blob.size(prefix + ".weights"))});
        blob.read(prefix + ".weights", entry.bytes.data());
        packed[std::move(key)] = std::move(entry);
    }
    blob.expect_all_read();
    const bool from_cache = get_or<bool>(properties, loaded_from_cache.name(), false);
    return compile(std::move(model), config, from_cache, &packed);
}

namespace {

// A sub-graph op runs when the runner takes its port maps and every op of its bodies runs.
bool runs_here(const Node& node) {
    const std::string& type = node.get_type_name();
    if (type != "If" && type != "Loop") return reference::KernelRegistry::instance().supports(node);
    if (node.get_bodies().empty() || !SubgraphRunner::unsupported_reason(node).empty())
        return false;
    for (const auto& body : node.get_bodies())
        for (const auto& op : body->get_ordered_ops())
            if (!runs_here(*op)) return false;
    return true;
}

}  // namespace

sdk::SupportedOpsMap Plugin::query_model(const std::shared_ptr<const Model>& model,
                                         const AnyMap& properties) const {
    if (!model) throw_error<InvalidArgument>(kDeviceName, ": query_model got no model");
    config_with(properties);  // validates the properties
    sdk::SupportedOpsMap supported;
    for (const auto& node : model->get_ordered_ops())
        if (runs_here(*node)) supported[node->get_friendly_name()] = get_device_name();
    return supported;
}

void Plugin::set_property(const AnyMap& properties) {
    m_properties->set(properties);
}

Any Plugin::get_property(const std::string& name, const AnyMap& arguments) const {
    return m_properties->get(name, arguments);
}

}  // namespace vireo::cpu_plugin

VIREO_DEFINE_PLUGIN(vireo::cpu_plugin::Plugin, VIREO_PLUGIN_VERSION)
