// make_stateful: past/present pairs of a decoder become ReadValue/Assign variables with a
// beam_idx reorder (see vireo/transformations.hpp).
#include <cstring>
#include <set>

#include "vireo/exception.hpp"
#include "vireo/ops.hpp"
#include "vireo/transformations.hpp"

namespace vireo {

namespace {

NodePtr find_parameter(const Model& model, const std::string& name) {
    for (const NodePtr& p : model.get_parameters())
        if (p->output(0).get_names().count(name)) return p;
    return nullptr;
}

NodePtr find_result(const Model& model, const std::string& name) {
    for (const NodePtr& r : model.get_results())
        if (r->output(0).get_names().count(name)) return r;
    return nullptr;
}

}  // namespace

void make_stateful(const std::shared_ptr<Model>& model, const MakeStatefulOptions& options) {
    if (!model) throw_error<InvalidArgument>("make_stateful: no model");
    if (options.pairs.empty())
        throw_error<InvalidArgument>("make_stateful: no past/present pairs given");
    if (find_parameter(*model, options.beam_idx_name))
        throw_error<InvalidArgument>("make_stateful: the model already has an input '",
                                     options.beam_idx_name, "'");
    const NodePtr batch_param = find_parameter(*model, options.batch_source);
    if (!batch_param)
        throw_error<NotFound>("make_stateful: no input '", options.batch_source,
                              "' (batch_source) in model '", model->get_name(), "'");
    if (batch_param->get_output_partial_shape(0).rank().is_static() &&
        batch_param->get_output_partial_shape(0).size() == 0)
        throw_error<InvalidArgument>("make_stateful: batch_source '", options.batch_source,
                                     "' is a scalar; its dimension 0 must be the batch");

    // Check everything before changing the model.
    struct Pair {
        NodePtr parameter;
        NodePtr result;
        std::string id;
    };
    std::vector<Pair> pairs;
    std::set<std::string> ids;
    for (const auto& [in_name, out_name] : options.pairs) {
        NodePtr p = find_parameter(*model, in_name);
        if (!p)
            throw_error<NotFound>("make_stateful: no input '", in_name, "' in model '",
                                  model->get_name(), "'");
        NodePtr r = find_result(*model, out_name);
        if (!r)
            throw_error<NotFound>("make_stateful: no output '", out_name, "' in model '",
                                  model->get_name(), "'");
        if (p == batch_param)
            throw_error<InvalidArgument>("make_stateful: input '", in_name,
                                         "' is also the batch_source");
        const PartialShape& shape = p->get_output_partial_shape(0);
        if (shape.rank().is_dynamic() || shape.size() < 2)
            throw_error<InvalidArgument>("make_stateful: input '", in_name, "' has shape ", shape,
                                         "; a cache needs a static rank >= 2 with the batch first");
        bool has_dynamic = false;
        for (size_t d = 1; d < shape.size(); ++d) has_dynamic |= shape[d].is_dynamic();
        if (!has_dynamic)
            throw_error<InvalidArgument>("make_stateful: input '", in_name, "' has shape ", shape,
                                         "; no dimension after the batch is dynamic, so there "
                                         "is no sequence axis for the cache to grow along");
        const element::Type& pt = p->get_output_element_type(0);
        const element::Type& rt = r->input_value(0).get_element_type();
        if (pt != rt)
            throw_error<InvalidArgument>("make_stateful: input '", in_name, "' is ", pt,
                                         " but output '", out_name, "' is ", rt);
        if (!ids.insert(in_name).second)
            throw_error<InvalidArgument>("make_stateful: input '", in_name, "' is paired twice");
        pairs.push_back({p, r, in_name});
    }

    auto beam_idx =
        op::parameter(element::i32, PartialShape{Dimension::dynamic()}, options.beam_idx_name);
    // The batch, as a [1] i64 vector: ShapeOf(batch_source)[0:1].
    auto batch = op::gather(op::shape_of(batch_param->output(0)), op::int64_vector({0}),
                            op::int64_scalar(0));
    const NodeVector ops = model->get_ordered_ops();
    for (const Pair& pr : pairs) {
        const PartialShape& shape = pr.parameter->get_output_partial_shape(0);
        const element::Type& type = pr.parameter->get_output_element_type(0);
        std::vector<int64_t> rest;
        for (size_t d = 1; d < shape.size(); ++d)
            rest.push_back(shape[d].is_static() ? shape[d].get_length() : 0);
        auto init_shape = op::concat({batch, op::int64_vector(rest)}, 0);
        Tensor zero_value(type, Shape{});
        std::memset(zero_value.data(), 0, type.size());
        auto zero = op::constant(zero_value);
        auto init = op::broadcast(zero, init_shape);
        auto read = op::read_value(pr.id, type, shape, init);
        read->set_friendly_name(pr.id + "/read_value");
        auto reordered = op::gather(read, beam_idx, op::int64_scalar(0));
        reordered->set_friendly_name(pr.id + "/beam_gather");
        const Output past = pr.parameter->output(0);
        for (const NodePtr& node : ops)
            for (size_t i = 0; i < node->get_input_size(); ++i)
                if (node->input_value(i) == past) node->set_argument(i, reordered->output(0));
        auto write = op::assign(pr.result->input_value(0), pr.id);
        write->set_friendly_name(pr.id + "/assign");
        model->add_sinks({write});
        model->remove_result(pr.result);
        model->remove_parameter(pr.parameter);
    }
    model->add_parameters({beam_idx});
    model->validate();
}

}  // namespace vireo
