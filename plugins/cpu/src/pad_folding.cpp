// Implements fold_pads: Pads that pad nothing are bypassed, and constant-zero Pads in front of an
// AvgPool or a convolution become that op's padding (see pad_folding.hpp).
#include "pad_folding.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vireo/exception.hpp"
#include "vireo/tensor.hpp"

namespace vireo::cpu_plugin {
namespace {

// The integers of a Constant input (i32 or i64), or nullopt.
std::optional<std::vector<int64_t>> constant_ints(const Output& port) {
    const Node& node = *port.get_node();
    if (node.get_type_name() != "Constant") return std::nullopt;
    const Tensor& t = node.get_constant_value();
    std::vector<int64_t> out(t.get_size());
    if (t.get_element_type() == element::i64) {
        const auto* p = static_cast<const int64_t*>(t.data());
        out.assign(p, p + t.get_size());
    } else if (t.get_element_type() == element::i32) {
        const auto* p = static_cast<const int32_t*>(t.data());
        out.assign(p, p + t.get_size());
    } else {
        return std::nullopt;
    }
    return out;
}

struct PadInfo {
    Output data;
    std::vector<int64_t> begin, end;  // per axis of the data
    bool zero_constant = false;       // constant mode with pad value 0: foldable into a window
    bool nothing = false;             // every pad is zero
};

std::optional<PadInfo> pad_info(const Node& pad) {
    if (pad.get_type_name() != "Pad" || pad.get_input_size() < 3) return std::nullopt;
    PadInfo info;
    info.data = pad.input_value(0);
    const auto begin = constant_ints(pad.input_value(1)), end = constant_ints(pad.input_value(2));
    const PartialShape& shape = info.data.get_partial_shape();
    if (!begin || !end || !shape.rank_is_static() || begin->size() != shape.size() ||
        end->size() != shape.size())
        return std::nullopt;
    info.begin = *begin;
    info.end = *end;
    info.nothing = true;
    bool spatial_only = shape.size() >= 3;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (info.begin[i] < 0 || info.end[i] < 0) return std::nullopt;  // a crop
        info.nothing &= info.begin[i] == 0 && info.end[i] == 0;
        if (i < 2) spatial_only &= info.begin[i] == 0 && info.end[i] == 0;
    }
    bool zero_value = true;
    if (pad.get_input_size() > 3) {
        const Node& value = *pad.input_value(3).get_node();
        zero_value = value.get_type_name() == "Constant" &&
                     value.get_constant_value().get_element_type() == element::f32 &&
                     value.get_constant_value().get_size() == 1 &&
                     *static_cast<const float*>(value.get_constant_value().data()) == 0.f;
    }
    info.zero_constant = spatial_only && zero_value &&
                         pad.get_attribute<std::string>("pad_mode") == "constant" &&
                         info.data.get_element_type() == element::f32;
    return info;
}

// Reads `data` with `pad`'s spatial pads added to its own; false (and `node` as it was) when the
// op cannot take them or its output would change.
bool absorb(Node& node, const PadInfo& pad) {
    const std::string& type = node.get_type_name();
    const bool pool = type == "AvgPool";
    if (!pool && type != "Convolution" && type != "GroupConvolution") return false;
    const std::string& auto_pad = node.get_attribute<std::string>("auto_pad");
    if (auto_pad != "explicit" && auto_pad != "notset") return false;
    const size_t spatial = pad.begin.size() - 2;
    auto own = [&](const char* name) {
        auto v = node.get_attribute<std::vector<int64_t>>(name);
        if (v.empty()) v.assign(spatial, 0);
        return v;
    };
    std::vector<int64_t> begin = own("pads_begin"), end = own("pads_end");
    if (begin.size() != spatial || end.size() != spatial) return false;
    bool own_pads = false;
    for (size_t i = 0; i < spatial; ++i) {
        own_pads |= begin[i] != 0 || end[i] != 0;
        begin[i] += pad.begin[2 + i];
        end[i] += pad.end[2 + i];
    }
    // Padded zeros count in the average: the op must count its own padding too.
    if (pool && own_pads && node.get_attribute<bool>("exclude-pad")) return false;
    // The rounding becomes floor below, which only an unchanged static output shape proves
    // harmless: with a dynamic one a ceil pooling would lose its last window at run time.
    if (pool && node.get_attribute<std::string>("rounding_type") != "floor" &&
        !node.get_output_partial_shape(0).is_static())
        return false;

    const auto before = node.get_attributes();
    const Output source = node.input_value(0);
    const PartialShape shape = node.get_output_partial_shape(0);
    try {
        node.set_attribute("pads_begin", begin);
        node.set_attribute("pads_end", end);
        if (pool) {
            node.set_attribute("exclude-pad", false);
            // Floor: with the same output shape no window reaches past the padding, so ceil's
            // partial windows (which would be averaged differently) cannot occur.
            node.set_attribute("rounding_type", std::string("floor"));
        }
        node.set_argument(0, pad.data);
        node.validate_and_infer_types();
        if (node.get_output_partial_shape(0) == shape) return true;
    } catch (const Exception&) {
    }
    for (const auto& [name, value] : before) node.set_attribute(name, value);
    node.set_argument(0, source);
    node.validate_and_infer_types();
    return false;
}

}  // namespace

size_t fold_pads(Model& model) {
    size_t rewritten = 0;
    const auto ops = model.get_ordered_ops();
    // Readers of each Pad's output, taken before any rewrite (a rewrite only removes readers).
    std::map<const Node*, std::vector<Input>> readers;
    for (const auto& node : ops)
        for (size_t i = 0; i < node->get_input_size(); ++i) {
            const Output& in = node->input_value(i);
            if (in.get_node()->get_type_name() == "Pad" && in.get_index() == 0)
                readers[in.get_node()].push_back(node->input(i));
        }
    for (const auto& node : ops) {
        const auto info = pad_info(*node);
        if (!info) continue;
        for (const Input& reader : readers[node.get()]) {
            Node& r = *reader.get_node();
            if (r.get_type_name() == "Result") continue;
            if (info->nothing) {
                reader.replace_source_output(info->data);
                ++rewritten;
            } else if (info->zero_constant && reader.get_index() == 0 && absorb(r, *info)) {
                ++rewritten;
            }
        }
    }
    return rewritten;
}

}  // namespace vireo::cpu_plugin
