// Normalisation kernels: BatchNormInference (v1 and v5 input orders), MVN (v1 attributes and v6
// axes input) and NormalizeL2. Real types; statistics are accumulated in double.
#include <algorithm>
#include <cctype>

#include "math_reduce.hpp"

namespace vireo::reference::math {
namespace {

/// f(i, j) for every element i of a tensor of `shape` and the element j of a keep_dims-reduced
/// tensor of `stats_shape` that it broadcasts from.
template <typename F>
void for_each_broadcast(const Shape& shape, const Shape& stats_shape, F f) {
    BroadcastIndex index(shape, stats_shape, shape);
    index.for_each_run([&](size_t out, size_t, size_t is, size_t run, size_t, size_t step) {
        for (size_t k = 0; k < run; ++k) f(out + k, is + k * step);
    });
}

/// Per-group mean over the `reduced` axes (one value per element of the keep_dims shape).
std::vector<double> group_mean(const double* x, const Shape& shape,
                               const std::vector<bool>& reduced) {
    std::vector<double> mean(shape_size(reduced_shape(shape, reduced)), 0.0);
    reduce_accumulate(x, shape, reduced, mean.data(), [](double& a, double v) { a += v; });
    const double count = static_cast<double>(reduced_count(shape, reduced));
    for (double& m : mean) m /= count;
    return mean;
}

template <typename T>
std::vector<double> to_double(const Tensor& t) {
    const T* p = static_cast<const T*>(t.data());
    std::vector<double> v(t.get_size());
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<double>(static_cast<compute_t<T>>(p[i]));
    return v;
}

// ---- BatchNormInference ----

template <typename T>
void batch_norm(const Tensor& data, const Tensor& gamma, const Tensor& beta, const Tensor& mean,
                const Tensor& var, double eps, Tensor& out, const std::string& what) {
    using C = compute_t<T>;
    const Shape& shape = data.get_shape();
    if (shape.size() < 2)
        throw_error<InvalidArgument>(what, ": data must have rank >= 2, got shape ", shape);
    const size_t channels = shape[1];
    for (const Tensor* t : {&gamma, &beta, &mean, &var})
        if (t->get_size() != channels)
            throw_error<InvalidArgument>(what, ": per-channel inputs need ", channels,
                                         " elements, got shape ", t->get_shape());
    const std::vector<double> g = to_double<T>(gamma), b = to_double<T>(beta),
                              m = to_double<T>(mean), v = to_double<T>(var);
    std::vector<C> scale(channels), shift(channels);
    for (size_t c = 0; c < channels; ++c) {
        const double s = g[c] / std::sqrt(v[c] + eps);
        scale[c] = static_cast<C>(s);
        shift[c] = static_cast<C>(b[c] - m[c] * s);
    }
    size_t inner = 1;
    for (size_t i = 2; i < shape.size(); ++i) inner *= shape[i];
    const T* __restrict x = static_cast<const T*>(data.data());
    T* __restrict o = static_cast<T*>(out.data());
    for (size_t n = 0, i = 0; n < shape[0]; ++n) {
        for (size_t c = 0; c < channels; ++c, i += inner) {
            const C s = scale[c], h = shift[c];
            for (size_t k = 0; k < inner; ++k)
                o[i + k] = static_cast<T>(static_cast<C>(x[i + k]) * s + h);
        }
    }
}

std::unique_ptr<Kernel> make_batch_norm(const Node& node) {
    const double eps = node.get_attribute<double>("epsilon");
    // v1 orders the inputs (gamma, beta, data, mean, variance); v5 (data, gamma, beta, mean,
    // variance).
    const bool v5 = node.get_version() >= 5;
    const size_t data_index = v5 ? 0 : 2;
    check_same_input_types(node, 0, 4);
    const std::string what = node.describe();
    return dispatch(RealTypes{}, input_type(node, data_index), what.c_str(), [&](auto tag) {
        using T = decltype(tag);
        return make_kernel(
            [eps, v5, what](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
                if (v5)
                    batch_norm<T>(in[0], in[1], in[2], in[3], in[4], eps, out[0], what);
                else
                    batch_norm<T>(in[2], in[0], in[1], in[3], in[4], eps, out[0], what);
            });
    });
}

// ---- MVN ----

struct MvnConfig {
    bool normalize_variance = false;
    double eps = 1e-9;
    bool eps_inside_sqrt = true;
    // v1: axes from across_channels / reduction_axes; v6: from input 1.
    bool axes_from_input = true;
    bool across_channels = false;
    std::vector<int64_t> reduction_axes;
};

template <typename T>
void mvn(const Tensor& data, const std::vector<bool>& reduced, const MvnConfig& cfg, Tensor& out) {
    const Shape& shape = data.get_shape();
    std::vector<double> x = to_double<T>(data);
    const Shape stats_shape = reduced_shape(shape, reduced);
    const std::vector<double> mean = group_mean(x.data(), shape, reduced);
    for_each_broadcast(shape, stats_shape, [&](size_t i, size_t j) { x[i] -= mean[j]; });
    if (cfg.normalize_variance) {
        std::vector<double> var(mean.size(), 0.0);
        reduce_accumulate(x.data(), shape, reduced, var.data(),
                          [](double& a, double v) { a += v * v; });
        const double count = static_cast<double>(reduced_count(shape, reduced));
        for (double& v : var) {
            v /= count;
            v = cfg.eps_inside_sqrt ? std::sqrt(v + cfg.eps) : std::sqrt(v) + cfg.eps;
        }
        for_each_broadcast(shape, stats_shape, [&](size_t i, size_t j) { x[i] /= var[j]; });
    }
    T* o = static_cast<T*>(out.data());
    for (size_t i = 0; i < x.size(); ++i) o[i] = static_cast<T>(static_cast<compute_t<T>>(x[i]));
}

std::vector<bool> mvn_axes(const std::vector<Tensor>& in, const MvnConfig& cfg,
                           const std::string& what) {
    const size_t rank = in[0].get_shape().size();
    if (cfg.axes_from_input) return read_axes_mask(in[1], rank, what);
    std::vector<bool> mask(rank, false);
    if (!cfg.reduction_axes.empty()) {
        for (int64_t a : cfg.reduction_axes) mask[normalize_axis(a, rank, what)] = true;
    } else {
        for (size_t i = cfg.across_channels ? 1 : 2; i < rank; ++i) mask[i] = true;
    }
    return mask;
}

std::unique_ptr<Kernel> make_mvn(const Node& node) {
    MvnConfig cfg;
    cfg.normalize_variance = node.get_attribute<bool>("normalize_variance");
    cfg.eps = node.get_attribute<double>("eps");
    cfg.axes_from_input = node.get_input_size() > 1;
    if (node.has_attribute("eps_mode")) {
        std::string mode = node.get_attribute<std::string>("eps_mode");
        std::transform(mode.begin(), mode.end(), mode.begin(),
                       [](unsigned char c) { return std::tolower(c); });
        if (mode != "inside_sqrt" && mode != "outside_sqrt")
            throw_error<NotImplemented>(node.describe(), ": eps_mode '", mode,
                                        "' (expected inside_sqrt or outside_sqrt)");
        cfg.eps_inside_sqrt = mode == "inside_sqrt";
    }
    if (node.has_attribute("across_channels"))
        cfg.across_channels = node.get_attribute<bool>("across_channels");
    if (node.has_attribute("reduction_axes"))
        cfg.reduction_axes = node.get_attribute<std::vector<int64_t>>("reduction_axes");
    const std::string what = node.describe();
    return dispatch(RealTypes{}, input_type(node, 0), what.c_str(), [&](auto tag) {
        using T = decltype(tag);
        return make_kernel(
            [cfg, what](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
                mvn<T>(in[0], mvn_axes(in, cfg, what), cfg, out[0]);
            },
            5.0);
    });
}

// ---- NormalizeL2 ----

template <typename T>
void normalize_l2(const Tensor& data, const Tensor& axes, double eps, bool eps_add, Tensor& out,
                  const std::string& what) {
    const Shape& shape = data.get_shape();
    const std::vector<bool> reduced = read_axes_mask(axes, shape.size(), what);
    std::vector<double> x = to_double<T>(data);
    std::vector<double> norm(shape_size(reduced_shape(shape, reduced)), 0.0);
    reduce_accumulate(x.data(), shape, reduced, norm.data(),
                      [](double& a, double v) { a += v * v; });
    for (double& n : norm) n = std::sqrt(eps_add ? n + eps : std::max(n, eps));
    T* o = static_cast<T*>(out.data());
    for_each_broadcast(shape, reduced_shape(shape, reduced), [&](size_t i, size_t j) {
        o[i] = static_cast<T>(static_cast<compute_t<T>>(x[i] / norm[j]));
    });
}

std::unique_ptr<Kernel> make_normalize_l2(const Node& node) {
    const double eps = node.get_attribute<double>("eps");
    std::string mode = node.get_attribute<std::string>("eps_mode");
    std::transform(mode.begin(), mode.end(), mode.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (mode != "add" && mode != "max")
        throw_error<NotImplemented>(node.describe(), ": eps_mode '", mode,
                                    "' (expected add or max)");
    const bool eps_add = mode == "add";
    const std::string what = node.describe();
    return dispatch(RealTypes{}, input_type(node, 0), what.c_str(), [&](auto tag) {
        using T = decltype(tag);
        return make_kernel(
            [eps, eps_add, what](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
                normalize_l2<T>(in[0], in[1], eps, eps_add, out[0], what);
            },
            3.0);
    });
}

}  // namespace

void register_norm_kernels(KernelRegistry& registry) {
    registry.add("BatchNormInference", make_batch_norm);
    registry.add("MVN", make_mvn);
    registry.add("NormalizeL2", make_normalize_l2);
}

}  // namespace vireo::reference::math
