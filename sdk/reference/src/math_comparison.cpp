// Comparison and logical kernels: Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual,
// LogicalAnd, LogicalOr, LogicalXor, LogicalNot and Select (three-way numpy/pdpd broadcast).
//
// Comparisons follow IEEE 754 for reals (every comparison with NaN is false except NotEqual) and
// write boolean 0/1. Logical ops read any non-zero boolean byte as true.
#include "math_common.hpp"

namespace vireo::reference::math {
namespace {

template <typename Cmp>
struct CompareOp {
    template <typename T>
    bool operator()(T x, T y) const {
        return Cmp{}(x, y);
    }
};

template <typename Cmp>
KernelFactory comparison_factory() {
    return [](const Node& node) -> std::unique_ptr<Kernel> {
        check_same_input_types(node, 0, 1);
        const BroadcastSpec spec = read_broadcast(node);
        const std::string what = node.describe();
        return dispatch(AllTypes{}, input_type(node, 0), what.c_str(), [&](auto tag) {
            using T = decltype(tag);
            return make_kernel([spec](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
                binary_broadcast<T, uint8_t>(in[0], in[1], out[0], spec, CompareOp<Cmp>{});
            });
        });
    };
}

template <typename Logic>
KernelFactory logical_factory() {
    return [](const Node& node) -> std::unique_ptr<Kernel> {
        check_same_input_types(node, 0, 1);
        const BroadcastSpec spec = read_broadcast(node);
        const std::string what = node.describe();
        if (input_type(node, 0) != element::boolean)
            throw_error<NotImplemented>(what, ": logical ops take boolean inputs, got ",
                                        input_type(node, 0));
        return make_kernel([spec](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
            binary_broadcast<uint8_t, uint8_t>(
                in[0], in[1], out[0], spec,
                [](uint8_t x, uint8_t y) { return Logic{}(x != 0, y != 0); });
        });
    };
}

struct LogicalXor {
    bool operator()(bool x, bool y) const { return x != y; }
};

std::unique_ptr<Kernel> make_logical_not(const Node& node) {
    if (input_type(node, 0) != element::boolean)
        throw_error<NotImplemented>(node.describe(), ": LogicalNot takes a boolean input, got ",
                                    input_type(node, 0));
    return make_kernel([](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
        unary_loop(static_cast<const uint8_t*>(in[0].data()), static_cast<uint8_t*>(out[0].data()),
                   out[0].get_size(), [](uint8_t x) -> uint8_t { return x == 0; });
    });
}

/// Select(cond, then, else) for one element type, by byte size (the values are only copied).
template <typename T>
void select(const Tensor& cond, const Tensor& then_t, const Tensor& else_t, Tensor& out,
            const BroadcastSpec& spec) {
    const uint8_t* __restrict pc = static_cast<const uint8_t*>(cond.data());
    const T* __restrict pt = static_cast<const T*>(then_t.data());
    const T* __restrict pe = static_cast<const T*>(else_t.data());
    T* __restrict po = static_cast<T*>(out.data());
    const size_t n = out.get_size();
    if (cond.get_size() == n && then_t.get_size() == n && else_t.get_size() == n &&
        spec.mode != BroadcastSpec::Mode::kNone) {
        for (size_t i = 0; i < n; ++i) po[i] = pc[i] ? pt[i] : pe[i];
        return;
    }
    const Shape& shape = out.get_shape();
    // pdpd: `then` gives the output shape; cond and else are aligned to it at `axis`.
    const MultiBroadcast<3> index({aligned_shape(spec, cond.get_shape(), shape, "Select condition"),
                                   aligned_shape(spec, then_t.get_shape(), shape, "Select then"),
                                   aligned_shape(spec, else_t.get_shape(), shape, "Select else")},
                                  shape);
    index.for_each_run([&](size_t o, const std::array<size_t, 3>& off, size_t run,
                           const std::array<size_t, 3>& step) {
        for (size_t k = 0; k < run; ++k)
            po[o + k] =
                pc[off[0] + k * step[0]] ? pt[off[1] + k * step[1]] : pe[off[2] + k * step[2]];
    });
}

std::unique_ptr<Kernel> make_select(const Node& node) {
    if (input_type(node, 0) != element::boolean)
        throw_error<NotImplemented>(node.describe(), ": Select condition must be boolean, got ",
                                    input_type(node, 0));
    check_same_input_types(node, 1, 2);
    const BroadcastSpec spec = read_broadcast(node);
    const size_t bytes = input_type(node, 1).size();
    if (input_type(node, 1).is_sub_byte())
        throw_error<NotImplemented>(node.describe(), ": Select on sub-byte type ",
                                    input_type(node, 1));
    auto kernel_for = [&](auto tag) {
        using T = decltype(tag);
        return make_kernel([spec](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
            select<T>(in[0], in[1], in[2], out[0], spec);
        });
    };
    switch (bytes) {
        case 1:
            return kernel_for(uint8_t{});
        case 2:
            return kernel_for(uint16_t{});
        case 4:
            return kernel_for(uint32_t{});
        case 8:
            return kernel_for(uint64_t{});
        default:
            throw_error<NotImplemented>(node.describe(), ": Select on element type ",
                                        input_type(node, 1));
    }
}

}  // namespace

void register_comparison_kernels(KernelRegistry& registry) {
    registry.add("Equal", comparison_factory<std::equal_to<>>());
    registry.add("NotEqual", comparison_factory<std::not_equal_to<>>());
    registry.add("Less", comparison_factory<std::less<>>());
    registry.add("LessEqual", comparison_factory<std::less_equal<>>());
    registry.add("Greater", comparison_factory<std::greater<>>());
    registry.add("GreaterEqual", comparison_factory<std::greater_equal<>>());
    registry.add("LogicalAnd", logical_factory<std::logical_and<>>());
    registry.add("LogicalOr", logical_factory<std::logical_or<>>());
    registry.add("LogicalXor", logical_factory<LogicalXor>());
    registry.add("LogicalNot", make_logical_not);
    registry.add("Select", make_select);
}

}  // namespace vireo::reference::math
