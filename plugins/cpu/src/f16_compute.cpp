// Implements compute_f16_in_f32: f16 models computed in f32 on the CPU.
#include "f16_compute.hpp"

#include <map>
#include <variant>
#include <vector>

#include "vireo/float16.hpp"
#include "vireo/ops.hpp"
#include "vireo/tensor.hpp"

namespace vireo::cpu_plugin {
namespace {

bool is_f16(const Output& port) {
    return port.get_element_type() == element::f16;
}

bool is_f16_type(const AttrValue& value) {
    const auto* type = std::get_if<element::Type>(&value);
    return type && *type == element::f16;
}

Tensor widened(const Tensor& f16) {
    Tensor out(element::f32, f16.get_shape());
    const auto* src = static_cast<const float16*>(f16.data());
    auto* dst = static_cast<float*>(out.data());
    for (size_t i = 0; i < f16.get_size(); ++i) dst[i] = static_cast<float>(src[i]);
    return out;
}

// Every reader of `from` except `keep` and Results (a model output of an f16 input or constant
// stays what it was, names included) reads `to`.
void redirect(const Output& from, const Output& to, const Node* keep,
              const std::map<Output, std::vector<Input>>& readers) {
    const auto it = readers.find(from);
    if (it == readers.end()) return;
    for (const Input& input : it->second)
        if (input.get_node() != keep && input.get_node()->get_type_name() != "Result")
            input.replace_source_output(to);
}

}  // namespace

size_t compute_f16_in_f32(Model& model) {
    const NodeVector nodes = model.get_ordered_ops();
    bool any = false;
    for (const auto& node : nodes) {
        const std::string& type = node->get_type_name();
        // Bodies are models of their own, typed by what the If or Loop passes in; a variable's
        // type is what the application's states read and write.
        if (type == "If" || type == "Loop" || type == "TensorIterator" || type == "ReadValue" ||
            type == "Assign") {
            for (const auto& in : node->input_values())
                if (is_f16(in)) return 0;
            for (size_t i = 0; i < node->get_output_size(); ++i)
                if (node->get_output_element_type(i) == element::f16) return 0;
        }
        for (size_t i = 0; i < node->get_output_size(); ++i)
            any |= node->get_output_element_type(i) == element::f16;
        for (const auto& [name, value] : node->get_attributes()) any |= is_f16_type(value);
    }
    if (!any) return 0;
    std::map<Output, std::vector<Input>> readers;
    for (const auto& node : nodes)
        for (size_t i = 0; i < node->get_input_size(); ++i)
            readers[node->input_value(i)].push_back(node->input(i));
    std::map<const Node*, bool> f16_result;
    for (const auto& result : model.get_results())
        f16_result[result.get()] = is_f16(result->input_value(0));
    const auto only_results_read = [&](Node& node) {
        const auto it = readers.find(node.output(0));
        if (it == readers.end() || it->second.empty()) return false;
        for (const Input& input : it->second)
            if (input.get_node()->get_type_name() != "Result") return false;
        return true;
    };
    size_t changed = 0;
    for (const auto& node : nodes) {
        const std::string& type = node->get_type_name();
        if (type == "Constant") {
            if (!is_f16(node->output(0))) continue;
            auto wide = op::constant(widened(node->get_constant_value()));
            wide->set_friendly_name(node->get_friendly_name());
            redirect(node->output(0), wide->output(0), nullptr, readers);
            ++changed;
        } else if (type == "Parameter") {
            if (!is_f16(node->output(0))) continue;
            auto convert = op::convert(node->output(0), element::f32);
            redirect(node->output(0), convert->output(0), convert.get(), readers);
            ++changed;
        } else if (type == "Convert" && is_f16(node->output(0)) && !is_f16(node->input_value(0)) &&
                   !only_results_read(*node)) {
            // A conversion into f16 from another type is a rounding the model asks for (PyTorch's
            // x.half().float(), and where f16 saturates to infinity): kept, and its readers read
            // its value widened back to f32.
            auto wide = op::convert(node->output(0), element::f32);
            redirect(node->output(0), wide->output(0), wide.get(), readers);
            ++changed;
        } else if (type != "Result" && !(type == "Convert" && only_results_read(*node))) {
            for (const auto& [name, value] : std::map(node->get_attributes()))
                if (is_f16_type(value)) {
                    node->set_attribute(name, element::f32);
                    ++changed;
                }
        }
    }
    model.validate();
    for (const auto& result : model.get_results())
        if (f16_result[result.get()] && !is_f16(result->input_value(0))) {
            // The output's tensor names move to the Convert that now produces it.
            const Output source = result->input_value(0);
            auto convert = op::convert(source, element::f16);
            convert->output(0).set_names(source.get_names());
            source.set_names({});
            result->set_argument(0, convert);
            ++changed;
        }
    model.validate();
    return changed;
}

}  // namespace vireo::cpu_plugin
