// Implements Unique-10: the distinct elements of the flattened input, or its distinct slices along
// `axis`, with first-occurrence indices, inverse indices and counts.
//
// Elements compare by value: -0.0 equals 0.0 and NaNs equal each other (sorted after every
// number, like numpy's unique with equal_nan). Slices compare element by element in row-major
// order (lexicographically). `sorted` orders the results ascending; otherwise they keep the order
// of their first occurrence.
#include <algorithm>
#include <numeric>

#include "math_common.hpp"
#include "tensor_common.hpp"

namespace vireo::reference::tensor {
namespace {

/// -1, 0 or 1 comparing two values, NaN last and equal to NaN.
template <typename C>
int compare_values(C a, C b) {
    if constexpr (std::is_floating_point_v<C>) {
        const bool na = a != a, nb = b != b;
        if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
    }
    return a < b ? -1 : (b < a ? 1 : 0);
}

template <typename T>
void unique(const Tensor& data, std::optional<size_t> axis, bool sorted, std::vector<Tensor>& out,
            const std::string& who) {
    const Shape& shape = data.get_shape();
    size_t outer = 1, len = data.get_size(), inner = 1;
    if (axis) {
        len = shape[*axis];
        for (size_t i = 0; i < *axis; ++i) outer *= shape[i];
        for (size_t i = *axis + 1; i < shape.size(); ++i) inner *= shape[i];
    }
    const T* x = tensor_data<T>(data);
    // Candidate j is the slice {x[(o * len + j) * inner + k]} for every o, k.
    auto compare = [&](size_t a, size_t b) {
        for (size_t o = 0; o < outer; ++o)
            for (size_t k = 0; k < inner; ++k) {
                const int c = compare_values(math::to_compute(x[(o * len + a) * inner + k]),
                                             math::to_compute(x[(o * len + b) * inner + k]));
                if (c) return c;
            }
        return 0;
    };
    std::vector<size_t> order(len);
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return compare(a, b) < 0; });
    // Groups of equal candidates, each led by its first occurrence (stable sort keeps it first).
    std::vector<size_t> first, count, group_of(len);
    for (size_t i = 0; i < len; ++i) {
        if (i == 0 || compare(order[i - 1], order[i]) != 0) {
            first.push_back(order[i]);
            count.push_back(0);
        }
        group_of[order[i]] = first.size() - 1;
        ++count.back();
    }
    // Output position of each group: ascending, or by first occurrence.
    const size_t u = first.size();
    std::vector<size_t> groups(u);
    std::iota(groups.begin(), groups.end(), size_t{0});
    if (!sorted)
        std::sort(groups.begin(), groups.end(),
                  [&](size_t a, size_t b) { return first[a] < first[b]; });
    std::vector<size_t> position(u);
    for (size_t i = 0; i < u; ++i) position[groups[i]] = i;

    if (out[0].get_size() != outer * u * inner || out[1].get_size() != u ||
        out[2].get_size() != len || out[3].get_size() != u)
        throw_error<InvalidArgument>(who, ": outputs ", out[0].get_shape(), ", ",
                                     out[1].get_shape(), ", ", out[2].get_shape(), ", ",
                                     out[3].get_shape(), " do not fit ", u, " unique entries of ",
                                     len, " in data ", shape);
    T* values = tensor_data<T>(out[0]);
    for (size_t o = 0; o < outer; ++o)
        for (size_t i = 0; i < u; ++i)
            for (size_t k = 0; k < inner; ++k)
                values[(o * u + i) * inner + k] = x[(o * len + first[groups[i]]) * inner + k];
    auto store = [](Tensor& t, size_t i, size_t v) {
        if (t.get_element_type() == element::i32)
            tensor_data<int32_t>(t)[i] = static_cast<int32_t>(v);
        else
            tensor_data<int64_t>(t)[i] = static_cast<int64_t>(v);
    };
    for (size_t i = 0; i < u; ++i) {
        store(out[1], i, first[groups[i]]);
        store(out[3], i, count[groups[i]]);
    }
    for (size_t j = 0; j < len; ++j) store(out[2], j, position[group_of[j]]);
}

std::unique_ptr<Kernel> make_unique_kernel(const Node& node) {
    const bool sorted = node.has_attribute("sorted") ? node.get_attribute<bool>("sorted") : true;
    for (size_t i = 1; i < 4; ++i) {
        const element::Type t = node.get_output_element_type(i);
        if (t != element::i32 && t != element::i64)
            throw_error<NotImplemented>(node.describe(), ": output ", i,
                                        " must be i32 or i64, got ", t);
    }
    return make_kernel(
        [who = node.describe(), sorted](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
            check_arity(in, 1, out, 4, who);
            std::optional<size_t> axis;
            if (in.size() > 1 && in[1]) {
                const auto v = read_ints(in[1], who, "input 1 (axis)");
                if (v.size() != 1)
                    throw_error<InvalidArgument>(who, ": axis must hold one value, got ", v.size());
                axis = normalize_axis(v[0], in[0].get_shape().size(), who, "axis");
            }
            dispatch(AllTypes{}, in[0].get_element_type(), who.c_str(),
                     [&](auto tag) { unique<decltype(tag)>(in[0], axis, sorted, out, who); });
        });
}

}  // namespace

void register_unique_kernels(KernelRegistry& registry) {
    registry.add("Unique", make_unique_kernel);
}

}  // namespace vireo::reference::tensor
