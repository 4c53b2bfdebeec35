// Implements ICompiledModel: private copies of the model's inputs and outputs, default
// executors and the default async request.
#include "vireo/sdk/icompiled_model.hpp"

#include <map>
#include <utility>

#include "vireo/exception.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"
#include "vireo/sdk/iasync_infer_request.hpp"
#include "vireo/sdk/iplugin.hpp"
#include "vireo/sdk/isync_infer_request.hpp"

namespace vireo::sdk {
namespace {

NodePtr make_parameter(const element::Type& type, const PartialShape& shape) {
    return make_node("Parameter", {}, {{"element_type", type}, {"shape", shape}});
}

}  // namespace

ICompiledModel::ICompiledModel(const std::shared_ptr<const Model>& model,
                               const std::shared_ptr<const IPlugin>& plugin,
                               std::shared_ptr<ITaskExecutor> task_executor,
                               std::shared_ptr<ITaskExecutor> callback_executor)
    : m_plugin(plugin),
      m_task_executor(std::move(task_executor)),
      m_callback_executor(std::move(callback_executor)) {
    if (!model) throw_error<InvalidArgument>("ICompiledModel: the model is null");
    // New nodes, so the caller's model may change or die after compilation; names, types,
    // shapes and rt_info are what the caller sees.
    for (const auto& parameter : model->get_parameters()) {
        const Output source = parameter->output(0);
        auto copy = make_parameter(source.get_element_type(), source.get_partial_shape());
        copy->set_friendly_name(parameter->get_friendly_name());
        copy->get_rt_info() = parameter->get_rt_info();
        const Output port = copy->output(0);
        port.set_names(source.get_names());
        port.get_rt_info() = source.get_rt_info();
        m_inputs.push_back(port);
    }
    // Results of one value share one feed, as they share the value in the model: a tensor name
    // on both is then one tensor, not an ambiguous one (see port lookups).
    std::map<std::pair<const Node*, size_t>, NodePtr> feeds;
    for (const auto& result : model->get_results()) {
        const Output source = result->output(0);
        const Output& producer = result->input_value(0);
        NodePtr& feed = feeds[{producer.get_node(), producer.get_index()}];
        if (!feed) {
            feed = make_parameter(source.get_element_type(), source.get_partial_shape());
            feed->set_friendly_name(producer.get_node()->get_friendly_name());
        }
        auto copy = make_node("Result", {feed->output(0)});
        copy->set_friendly_name(result->get_friendly_name());
        copy->get_rt_info() = result->get_rt_info();
        const Output port = copy->output(0);
        port.set_names(source.get_names());
        port.get_rt_info() = source.get_rt_info();
        m_outputs.push_back(port);
    }
    if (!m_task_executor)
        m_task_executor = std::make_shared<CPUStreamsExecutor>(StreamsConfig{"Default", 1});
}

ICompiledModel::~ICompiledModel() = default;

std::shared_ptr<IAsyncInferRequest> ICompiledModel::create_infer_request() const {
    return std::make_shared<IAsyncInferRequest>(create_sync_infer_request(), m_task_executor,
                                                m_callback_executor);
}

void ICompiledModel::export_model(std::ostream&) const {
    throw_error<NotImplemented>("export_model is not supported by device '",
                                m_plugin ? m_plugin->get_device_name() : std::string("<no plugin>"),
                                "'");
}

}  // namespace vireo::sdk
