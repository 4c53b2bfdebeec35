// Implements CompiledModel: executor choice, request creation, export and properties.
#include "compiled_model.hpp"

#include <sstream>

#include "async_infer_request.hpp"
#include "blob_format.hpp"
#include "plugin.hpp"
#include "sync_infer_request.hpp"
#include "vireo/ir.hpp"
#include "vireo/sdk/executor_manager.hpp"

namespace vireo::template_plugin {
namespace {

std::shared_ptr<sdk::ITaskExecutor> make_task_executor(const Config& config) {
    return sdk::ExecutorManager::get()->get_idle_streams_executor(sdk::StreamsConfig{
        "TemplateStreams", config.resolved_streams(), config.resolved_threads_per_stream()});
}

std::vector<PropertyName> compiled_ro_properties() {
    std::vector<PropertyName> keys;
    for (const char* name :
         {supported_properties.name(), optimal_number_of_infer_requests.name(), model_name.name(),
          execution_devices.name(), loaded_from_cache.name(), num_streams.name(),
          hint::performance_mode.name(), inference_num_threads.name(), hint::num_requests.name(),
          device::id.name(), arena_allocations.name(), arena_bytes.name()})
        keys.emplace_back(name, PropertyMutability::RO);
    return keys;
}

std::string list_keys(const std::vector<PropertyName>& keys) {
    std::string out;
    for (const auto& k : keys)
        out += (out.empty() ? "" : ", ") + static_cast<const std::string&>(k);
    return out;
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
      m_step_stats(new StepStats[m_plan->steps().size()]) {}

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
    std::ostringstream xml;
    std::ostringstream bin(std::ios::binary);
    serialize(*m_model, xml, bin);
    BlobContents blob;
    blob.plugin_version = Plugin::version();
    Config saved = m_config;
    saved.enable_profiling = profiling_enabled();
    blob.properties = saved.to_map();
    blob.xml = xml.str();
    blob.weights = bin.str();
    write_blob(out, blob);
}

void CompiledModel::set_property(const AnyMap& properties) {
    for (const auto& [key, value] : properties) {
        if (key == enable_profiling.name()) {
            Config check;
            check.apply({{key, value}}, false);
            m_profiling.store(check.enable_profiling);
            continue;
        }
        for (const auto& ro : compiled_ro_properties())
            if (key == ro)
                throw_error<InvalidArgument>(kDeviceName, ": compiled model property ", key,
                                             " is read-only (set it when compiling)");
        auto keys = compiled_ro_properties();
        keys.emplace_back(enable_profiling.name(), PropertyMutability::RW);
        throw_error<NotFound>(kDeviceName, ": unsupported compiled model property ", key,
                              " (supported: ", list_keys(keys), ")");
    }
}

Any CompiledModel::get_property(const std::string& name) const {
    if (name == supported_properties.name()) {
        auto keys = compiled_ro_properties();
        keys.emplace_back(enable_profiling.name(), PropertyMutability::RW);
        return keys;
    }
    if (name == optimal_number_of_infer_requests.name())
        return static_cast<uint32_t>(m_config.resolved_streams());
    if (name == model_name.name()) return m_model->get_name();
    if (name == execution_devices.name()) return std::vector<std::string>{kDeviceName};
    if (name == loaded_from_cache.name()) return m_loaded_from_cache;
    if (name == enable_profiling.name()) return profiling_enabled();
    if (name == num_streams.name()) return static_cast<int32_t>(m_config.resolved_streams());
    if (name == inference_num_threads.name())
        return static_cast<int32_t>(m_config.resolved_threads_per_stream());
    if (name == hint::performance_mode.name()) return m_config.performance_mode;
    if (name == hint::num_requests.name()) return m_config.num_requests;
    if (name == device::id.name()) return m_config.device_id;
    if (name == arena_allocations.name()) return m_allocations.load();
    if (name == arena_bytes.name()) return static_cast<uint64_t>(m_plan->arena_bytes());
    auto keys = compiled_ro_properties();
    keys.emplace_back(enable_profiling.name(), PropertyMutability::RW);
    throw_error<NotFound>(kDeviceName, ": unsupported compiled model property ", name,
                          " (supported: ", list_keys(keys), ")");
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
