// Implements the REMOTE compiled model: properties, requests, runtime model, release.
#include "compiled_model.hpp"

#include "infer_request.hpp"

namespace vireo::remote {

CompiledModel::CompiledModel(std::shared_ptr<Model> model,
                             const std::shared_ptr<const Plugin>& plugin,
                             std::shared_ptr<kserve::Client> client,
                             std::shared_ptr<sdk::ITaskExecutor> host_executor,
                             std::shared_ptr<sdk::ITaskExecutor> wait_executor, Config config,
                             ServedModel served, std::string instance_name, std::string instance_id)
    : ICompiledModel(model, plugin, std::move(host_executor)),
      m_model(std::move(model)),
      m_plugin(plugin),
      m_client(std::move(client)),
      m_wait_executor(std::move(wait_executor)),
      m_config(std::move(config)),
      m_served(std::move(served)),
      m_profiling(m_config.enable_profiling) {
    m_where = instance_name + " (" + m_config.url + "), model '" + m_served.name + "'";
    m_config.instance = instance_id;
    auto specs =
        sdk::common::compiled_model_keys(m_config, m_model->get_name(), instance_name, false);
    const uint32_t optimal = m_config.optimal_requests();
    sdk::set_spec(specs,
                  sdk::common::optimal_number_of_infer_requests([optimal] { return optimal; }));
    specs.push_back(
        sdk::common::profiling(m_config.enable_profiling, sdk::PropertyScope::kCompiledModel));
    auto constant = [&](const std::string& name, Any value) {
        specs.push_back(sdk::fixed(name, std::move(value), sdk::PropertyScope::kCompiledModel));
    };
    constant(url.name(), m_config.url);
    constant(model_name.name(), m_served.name);
    constant(model_version.name(), m_served.version);
    constant(model_format.name(), m_served.format);
    constant(timeout_ms.name(), static_cast<uint32_t>(m_config.timeout.count()));
    constant(retries.name(), m_config.retries);
    m_properties = std::make_unique<sdk::PropertyTable>(instance_name, std::move(specs),
                                                        /*plugin_table=*/false);
}

CompiledModel::~CompiledModel() {
    if (m_served.loaded_here)
        m_plugin->release_model(m_client, m_served.name, m_config.unload_on_release);
}

std::shared_ptr<sdk::ISyncInferRequest> CompiledModel::create_sync_infer_request() const {
    return std::make_shared<SyncInferRequest>(
        std::static_pointer_cast<const CompiledModel>(shared_from_this()));
}

std::shared_ptr<sdk::IAsyncInferRequest> CompiledModel::create_infer_request() const {
    auto request = std::static_pointer_cast<SyncInferRequest>(create_sync_infer_request());
    return std::make_shared<AsyncInferRequest>(request, get_task_executor(), m_wait_executor,
                                               get_callback_executor());
}

std::shared_ptr<const Model> CompiledModel::get_runtime_model() const {
    // The graph runs on the server: each node is reported as executed there, in model order.
    auto runtime = m_model->clone();
    int64_t order = 0;
    for (const auto& node : runtime->get_ordered_ops()) {
        RTMap& info = node->get_rt_info();
        info["layerType"] = node->get_type_name();
        info["execOrder"] = order++;
        info["primitiveType"] = std::string("remote");
        if (!info.count("originalLayersNames"))
            info["originalLayersNames"] = node->get_friendly_name();
        info["execTimeMcs"] = std::string("not_executed");
    }
    return runtime;
}

bool CompiledModel::reload(uint64_t seen) const {
    if (!m_served.load) return false;
    std::lock_guard<std::mutex> lock(m_reload_mutex);
    if (m_reloads.load() != seen) return true;  // another request loaded it meanwhile
    const grpc::Status s = m_client->load(*m_served.load, std::chrono::seconds(60));
    if (!s.ok()) return false;
    m_reloads.fetch_add(1);
    return true;
}

void CompiledModel::set_property(const AnyMap& properties) {
    m_properties->set(properties);
    m_profiling.store(m_properties->get(enable_profiling.name()).as<bool>(),
                      std::memory_order_relaxed);
}

Any CompiledModel::get_property(const std::string& name) const {
    return m_properties->get(name);
}

}  // namespace vireo::remote
