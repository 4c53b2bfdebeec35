// Implements GatherND-5/8, ScatterNDUpdate-3/15 (reductions none, sum, prod, min, max, applied in
// order to the value already there) and ScatterElementsUpdate-3/12 (reductions none, sum, prod,
// min, max, mean; use_init_val).
//
// Indices may be negative (counted from the end of their axis); an index outside
// [-dim, dim - 1] is an InvalidArgument naming the op, never an out-of-bounds access. Duplicate
// indices apply in order: the last update wins (ScatterNDUpdate, reduction "none") or every
// update joins the reduction. Reductions accumulate in the element type (f16/bf16 in float,
// integers wrap); an integer mean divides the sum by the count truncating toward zero.
#include <limits>

#include "math_common.hpp"
#include "tensor_common.hpp"

namespace vireo::reference::tensor {
namespace {

size_t product(const Shape& s, size_t from, size_t to) {
    size_t n = 1;
    for (size_t i = from; i < to; ++i) n *= s[i];
    return n;
}

/// An index normalised into [0, dim); throws naming the op, the index and the axis.
size_t checked_index(int64_t idx, size_t dim, const std::string& who, size_t axis) {
    const auto d = static_cast<int64_t>(dim);
    if (idx < -d || idx >= d)
        throw_error<InvalidArgument>(who, ": index ", idx, " is out of range [", -d, ", ", d - 1,
                                     "] for data axis ", axis, " of size ", dim);
    return static_cast<size_t>(idx < 0 ? idx + d : idx);
}

std::unique_ptr<Kernel> make_gather_nd(const Node& node) {
    const int64_t batch_dims = node.get_attribute<int64_t>("batch_dims");
    return make_kernel([who = node.describe(), batch_dims](const std::vector<Tensor>& in,
                                                           std::vector<Tensor>& out) {
        check_arity(in, 2, out, 1, who);
        const Shape& data = in[0].get_shape();
        const Shape& ishape = in[1].get_shape();
        const auto b = static_cast<size_t>(batch_dims);
        if (ishape.empty() || batch_dims < 0 || b >= ishape.size() || b >= data.size())
            throw_error<InvalidArgument>(who, ": batch_dims ", batch_dims, " does not fit data ",
                                         data, " and indices ", ishape);
        const size_t k = ishape.back();
        if (k < 1 || b + k > data.size())
            throw_error<InvalidArgument>(who, ": the last dimension of indices ", ishape,
                                         " plus batch_dims must be in [1, rank of data ", data,
                                         "]");
        for (size_t i = 0; i < b; ++i)
            if (data[i] != ishape[i])
                throw_error<InvalidArgument>(who, ": batch dimension ", i, " differs between data ",
                                             data, " and indices ", ishape);
        const size_t batches = product(data, 0, b);
        const size_t per_batch_data = product(data, b, data.size());
        const size_t slices = product(ishape, b, ishape.size() - 1);
        const size_t slice = product(data, b + k, data.size());
        if (out[0].get_size() != batches * slices * slice)
            throw_error<InvalidArgument>(who, ": output ", out[0].get_shape(),
                                         " does not match data ", data, " gathered by indices ",
                                         ishape);
        std::vector<size_t> strides(k);
        for (size_t j = 0; j < k; ++j) strides[j] = product(data, b + j + 1, data.size());
        const auto indices = read_ints(in[1], who, "input 1 (indices)");
        const size_t bytes = in[0].get_element_type().size();
        const auto* src = static_cast<const uint8_t*>(in[0].data());
        auto* dst = static_cast<uint8_t*>(out[0].data());
        for (size_t bi = 0; bi < batches; ++bi)
            for (size_t s = 0; s < slices; ++s) {
                const int64_t* idx = indices.data() + (bi * slices + s) * k;
                size_t offset = bi * per_batch_data;
                for (size_t j = 0; j < k; ++j)
                    offset += checked_index(idx[j], data[b + j], who, b + j) * strides[j];
                std::memcpy(dst, src + offset * bytes, slice * bytes);
                dst += slice * bytes;
            }
    });
}

enum class Reduction { kNone, kSum, kProd, kMin, kMax, kMean };

Reduction parse_reduction(const Node& node) {
    if (!node.has_attribute("reduction")) return Reduction::kNone;
    const std::string& r = node.get_attribute<std::string>("reduction");
    if (r == "none") return Reduction::kNone;
    if (r == "sum") return Reduction::kSum;
    if (r == "prod") return Reduction::kProd;
    if (r == "min") return Reduction::kMin;
    if (r == "max") return Reduction::kMax;
    if (r == "mean") return Reduction::kMean;
    throw_error<NotImplemented>(node.describe(), ": reduction '", r, "' is not supported");
}

/// The data offset each update element writes: its own coordinates with the axis coordinate
/// replaced by its (checked) index.
/// Indices of the rank of data, no longer than data along every axis but `axis`.
void check_scatter_shapes(const Shape& data, const Shape& ishape, size_t axis,
                          const std::string& who) {
    if (ishape.size() != data.size())
        throw_error<InvalidArgument>(who, ": indices ", ishape, " must have the rank of data ",
                                     data);
    for (size_t i = 0; i < data.size(); ++i)
        if (i != axis && ishape[i] > data[i])
            throw_error<InvalidArgument>(who, ": indices ", ishape, " exceed data ", data,
                                         " at axis ", i);
}

std::vector<size_t> scatter_targets(const Shape& data, const Shape& ishape, size_t axis,
                                    const std::vector<int64_t>& indices, const std::string& who) {
    check_scatter_shapes(data, ishape, axis, who);
    const auto strides = element_strides(data);
    std::vector<size_t> targets(indices.size());
    std::vector<size_t> coord(ishape.size(), 0);
    for (size_t p = 0; p < indices.size(); ++p) {
        size_t offset = 0;
        for (size_t i = 0; i < coord.size(); ++i)
            offset += (i == axis ? checked_index(indices[p], data[axis], who, axis) : coord[i]) *
                      strides[i];
        targets[p] = offset;
        for (size_t i = coord.size(); i-- > 0;) {
            if (++coord[i] < ishape[i]) break;
            coord[i] = 0;
        }
    }
    return targets;
}

template <typename T>
void scatter_reduce(const Tensor& data, const std::vector<size_t>& targets, const Tensor& updates,
                    Tensor& out, Reduction reduction, bool use_init_val) {
    using C = math::compute_t<T>;
    const T* u = static_cast<const T*>(updates.data());
    T* o = static_cast<T*>(out.data());
    if (reduction == Reduction::kNone) {
        for (size_t p = 0; p < targets.size(); ++p) o[targets[p]] = u[p];
        return;
    }
    (void)data;
    std::vector<C> acc(out.get_size());
    std::vector<size_t> count(out.get_size(), 0);
    std::vector<uint8_t> touched(out.get_size(), 0);
    for (size_t t : targets) touched[t] = 1;
    for (size_t t = 0; t < acc.size(); ++t) {
        if (!touched[t]) continue;
        if (use_init_val) {
            acc[t] = math::to_compute(o[t]);
            count[t] = 1;
            continue;
        }
        switch (reduction) {
            case Reduction::kProd:
                acc[t] = C(1);
                break;
            case Reduction::kMin:
                acc[t] = std::numeric_limits<C>::has_infinity ? std::numeric_limits<C>::infinity()
                                                              : std::numeric_limits<C>::max();
                break;
            case Reduction::kMax:
                acc[t] = std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity()
                                                              : std::numeric_limits<C>::lowest();
                break;
            default:
                acc[t] = C(0);
                break;
        }
    }
    for (size_t p = 0; p < targets.size(); ++p) {
        const size_t t = targets[p];
        const C v = math::to_compute(u[p]);
        C& a = acc[t];
        switch (reduction) {
            case Reduction::kSum:
            case Reduction::kMean:
                if constexpr (std::is_integral_v<C>)
                    a = math::wrap_add(a, v);
                else
                    a = a + v;
                break;
            case Reduction::kProd:
                if constexpr (std::is_integral_v<C>)
                    a = math::wrap_mul(a, v);
                else
                    a = a * v;
                break;
            case Reduction::kMin:
                a = v < a ? v : a;
                break;
            case Reduction::kMax:
                a = v > a ? v : a;
                break;
            default:
                break;
        }
        ++count[t];
    }
    for (size_t t = 0; t < acc.size(); ++t) {
        if (!touched[t]) continue;
        C v = acc[t];
        if (reduction == Reduction::kMean && count[t] > 0) {
            if constexpr (std::is_integral_v<C> && std::is_signed_v<C>)
                v = static_cast<C>(static_cast<int64_t>(v) / static_cast<int64_t>(count[t]));
            else if constexpr (std::is_integral_v<C>)
                v = static_cast<C>(static_cast<uint64_t>(v) / static_cast<uint64_t>(count[t]));
            else
                v = v / static_cast<C>(count[t]);
        }
        o[t] = math::from_compute<T>(v);
    }
}

std::unique_ptr<Kernel> make_scatter_nd_update(const Node& node) {
    const Reduction reduction = parse_reduction(node);
    const std::string who = node.describe();
    if (reduction != Reduction::kNone &&
        !contains(NumericTypes{}, node.input_value(0).get_element_type()))
        throw_error<NotImplemented>(who, ": reductions need a number type, got ",
                                    node.input_value(0).get_element_type());
    return make_kernel([who, reduction](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
        check_arity(in, 3, out, 1, who);
        const Shape& data = in[0].get_shape();
        const Shape& ishape = in[1].get_shape();
        if (ishape.empty() || ishape.back() > data.size())
            throw_error<InvalidArgument>(who, ": the last dimension of indices ", ishape,
                                         " must not exceed the rank of data ", data);
        const size_t k = ishape.back();
        const size_t count = product(ishape, 0, ishape.size() - 1);
        const size_t slice = product(data, k, data.size());
        if (in[2].get_size() != count * slice ||
            in[2].get_element_type() != in[0].get_element_type() ||
            out[0].get_byte_size() != in[0].get_byte_size())
            throw_error<InvalidArgument>(who, ": updates ", in[2].get_shape(),
                                         " do not match indices ", ishape, " into data ", data);
        if (out[0].data() != in[0].data() && in[0].get_byte_size() != 0)
            std::memcpy(out[0].data(), in[0].data(), in[0].get_byte_size());
        std::vector<size_t> strides(k);
        for (size_t j = 0; j < k; ++j) strides[j] = product(data, j + 1, data.size());
        const auto indices = read_ints(in[1], who, "input 1 (indices)");
        std::vector<size_t> offsets(count);
        for (size_t i = 0; i < count; ++i) {
            size_t offset = 0;
            for (size_t j = 0; j < k; ++j)
                offset += checked_index(indices[i * k + j], data[j], who, j) * strides[j];
            offsets[i] = offset;
        }
        if (reduction == Reduction::kNone) {
            const size_t bytes = in[0].get_element_type().size();
            const auto* src = static_cast<const uint8_t*>(in[2].data());
            auto* dst = static_cast<uint8_t*>(out[0].data());
            for (size_t i = 0; i < count; ++i)
                std::memcpy(dst + offsets[i] * bytes, src + i * slice * bytes, slice * bytes);
            return;
        }
        // ScatterND-16's reductions apply the updates in order to the value already there.
        std::vector<size_t> targets(count * slice);
        for (size_t i = 0; i < count; ++i)
            for (size_t e = 0; e < slice; ++e) targets[i * slice + e] = offsets[i] + e;
        dispatch(NumericTypes{}, in[0].get_element_type(), who.c_str(), [&](auto tag) {
            scatter_reduce<decltype(tag)>(in[0], targets, in[2], out[0], reduction, true);
        });
    });
}

/// ScatterElementsUpdate without reduction for i32/i64 indices, in one pass over the updates:
/// every index is checked first (nothing is written when one is out of range), then the data is
/// copied and each update written where its index sends it, row by row along the last axis — no
/// list of targets (a detector's multi-scale RoI pooling scatters millions of elements per level).
template <typename I>
void scatter_elements_direct(const Tensor& data_t, const Tensor& indices_t, const Tensor& updates_t,
                             Tensor& out_t, size_t axis, const std::string& who) {
    const Shape& data = data_t.get_shape();
    const Shape& ishape = indices_t.get_shape();
    const I* idx = static_cast<const I*>(indices_t.data());
    const size_t count = indices_t.get_size();
    const auto dim = static_cast<int64_t>(data[axis]);
    for (size_t p = 0; p < count; ++p)
        checked_index(static_cast<int64_t>(idx[p]), data[axis], who, axis);  // throws when out
    if (out_t.data() != data_t.data() && data_t.get_byte_size() != 0)
        std::memcpy(out_t.data(), data_t.data(), data_t.get_byte_size());
    if (count == 0) return;
    const auto strides = element_strides(data);
    const size_t rank = data.size(), last = rank - 1, row = ishape[last];
    const size_t axis_stride = strides[axis];
    dispatch_by_size(data_t.get_element_type(), who, [&](auto tag) {
        using U = decltype(tag);
        const U* u = static_cast<const U*>(updates_t.data());
        U* o = static_cast<U*>(out_t.data());
        std::vector<size_t> coord(rank, 0);
        for (size_t p = 0; p < count; p += row) {
            size_t base = 0;  // the row's offset, without the axis coordinate
            for (size_t i = 0; i < last; ++i)
                if (i != axis) base += coord[i] * strides[i];
            for (size_t j = 0; j < row; ++j) {
                const auto v = static_cast<int64_t>(idx[p + j]);
                const auto at = static_cast<size_t>(v < 0 ? v + dim : v);
                o[base + (axis == last ? at : j + at * axis_stride)] = u[p + j];
            }
            for (size_t i = last; i-- > 0;) {
                if (++coord[i] < ishape[i]) break;
                coord[i] = 0;
            }
        }
    });
}

std::unique_ptr<Kernel> make_scatter_elements_update(const Node& node) {
    const Reduction reduction = parse_reduction(node);
    const bool use_init_val =
        node.has_attribute("use_init_val") ? node.get_attribute<bool>("use_init_val") : true;
    const element::Type type = node.input_value(0).get_element_type();
    const std::string who = node.describe();
    if (reduction != Reduction::kNone && !contains(NumericTypes{}, type))
        throw_error<NotImplemented>(who, ": reductions need a number type, got ", type);
    return make_kernel([who, reduction, use_init_val](const std::vector<Tensor>& in,
                                                      std::vector<Tensor>& out) {
        check_arity(in, 4, out, 1, who);
        const Shape& data = in[0].get_shape();
        const auto axis_values = read_ints(in[3], who, "input 3 (axis)");
        if (axis_values.size() != 1)
            throw_error<InvalidArgument>(who, ": axis must hold one value, got ",
                                         axis_values.size());
        const size_t axis = normalize_axis(axis_values[0], data.size(), who, "axis");
        if (in[1].get_shape() != in[2].get_shape() ||
            in[2].get_element_type() != in[0].get_element_type() ||
            out[0].get_byte_size() != in[0].get_byte_size())
            throw_error<InvalidArgument>(who, ": indices ", in[1].get_shape(), " and updates ",
                                         in[2].get_shape(),
                                         " must have one shape, updates the type of data ", data);
        const element::Type itype = in[1].get_element_type();
        if (reduction == Reduction::kNone && (itype == element::i64 || itype == element::i32) &&
            !data.empty()) {
            check_scatter_shapes(data, in[1].get_shape(), axis, who);
            if (itype == element::i64)
                scatter_elements_direct<int64_t>(in[0], in[1], in[2], out[0], axis, who);
            else
                scatter_elements_direct<int32_t>(in[0], in[1], in[2], out[0], axis, who);
            return;
        }
        const auto targets = scatter_targets(data, in[1].get_shape(), axis,
                                             read_ints(in[1], who, "input 1 (indices)"), who);
        if (out[0].data() != in[0].data() && in[0].get_byte_size() != 0)
            std::memcpy(out[0].data(), in[0].data(), in[0].get_byte_size());
        if (reduction == Reduction::kNone) {
            dispatch_by_size(in[0].get_element_type(), who, [&](auto tag) {
                using U = decltype(tag);
                const U* u = tensor_data<U>(in[2]);
                U* o = tensor_data<U>(out[0]);
                for (size_t p = 0; p < targets.size(); ++p) o[targets[p]] = u[p];
            });
            return;
        }
        dispatch(NumericTypes{}, in[0].get_element_type(), who.c_str(), [&](auto tag) {
            scatter_reduce<decltype(tag)>(in[0], targets, in[2], out[0], reduction, use_init_val);
        });
    });
}

}  // namespace

void register_scatter_nd_kernels(KernelRegistry& registry) {
    registry.add("GatherND", make_gather_nd);
    registry.add("ScatterNDUpdate", make_scatter_nd_update);
    registry.add("ScatterElementsUpdate", make_scatter_elements_update);
}

}  // namespace vireo::reference::tensor
