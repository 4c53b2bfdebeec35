// Defines Einsum-7: shape inference from the equation ("ij,jk->ik", implicit outputs, repeated
// labels and "..." ellipses that broadcast numpy-style).
#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <set>

#include "ops/op_helpers.hpp"

namespace vireo::ops_impl {
namespace {

constexpr char kEllipsis = '.';  // one token stands for "..."

// Splits one subscript ("ab...c") into tokens; kEllipsis marks the ellipsis.
std::vector<char> tokenize(const Node& node, const std::string& subscript,
                           const std::string& equation) {
    std::vector<char> out;
    bool ellipsis = false;
    for (size_t i = 0; i < subscript.size(); ++i) {
        const char c = subscript[i];
        if (std::isalpha(static_cast<unsigned char>(c))) {
            out.push_back(c);
        } else if (subscript.compare(i, 3, "...") == 0 && !ellipsis) {
            out.push_back(kEllipsis);
            ellipsis = true;
            i += 2;
        } else {
            throw_error<InvalidArgument>(node.describe(), ": equation '", equation,
                                         "' has an invalid subscript '", subscript,
                                         "' (letters and at most one '...' allowed)");
        }
    }
    return out;
}

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
        const size_t pos = text.find(sep, start);
        parts.push_back(
            text.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
        if (pos == std::string::npos) return parts;
        start = pos + 1;
    }
}

Outputs infer_einsum(const Node& node, const Inputs& in) {
    std::vector<size_t> all(in.size());
    for (size_t i = 0; i < in.size(); ++i) all[i] = i;
    const element::Type type = merge_types(node, in, all);
    std::string equation;
    for (char c : node.get_attribute<std::string>("equation"))
        if (c != ' ') equation += c;
    const size_t arrow = equation.find("->");
    const auto subscripts = split(equation.substr(0, arrow), ',');
    if (subscripts.size() != in.size())
        throw_error<InvalidArgument>(node.describe(), ": equation '", equation, "' has ",
                                     subscripts.size(), " input subscripts but the node has ",
                                     in.size(), " inputs");
    std::map<char, Dimension> label_dims;
    std::map<char, int> label_count;
    std::optional<PartialShape> ellipsis;  // broadcast of every input's ellipsis part
    bool ellipsis_unknown = false;
    bool any_ellipsis = false;
    for (size_t i = 0; i < in.size(); ++i) {
        const auto tokens = tokenize(node, subscripts[i], equation);
        const bool has_ellipsis =
            std::find(tokens.begin(), tokens.end(), kEllipsis) != tokens.end();
        any_ellipsis = any_ellipsis || has_ellipsis;
        const size_t labels = tokens.size() - (has_ellipsis ? 1 : 0);
        for (char t : tokens)
            if (t != kEllipsis) ++label_count[t];
        const PartialShape& shape = in[i].shape;
        if (!shape.rank_is_static()) {
            if (has_ellipsis) ellipsis_unknown = true;
            continue;
        }
        if (shape.size() < labels || (!has_ellipsis && shape.size() != labels))
            throw_error<InvalidArgument>(node.describe(), ": input ", i, " of shape ", shape,
                                         " does not fit subscript '", subscripts[i],
                                         "' of equation '", equation, "'");
        const size_t ellipsis_rank = shape.size() - labels;
        size_t axis = 0;
        for (char t : tokens) {
            if (t == kEllipsis) {
                PartialShape part(std::vector<Dimension>(
                    shape.begin() + static_cast<long>(axis),
                    shape.begin() + static_cast<long>(axis + ellipsis_rank)));
                ellipsis = ellipsis ? broadcast_shapes(node, *ellipsis, part, "numpy") : part;
                axis += ellipsis_rank;
                continue;
            }
            auto [it, inserted] = label_dims.emplace(t, shape[axis]);
            if (!inserted && !Dimension::merge(it->second, it->second, shape[axis]))
                throw_error<InvalidArgument>(node.describe(), ": label '", t, "' of equation '",
                                             equation, "' has dimension ", it->second, " and ",
                                             shape[axis], " (input ", i, ")");
            ++axis;
        }
    }
    std::vector<char> output;
    if (arrow != std::string::npos) {
        output = tokenize(node, equation.substr(arrow + 2), equation);
    } else {
        // Implicit output: the ellipsis first, then the labels seen once, in alphabetical order.
        if (any_ellipsis) output.push_back(kEllipsis);
        for (const auto& [label, count] : label_count)
            if (count == 1) output.push_back(label);
    }
    std::set<char> seen;
    for (char t : output)
        if (!seen.insert(t).second)
            throw_error<InvalidArgument>(node.describe(), ": equation '", equation,
                                         "' repeats output label '", t, "'");
    PartialShape out;
    for (char t : output) {
        if (t == kEllipsis) {
            if (!any_ellipsis)
                throw_error<InvalidArgument>(node.describe(), ": equation '", equation,
                                             "' has '...' in the output but in no input");
            if (ellipsis_unknown) return {{type, PartialShape::dynamic()}};
            if (ellipsis)
                for (const auto& d : *ellipsis) out.push_back(d);
            continue;
        }
        if (!label_count.count(t))
            throw_error<InvalidArgument>(node.describe(), ": output label '", t, "' of equation '",
                                         equation, "' appears in no input");
        auto it = label_dims.find(t);
        out.push_back(it == label_dims.end() ? Dimension() : it->second);
    }
    return {{type, out}};
}

}  // namespace

void register_einsum_ops(OpRegistry& r) {
    r.add(OpDef{"Einsum",
                7,
                "",
                1,
                std::numeric_limits<size_t>::max(),
                {required_attr("equation", AttrType::kString)},
                infer_einsum,
                {}});
}

}  // namespace vireo::ops_impl
