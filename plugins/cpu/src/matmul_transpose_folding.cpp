// Implements fold_transposes_into_matmuls (see matmul_transpose_folding.hpp).
#include "matmul_transpose_folding.hpp"

#include <optional>
#include <vector>

#include "vireo/exception.hpp"
#include "vireo/op_registry.hpp"
#include "vireo/tensor.hpp"

namespace vireo::cpu_plugin {
namespace {

// The order of a Transpose whose order input is a Constant, or nullopt.
std::optional<std::vector<int64_t>> constant_order(const Node& transpose) {
    if (transpose.get_type_name() != "Transpose" || transpose.get_input_size() != 2)
        return std::nullopt;
    const Node& order = *transpose.input_value(1).get_node();
    if (order.get_type_name() != "Constant") return std::nullopt;
    const Tensor& t = order.get_constant_value();
    return InferInput{t.get_element_type(), PartialShape(t.get_shape()), t}.int_values();
}

// Whether `order` keeps every axis but the last two, which it swaps.
bool swaps_last_two(const std::vector<int64_t>& order) {
    const size_t r = order.size();
    if (r < 2) return false;
    for (size_t i = 0; i + 2 < r; ++i)
        if (order[i] != static_cast<int64_t>(i)) return false;
    return order[r - 2] == static_cast<int64_t>(r - 1) &&
           order[r - 1] == static_cast<int64_t>(r - 2);
}

}  // namespace

size_t fold_transposes_into_matmuls(Model& model) {
    size_t rewritten = 0;
    for (const auto& node : model.get_ordered_ops()) {
        if (node->get_type_name() != "MatMul") continue;
        for (size_t i = 0; i < 2 && i < node->get_input_size(); ++i) {
            const Output source = node->input_value(i);
            const Node& producer = *source.get_node();
            const auto order = constant_order(producer);
            if (!order || !swaps_last_two(*order)) continue;
            const PartialShape& data_shape = producer.input_value(0).get_partial_shape();
            if (!data_shape.rank_is_static() || data_shape.size() != order->size()) continue;
            const char* flag = i == 0 ? "transpose_a" : "transpose_b";
            const bool before = node->get_attribute<bool>(flag);
            const element::Type type = node->get_output_element_type(0);
            const PartialShape shape = node->get_output_partial_shape(0);
            try {
                node->set_attribute(flag, !before);
                node->set_argument(i, producer.input_value(0));
                node->validate_and_infer_types();
                if (node->get_output_element_type(0) == type &&
                    node->get_output_partial_shape(0) == shape) {
                    ++rewritten;
                    continue;
                }
            } catch (const Exception&) {
            }
            node->set_attribute(flag, before);
            node->set_argument(i, source);
            node->validate_and_infer_types();
        }
    }
    return rewritten;
}

}  // namespace vireo::cpu_plugin
