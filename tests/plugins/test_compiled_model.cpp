// Implements the TEST plugin's compiled model (with a small text export format) and its
// synchronous request.
#include "test_compiled_model.hpp"

#include <iomanip>
#include <sstream>

#include "test_plugin.hpp"
#include "vireo/ops.hpp"
#include "vireo/properties.hpp"

namespace vireo::test_plugin {
namespace {

constexpr const char* kExportTag = "VIREO_TEST_EXPORT_1";

void check_model(const Model& model) {
    const auto inputs = model.inputs();
    const auto outputs = model.outputs();
    if (inputs.size() != outputs.size())
        throw_error<InvalidArgument>("TEST device needs as many outputs as inputs, found ",
                                     inputs.size(), " inputs and ", outputs.size(), " outputs");
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i].get_element_type() != element::f32 ||
            outputs[i].get_element_type() != element::f32)
            throw_error<InvalidArgument>("TEST device computes f32 only; input ", i, " is ",
                                         inputs[i].get_element_type(), ", output ", i, " is ",
                                         outputs[i].get_element_type());
        if (inputs[i].get_partial_shape().is_dynamic() ||
            inputs[i].get_partial_shape() != outputs[i].get_partial_shape())
            throw_error<InvalidArgument>("TEST device needs static, equal shapes for input ", i,
                                         " (", inputs[i].get_partial_shape(), ") and output ", i,
                                         " (", outputs[i].get_partial_shape(), ")");
    }
}

std::vector<ProfilingInfo> profile_rows(bool per_op) {
    ProfilingInfo stage;
    stage.status = ProfilingInfo::Status::EXECUTED;
    stage.node_name = kStageExecution;
    stage.node_type = "Stage";
    stage.exec_type = "test";
    std::vector<ProfilingInfo> rows{stage};
    if (per_op) {
        ProfilingInfo op = stage;
        op.node_name = "add_constant";
        op.node_type = "Add";
        rows.push_back(op);
    }
    return rows;
}

}  // namespace

CompiledModel::CompiledModel(const std::shared_ptr<const Model>& model,
                             const std::shared_ptr<const sdk::IPlugin>& plugin, float addend,
                             bool profiling, std::string device_name)
    : sdk::ICompiledModel(model, plugin),
      m_model(model ? model->clone() : nullptr),
      m_addend(addend),
      m_profiling(profiling),
      m_device_name(std::move(device_name)) {
    check_model(*m_model);
}

void CompiledModel::export_model(std::ostream& blob) const {
    blob << kExportTag << ' ' << std::quoted(m_model->get_name()) << ' ' << std::setprecision(9)
         << m_addend << ' ' << inputs().size() << '\n';
    for (size_t i = 0; i < inputs().size(); ++i) {
        const Shape shape = inputs()[i].get_shape();
        blob << std::quoted(inputs()[i].get_any_name()) << ' '
             << std::quoted(outputs()[i].get_any_name()) << ' ' << shape.size();
        for (size_t d : shape) blob << ' ' << d;
        blob << '\n';
    }
}

std::shared_ptr<CompiledModel> CompiledModel::import(
    std::istream& blob, const std::shared_ptr<const sdk::IPlugin>& plugin,
    std::string device_name) {
    std::string tag, name;
    float addend = 0;
    size_t count = 0;
    if (!(blob >> tag) || tag != kExportTag || !(blob >> std::quoted(name) >> addend >> count) ||
        count > 64)
        throw_error<InvalidArgument>("TEST device: not a TEST export (expected the tag ",
                                     kExportTag, ")");
    ParameterVector parameters;
    OutputVector outputs;
    for (size_t i = 0; i < count; ++i) {
        std::string in_name, out_name;
        size_t rank = 0;
        if (!(blob >> std::quoted(in_name) >> std::quoted(out_name) >> rank) || rank > 8)
            throw_error<InvalidArgument>("TEST device: damaged export at port ", i);
        Shape shape(rank);
        for (auto& d : shape)
            if (!(blob >> d))
                throw_error<InvalidArgument>("TEST device: damaged export at port ", i);
        // Parameter -> Relu keeps the output's tensor names apart from the input's (a Result
        // shares its producer's names). The graph only carries ports: infer() adds the addend.
        auto parameter = op::parameter(element::f32, PartialShape(shape), in_name);
        auto relu = make_node("Relu", {parameter->output(0)});
        relu->output(0).set_names({out_name});
        parameters.push_back(parameter);
        outputs.push_back(relu->output(0));
    }
    auto model = std::make_shared<Model>(outputs, parameters, name);
    return std::make_shared<CompiledModel>(model, plugin, addend, false, std::move(device_name));
}

void CompiledModel::set_property(const AnyMap& properties) {
    for (const auto& [key, value] : properties) {
        if (key != enable_profiling.name())
            throw_error<NotFound>("compiled model: property '", key,
                                  "' cannot be set; settable: ", enable_profiling.name());
    }
    m_profiling = get_or(properties, enable_profiling.name(), m_profiling);
}

Any CompiledModel::get_property(const std::string& name) const {
    using M = PropertyMutability;
    if (name == supported_properties.name())
        return std::vector<PropertyName>{{supported_properties.name(), M::RO},
                                         {model_name.name(), M::RO},
                                         {optimal_number_of_infer_requests.name(), M::RO},
                                         {execution_devices.name(), M::RO},
                                         {enable_profiling.name(), M::RW},
                                         {addend.name(), M::RO}};
    if (name == model_name.name()) return m_model->get_name();
    if (name == optimal_number_of_infer_requests.name()) return uint32_t{2};
    if (name == execution_devices.name()) return std::vector<std::string>{m_device_name};
    if (name == enable_profiling.name()) return m_profiling;
    if (name == addend.name()) return m_addend;
    throw_error<NotFound>("compiled model: unknown property '", name, "'");
}

std::shared_ptr<sdk::ISyncInferRequest> CompiledModel::create_sync_infer_request() const {
    if (auto plugin = std::dynamic_pointer_cast<const Plugin>(get_plugin()))
        plugin->count_request();
    return std::make_shared<SyncInferRequest>(
        std::static_pointer_cast<const CompiledModel>(shared_from_this()));
}

SyncInferRequest::SyncInferRequest(const std::shared_ptr<const CompiledModel>& compiled_model)
    : sdk::ISyncInferRequest(compiled_model),
      m_addend(compiled_model->addend_value()),
      m_counter(
          std::make_shared<sdk::IVariableState>("test_counter", Tensor(element::f32, Shape{1}))) {}

void SyncInferRequest::infer(sdk::RunContext& /*run*/) {
    for (size_t i = 0; i < get_inputs().size(); ++i) {
        const Tensor in = get_tensor(get_inputs()[i]);
        Tensor out = get_tensor(get_outputs()[i]);
        const float* src = in.data<float>();
        float* dst = out.data<float>();
        for (size_t k = 0; k < in.get_size(); ++k) dst[k] = src[k] + m_addend;
    }
    Tensor counter = m_counter->get_state();
    counter.data<float>()[0] += 1.0f;
    m_counter->mark_written();
}

std::vector<ProfilingInfo> SyncInferRequest::get_profiling_info() const {
    const auto compiled = std::static_pointer_cast<const CompiledModel>(get_compiled_model());
    return profile_rows(compiled->get_property(enable_profiling.name()).as<bool>());
}

}  // namespace vireo::test_plugin
