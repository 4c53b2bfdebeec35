// FakeQuantize kernel: quantise to `levels` steps between input_low/high and map the step onto
// output_low/high; the four limit inputs broadcast to the data (numpy, pdpd or none).
//
// Per the FakeQuantize-1 spec: x <= min(il, ih) gives ol, x > max(il, ih) gives oh, otherwise
// round((x - il) / (ih - il) * (levels - 1)) / (levels - 1) * (oh - ol) + ol, with round-half-to-
// even (std::nearbyint in the default rounding mode). Real types, computed in the compute type.
#include <algorithm>

#include "math_common.hpp"

namespace vireo::reference::math {
namespace {

template <typename C>
C fake_quantize(C x, C il, C ih, C ol, C oh, C steps) {
    if (x <= std::min(il, ih)) return ol;
    if (x > std::max(il, ih)) return oh;
    return std::nearbyint((x - il) / (ih - il) * steps) / steps * (oh - ol) + ol;
}

template <typename T>
void fake_quantize(const std::vector<Tensor>& in, Tensor& out, const BroadcastSpec& spec,
                   double levels) {
    using C = compute_t<T>;
    const C steps = static_cast<C>(levels - 1);
    const T* x = static_cast<const T*>(in[0].data());
    std::array<const T*, 4> lim{};
    for (size_t j = 0; j < 4; ++j) lim[j] = static_cast<const T*>(in[j + 1].data());
    T* o = static_cast<T*>(out.data());
    const size_t n = out.get_size();
    const bool scalar_limits = std::all_of(in.begin() + 1, in.begin() + 5,
                                           [](const Tensor& t) { return t.get_size() == 1; });
    if (scalar_limits && in[0].get_size() == n) {
        const C il = static_cast<C>(lim[0][0]), ih = static_cast<C>(lim[1][0]);
        const C ol = static_cast<C>(lim[2][0]), oh = static_cast<C>(lim[3][0]);
        for (size_t i = 0; i < n; ++i)
            o[i] = static_cast<T>(fake_quantize(static_cast<C>(x[i]), il, ih, ol, oh, steps));
        return;
    }
    const Shape& shape = out.get_shape();
    std::array<Shape, 5> aligned;
    static const char* const names[] = {"FakeQuantize data", "FakeQuantize input_low",
                                        "FakeQuantize input_high", "FakeQuantize output_low",
                                        "FakeQuantize output_high"};
    for (size_t j = 0; j < 5; ++j)
        aligned[j] = aligned_shape(spec, in[j].get_shape(), shape, names[j]);
    MultiBroadcast<5>(aligned, shape)
        .for_each_run([&](size_t ob, const std::array<size_t, 5>& off, size_t run,
                          const std::array<size_t, 5>& st) {
            for (size_t k = 0; k < run; ++k) {
                o[ob + k] = static_cast<T>(fake_quantize(static_cast<C>(x[off[0] + k * st[0]]),
                                                         static_cast<C>(lim[0][off[1] + k * st[1]]),
                                                         static_cast<C>(lim[1][off[2] + k * st[2]]),
                                                         static_cast<C>(lim[2][off[3] + k * st[3]]),
                                                         static_cast<C>(lim[3][off[4] + k * st[4]]),
                                                         steps));
            }
        });
}

std::unique_ptr<Kernel> make_fake_quantize(const Node& node) {
    const int64_t levels = node.get_attribute<int64_t>("levels");
    if (levels < 2)
        throw_error<InvalidArgument>(node.describe(), ": levels must be >= 2, got ", levels);
    check_same_input_types(node, 0, 4);
    const BroadcastSpec spec = read_broadcast(node);
    const std::string what = node.describe();
    return dispatch(RealTypes{}, input_type(node, 0), what.c_str(), [&](auto tag) {
        using T = decltype(tag);
        return make_kernel([spec, levels](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
            fake_quantize<T>(in, out[0], spec, static_cast<double>(levels));
        });
    });
}

}  // namespace

void register_quantize_kernels(KernelRegistry& registry) {
    registry.add("FakeQuantize", make_fake_quantize);
}

}  // namespace vireo::reference::math
