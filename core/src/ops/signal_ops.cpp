// Defines the spectral and linear-algebra ops real models bring through ONNX: DFT-7 and IDFT-7
// (OpenVINO's semantics: complex data as a trailing axis of 2, transforms over `axes`, an optional
// signal_size per axis that crops or zero-pads first; IDFT divides by the length), Det-1 (the
// determinant of the trailing square matrices, ONNX Det-11) and TfIdfVectorizer-1 (ONNX
// TfIdfVectorizer-9 over integer tokens: n-gram counts, IDF weights or both). Det and
// TfIdfVectorizer have no OpenVINO counterpart; they are Vireo's, with ONNX's semantics.
#include <algorithm>
#include <limits>

#include "ops/op_helpers.hpp"

namespace vireo::ops_impl {
namespace {

// DFT/IDFT-7: data [..., 2] (real type, rank >= 2), axes 1-D integers over data's rank - 1 axes,
// optional signal_size 1-D of axes' length (-1 keeps an axis's size).
Outputs infer_dft(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "data", is_real, "a floating-point type");
    check_type(node, in, 1, "axes", is_integral_number, "an integer type");
    check_rank(node, in, 0, "data", 2, 64);
    check_rank(node, in, 1, "axes", 1, 1);
    if (in.size() > 2) {
        check_type(node, in, 2, "signal_size", is_integral_number, "an integer type");
        check_rank(node, in, 2, "signal_size", 1, 1);
    }
    const PartialShape& data = in[0].shape;
    if (!data.rank_is_static()) return {{in[0].type, data}};
    if (!data[data.size() - 1].compatible(2))
        throw_error<InvalidArgument>(node.describe(), ": data ", data,
                                     " must end with an axis of 2 (real, imaginary)");
    PartialShape out = data;
    out[data.size() - 1] = Dimension(2);
    const auto complex_rank = static_cast<int64_t>(data.size()) - 1;
    const auto axes = values_of(in, 1);
    if (!axes) {
        // Any axis may change size when a signal_size is given and the axes are not known.
        if (in.size() > 2)
            for (int64_t i = 0; i < complex_rank; ++i) out[static_cast<size_t>(i)] = Dimension();
        return {{in[0].type, out}};
    }
    const auto normalized = normalize_axes(node, *axes, complex_rank, "axes");
    if (in.size() > 2) {
        const auto sizes = values_of(in, 2);
        if (sizes && sizes->size() != normalized.size())
            throw_error<InvalidArgument>(node.describe(), ": signal_size has ", sizes->size(),
                                         " values for ", normalized.size(), " axes");
        for (size_t k = 0; k < normalized.size(); ++k) {
            if (!sizes) {
                out[normalized[k]] = Dimension();
            } else if ((*sizes)[k] != -1) {
                if ((*sizes)[k] < 1)
                    throw_error<InvalidArgument>(node.describe(), ": signal_size ", (*sizes)[k],
                                                 " for axis ", normalized[k],
                                                 " must be positive or -1");
                out[normalized[k]] = Dimension((*sizes)[k]);
            }
        }
    }
    return {{in[0].type, out}};
}

// Det-1: [*, M, M] -> [*].
Outputs infer_det(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "input", is_real, "a floating-point type");
    check_rank(node, in, 0, "input", 2, 64);
    const PartialShape& x = in[0].shape;
    if (!x.rank_is_static()) return {{in[0].type, PartialShape::dynamic()}};
    if (!x[x.size() - 1].compatible(x[x.size() - 2]))
        throw_error<InvalidArgument>(node.describe(), ": input ", x,
                                     " must end with square matrices");
    PartialShape out;
    for (size_t i = 0; i + 2 < x.size(); ++i) out.push_back(x[i]);
    return {{in[0].type, out}};
}

// TfIdfVectorizer-1: X [C] or [N, C] integers -> f32 [V] or [N, V], V = max(ngram_indexes) + 1.
Outputs infer_tfidf(const Node& node, const Inputs& in) {
    check_type(node, in, 0, "X", is_integral_number, "an integer type");
    check_rank(node, in, 0, "X", 1, 2);
    const auto& indexes = node.get_attribute<std::vector<int64_t>>("ngram_indexes");
    const auto& counts = node.get_attribute<std::vector<int64_t>>("ngram_counts");
    const auto& pool = node.get_attribute<std::vector<int64_t>>("pool_int64s");
    const int64_t min_n = node.get_attribute<int64_t>("min_gram_length");
    const int64_t max_n = node.get_attribute<int64_t>("max_gram_length");
    if (min_n < 1 || max_n < min_n)
        throw_error<InvalidArgument>(node.describe(), ": gram lengths [", min_n, ", ", max_n,
                                     "] must satisfy 1 <= min_gram_length <= max_gram_length");
    if (node.get_attribute<int64_t>("max_skip_count") < 0)
        throw_error<InvalidArgument>(node.describe(), ": max_skip_count must not be negative");
    if (counts.empty() || counts[0] != 0)
        throw_error<InvalidArgument>(node.describe(),
                                     ": ngram_counts must start with 0 (the 1-grams' offset)");
    // The pool holds counts.size() runs, run n (n = 1, 2, ...) of n-grams of n tokens each.
    size_t grams = 0;
    for (size_t n = 0; n < counts.size(); ++n) {
        const int64_t begin = counts[n];
        const int64_t end =
            n + 1 < counts.size() ? counts[n + 1] : static_cast<int64_t>(pool.size());
        if (begin > end || end > static_cast<int64_t>(pool.size()) ||
            (end - begin) % static_cast<int64_t>(n + 1) != 0)
            throw_error<InvalidArgument>(node.describe(), ": ngram_counts entry ", n, " (", begin,
                                         "..", end, ") does not split pool_int64s (", pool.size(),
                                         " values) into ", n + 1, "-grams");
        grams += static_cast<size_t>(end - begin) / (n + 1);
    }
    if (indexes.size() != grams)
        throw_error<InvalidArgument>(node.describe(), ": ngram_indexes has ", indexes.size(),
                                     " values for ", grams, " n-grams in the pool");
    int64_t width = 0;
    for (int64_t i : indexes) {
        if (i < 0)
            throw_error<InvalidArgument>(node.describe(), ": ngram_indexes holds ", i,
                                         " (must not be negative)");
        width = std::max(width, i + 1);
    }
    const auto& weights = node.get_attribute<std::vector<double>>("weights");
    if (!weights.empty() && weights.size() != indexes.size())
        throw_error<InvalidArgument>(node.describe(), ": weights has ", weights.size(),
                                     " values for ", indexes.size(), " n-grams");
    const PartialShape& x = in[0].shape;
    if (!x.rank_is_static()) return {{element::f32, PartialShape::dynamic()}};
    if (x.size() == 1) return {{element::f32, PartialShape{Dimension(width)}}};
    return {{element::f32, PartialShape{x[0], Dimension(width)}}};
}

}  // namespace

void register_signal_ops(OpRegistry& r) {
    for (const char* type : {"DFT", "IDFT"}) r.add(OpDef{type, 7, "", 2, 3, {}, infer_dft, {}});
    r.add(OpDef{"Det", 1, "", 1, 1, {}, infer_det, {}});
    r.add(OpDef{"TfIdfVectorizer",
                1,
                "",
                1,
                1,
                {required_attr("min_gram_length", AttrType::kInt),
                 required_attr("max_gram_length", AttrType::kInt),
                 required_attr("max_skip_count", AttrType::kInt),
                 required_attr("mode", AttrType::kString, {"TF", "IDF", "TFIDF"}),
                 required_attr("ngram_counts", AttrType::kIntList),
                 required_attr("ngram_indexes", AttrType::kIntList),
                 required_attr("pool_int64s", AttrType::kIntList),
                 optional_attr("weights", AttrType::kFloatList, std::vector<double>{})},
                infer_tfidf,
                {}});
}

}  // namespace vireo::ops_impl
