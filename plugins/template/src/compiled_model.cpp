// Implements CompiledModel: executor choice, request creation, export and properties.
#include "compiled_model.hpp"

#include <sstream>

#include "async_infer_request.hpp"
#include "plugin.hpp"
#include "sync_infer_request.hpp"
#include "vireo/ir.hpp"
#include "vireo/sdk/blob_sections.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"

namespace vireo::template_plugin {
namespace {

// Each compiled model owns its streams (its requests hold them through the pipeline), so no
// executor outlives the models of this library and two models never queue behind each other.
std::shared_ptr<sdk::ITaskExecutor> make_task_executor(const Config& config) {
    return std::make_shared<sdk::CPUStreamsExecutor>(sdk::StreamsConfig{
        "TemplateStreams", config.resolved_streams(), config.resolved_threads_per_stream()});
}

}  // namespace

CompiledModel::CompiledModel(std::shared_ptr<Model> model,
                             std::shared_ptr<const ExecutionPlan> plan,
                             const std::shared_ptr<const Plugin>& plugin, const Config& config,
                             bool loaded_from_cache, Tensor weights)
    : ICompiledModel(model, plugin, make_task_executor(config)),
      m_model(std::move(model)),
      m_plan(std::move(plan)),
      m_config(config),
      m_loaded_from_cache(loaded_from_cache),
      m_weights(std::move(weights)),
      m_profiling(config.enable_profiling),
      m_step_stats(new StepStats[m_plan->steps().size()]) {
    auto specs = sdk::common::compiled_model_keys(m_config, m_model->get_name(), kDeviceName,
                                                  m_loaded_from_cache);
    specs.push_back(sdk::ro(arena_allocations.name(),
                            [this](const std::string&) { return Any(m_allocations.load()); }));
    const auto bytes = static_cast<uint64_t>(m_plan->arena_bytes());
    specs.push_back(sdk::fixed(arena_bytes.name(), bytes));
    specs.push_back(
        sdk::common::profiling(m_config.enable_profiling, sdk::PropertyScope::kCompiledModel));
    m_properties = std::make_unique<sdk::PropertyTable>(kDeviceName, std::move(specs),
                                                        /*plugin_table=*/false);
}

CompiledModel::~CompiledModel() = default;

std::shared_ptr<sdk::ISyncInferRequest> CompiledModel::create_sync_infer_request() const {
    return std::make_shared<InferRequest>(
        std::static_pointer_cast<const CompiledModel>(shared_from_this()));
}

std::shared_ptr<sdk::IAsyncInferRequest> CompiledModel::create_infer_request() const {
    auto request = std::static_pointer_cast<InferRequest>(create_sync_infer_request());
    return std::make_shared<AsyncInferRequest>(request, get_task_executor(),
                                               get_callback_executor());
}

void CompiledModel::export_model(std::ostream& out) const {
    AnyMap properties = m_config.values;
    properties[enable_profiling.name()] = profiling_enabled();
    sdk::BlobSectionWriter blob(out, kDeviceName);
    blob.properties(properties);
    blob.model(*m_model);
    blob.check();
}

void CompiledModel::set_property(const AnyMap& properties) {
    m_properties->set(properties);
    // Read once per inference: kept in an atomic rather than asked of the table each time.
    m_profiling.store(m_properties->get(enable_profiling.name()).as<bool>(),
                      std::memory_order_relaxed);
}

Any CompiledModel::get_property(const std::string& name) const {
    return m_properties->get(name);
}

bool CompiledModel::profiling_enabled() const {
    return m_profiling.load(std::memory_order_relaxed);
}

void CompiledModel::record_step_times(const std::vector<StepTiming>& timings) const {
    for (size_t s = 0; s < timings.size(); ++s) {
        if (!timings[s].executed) continue;
        m_step_stats[s].total_us.fetch_add(static_cast<uint64_t>(timings[s].real.count()),
                                           std::memory_order_relaxed);
        m_step_stats[s].runs.fetch_add(1, std::memory_order_relaxed);
    }
}

double CompiledModel::average_step_time(size_t s) const {
    const uint64_t runs = m_step_stats[s].runs.load(std::memory_order_relaxed);
    if (runs == 0) return -1;
    return static_cast<double>(m_step_stats[s].total_us.load(std::memory_order_relaxed)) /
           static_cast<double>(runs);
}

}  // namespace vireo::template_plugin
