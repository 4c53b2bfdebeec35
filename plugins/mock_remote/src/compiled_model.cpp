// Implements the MOCK_REMOTE compiled model: weights upload, request creation, settings, the
// fault/jitter draw per execution, export and the runtime model.
#include "compiled_model.hpp"

#include "async_infer_request.hpp"
#include "plugin.hpp"
#include "sync_infer_request.hpp"
#include "vireo/mock_remote/properties.hpp"
#include "vireo/sdk/blob_sections.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"

namespace vireo::mock_remote {
namespace {

std::shared_ptr<sdk::ITaskExecutor> host_executor(const Config& config) {
    // Host stages (preprocess + upload + submit, download + postprocess) are short; a short name
    // keeps the stream number visible in the 15-character thread name ("MRHost/1").
    // Each compiled model owns its host executor (its requests hold it through the pipeline):
    // uploads block for the modelled bus time, so models sharing host threads would wait on each
    // other. The process-wide idle pool this replaces never shared between living models either;
    // it only reused threads of a model already destroyed.
    return std::make_shared<sdk::CPUStreamsExecutor>(
        sdk::StreamsConfig{"MRHost", config.host_streams(), 1});
}

// Settings fixed at compilation; the others may change later (they are read per execution).
bool is_compile_setting(const std::string& key) {
    return key == hint::performance_mode || key == num_streams || key == hint::num_requests ||
           key == compile_ms;
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
    // The compiled model's table: the settings it was compiled with (runtime ones writable).
    auto fixed = [](Any value) { return [value](const std::string&) { return value; }; };
    std::vector<sdk::PropertySpec> specs{
        sdk::ro(model_name.name(), fixed(m_plan->model()->get_name())),
        sdk::ro(execution_devices.name(), fixed(std::vector<std::string>{m_device->name()})),
        sdk::ro(vireo::loaded_from_cache.name(), fixed(m_loaded_from_cache)),
        sdk::ro(device::id.name(), fixed(m_device_id)),
        // Two requests keep the device busy: one runs while the host prepares the next.
        sdk::common::optimal_number_of_infer_requests([this] {
            const uint32_t requests = this->config().num_requests;
            return requests ? std::min<uint32_t>(2, requests) : uint32_t{2};
        })};
    for (const auto& [key, text] : config.to_text()) {
        for (sdk::PropertySpec spec : Config::specs()) {
            if (spec.name != key) continue;
            if (is_compile_setting(key)) {
                specs.push_back(sdk::ro(key, fixed(spec.parse(Any(text)))));
            } else {
                spec.default_value = spec.parse(Any(text));
                spec.scope = sdk::PropertyScope::kCompiledModel;
                specs.push_back(std::move(spec));
            }
        }
    }
    m_properties = std::make_unique<sdk::PropertyTable>(m_device->name(), std::move(specs),
                                                        /*plugin_table=*/false);
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

void CompiledModel::export_model(std::ostream& out) const {
    AnyMap settings;
    for (const auto& [key, value] : config().to_text()) settings[key] = value;
    sdk::BlobSectionWriter blob(out, "MOCK_REMOTE");
    blob.properties(settings);
    blob.model(*m_plan->model());
    blob.check();
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

void CompiledModel::set_property(const AnyMap& properties) {
    std::lock_guard<std::mutex> lock(m_mutex);  // a set and the config it gives are one step
    m_properties->set(properties);
    // The compile-time settings are read-only here: start from them, take the writable ones.
    AnyMap values;
    for (const auto& [key, text] : m_config.to_text()) values[key] = text;
    const sdk::PropertyValues current = m_properties->resolve({});
    for (const auto& [key, value] : current.map()) values[key] = value;
    const Config updated = Config::from(values);
    // A new seed restarts the fault/jitter sequence, so a test can reproduce it.
    if (updated.faults.seed != m_config.faults.seed) m_rng.seed(updated.faults.seed);
    m_config = updated;
}

Any CompiledModel::get_property(const std::string& name) const {
    return m_properties->get(name);
}

}  // namespace vireo::mock_remote
