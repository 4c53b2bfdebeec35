// Implements PrePostProcessor: finding inputs/outputs, and build(), which clones the model, puts
// new Parameters and Results of the user's types, shapes and layouts at its edges and the
// recorded steps between them and the original graph.
#include <algorithm>
#include <sstream>

#include "preprocess_build.hpp"
#include "vireo/exception.hpp"
#include "vireo/ops.hpp"
#include "vireo/preprocess.hpp"

namespace vireo {
namespace {

using preprocess_impl::Current;
using preprocess_impl::Target;

std::string describe(const Output& port, const char* kind, size_t index) {
    std::ostringstream out;
    out << kind << " ";
    if (!port.get_names().empty())
        out << "'" << port.get_any_name() << "'";
    else
        out << "#" << index << " (" << port.get_node()->describe() << ")";
    return out.str();
}

size_t index_by_name(const OutputVector& ports, const std::string& name, const Model& model,
                     const char* kind) {
    std::string known;
    for (size_t i = 0; i < ports.size(); ++i) {
        if (ports[i].get_names().count(name)) return i;
        for (const auto& n : ports[i].get_names()) known += (known.empty() ? "" : ", ") + n;
    }
    throw_error<NotFound>("PrePostProcessor: model '", model.get_name(), "' has no ", kind,
                          " named '", name, "' (", kind,
                          "s: ", known.empty() ? "none named" : known, ")");
}

// The user's tensor shape: set_shape(), else the model's shape in the tensor's layout, with
// set_spatial_static_shape() applied.
PartialShape tensor_shape(const InputTensorInfo& tensor, const Layout& model_layout,
                          const Layout& tensor_layout, const PartialShape& model_shape,
                          const std::string& what) {
    if (tensor.shape()) return *tensor.shape();
    PartialShape shape = model_shape;
    if (model_shape.rank_is_static() && model_layout != tensor_layout && !model_layout.empty() &&
        !tensor_layout.empty()) {
        // The model's dimensions, each moved to where the tensor's layout has that name.
        const size_t rank = model_shape.size();
        if (model_layout.fits_rank(rank) && tensor_layout.fits_rank(rank)) {
            const auto from = model_layout.names_for_rank(rank);
            const auto to = tensor_layout.names_for_rank(rank);
            for (size_t j = 0; j < rank; ++j) {
                auto it = std::find(from.begin(), from.end(), to[j]);
                shape[j] = (to[j] != "?" && it != from.end())
                               ? model_shape[static_cast<size_t>(it - from.begin())]
                               : Dimension();
            }
        }
    }
    if (const auto& spatial = tensor.spatial_shape()) {
        if (!tensor_layout.has_dim("H") || !tensor_layout.has_dim("W"))
            throw_error<InvalidArgument>(
                what, ": set_spatial_static_shape: the tensor layout '", tensor_layout.to_string(),
                "' has no H and W; set tensor().set_layout() (e.g. \"NHWC\")");
        if (!shape.rank_is_static() || !tensor_layout.fits_rank(shape.size()))
            throw_error<InvalidArgument>(what, ": set_spatial_static_shape: the tensor layout '",
                                         tensor_layout.to_string(), "' does not fit the shape ",
                                         shape);
        shape[tensor_layout.get_index("H", shape.size())] =
            static_cast<Dimension::value_type>(spatial->first);
        shape[tensor_layout.get_index("W", shape.size())] =
            static_cast<Dimension::value_type>(spatial->second);
    }
    return shape;
}

// Replaces every use of `from` by `to` among the graph's nodes (except `to`'s own chain, which
// starts at a new Parameter and so never reads `from`).
void replace_uses(const NodeVector& ops, const Output& from, const Output& to) {
    for (const auto& node : ops)
        for (size_t i = 0; i < node->get_input_size(); ++i)
            if (node->input_value(i) == from) node->set_argument(i, to);
}

// Builds one input's chain; returns the new Parameter (or the old one when nothing changes).
NodePtr build_input(const NodePtr& param, const InputInfo& info, const NodeVector& ops,
                    const std::string& what) {
    const Output old_port(param, 0);
    Target target;
    target.type = old_port.get_element_type();
    target.shape = old_port.get_partial_shape();
    target.layout = info.model().layout() ? *info.model().layout()
                                          : preprocess_impl::layout_from_rt_info(old_port);
    const InputTensorInfo& tensor = info.tensor();
    const bool changes = tensor.element_type() || tensor.layout() || tensor.shape() ||
                         tensor.spatial_shape() || !info.preprocess().steps().empty();
    if (!changes) {
        if (!target.layout.empty()) old_port.get_rt_info()["layout"] = target.layout.to_string();
        return param;
    }
    const element::Type type = tensor.element_type() ? *tensor.element_type() : target.type;
    const Layout layout = tensor.layout() ? *tensor.layout() : target.layout;
    const PartialShape shape = tensor_shape(tensor, target.layout, layout, target.shape, what);

    NodePtr new_param = op::parameter(type, shape);
    new_param->set_friendly_name(param->get_friendly_name());
    new_param->get_rt_info() = param->get_rt_info();
    Output new_port(new_param, 0);
    new_port.get_rt_info() = old_port.get_rt_info();
    if (!layout.empty()) new_port.get_rt_info()["layout"] = layout.to_string();

    Current cur{new_port, layout};
    for (const auto& step : info.preprocess().steps())
        preprocess_impl::apply_step(cur, step, target, what);
    // Whatever is still different is converted implicitly, as OpenVINO does.
    preprocess_impl::convert_type(cur, target.type);
    if (!target.layout.empty() && !cur.layout.empty())
        preprocess_impl::convert_layout(cur, target.layout, what,
                                        "the implicit layout conversion to the model's");
    const PartialShape& got = cur.output.get_partial_shape();
    if (!got.compatible(target.shape))
        throw_error<InvalidArgument>(what, ": after preprocessing the data is ", got,
                                     " but the model expects ", target.shape,
                                     (tensor.spatial_shape() ? "; add preprocess().resize()" : ""));
    if (cur.output.get_element_type() != target.type)
        throw_error<InvalidArgument>(what, ": after preprocessing the data is ",
                                     cur.output.get_element_type(), " but the model expects ",
                                     target.type);
    replace_uses(ops, old_port, cur.output);
    // The tensor names move to the new input; the old Parameter leaves the graph.
    const auto names = old_port.get_names();
    old_port.set_names({});
    new_port.set_names(names);
    return new_param;
}

// Builds one output's chain; returns the new Result (or the old one when nothing changes).
NodePtr build_output(const NodePtr& result, const OutputInfo& info, const std::string& what) {
    const Output source = result->input_value(0);
    Target target;
    const OutputTensorInfo& tensor = info.tensor();
    Layout model_layout = info.model().layout()
                              ? *info.model().layout()
                              : preprocess_impl::layout_from_rt_info(Output(result, 0));
    if (model_layout.empty()) model_layout = preprocess_impl::layout_from_rt_info(source);
    target.type = tensor.element_type() ? *tensor.element_type() : element::dynamic;
    target.layout = tensor.layout() ? *tensor.layout() : Layout();
    target.shape = PartialShape::dynamic();

    Current cur{source, model_layout};
    for (const auto& step : info.postprocess().steps())
        preprocess_impl::apply_step(cur, step, target, what);
    preprocess_impl::convert_type(cur, target.type);
    if (!target.layout.empty()) {
        if (model_layout.empty())
            throw_error<InvalidArgument>(
                what, ": tensor().set_layout('", target.layout.to_string(),
                "'): the model's output layout is unknown; set model().set_layout()");
        preprocess_impl::convert_layout(cur, target.layout, what,
                                        "the conversion to the tensor's layout");
    }
    if (cur.output == source) {
        if (!cur.layout.empty()) Output(result, 0).get_rt_info()["layout"] = cur.layout.to_string();
        return result;
    }
    NodePtr new_result = op::result(cur.output);
    new_result->set_friendly_name(result->get_friendly_name());
    new_result->get_rt_info() = result->get_rt_info();
    // Tensor names move to the new producer, so the output is found by the same names. A model
    // input that is also an output keeps its names too.
    const auto names = source.get_names();
    if (source.get_node()->get_type_name() != "Parameter") source.set_names({});
    cur.output.set_names(names);
    if (!cur.layout.empty()) cur.output.get_rt_info()["layout"] = cur.layout.to_string();
    return new_result;
}

}  // namespace

PrePostProcessor::PrePostProcessor(std::shared_ptr<Model> model) : m_model(std::move(model)) {
    if (!m_model) throw_error<InvalidArgument>("PrePostProcessor: the model is null");
}

PrePostProcessor::~PrePostProcessor() = default;

InputInfo& PrePostProcessor::input() {
    const size_t count = m_model->get_parameters().size();
    if (count != 1)
        throw_error<InvalidArgument>(
            "PrePostProcessor: input() without a name or index needs a model with one input; "
            "model '",
            m_model->get_name(), "' has ", count);
    return input(size_t{0});
}

InputInfo& PrePostProcessor::input(size_t index) {
    const size_t count = m_model->get_parameters().size();
    if (index >= count)
        throw_error<NotFound>("PrePostProcessor: model '", m_model->get_name(), "' has no input #",
                              index, " (it has ", count, ")");
    auto& slot = m_inputs[index];
    if (!slot) slot = std::make_unique<InputInfo>();
    return *slot;
}

InputInfo& PrePostProcessor::input(const std::string& name) {
    return input(index_by_name(m_model->inputs(), name, *m_model, "input"));
}

OutputInfo& PrePostProcessor::output() {
    const size_t count = m_model->get_results().size();
    if (count != 1)
        throw_error<InvalidArgument>(
            "PrePostProcessor: output() without a name or index needs a model with one "
            "output; model '",
            m_model->get_name(), "' has ", count);
    return output(size_t{0});
}

OutputInfo& PrePostProcessor::output(size_t index) {
    const size_t count = m_model->get_results().size();
    if (index >= count)
        throw_error<NotFound>("PrePostProcessor: model '", m_model->get_name(), "' has no output #",
                              index, " (it has ", count, ")");
    auto& slot = m_outputs[index];
    if (!slot) slot = std::make_unique<OutputInfo>();
    return *slot;
}

OutputInfo& PrePostProcessor::output(const std::string& name) {
    return output(index_by_name(m_model->outputs(), name, *m_model, "output"));
}

std::shared_ptr<Model> PrePostProcessor::build() {
    // Work on a clone: an error half-way leaves the caller's model as it was.
    std::shared_ptr<Model> model = m_model->clone();
    const NodeVector ops = model->get_ordered_ops();
    ParameterVector parameters = model->get_parameters();
    ResultVector results = model->get_results();
    for (const auto& [index, info] : m_inputs) {
        const std::string what =
            "PrePostProcessor: " + describe(model->input(index), "input", index);
        parameters[index] = build_input(parameters[index], *info, ops, what);
    }
    for (const auto& [index, info] : m_outputs) {
        const std::string what =
            "PrePostProcessor: " + describe(model->output(index), "output", index);
        results[index] = build_output(results[index], *info, what);
    }
    auto built = Model::make(results, model->get_sinks(), parameters, model->get_name());
    built->get_rt_info() = model->get_rt_info();
    // The clone holds the library (if any) whose op definitions the nodes use.
    built->set_shared_object(model);
    return built;
}

}  // namespace vireo
