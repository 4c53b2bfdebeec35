// Implements the math group's shared helpers: node type checks, broadcast specs and axes reading.
#include "math_common.hpp"

namespace vireo::reference::math {
namespace {

bool broadcasts_to(const Shape& aligned, const Shape& out) {
    for (size_t i = 0; i < out.size(); ++i)
        if (aligned[i] != 1 && aligned[i] != out[i]) return false;
    return true;
}

}  // namespace

element::Type input_type(const Node& node, size_t i) {
    const element::Type t = node.input_value(i).get_element_type();
    if (!t.is_static())
        throw_error<NotImplemented>(node.describe(), ": input ", i, " has element type ", t,
                                    "; the reference kernel needs a static element type");
    return t;
}

element::Type output_type(const Node& node, size_t i) {
    const element::Type t = node.get_output_element_type(i);
    if (!t.is_static())
        throw_error<NotImplemented>(node.describe(), ": output ", i, " has element type ", t,
                                    "; the reference kernel needs a static element type");
    return t;
}

void check_same_input_types(const Node& node, size_t first, size_t last) {
    const element::Type t = input_type(node, first);
    for (size_t i = first + 1; i <= last && i < node.get_input_size(); ++i) {
        const element::Type other = input_type(node, i);
        if (other != t)
            throw_error<NotImplemented>(node.describe(), ": input ", i, " has element type ", other,
                                        ", expected ", t, " (the type of input ", first, ")");
    }
}

BroadcastSpec read_broadcast(const Node& node) {
    BroadcastSpec spec;
    if (node.has_attribute("auto_broadcast")) {
        const std::string& mode = node.get_attribute<std::string>("auto_broadcast");
        if (mode == "numpy") {
            spec.mode = BroadcastSpec::Mode::kNumpy;
        } else if (mode == "none" || mode == "explicit") {
            spec.mode = BroadcastSpec::Mode::kNone;
        } else if (mode == "pdpd") {
            spec.mode = BroadcastSpec::Mode::kPdpd;
        } else {
            throw_error<NotImplemented>(node.describe(), ": auto_broadcast '", mode,
                                        "' is not supported (expected none, numpy or pdpd)");
        }
    }
    if (node.has_attribute("axis")) {
        if (const auto* axis = std::get_if<int64_t>(&node.get_attributes().at("axis")))
            spec.axis = *axis;
    }
    return spec;
}

Shape aligned_shape(const BroadcastSpec& spec, const Shape& in, const Shape& out,
                    const std::string& what) {
    const size_t rank = out.size();
    Shape aligned(rank, 1);
    switch (spec.mode) {
        case BroadcastSpec::Mode::kNone:
            if (in != out)
                throw_error<InvalidArgument>(what, ": shape ", in, " must equal the output shape ",
                                             out, " (auto_broadcast none)");
            return in;
        case BroadcastSpec::Mode::kNumpy:
            if (in.size() > rank) break;
            for (size_t i = 0; i < in.size(); ++i) aligned[rank - in.size() + i] = in[i];
            if (broadcasts_to(aligned, out)) return aligned;
            break;
        case BroadcastSpec::Mode::kPdpd: {
            // axis -1 aligns the input's last axis with the output's; trailing 1s are dropped
            // after.
            const int64_t axis = spec.axis < 0
                                     ? static_cast<int64_t>(rank) - static_cast<int64_t>(in.size())
                                     : spec.axis;
            Shape trimmed = in;
            while (!trimmed.empty() && trimmed.back() == 1) trimmed.pop_back();
            if (axis < 0 || static_cast<size_t>(axis) + trimmed.size() > rank) break;
            for (size_t i = 0; i < trimmed.size(); ++i)
                aligned[static_cast<size_t>(axis) + i] = trimmed[i];
            if (broadcasts_to(aligned, out)) return aligned;
            break;
        }
    }
    throw_error<InvalidArgument>(what, ": shape ", in, " does not broadcast to the output shape ",
                                 out);
}

size_t normalize_axis(int64_t axis, size_t rank, const std::string& what) {
    const int64_t r = static_cast<int64_t>(rank);
    if (axis < -r || axis >= r)
        throw_error<InvalidArgument>(what, ": axis ", axis, " is out of range [", -r, ", ", r - 1,
                                     "] for rank ", rank);
    return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

std::vector<bool> read_axes_mask(const Tensor& axes, size_t rank, const std::string& what) {
    std::vector<bool> mask(rank, false);
    const size_t n = axes.get_size();
    auto mark = [&](int64_t a) { mask[normalize_axis(a, rank, what)] = true; };
    switch (axes.get_element_type().id()) {
        case element::TypeId::i64:
            for (size_t i = 0; i < n; ++i) mark(static_cast<const int64_t*>(axes.data())[i]);
            break;
        case element::TypeId::i32:
            for (size_t i = 0; i < n; ++i) mark(static_cast<const int32_t*>(axes.data())[i]);
            break;
        case element::TypeId::u64:
            for (size_t i = 0; i < n; ++i)
                mark(static_cast<int64_t>(static_cast<const uint64_t*>(axes.data())[i]));
            break;
        case element::TypeId::u32:
            for (size_t i = 0; i < n; ++i) mark(static_cast<const uint32_t*>(axes.data())[i]);
            break;
        default:
            throw_error<InvalidArgument>(what, ": axes must be i32, i64, u32 or u64, got ",
                                         axes.get_element_type());
    }
    return mask;
}

}  // namespace vireo::reference::math
