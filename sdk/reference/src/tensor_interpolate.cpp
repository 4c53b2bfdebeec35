// Implements Interpolate-4 and Interpolate-11 (nearest, linear with antialias, linear_onnx, cubic,
// bilinear_pillow and bicubic_pillow; every coordinate transformation and nearest mode; pads) as
// separable passes, one per axis.
#include <algorithm>
#include <cmath>
#include <limits>

#include "tensor_common.hpp"

namespace vireo::reference::tensor {
namespace {

enum class Mode { kNearest, kLinear, kLinearOnnx, kCubic, kBilinearPillow, kBicubicPillow };
enum class Transform {
    kHalfPixel,
    kPytorchHalfPixel,
    kAsymmetric,
    kTfHalfPixelForNn,
    kAlignCorners,
    kHalfPixelSymmetric,
    kTfCropAndResize
};
enum class Nearest { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kSimple };

constexpr size_t kZero = std::numeric_limits<size_t>::max();  // a tap that reads padding (0)

struct Tap {
    size_t index;  // input position along the axis, or kZero
    double weight;
};

// Taps of every output position along one axis: taps[first[j] .. first[j + 1]). `outside[j]`:
// tf_crop_and_resize maps j outside the input, so the output there is extrapolation_value.
struct AxisPlan {
    std::vector<size_t> first;
    std::vector<Tap> taps;
    std::vector<bool> outside;
};

struct Attrs {
    Mode mode;
    Transform transform;
    Nearest nearest;
    bool antialias;
    bool exclude_outside;  // cubic: taps outside the input get no weight, the rest renormalised
    double cube_coeff;
    bool scales_mode;
    double extrapolation_value;
    std::vector<int64_t> pads_begin, pads_end;
};

// tf_crop_and_resize's region of one axis, as fractions of its length.
struct Crop {
    double start = 0, end = 1;
};

template <typename E>
E pick(const std::string& value, const std::vector<std::pair<const char*, E>>& table,
       const std::string& who, const char* attr) {
    for (const auto& [name, e] : table)
        if (value == name) return e;
    throw_error<NotImplemented>(who, ": ", attr, " '", value, "' is not supported");
}

// `resized_len` is the resized length as ONNX defines it: scale * input length, a fraction when
// a scale gives it (the output holds its floor); out_len == resized_len in sizes mode.
double original_coordinate(Transform t, double x, double scale, size_t out_len, size_t in_len,
                           double resized_len, Crop crop) {
    switch (t) {
        case Transform::kHalfPixel:
            return (x + 0.5) / scale - 0.5;
        case Transform::kHalfPixelSymmetric: {
            // Resize-19: half_pixel, shifted so that a fractional resized length (the output
            // holds its floor) stays centred on the input.
            const double adjustment = static_cast<double>(out_len) / resized_len;
            const double centre = static_cast<double>(in_len) / 2;
            return centre * (1 - adjustment) + (x + 0.5) / scale - 0.5;
        }
        case Transform::kTfCropAndResize: {
            const double last = static_cast<double>(in_len) - 1;
            return out_len > 1 ? crop.start * last + x * (crop.end - crop.start) * last /
                                                         static_cast<double>(out_len - 1)
                               : 0.5 * (crop.start + crop.end) * last;
        }
        case Transform::kPytorchHalfPixel:
            return out_len > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
        case Transform::kAsymmetric:
            return x / scale;
        case Transform::kTfHalfPixelForNn:
            return (x + 0.5) / scale;
        case Transform::kAlignCorners:
            // The fractional length, not the output's: downsampling 4 by 0.6 maps x to
            // x * 3 / 1.4, not x * 3 / 1 (ONNX's reference and backend tests).
            return resized_len == 1.0 ? 0.0
                                      : x * static_cast<double>(in_len - 1) / (resized_len - 1);
    }
    return x;
}

int64_t nearest_pixel(Nearest mode, double x, bool downsample) {
    switch (mode) {
        case Nearest::kRoundPreferFloor:
            return x == std::floor(x) + 0.5 ? static_cast<int64_t>(std::floor(x))
                                            : static_cast<int64_t>(std::round(x));
        case Nearest::kRoundPreferCeil:
            return static_cast<int64_t>(std::round(x));
        case Nearest::kFloor:
            return static_cast<int64_t>(std::floor(x));
        case Nearest::kCeil:
            return static_cast<int64_t>(std::ceil(x));
        case Nearest::kSimple:
            return downsample ? static_cast<int64_t>(std::ceil(x)) : static_cast<int64_t>(x);
    }
    return 0;
}

// Plans one axis: `in_len` is the padded input length, `pad` the begin pad (padded position p
// reads input p - pad), `data_len` the unpadded length.
AxisPlan plan_axis(const Attrs& a, size_t in_len, int64_t pad, size_t data_len, size_t out_len,
                   double scale, Crop crop) {
    AxisPlan plan;
    plan.outside.assign(out_len, false);
    auto source = [&](int64_t p) -> size_t {
        const int64_t s = p - pad;
        return s >= 0 && s < static_cast<int64_t>(data_len) ? static_cast<size_t>(s) : kZero;
    };
    const auto last = static_cast<int64_t>(in_len) - 1;
    auto clamp = [&](int64_t p) { return std::clamp<int64_t>(p, 0, last); };
    const double resized_len =
        a.scales_mode ? scale * static_cast<double>(in_len) : static_cast<double>(out_len);
    for (size_t j = 0; j < out_len; ++j) {
        plan.first.push_back(plan.taps.size());
        const double x = original_coordinate(a.transform, static_cast<double>(j), scale, out_len,
                                             in_len, resized_len, crop);
        if (a.transform == Transform::kTfCropAndResize &&
            !(x >= 0 && x <= static_cast<double>(in_len) - 1)) {
            plan.outside[j] = true;  // no taps: the output is extrapolation_value
            continue;
        }
        switch (a.mode) {
            case Mode::kNearest:
                // The pixel is picked from the coordinate rounded to f32, as ONNX Runtime and
                // PyTorch compute it: a scale of 0.6 is 0.6000000238 in f32, so in double 3 / scale
                // is 4.99999998 and floor picks pixel 4 where both pick 5 (F.interpolate with
                // scale_factor 0.6 or 1.7 exports as Resize with those f32 scales).
                plan.taps.push_back(
                    {source(clamp(nearest_pixel(
                         a.nearest, static_cast<double>(static_cast<float>(x)), scale < 1.0))),
                     1.0});
                break;
            case Mode::kLinearOnnx: {
                const double c = std::clamp(x, 0.0, static_cast<double>(last));
                const auto x0 = static_cast<int64_t>(std::floor(c));
                const int64_t x1 = std::min(x0 + 1, last);
                const double w1 = c - static_cast<double>(x0);
                plan.taps.push_back({source(x0), 1.0 - w1});
                plan.taps.push_back({source(x1), w1});
                break;
            }
            case Mode::kLinear: {
                // A triangle filter, widened by 1/scale when antialiasing a downscale; taps outside
                // the input are dropped and the rest renormalised.
                const double k = a.antialias && scale < 1.0 ? scale : 1.0;
                const auto reach = static_cast<int64_t>(std::ceil(1.0 / k)) + 1;
                const auto centre = static_cast<int64_t>(std::round(x));
                const size_t begin = plan.taps.size();
                double sum = 0;
                for (int64_t p = centre - reach; p <= centre + reach; ++p) {
                    if (p < 0 || p > last) continue;
                    const double w =
                        k * std::max(0.0, 1.0 - std::fabs(k * (x - static_cast<double>(p))));
                    if (w <= 0) continue;
                    plan.taps.push_back({source(p), w});
                    sum += w;
                }
                for (size_t t = begin; t < plan.taps.size(); ++t) plan.taps[t].weight /= sum;
                break;
            }
            case Mode::kBilinearPillow:
            case Mode::kBicubicPillow: {
                // Pillow's resampling (and Interpolate-11's): centres at (j + 0.5) input pixels per
                // output pixel whatever coordinate_transformation_mode says, the filter widened by
                // the downscale factor (always antialiased), taps in [centre - support,
                // centre + support) rounded, clipped to the input, weights normalised.
                const bool cubic = a.mode == Mode::kBicubicPillow;
                const double in_per_out = 1.0 / scale;
                const double widen = std::max(in_per_out, 1.0);
                const double support = (cubic ? 2.0 : 1.0) * widen;
                const double centre = (static_cast<double>(j) + 0.5) * in_per_out;
                const int64_t lo =
                    std::max<int64_t>(static_cast<int64_t>(centre - support + 0.5), int64_t{0});
                const int64_t hi = std::min<int64_t>(static_cast<int64_t>(centre + support + 0.5),
                                                     static_cast<int64_t>(in_len));
                auto filter = [&](double d) {
                    d = std::fabs(d);
                    if (!cubic) return d < 1.0 ? 1.0 - d : 0.0;
                    const double A = a.cube_coeff;
                    if (d < 1.0) return ((A + 2.0) * d - (A + 3.0)) * d * d + 1.0;
                    if (d < 2.0) return (((d - 5.0) * d + 8.0) * d - 4.0) * A;
                    return 0.0;
                };
                const size_t begin = plan.taps.size();
                double sum = 0;
                for (int64_t p = lo; p < hi; ++p) {
                    const double w = filter((static_cast<double>(p) - centre + 0.5) / widen);
                    plan.taps.push_back({source(p), w});
                    sum += w;
                }
                if (sum != 0)
                    for (size_t t = begin; t < plan.taps.size(); ++t) plan.taps[t].weight /= sum;
                break;
            }
            case Mode::kCubic: {
                const double A = a.cube_coeff;
                const auto x0 = static_cast<int64_t>(std::floor(x));
                const double t = x - static_cast<double>(x0);
                const double s1 = t + 1, s2 = 1 - t, s3 = 2 - t;
                const double w[4] = {((A * s1 - 5 * A) * s1 + 8 * A) * s1 - 4 * A,
                                     ((A + 2) * t - (A + 3)) * t * t + 1,
                                     ((A + 2) * s2 - (A + 3)) * s2 * s2 + 1,
                                     ((A * s3 - 5 * A) * s3 + 8 * A) * s3 - 4 * A};
                if (!a.exclude_outside) {
                    for (int i = 0; i < 4; ++i)
                        plan.taps.push_back({source(clamp(x0 - 1 + i)), w[i]});
                    break;
                }
                double sum = 0;
                for (int i = 0; i < 4; ++i)
                    if (x0 - 1 + i >= 0 && x0 - 1 + i <= last) sum += w[i];
                for (int i = 0; i < 4; ++i) {
                    const int64_t p = x0 - 1 + i;
                    if (p >= 0 && p <= last && sum != 0)
                        plan.taps.push_back({source(p), w[i] / sum});
                }
                break;
            }
        }
    }
    plan.first.push_back(plan.taps.size());
    return plan;
}

// One weighted pass along `axis`: [outer, in_len, inner] -> [outer, out_len, inner].
void weighted_pass(const std::vector<double>& in, const Shape& shape, size_t axis,
                   const AxisPlan& plan, std::vector<double>& out) {
    size_t outer = 1, inner = 1;
    for (size_t i = 0; i < axis; ++i) outer *= shape[i];
    for (size_t i = axis + 1; i < shape.size(); ++i) inner *= shape[i];
    const size_t in_len = shape[axis], out_len = plan.first.size() - 1;
    out.assign(outer * out_len * inner, 0.0);
    if (inner == 1) {
        // The last axis: each output is a short dot product; keep the sum in a register.
        for (size_t o = 0; o < outer; ++o) {
            const double* src = in.data() + o * in_len;
            double* dst = out.data() + o * out_len;
            for (size_t j = 0; j < out_len; ++j) {
                double sum = 0.0;
                for (size_t t = plan.first[j]; t < plan.first[j + 1]; ++t) {
                    const Tap& tap = plan.taps[t];
                    if (tap.index != kZero) sum += tap.weight * src[tap.index];
                }
                dst[j] = sum;
            }
        }
        return;
    }
    for (size_t o = 0; o < outer; ++o)
        for (size_t j = 0; j < out_len; ++j) {
            double* dst = out.data() + (o * out_len + j) * inner;
            for (size_t t = plan.first[j]; t < plan.first[j + 1]; ++t) {
                const Tap& tap = plan.taps[t];
                if (tap.index == kZero) continue;
                const double* src = in.data() + (o * in_len + tap.index) * inner;
                for (size_t k = 0; k < inner; ++k) dst[k] += tap.weight * src[k];
            }
        }
}

// Nearest: each output position copies one input position (or zero padding), exactly.
template <typename U>
void gather_pass(const std::vector<U>& in, const Shape& shape, size_t axis, const AxisPlan& plan,
                 std::vector<U>& out) {
    size_t outer = 1, inner = 1;
    for (size_t i = 0; i < axis; ++i) outer *= shape[i];
    for (size_t i = axis + 1; i < shape.size(); ++i) inner *= shape[i];
    const size_t in_len = shape[axis], out_len = plan.first.size() - 1;
    out.assign(outer * out_len * inner, U{0});
    for (size_t o = 0; o < outer; ++o)
        for (size_t j = 0; j < out_len; ++j) {
            const size_t index = plan.taps[plan.first[j]].index;
            if (index == kZero) continue;
            std::copy_n(in.data() + (o * in_len + index) * inner, inner,
                        out.data() + (o * out_len + j) * inner);
        }
}

// Integers round to nearest and saturate: cubic filters overshoot, and a u8 image must clip at 0
// and 255 as image libraries do, not wrap.
template <typename T>
T saturate(double v) {
    const double r = std::round(v);
    if (r <= static_cast<double>(std::numeric_limits<T>::lowest()))
        return std::numeric_limits<T>::lowest();
    if (r >= static_cast<double>(std::numeric_limits<T>::max()))
        return std::numeric_limits<T>::max();
    return static_cast<T>(r);
}

// Rounds and saturates intermediate values as `type` would hold them (integer types only).
void round_to(element::Type type, std::vector<double>& values) {
    dispatch(NumericTypes{}, type, "Interpolate", [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_integral_v<T>)
            for (double& v : values) v = static_cast<double>(saturate<T>(v));
    });
}

class InterpolateKernel final : public Kernel {
  public:
    explicit InterpolateKernel(const Node& node)
        : m_who(node.describe()), m_v11(node.get_version() >= 11) {
        m_attrs.mode = pick<Mode>(node.get_attribute<std::string>("mode"),
                                  {{"nearest", Mode::kNearest},
                                   {"linear", Mode::kLinear},
                                   {"linear_onnx", Mode::kLinearOnnx},
                                   {"cubic", Mode::kCubic},
                                   {"bilinear_pillow", Mode::kBilinearPillow},
                                   {"bicubic_pillow", Mode::kBicubicPillow}},
                                  m_who, "mode");
        m_attrs.transform =
            pick<Transform>(node.get_attribute<std::string>("coordinate_transformation_mode"),
                            {{"half_pixel", Transform::kHalfPixel},
                             {"pytorch_half_pixel", Transform::kPytorchHalfPixel},
                             {"asymmetric", Transform::kAsymmetric},
                             {"tf_half_pixel_for_nn", Transform::kTfHalfPixelForNn},
                             {"align_corners", Transform::kAlignCorners},
                             {"half_pixel_symmetric", Transform::kHalfPixelSymmetric},
                             {"tf_crop_and_resize", Transform::kTfCropAndResize}},
                            m_who, "coordinate_transformation_mode");
        m_attrs.nearest = pick<Nearest>(node.get_attribute<std::string>("nearest_mode"),
                                        {{"round_prefer_floor", Nearest::kRoundPreferFloor},
                                         {"round_prefer_ceil", Nearest::kRoundPreferCeil},
                                         {"floor", Nearest::kFloor},
                                         {"ceil", Nearest::kCeil},
                                         {"simple", Nearest::kSimple}},
                                        m_who, "nearest_mode");
        m_attrs.antialias = node.get_attribute<bool>("antialias");
        m_attrs.exclude_outside =
            node.has_attribute("exclude_outside") && node.get_attribute<bool>("exclude_outside");
        m_attrs.cube_coeff = node.get_attribute<double>("cube_coeff");
        m_attrs.scales_mode = node.get_attribute<std::string>("shape_calculation_mode") == "scales";
        m_attrs.extrapolation_value = node.has_attribute("extrapolation_value")
                                          ? node.get_attribute<double>("extrapolation_value")
                                          : 0.0;
        m_attrs.pads_begin = node.get_attribute<std::vector<int64_t>>("pads_begin");
        m_attrs.pads_end = node.get_attribute<std::vector<int64_t>>("pads_end");
        const element::Type type = node.input_value(0).get_element_type();
        if (!contains(NumericTypes{}, type))
            throw_error<NotImplemented>(m_who, ": element type ", type, " is not supported");
    }

    void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        check_arity(inputs, 2, outputs, 1, m_who);
        const Shape& data = inputs[0].get_shape();
        const Shape& out = outputs[0].get_shape();
        const size_t rank = data.size();
        if (out.size() != rank)
            throw_error<InvalidArgument>(m_who, ": output ", out, " and data ", data,
                                         " differ in rank");
        // Inputs: v4 (data, sizes, scales[, axes]); v11 (data, scales_or_sizes[, axes[, roi]]).
        const size_t axes_input = m_v11 ? 2 : 3;
        const size_t target_input = m_v11 || !m_attrs.scales_mode ? 1 : 2;
        std::vector<int64_t> axes;
        if (inputs.size() > axes_input) {
            axes = read_ints(inputs[axes_input], m_who, "axes");
        } else {
            for (size_t i = 0; i < rank; ++i) axes.push_back(static_cast<int64_t>(i));
        }
        std::vector<double> scale(rank, 1.0);
        std::vector<bool> listed(rank, false);
        std::vector<double> given;
        if (m_attrs.scales_mode) {
            if (inputs.size() <= target_input)
                throw_error<InvalidArgument>(m_who, ": the scales input is missing");
            given = read_reals(inputs[target_input]);
            if (given.size() != axes.size())
                throw_error<InvalidArgument>(m_who, ": ", given.size(), " scales for ", axes.size(),
                                             " axes");
        }
        std::vector<Crop> crop(rank);
        std::vector<double> roi;
        if (m_attrs.transform == Transform::kTfCropAndResize) {
            if (inputs.size() < 4)
                throw_error<InvalidArgument>(m_who, ": tf_crop_and_resize needs the roi input");
            roi = read_reals(inputs[3]);
            if (roi.size() != 2 * axes.size())
                throw_error<InvalidArgument>(m_who, ": roi holds ", roi.size(), " values for ",
                                             axes.size(), " axes (a start and an end each)");
        }
        for (size_t j = 0; j < axes.size(); ++j) {
            const size_t a = normalize_axis(axes[j], rank, m_who, "axes value");
            listed[a] = true;
            if (m_attrs.scales_mode) scale[a] = given[j];
            if (!roi.empty()) crop[a] = {roi[j], roi[j + axes.size()]};
        }
        // Per axis: padded length, and the scale (sizes mode: output over padded input).
        std::vector<size_t> padded(rank);
        std::vector<int64_t> pad(rank, 0);
        for (size_t a = 0; a < rank; ++a) {
            pad[a] = a < m_attrs.pads_begin.size() ? m_attrs.pads_begin[a] : 0;
            const int64_t end = a < m_attrs.pads_end.size() ? m_attrs.pads_end[a] : 0;
            const int64_t len = static_cast<int64_t>(data[a]) + pad[a] + end;
            if (len < 0)
                throw_error<InvalidArgument>(m_who, ": pads remove more than axis ", a, " of data ",
                                             data);
            padded[a] = static_cast<size_t>(len);
            if (!m_attrs.scales_mode && listed[a] && padded[a] > 0)
                scale[a] = static_cast<double>(out[a]) / static_cast<double>(padded[a]);
            if (!listed[a] && out[a] != padded[a])
                throw_error<InvalidArgument>(m_who, ": output ", out, " resizes axis ", a,
                                             " which is not in axes");
        }
        std::vector<std::pair<size_t, AxisPlan>> plans;
        for (size_t a = 0; a < rank; ++a) {
            if (!listed[a] && pad[a] == 0 && padded[a] == data[a]) continue;
            if (listed[a] && padded[a] == 0 && out[a] != 0)
                throw_error<InvalidArgument>(m_who, ": cannot resize the empty axis ", a,
                                             " of data ", data);
            plans.emplace_back(
                a, plan_axis(m_attrs, padded[a], pad[a], data[a], out[a], scale[a], crop[a]));
        }
        // Pillow resamples the last axis (width) first, and an 8-bit image is rounded and clipped
        // after each pass; the pillow modes do the same so that they give its pixels.
        const bool pillow =
            m_attrs.mode == Mode::kBilinearPillow || m_attrs.mode == Mode::kBicubicPillow;
        if (pillow) std::reverse(plans.begin(), plans.end());
        if (m_attrs.mode == Mode::kNearest) {
            dispatch_by_size(inputs[0].get_element_type(), m_who, [&](auto tag) {
                using U = decltype(tag);
                run_passes<U>(inputs[0], plans, outputs[0], true);
            });
        } else {
            run_passes<double>(inputs[0], plans, outputs[0], false, pillow);
        }
        if (m_attrs.transform == Transform::kTfCropAndResize) extrapolate(plans, outputs[0]);
    }

  private:
    // tf_crop_and_resize: every output element with a position outside the input on some axis
    // is extrapolation_value.
    void extrapolate(const std::vector<std::pair<size_t, AxisPlan>>& plans, Tensor& out) const {
        const Shape& shape = out.get_shape();
        std::vector<size_t> stride(shape.size(), 1);
        for (size_t i = shape.size(); i-- > 1;) stride[i - 1] = stride[i] * shape[i];
        dispatch(NumericTypes{}, out.get_element_type(), m_who.c_str(), [&](auto tag) {
            using T = decltype(tag);
            T value;
            if constexpr (std::is_integral_v<T>) {
                value = saturate<T>(m_attrs.extrapolation_value);
            } else {
                value = static_cast<T>(m_attrs.extrapolation_value);
            }
            T* dst = tensor_data<T>(out);
            const size_t size = out.get_size();
            for (size_t i = 0; i < size; ++i)
                for (const auto& [axis, plan] : plans)
                    if (plan.outside[(i / stride[axis]) % shape[axis]]) {
                        dst[i] = value;
                        break;
                    }
        });
    }

    static std::vector<double> read_reals(const Tensor& t) {
        std::vector<double> v(t.get_size());
        dispatch(NumericTypes{}, t.get_element_type(), "scales", [&](auto tag) {
            using T = decltype(tag);
            const T* src = tensor_data<T>(t);
            for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(src[i]);
        });
        return v;
    }

    // W is the working element: the raw element (nearest) or double (weighted modes).
    template <typename W>
    void run_passes(const Tensor& in, const std::vector<std::pair<size_t, AxisPlan>>& plans,
                    Tensor& out, bool gather, bool round_each_pass = false) const {
        Shape shape = in.get_shape();
        std::vector<W> cur(in.get_size()), next;
        if constexpr (std::is_same_v<W, double>) {
            dispatch(NumericTypes{}, in.get_element_type(), m_who.c_str(), [&](auto tag) {
                using T = decltype(tag);
                const T* src = tensor_data<T>(in);
                for (size_t i = 0; i < cur.size(); ++i) cur[i] = static_cast<double>(src[i]);
            });
        } else {
            std::copy_n(tensor_data<W>(in), cur.size(), cur.begin());
        }
        for (const auto& [axis, plan] : plans) {
            if constexpr (std::is_same_v<W, double>) {
                if (gather) {
                    gather_pass(cur, shape, axis, plan, next);
                } else {
                    weighted_pass(cur, shape, axis, plan, next);
                    if (round_each_pass) round_to(out.get_element_type(), next);
                }
            } else {
                gather_pass(cur, shape, axis, plan, next);
            }
            shape[axis] = plan.first.size() - 1;
            cur.swap(next);
        }
        if (shape != out.get_shape())
            throw_error<InvalidArgument>(m_who, ": computed shape ", shape, " differs from output ",
                                         out.get_shape());
        if constexpr (std::is_same_v<W, double>) {
            dispatch(NumericTypes{}, out.get_element_type(), m_who.c_str(), [&](auto tag) {
                using T = decltype(tag);
                T* dst = tensor_data<T>(out);
                for (size_t i = 0; i < cur.size(); ++i) {
                    if constexpr (std::is_integral_v<T>) {
                        dst[i] = saturate<T>(cur[i]);
                    } else {
                        dst[i] = static_cast<T>(cur[i]);
                    }
                }
            });
        } else {
            std::copy_n(cur.begin(), cur.size(), tensor_data<W>(out));
        }
    }

    std::string m_who;
    bool m_v11;
    Attrs m_attrs;
};

}  // namespace

void register_interpolate_kernels(KernelRegistry& registry) {
    registry.add("Interpolate",
                 [](const Node& node) { return std::make_unique<InterpolateKernel>(node); });
}

}  // namespace vireo::reference::tensor
