// Translators for ONNX's sequence ops over sequences known at import: a sequence is kept as the
// list of its tensors (GraphImporter::define_sequence) when its length and every position used on
// it are constants — SequenceEmpty, SequenceConstruct, SequenceInsert/Erase at constant positions,
// SplitToSequence with a constant split over a static axis — and SequenceAt, SequenceLength and
// ConcatFromSequence turn it back into tensors. A sequence of run-time length, a sequence graph
// input or output, and sequences through If/Loop are refused naming the node.
#include "graph_importer.hpp"
#include "ops/common.hpp"

namespace vireo::onnx_import {
namespace {

const OutputVector& sequence_input(const NodeContext& ctx, size_t i) {
    if (i >= static_cast<size_t>(ctx.proto().input_size()) || ctx.proto().input(i).empty())
        ctx.fail("input ", i, " (a sequence) is missing");
    const std::string& name = ctx.proto().input(static_cast<int>(i));
    const OutputVector* items = ctx.graph().find_sequence(name);
    if (!items)
        ctx.unsupported("input '", name,
                        "' is not a sequence known at import (a graph input, a sequence from "
                        "If/Loop, or of run-time length)");
    return *items;
}

OutputVector define(const NodeContext& ctx, OutputVector items) {
    if (ctx.proto().output_size() < 1 || ctx.proto().output(0).empty())
        ctx.fail("has no output to name the sequence it makes");
    ctx.graph().define_sequence(ctx.proto().output(0), std::move(items));
    return {Output()};
}

/// The constant position of input `i` in a sequence of `size` (negative counts from the end);
/// `insert` allows `size` itself. Absent: `fallback`.
size_t position(const NodeContext& ctx, size_t i, size_t size, bool insert, int64_t fallback) {
    int64_t p = fallback;
    if (ctx.has_input(i)) {
        const auto values = ctx.const_ints(i);
        if (!values || values->size() != 1)
            ctx.unsupported(
                "the position must be a constant of one value (sequences are resolved "
                "at import)");
        p = values->front();
    }
    const auto n = static_cast<int64_t>(size);
    const int64_t high = insert ? n : n - 1;
    if (p < -n || p > high)
        ctx.fail("position ", p, " is out of range [", -n, ", ", high, "] for a sequence of ", n,
                 " tensors");
    return static_cast<size_t>(p < 0 ? p + n : p);
}

OutputVector sequence_empty(const NodeContext& ctx) {
    return define(ctx, {});
}

OutputVector sequence_construct(const NodeContext& ctx) {
    OutputVector items;
    for (size_t i = 0; i < ctx.input_size(); ++i) items.push_back(ctx.input(i));
    return define(ctx, items);
}

OutputVector sequence_insert(const NodeContext& ctx) {
    OutputVector items = sequence_input(ctx, 0);
    const size_t at = position(ctx, 2, items.size(), true, static_cast<int64_t>(items.size()));
    items.insert(items.begin() + static_cast<std::ptrdiff_t>(at), ctx.input(1));
    return define(ctx, items);
}

OutputVector sequence_erase(const NodeContext& ctx) {
    OutputVector items = sequence_input(ctx, 0);
    if (items.empty()) ctx.fail("cannot erase from an empty sequence");
    const size_t at = position(ctx, 1, items.size(), false, -1);
    items.erase(items.begin() + static_cast<std::ptrdiff_t>(at));
    return define(ctx, items);
}

OutputVector sequence_at(const NodeContext& ctx) {
    const OutputVector& items = sequence_input(ctx, 0);
    if (!ctx.has_input(1)) ctx.fail("the position input is missing");
    return one(identity(items[position(ctx, 1, items.size(), false, 0)]));
}

OutputVector sequence_length(const NodeContext& ctx) {
    return one(op::int64_scalar(static_cast<int64_t>(sequence_input(ctx, 0).size())));
}

OutputVector concat_from_sequence(const NodeContext& ctx) {
    const OutputVector& items = sequence_input(ctx, 0);
    if (items.empty()) ctx.fail("cannot concatenate an empty sequence");
    const bool new_axis = ctx.attr_int("new_axis", 0) != 0;
    const int64_t rank = static_rank(ctx, items[0], "the first tensor");
    const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis"), new_axis ? rank + 1 : rank);
    OutputVector parts;
    for (const auto& t : items)
        parts.push_back(new_axis ? op::unsqueeze(t, ints({axis}))->output(0) : t);
    return one(parts.size() == 1 ? identity(parts[0]) : Output(op::concat(parts, axis)));
}

OutputVector split_to_sequence(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    const int64_t rank = static_rank(ctx, x);
    const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", 0), rank);
    const auto& dim = x.get_partial_shape()[static_cast<size_t>(axis)];
    if (dim.is_dynamic())
        ctx.unsupported("axis ", axis, " of ", x.get_partial_shape(),
                        " must be static (sequences are resolved at import)");
    const int64_t length = dim.get_length();
    std::vector<int64_t> sizes;
    bool keep = true;
    if (!ctx.has_input(1)) {
        sizes.assign(static_cast<size_t>(length), 1);  // pieces of one, squeezed unless keepdims
        keep = ctx.attr_int("keepdims", 1) != 0;
    } else {
        const auto split = ctx.const_ints(1);
        if (!split) ctx.unsupported("split must be a constant (sequences are resolved at import)");
        const auto& shape = ctx.input(1).get_partial_shape();
        if (shape.rank().is_static() && shape.rank().get_length() == 0) {
            const int64_t chunk = split->front();
            if (chunk < 1) ctx.fail("split ", chunk, " must be positive");
            for (int64_t done = 0; done < length; done += chunk)
                sizes.push_back(std::min(chunk, length - done));
        } else {
            int64_t total = 0;
            for (int64_t s : *split) {
                if (s < 0) ctx.fail("split holds the negative size ", s);
                total += s;
            }
            if (total != length)
                ctx.fail("split sums to ", total, ", axis ", axis, " has ", length);
            sizes = *split;
        }
    }
    OutputVector items;
    int64_t begin = 0;
    for (int64_t s : sizes) {
        Output piece = op::slice(x, ints({begin}), ints({begin + s}), ints({1}), ints({axis}));
        if (!keep) piece = op::squeeze(piece, ints({axis}));
        items.push_back(piece);
        begin += s;
    }
    return define(ctx, items);
}

}  // namespace

void register_sequence(TranslatorRegistry& r) {
    r.add("", "SequenceEmpty", 11, sequence_empty);
    r.add("", "SequenceConstruct", 11, sequence_construct);
    r.add("", "SequenceInsert", 11, sequence_insert);
    r.add("", "SequenceErase", 11, sequence_erase);
    r.add("", "SequenceAt", 11, sequence_at);
    r.add("", "SequenceLength", 11, sequence_length);
    r.add("", "ConcatFromSequence", 11, concat_from_sequence);
    r.add("", "SplitToSequence", 11, split_to_sequence);
}

}  // namespace vireo::onnx_import
