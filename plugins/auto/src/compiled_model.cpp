// Implements CompiledModel: the property table over the scheduler's live state, and requests.
#include "compiled_model.hpp"

#include <algorithm>

#include "plugin.hpp"
#include "sync_infer_request.hpp"
#include "vireo/auto/properties.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"
#include "vireo/sdk/iasync_infer_request.hpp"

namespace auto_plugin {
using namespace vireo;

namespace {

std::shared_ptr<sdk::ITaskExecutor> make_executor(const Scheduler& scheduler) {
    sdk::StreamsConfig config;
    config.name = scheduler.config().owner;
    const int optimal = static_cast<int>(scheduler.optimal_number_of_infer_requests());
    config.streams = std::clamp(4 * optimal, 16, sdk::kMaxStreams);
    config.start_on_demand = true;  // sized for the worst case; most models run a few at once
    return std::make_shared<sdk::CPUStreamsExecutor>(config);
}

std::string join(const std::vector<DeviceConfig>& devices) {
    std::string out;
    for (const auto& d : devices) out += (out.empty() ? "" : ",") + d.name;
    return out;
}

}  // namespace

CompiledModel::CompiledModel(const std::shared_ptr<const Model>& model,
                             const std::shared_ptr<const Plugin>& plugin,
                             std::shared_ptr<Scheduler> scheduler, hint::PerformanceMode hint,
                             bool startup_fallback)
    : sdk::ICompiledModel(model, plugin, make_executor(*scheduler)),
      m_scheduler(std::move(scheduler)) {
    Scheduler* s = m_scheduler.get();
    const std::string name = model->get_name();
    const std::string priorities = join(s->config().devices);
    m_properties = std::make_unique<sdk::PropertyTable>(
        s->config().owner,
        std::vector<sdk::PropertySpec>{
            sdk::fixed(model_name.name(), name),
            sdk::ro(execution_devices.name(),
                    [s](const std::string&) { return Any(s->execution_devices()); }),
            sdk::common::optimal_number_of_infer_requests(
                [s] { return s->optimal_number_of_infer_requests(); }),
            sdk::fixed(device::priorities.name(), priorities),
            sdk::fixed(hint::performance_mode.name(), hint),
            sdk::fixed(auto_device::enable_startup_fallback.name(), startup_fallback),
            sdk::rw<bool>(auto_device::enable_runtime_fallback, s->runtime_fallback(), "YES or NO",
                          {}, sdk::PropertyScope::kCompiledModel),
            sdk::ro(auto_device::compiles.name(),
                    [s](const std::string&) { return Any(s->compiles()); }),
            sdk::ro(auto_device::failovers.name(),
                    [s](const std::string&) { return Any(s->failovers()); }),
            sdk::ro(loaded_from_cache.name(),
                    [s](const std::string&) { return Any(s->loaded_from_cache()); })},
        /*plugin_table=*/false);
}

CompiledModel::~CompiledModel() = default;

std::shared_ptr<sdk::ISyncInferRequest> CompiledModel::create_sync_infer_request() const {
    return std::make_shared<SyncInferRequest>(
        std::static_pointer_cast<const CompiledModel>(shared_from_this()));
}

std::shared_ptr<sdk::IAsyncInferRequest> CompiledModel::create_infer_request() const {
    auto sync = std::static_pointer_cast<SyncInferRequest>(create_sync_infer_request());
    // The default pipeline; destroying a running request cancels it first (a device that hangs
    // would otherwise block the destructor forever), without calling the user's callback.
    return std::make_shared<sdk::IAsyncInferRequest>(sync, get_task_executor(),
                                                     get_callback_executor(),
                                                     sdk::IAsyncInferRequest::OnDestroy::kCancel);
}

std::shared_ptr<const Model> CompiledModel::get_runtime_model() const {
    return m_scheduler->any_compiled().get_runtime_model();
}

void CompiledModel::set_property(const AnyMap& properties) {
    m_properties->set(properties);
    if (auto it = properties.find(auto_device::enable_runtime_fallback.name());
        it != properties.end())
        m_scheduler->set_runtime_fallback(
            m_properties->get(auto_device::enable_runtime_fallback.name()).as<bool>());
}

Any CompiledModel::get_property(const std::string& name) const {
    return m_properties->get(name);
}

}  // namespace auto_plugin
