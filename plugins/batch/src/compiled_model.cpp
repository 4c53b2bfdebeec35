// Implements BATCH's CompiledModel: properties over the Batcher, and requests.
#include "compiled_model.hpp"

#include <algorithm>

#include "plugin.hpp"
#include "sync_infer_request.hpp"
#include "vireo/batch/properties.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"
#include "vireo/sdk/iasync_infer_request.hpp"

namespace batch_plugin {
using namespace vireo;

namespace {

uint32_t device_optimal(const Batcher& batcher) {
    try {
        return std::max<uint32_t>(1,
                                  batcher.batched().get_property(optimal_number_of_infer_requests));
    } catch (const Exception&) {
        return 1;
    }
}

// Waiting requests each hold a stream: enough for every request the batches can take at once.
std::shared_ptr<sdk::ITaskExecutor> make_executor(const Batcher& batcher) {
    sdk::StreamsConfig config;
    config.name = "BATCH";
    const int wanted = static_cast<int>(4 * batcher.batch_size() * device_optimal(batcher));
    config.streams = std::clamp(wanted, 16, sdk::kMaxStreams);
    config.start_on_demand = true;  // sized for the worst case; most models run a few at once
    return std::make_shared<sdk::CPUStreamsExecutor>(config);
}

}  // namespace

CompiledModel::CompiledModel(const std::shared_ptr<const Model>& model,
                             const std::shared_ptr<const Plugin>& plugin,
                             std::shared_ptr<Batcher> batcher, std::string device)
    : sdk::ICompiledModel(model, plugin, make_executor(*batcher)), m_batcher(std::move(batcher)) {
    Batcher* b = m_batcher.get();
    const std::string name = model->get_name();
    const uint32_t optimal = b->batch_size() * device_optimal(*b);
    m_properties = std::make_unique<sdk::PropertyTable>(
        "BATCH",
        std::vector<sdk::PropertySpec>{
            sdk::fixed(model_name.name(), name),
            sdk::ro(execution_devices.name(),
                    [device](const std::string&) { return Any(std::vector<std::string>{device}); }),
            sdk::common::optimal_number_of_infer_requests([optimal] { return optimal; }),
            sdk::ro(device::batch_size.name(),
                    [b](const std::string&) { return Any(b->batch_size()); }),
            sdk::rw<uint32_t>(batch::timeout, b->timeout_ms(), "milliseconds, 0 or more", {},
                              sdk::PropertyScope::kCompiledModel),
            sdk::ro(batch::batches_run.name(),
                    [b](const std::string&) { return Any(b->batches_run()); }),
            sdk::ro(batch::ran_alone.name(),
                    [b](const std::string&) { return Any(b->ran_alone()); })},
        /*plugin_table=*/false);
}

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
    return m_batcher->batched().get_runtime_model();
}

void CompiledModel::set_property(const AnyMap& properties) {
    m_properties->set(properties);
    if (properties.count(batch::timeout.name()))
        m_batcher->set_timeout_ms(m_properties->get(batch::timeout.name()).as<uint32_t>());
}

Any CompiledModel::get_property(const std::string& name) const {
    return m_properties->get(name);
}

}  // namespace batch_plugin
