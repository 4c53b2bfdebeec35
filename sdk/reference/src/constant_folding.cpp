// Implements fold_constants (readers) and fold_model_constants (plugins) with the reference
// kernels' evaluate().
#include "vireo/reference/constant_folding.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "vireo/op_registry.hpp"
#include "vireo/ops.hpp"
#include "vireo/reference/kernel.hpp"
#include "vireo/sdk/memory_limits.hpp"

namespace vireo::reference {
namespace {

bool is_constant(const Output& v) {
    return v.get_node()->get_type_name() == "Constant";
}

// Ops never folded: graph boundaries, state and random numbers (each run draws anew).
bool never_folded(const Node& node) {
    const std::string& type = node.get_type_name();
    return type == "Parameter" || type == "Constant" || type == "Result" || type == "ReadValue" ||
           type == "Assign" || type == "If" || type == "Loop" || type.rfind("Random", 0) == 0 ||
           node.get_rt_info().count(kDisableConstantFolding) != 0;
}

bool small_static_outputs(const Node& node) {
    for (size_t i = 0; i < node.get_output_size(); ++i) {
        const auto& shape = node.get_output_partial_shape(i);
        if (!shape.is_static() || !node.get_output_element_type(i).is_static()) return false;
        if (shape_size(shape.to_shape()) > kMaxFoldedElements) return false;
    }
    return true;
}

// The values of Gather(ShapeOf(x), indices, axis 0) when indices and axis are constants and every
// dimension of x they pick is static, whatever the other dimensions are.
std::optional<Tensor> static_dims_gathered(const Node& gather) {
    if (gather.get_input_size() != 3 || !is_constant(gather.input_value(1)) ||
        !is_constant(gather.input_value(2)))
        return std::nullopt;
    if (gather.has_attribute("batch_dims") && gather.get_attribute<int64_t>("batch_dims") != 0)
        return std::nullopt;
    const Node* shape_of = gather.input_value(0).get_node();
    if (shape_of->get_type_name() != "ShapeOf") return std::nullopt;
    const PartialShape& shape = shape_of->input_value(0).get_partial_shape();
    if (!shape.rank_is_static()) return std::nullopt;
    const auto rank = static_cast<int64_t>(shape.size());
    InferInput axis_in{gather.input_value(2).get_element_type(),
                       {},
                       gather.input_value(2).get_node()->get_constant_value()};
    InferInput index_in{gather.input_value(1).get_element_type(),
                        {},
                        gather.input_value(1).get_node()->get_constant_value()};
    const auto axis = axis_in.int_values();
    const auto indices = index_in.int_values();
    if (!axis || axis->size() != 1 || ((*axis)[0] != 0 && (*axis)[0] != -1) || !indices)
        return std::nullopt;
    std::vector<int64_t> values;
    for (int64_t i : *indices) {
        if (i < 0) i += rank;
        if (i < 0 || i >= rank || shape[static_cast<size_t>(i)].is_dynamic()) return std::nullopt;
        values.push_back(shape[static_cast<size_t>(i)].get_length());
    }
    const element::Type t = gather.get_output_element_type(0);
    const PartialShape& out = gather.get_output_partial_shape(0);
    if (!out.is_static() || shape_size(out.to_shape()) != values.size()) return std::nullopt;
    return op::constant<int64_t>(t, out.to_shape(), values)->get_constant_value();
}

// The folded values of `node`, or an empty vector when it is not foldable.
std::vector<Tensor> try_fold(Node& node) {
    const std::string& type = node.get_type_name();
    if (never_folded(node)) return {};
    if (type == "ShapeOf") {
        const auto& shape = node.input_value(0).get_partial_shape();
        if (!shape.is_static()) return {};
        const auto dims = shape.to_shape();
        const element::Type t = node.get_output_element_type(0);
        std::vector<int64_t> values(dims.begin(), dims.end());
        return {op::constant<int64_t>(t, Shape{values.size()}, values)->get_constant_value()};
    }
    if (type == "Gather") {
        // Static dimensions of a partly dynamic shape: Gather(ShapeOf(x), constant indices,
        // axis 0) where every gathered dimension is static (torch's `x.shape[1] == 1` checks).
        if (auto dims = static_dims_gathered(node)) return {*dims};
    }
    if (node.get_input_size() == 0) return {};
    std::vector<Tensor> inputs;
    for (const auto& in : node.input_values()) {
        if (!is_constant(in)) return {};
        inputs.push_back(in.get_node()->get_constant_value());
    }
    if (!small_static_outputs(node)) return {};
    try {
        return evaluate(node, inputs);
    } catch (const InvalidArgument&) {
        throw;  // the constants themselves are wrong (an index out of range): the device would fail
    } catch (const Exception&) {
        return {};  // no kernel for this configuration: leave it to the device
    }
}

using Consumers = std::map<std::pair<const Node*, size_t>, std::vector<std::pair<Node*, size_t>>>;

// The original layer names a node stands for: its own rt_info entry if it was folded before,
// else its friendly name.
std::string original_names(const Node& node) {
    auto it = node.get_rt_info().find(kOriginalLayersNames);
    if (it != node.get_rt_info().end()) return it->second.as<std::string>();
    return node.get_friendly_name();
}

// The value ShapeOf produces for a static shape, in the node's output type (i32 or i64).
Tensor shape_value(const Node& shape_of, const Shape& shape) {
    const element::Type type = shape_of.get_output_element_type(0);
    Tensor value(type, Shape{shape.size()});
    for (size_t i = 0; i < shape.size(); ++i) {
        if (type == element::i32) {
            value.data<int32_t>()[i] = static_cast<int32_t>(shape[i]);
        } else {
            value.data<int64_t>()[i] = static_cast<int64_t>(shape[i]);
        }
    }
    return value;
}

// Replaces every use of output `index` of `node` by a new Constant holding `value`.
void replace_with_constant(Node& node, size_t index, const Tensor& value, const std::string& names,
                           Consumers& consumers) {
    NodePtr constant = op::constant(value);
    constant->set_friendly_name(node.get_output_size() == 1
                                    ? node.get_friendly_name()
                                    : node.get_friendly_name() + "." + std::to_string(index));
    constant->get_rt_info()[kOriginalLayersNames] = names;
    const Output folded(node.shared_from_this(), index);
    Output replacement(constant, 0);
    replacement.set_names(folded.get_names());
    replacement.get_rt_info() = folded.get_rt_info();
    auto& uses = consumers[{&node, index}];
    for (auto& [consumer, input] : uses) {
        consumer->set_argument(input, replacement);
        consumers[{constant.get(), 0}].emplace_back(consumer, input);
    }
    uses.clear();
}

}  // namespace

OutputVector fold_constants(const OutputVector& outputs, const std::set<const Node*>& stop) {
    // Post-order walk from the outputs: producers before consumers.
    std::vector<Node*> order;
    std::set<const Node*> seen(stop.begin(), stop.end());
    std::vector<std::pair<Node*, size_t>> stack;
    for (const auto& out : outputs) {
        if (!out || seen.count(out.get_node())) continue;
        stack.emplace_back(out.get_node(), 0);
        seen.insert(out.get_node());
        while (!stack.empty()) {
            auto& [node, next] = stack.back();
            if (next < node->get_input_size()) {
                Node* producer = node->input_value(next++).get_node();
                if (!seen.count(producer)) {
                    seen.insert(producer);
                    stack.emplace_back(producer, 0);
                }
                continue;
            }
            order.push_back(node);
            stack.pop_back();
        }
    }
    std::map<Output, Output> replaced;
    std::set<const Node*> reinferred;  // nodes whose output types or shapes may have changed
    for (Node* node : order) {
        bool changed = false;
        for (size_t i = 0; i < node->get_input_size(); ++i) {
            auto it = replaced.find(node->input_value(i));
            if (it != replaced.end()) {
                node->set_argument(i, it->second);
                changed = true;
            } else if (reinferred.count(node->input_value(i).get_node())) {
                changed = true;
            }
        }
        if (changed && node->get_type_name() != "Result") {
            node->validate_and_infer_types();
            reinferred.insert(node);
        }
        std::vector<Tensor> values = try_fold(*node);
        if (values.size() != node->get_output_size()) continue;
        for (size_t i = 0; i < values.size(); ++i) {
            auto c = op::constant(values[i]);
            c->set_friendly_name(node->get_friendly_name() +
                                 (values.size() > 1 ? "/" + std::to_string(i) : ""));
            replaced[node->output(i)] = c->output(0);
        }
    }
    OutputVector result;
    for (const auto& out : outputs) {
        auto it = out ? replaced.find(out) : replaced.end();
        result.push_back(it == replaced.end() ? out : it->second);
    }
    return result;
}

size_t default_fold_budget_bytes() {
    return std::min<size_t>(size_t{256} << 20, sdk::physical_memory_bytes() / 8);
}

namespace {

Consumers consumers_of(const NodeVector& nodes) {
    Consumers consumers;
    for (const auto& node : nodes)
        for (size_t i = 0; i < node->get_input_size(); ++i) {
            const Output& src = node->input_value(i);
            consumers[{src.get_node(), src.get_index()}].emplace_back(node.get(), i);
        }
    return consumers;
}

void fold_pass(Model& model, size_t& budget_left, FoldStats& stats);

// Replaces every If whose condition is a Constant by the body it takes: a clone of the body whose
// Parameters read the If's inputs and whose Results' sources take the If outputs' consumers (and
// tensor names). Returns how many were inlined. Bodies with sinks (Assign) stay.
size_t inline_constant_ifs(Model& model) {
    const NodeVector nodes = model.get_ordered_ops();
    Consumers consumers = consumers_of(nodes);
    size_t inlined = 0;
    for (const auto& node : nodes) {
        if (node->get_type_name() != "If") continue;
        const Node* cond = node->input_value(0).get_node();
        if (cond->get_type_name() != "Constant" || cond->get_constant_value().get_size() != 1)
            continue;
        Tensor flag(element::boolean, Shape{1});
        const Tensor& value = cond->get_constant_value();
        convert_elements(Tensor(value.get_element_type(), Shape{1}, value.data()), flag);
        const bool taken = *static_cast<const char*>(flag.data()) != 0;
        const auto& chosen = node->get_bodies().at(taken ? 0 : 1);
        if (!chosen->get_sinks().empty()) continue;
        const auto body = chosen->clone();
        const auto& in_map =
            node->get_attribute<std::vector<int64_t>>(taken ? "then_inputs" : "else_inputs");
        const auto& out_map =
            node->get_attribute<std::vector<int64_t>>(taken ? "then_outputs" : "else_outputs");
        const auto& params = body->get_parameters();
        const auto& results = body->get_results();
        if (in_map.size() != params.size() || out_map.size() != node->get_output_size()) continue;
        Consumers inner = consumers_of(body->get_ordered_ops());
        for (size_t k = 0; k < params.size(); ++k) {
            const Output outer = node->input_value(static_cast<size_t>(in_map[k]));
            for (auto& [consumer, input] : inner[{params[k].get(), 0}])
                consumer->set_argument(input, outer);
        }
        for (size_t o = 0; o < node->get_output_size(); ++o) {
            const Output source = results.at(static_cast<size_t>(out_map[o]))->input_value(0);
            const Output replaced(node, o);
            source.add_names(replaced.get_names());
            for (auto& [consumer, input] : consumers[{node.get(), o}]) {
                consumer->set_argument(input, source);
                consumers[{source.get_node(), source.get_index()}].emplace_back(consumer, input);
            }
            consumers[{node.get(), o}].clear();
        }
        ++inlined;
    }
    if (inlined) model.validate();
    return inlined;
}

}  // namespace

FoldStats fold_model_constants(Model& model, size_t budget_bytes) {
    FoldStats stats;
    size_t budget_left = budget_bytes;
    const NodeVector original = model.get_ordered_ops();
    // Folding can make an If's condition constant (torch's rank and size checks); inlining its
    // body can make more values constant: a few rounds, each a fold pass then an inlining pass.
    constexpr int kMaxRounds = 8;
    for (int round = 0; round < kMaxRounds; ++round) {
        fold_pass(model, budget_left, stats);
        if (inline_constant_ifs(model) == 0) break;
    }
    std::set<const Node*> alive;
    for (const auto& node : model.get_ordered_ops()) alive.insert(node.get());
    stats.removed = 0;
    for (const auto& node : original) stats.removed += alive.count(node.get()) ? 0 : 1;
    return stats;
}

namespace {

void fold_pass(Model& model, size_t& budget_left, FoldStats& stats) {
    const NodeVector before = model.get_ordered_ops();
    Consumers consumers;
    for (const auto& node : before)
        for (size_t i = 0; i < node->get_input_size(); ++i) {
            const Output& src = node->input_value(i);
            consumers[{src.get_node(), src.get_index()}].emplace_back(node.get(), i);
        }

    for (const auto& node : before) {
        const std::string& type = node->get_type_name();
        if (never_folded(*node)) continue;
        // Its inputs may have been folded or re-shaped by the folds before it.
        node->validate_and_infer_types();
        if (type == "ShapeOf") {
            const PartialShape& shape = node->input_value(0).get_partial_shape();
            if (!shape.is_static() || !node->get_output_element_type(0).is_integral_number())
                continue;
            replace_with_constant(*node, 0, shape_value(*node, shape.to_shape()),
                                  original_names(*node), consumers);
            ++stats.folded;
            continue;
        }
        if (node->get_input_size() == 0) continue;
        std::vector<Tensor> inputs;
        std::string names = original_names(*node);
        bool all_constant = true;
        for (const auto& in : node->input_values()) {
            Node* src = in.get_node();
            if (src->get_type_name() != "Constant") {
                all_constant = false;
                break;
            }
            inputs.push_back(src->get_constant_value());
            names += "," + original_names(*src);
        }
        if (!all_constant) continue;
        // What the fold would create, from the inferred output shapes, before evaluating.
        size_t output_bytes = 0;
        bool fits = true;
        for (size_t o = 0; o < node->get_output_size() && fits; ++o) {
            const PartialShape& shape = node->get_output_partial_shape(o);
            if (!shape.is_static()) {
                fits = false;
                break;
            }
            try {
                const size_t bytes =
                    node->get_output_element_type(o).bytes_for(shape_size(shape.to_shape()));
                fits = bytes <= budget_left - output_bytes;
                output_bytes += fits ? bytes : 0;
            } catch (const Exception&) {
                fits = false;  // the size overflows
            }
        }
        if (!fits) {
            ++stats.over_budget;
            continue;
        }
        std::vector<Tensor> outputs;
        try {
            outputs = evaluate(*node, inputs);
        } catch (const Exception&) {
            continue;  // no kernel for this configuration: left for the plan to report
        }
        for (size_t i = 0; i < outputs.size(); ++i)
            replace_with_constant(*node, i, outputs[i], names, consumers);
        budget_left -= output_bytes;
        ++stats.folded;
    }
    model.validate();
}

}  // namespace

}  // namespace vireo::reference
