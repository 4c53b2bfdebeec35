// Implements the MOCK_REMOTE compiled model: weights upload, request creation, settings, the
// fault/jitter draw per execution, export and the runtime model.
#include "compiled_model.hpp"

#include "async_infer_request.hpp"
#include "blob.hpp"
#include "plugin.hpp"
#include "sync_infer_request.hpp"
#include "vireo/mock_remote/properties.hpp"
#include "vireo/sdk/executor_manager.hpp"

#ifndef VIREO_PLUGIN_VERSION
#define VIREO_PLUGIN_VERSION "0.0.0"
#endif

namespace vireo::mock_remote {
namespace {

std::shared_ptr<sdk::ITaskExecutor> host_executor(const Config& config) {
    // Host stages (preprocess + upload + submit, download + postprocess) are short; a short name
    // keeps the stream number visible in the 15-character thread name ("MRHost/1").
    return sdk::ExecutorManager::get()->get_idle_streams_executor(
        sdk::StreamsConfig{"MRHost", config.host_streams(), 1});
}

// Settings that may change after compilation (they are read per execution).
bool is_runtime_setting(const std::string& key) {
    return Config::is_setting(key) && key != hint::performance_mode && key != num_streams &&
           key != hint::num_requests && key != compile_ms;
}

}  // namespace

CompiledModel::CompiledModel(const std::shared_ptr<const Model>& model,
                             const std::shared_ptr<const Plugin>& plugin,
                             std::shared_ptr<Device> device, std::string device_id,
                             const Config& config, bool loaded_from_cache)
    : ICompiledModel(model, plugin, host_executor(config)),
      m_device(std::move(device)),
      m_device_id(std::move(device_id)),
      m_plan(std::make_shared<ExecutionPlan>(model)),
      m_loaded_from_cache(loaded_from_cache),
      m_config(config),
      m_rng(config.faults.seed) {
    // Weights live on the device for the life of the model, uploaded once over the bus.
    const BusModel bus{config.timing.bus_gbps, config.timing.bus_latency_us};
    try {
        for (const auto& constant : m_plan->constants()) {
            const Tensor dense = constant.is_continuous() ? constant : constant.clone();
            const BufferHandle handle = m_device->memory().allocate(dense.get_byte_size());
            m_weights.push_back(handle);
            m_device->upload(handle, dense.data(), dense.get_byte_size(), bus);
        }
    } catch (...) {
        for (auto handle : m_weights) m_device->memory().free(handle);
        throw;
    }
}

CompiledModel::~CompiledModel() {
    for (auto handle : m_weights) m_device->memory().free(handle);
}

std::shared_ptr<sdk::ISyncInferRequest> CompiledModel::create_sync_infer_request() const {
    return std::make_shared<SyncInferRequest>(
        std::static_pointer_cast<const CompiledModel>(shared_from_this()));
}

std::shared_ptr<sdk::IAsyncInferRequest> CompiledModel::create_infer_request() const {
    auto sync = std::static_pointer_cast<SyncInferRequest>(create_sync_infer_request());
    return std::make_shared<AsyncInferRequest>(sync, get_task_executor(), m_device->wait_executor(),
                                               get_callback_executor());
}

Config CompiledModel::config() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_config;
}

CompiledModel::Execution CompiledModel::next_execution() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    Execution e;
    e.number = ++m_executions;
    e.config = m_config;
    const auto& faults = m_config.faults;
    // Draw both numbers every time, so one setting does not shift the other's sequence.
    const double draw = std::uniform_real_distribution<double>(0.0, 1.0)(m_rng);
    const uint64_t jitter = faults.jitter_us ? m_rng() % (uint64_t{faults.jitter_us} + 1) : 0;
    if (faults.hang_nth == e.number)
        e.fault = JobFault::kHang;
    else if (faults.fail_nth == e.number || draw < faults.fail_rate)
        e.fault = JobFault::kFail;
    e.fixed_time =
        std::chrono::microseconds(m_config.timing.latency_us) + std::chrono::microseconds(jitter);
    return e;
}

void CompiledModel::export_model(std::ostream& blob) const {
    write_blob(blob, *m_plan->model(), config().to_text(), VIREO_PLUGIN_VERSION);
}

std::shared_ptr<const Model> CompiledModel::get_runtime_model() const {
    // The device runs the graph as compiled; annotate each op with what it runs as.
    auto runtime = m_plan->model()->clone();
    int64_t order = 0;
    for (const auto& node : runtime->get_ordered_ops()) {
        auto& rt = node->get_rt_info();
        rt["layerType"] = node->get_type_name();
        rt["execOrder"] = order++;
        rt["primitiveType"] = std::string("device");
        rt["originalLayersNames"] = node->get_friendly_name();
    }
    return runtime;
}

std::vector<PropertyName> CompiledModel::supported_properties() const {
    std::vector<PropertyName> out{
        PropertyName(vireo::supported_properties.name(), PropertyMutability::RO),
        PropertyName(model_name.name(), PropertyMutability::RO),
        PropertyName(execution_devices.name(), PropertyMutability::RO),
        PropertyName(loaded_from_cache.name(), PropertyMutability::RO),
        PropertyName(optimal_number_of_infer_requests.name(), PropertyMutability::RO),
        PropertyName(device::id.name(), PropertyMutability::RO),
    };
    for (const auto& key : Config::setting_keys())
        out.emplace_back(key,
                         is_runtime_setting(key) ? PropertyMutability::RW : PropertyMutability::RO);
    return out;
}

void CompiledModel::set_property(const AnyMap& properties) {
    Config updated = config();
    for (const auto& [key, value] : properties) {
        if (is_runtime_setting(key)) {
            updated.set(key, value);  // throws InvalidArgument on a bad value
            continue;
        }
        const auto all = supported_properties();
        if (std::find(all.begin(), all.end(), key) != all.end())
            throw_error<InvalidArgument>(
                m_device->name(), ": property ", key,
                " of a compiled model is read-only (set it at compile time)");
        std::string known;
        for (const auto& name : all) known += (known.empty() ? "" : ", ") + name;
        throw_error<NotFound>(m_device->name(), ": unsupported compiled-model property ", key,
                              " (supported: ", known, ")");
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    // A new seed restarts the fault/jitter sequence, so a test can reproduce it.
    if (updated.faults.seed != m_config.faults.seed) m_rng.seed(updated.faults.seed);
    m_config = updated;
}

Any CompiledModel::get_property(const std::string& name) const {
    if (name == vireo::supported_properties) return supported_properties();
    if (name == model_name) return m_plan->model()->get_name();
    if (name == execution_devices) return std::vector<std::string>{m_device->name()};
    if (name == loaded_from_cache) return m_loaded_from_cache;
    if (name == device::id) return m_device_id;
    if (name == optimal_number_of_infer_requests) {
        // Two requests keep the device busy: one runs while the host prepares the next.
        const uint32_t requests = config().num_requests;
        return requests ? std::min<uint32_t>(2, requests) : uint32_t{2};
    }
    if (Config::is_setting(name)) return config().get(name);
    std::string known;
    for (const auto& key : supported_properties()) known += (known.empty() ? "" : ", ") + key;
    throw_error<NotFound>(m_device->name(), ": unsupported compiled-model property ", name,
                          " (supported: ", known, ")");
}

}  // namespace vireo::mock_remote
