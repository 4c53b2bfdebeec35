// Translators for ONNX's network layers: Gemm/MatMul, Conv/ConvTranspose, pooling, the
// normalisations (BatchNormalization, InstanceNormalization, LayerNormalization, LRN, MVN, LpNorm)
// and Dropout.
#include <algorithm>
#include <cmath>

#include "ops/common.hpp"

namespace vireo::onnx_import {
namespace {

struct Window {
    std::vector<int64_t> kernel, strides, dilations, pads_begin, pads_end;
    std::string auto_pad;
};

// Kernel/strides/dilations/pads of a conv or pool node with `spatial` axes; `kernel` may come
// from the weights' shape when the attribute is absent.
Window window(const NodeContext& ctx, size_t spatial,
              const std::vector<int64_t>& kernel_fallback = {}) {
    Window w;
    w.kernel = ctx.attr_ints("kernel_shape", kernel_fallback);
    w.strides = ctx.attr_ints("strides", std::vector<int64_t>(spatial, 1));
    w.dilations = ctx.attr_ints("dilations", std::vector<int64_t>(spatial, 1));
    const auto pads = ctx.attr_ints("pads", std::vector<int64_t>(2 * spatial, 0));
    if (pads.size() != 2 * spatial)
        ctx.fail("pads has ", pads.size(), " values, expected ", 2 * spatial);
    if (w.strides.size() != spatial || w.dilations.size() != spatial)
        ctx.fail("strides/dilations must have ", spatial, " values");
    for (size_t i = 0; i < spatial; ++i) {
        if (pads[i] < 0 || pads[i + spatial] < 0) ctx.fail("negative pads are not allowed");
        if (w.strides[i] < 1 || w.dilations[i] < 1) ctx.fail("strides and dilations must be >= 1");
    }
    w.pads_begin.assign(pads.begin(), pads.begin() + static_cast<long>(spatial));
    w.pads_end.assign(pads.begin() + static_cast<long>(spatial), pads.end());
    w.auto_pad = auto_pad(ctx);
    return w;
}

size_t spatial_rank(const NodeContext& ctx, const Output& x) {
    const int64_t rank = static_rank(ctx, x);
    if (rank < 3)
        ctx.fail("input of rank ", rank, " has no spatial axes (expected N, C, spatial...)");
    return static_cast<size_t>(rank - 2);
}

std::vector<int64_t> static_kernel(const NodeContext& ctx, const Output& w, size_t spatial) {
    const auto& shape = w.get_partial_shape();
    std::vector<int64_t> k;
    if (shape.rank().is_static() && static_cast<size_t>(shape.rank().get_length()) == spatial + 2)
        for (size_t i = 2; i < spatial + 2; ++i)
            k.push_back(shape[i].is_static() ? shape[i].get_length() : -1);
    (void)ctx;
    return k;
}

}  // namespace

Output build_conv(const NodeContext& ctx, Output x, Output w) {
    // The weights' rank (static in every exported model) fixes the input's: N, C, spatial...
    if (x.get_partial_shape().rank().is_dynamic() && w.get_partial_shape().rank().is_static())
        x = with_rank(ctx, x, w.get_partial_shape().rank().get_length(), "X");
    const size_t spatial = spatial_rank(ctx, x);
    const Window win = window(ctx, spatial);
    const int64_t group = ctx.attr_int("group", 1);
    if (group < 1) ctx.fail("group must be >= 1, got ", group);
    Output y;
    if (group == 1) {
        y = op::convolution(x, w, win.strides, win.pads_begin, win.pads_end, win.dilations,
                            win.auto_pad);
    } else {
        const int64_t wrank = static_rank(ctx, w, "weights");
        // [M, C/G, k...] -> [G, M/G, C/G, k...]
        Output target = op::concat({ints({group, -1}), dims(w, 1, wrank)}, 0);
        w = op::reshape(w, target, false);
        y = op::group_convolution(x, w, win.strides, win.pads_begin, win.pads_end, win.dilations,
                                  win.auto_pad);
    }
    return y;
}

namespace {

OutputVector conv(const NodeContext& ctx) {
    Output y = build_conv(ctx, ctx.input(0), ctx.input(1));
    if (ctx.has_input(2)) y = op::add(y, per_channel(ctx.input(2), static_rank(ctx, y)));
    return one(y);
}

OutputVector conv_transpose(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    const Output& w = ctx.input(1);
    const size_t spatial = spatial_rank(ctx, x);
    Window win = window(ctx, spatial, static_kernel(ctx, w, spatial));
    const int64_t group = ctx.attr_int("group", 1);
    auto output_padding = ctx.attr_ints("output_padding", std::vector<int64_t>(spatial, 0));
    const auto output_shape = ctx.attr_ints("output_shape");
    if (output_padding.size() != spatial) ctx.fail("output_padding must have ", spatial, " values");
    const auto& xs = x.get_partial_shape();
    // ONNX computes the pads itself for output_shape and for SAME_*: do it here when the shapes are
    // static, so the core op gets explicit pads.
    if (!output_shape.empty() || win.auto_pad == "same_upper" || win.auto_pad == "same_lower") {
        if (win.kernel.size() != spatial || std::count(win.kernel.begin(), win.kernel.end(), -1) ||
            !xs.is_static())
            ctx.unsupported("output_shape / SAME auto_pad need static input and kernel shapes");
        const auto os = output_shape.size() > spatial
                            ? std::vector<int64_t>(output_shape.end() - static_cast<long>(spatial),
                                                   output_shape.end())
                            : output_shape;
        for (size_t i = 0; i < spatial; ++i) {
            const int64_t in = xs[i + 2].get_length();
            const int64_t full = win.strides[i] * (in - 1) + output_padding[i] +
                                 (win.kernel[i] - 1) * win.dilations[i] + 1;
            const int64_t out = os.empty() ? in * win.strides[i] : os[i];
            const int64_t total = full - out;
            if (total < 0) {
                // The requested output is larger than the full result: ONNX extends it with
                // output padding at the end.
                win.pads_begin[i] = 0;
                win.pads_end[i] = 0;
                output_padding[i] += -total;
                continue;
            }
            const bool upper =
                os.empty() ? win.auto_pad == "same_upper" : win.auto_pad != "same_lower";
            win.pads_begin[i] = upper ? total / 2 : total - total / 2;
            win.pads_end[i] = total - win.pads_begin[i];
        }
        win.auto_pad = "explicit";
    }
    auto one_group = [&](const Output& xg, const Output& wg) -> Output {
        return op::convolution_backprop_data(xg, wg, win.strides, win.pads_begin, win.pads_end,
                                             win.dilations, output_padding, {}, win.auto_pad);
    };
    Output y;
    if (group == 1) {
        y = one_group(x, w);
    } else {
        auto xs_split = op::split(x, op::int64_scalar(1), group);
        auto ws_split = op::split(w, op::int64_scalar(0), group);
        OutputVector parts;
        for (int64_t g = 0; g < group; ++g)
            parts.push_back(one_group(xs_split->output(g), ws_split->output(g)));
        y = op::concat(parts, 1);
    }
    if (ctx.has_input(2))
        y = op::add(y, per_channel(ctx.input(2), static_cast<int64_t>(spatial) + 2));
    return one(y);
}

/// MaxPool's storage_order=1: the pooling op gives row-major indices flattened over the whole
/// input; ONNX (and ONNX Runtime) keep the batch and channel offset and number the spatial
/// position column-major, h + w * H (+ d * H * W ...). Rebuilt from the row-major index with
/// integer arithmetic on the input's spatial dimensions, static or read at run time.
Output column_major_spatial_index(const Output& row_major, const Output& x, size_t spatial) {
    const Output shape = op::shape_of(x)->output(0);
    std::vector<Output> dims;
    for (size_t i = 0; i < spatial; ++i)
        dims.push_back(
            op::gather(shape, op::int64_scalar(static_cast<int64_t>(2 + i)), op::int64_scalar(0))
                ->output(0));
    Output plane = op::int64_scalar(1)->output(0);
    for (const Output& d : dims) plane = op::multiply(plane, d)->output(0);
    const Output within = make_node("FloorMod", {row_major, plane})->output(0);
    Output result = op::subtract(row_major, within)->output(0);  // batch and channel offset
    Output row_stride = plane, col_stride = op::int64_scalar(1)->output(0);
    for (size_t i = 0; i < spatial; ++i) {
        row_stride = op::divide(row_stride, dims[i])->output(0);
        const Output coord =
            make_node("FloorMod", {op::divide(within, row_stride)->output(0), dims[i]})->output(0);
        result = op::add(result, op::multiply(coord, col_stride))->output(0);
        col_stride = op::multiply(col_stride, dims[i])->output(0);
    }
    return result;
}

// ONNX's ceil_mode is PyTorch's (ONNX's MaxPool/AveragePool text: "sliding windows that would start
// in the right padded region are ignored"): a last window that would start in the end padding is
// dropped, which is opset14's "ceil_torch".
OutputVector max_pool(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    const Window win = window(ctx, spatial_rank(ctx, x));
    const std::string rounding = ctx.attr_int("ceil_mode", 0) ? "ceil_torch" : "floor";
    auto pool =
        op::max_pool_with_indices(x, win.strides, win.dilations, win.pads_begin, win.pads_end,
                                  win.kernel, rounding, win.auto_pad, element::i64, 0);
    if (ctx.attr_int("storage_order", 0) == 0 || !ctx.has_output(1))
        return {pool->output(0), pool->output(1)};
    return {pool->output(0), column_major_spatial_index(pool->output(1), x, win.kernel.size())};
}

/// window() for ops whose kernel_shape attribute must name every spatial axis.
Window full_window(const NodeContext& ctx, size_t spatial) {
    Window w = window(ctx, spatial);
    if (w.kernel.size() != spatial)
        ctx.fail("kernel_shape must have ", spatial, " values, got ", w.kernel.size());
    return w;
}

/// MaxUnpool-9/11: zeros of the unpooled shape, (in - 1) * stride + kernel - pads per spatial
/// axis, with X's values scattered to the flat positions MaxPool's indices give (over the whole
/// tensor, batch and channel included); an `output_shape` input pads that with zeros at the end.
OutputVector max_unpool(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    const size_t spatial = spatial_rank(ctx, x);
    const Window win = full_window(ctx, spatial);
    Output indices = ctx.input(1);
    if (indices.get_element_type() != element::i64) indices = op::convert(indices, element::i64);
    const Output in_shape = op::shape_of(x);
    std::vector<int64_t> stride(spatial + 2, 1), extra(spatial + 2, 0);
    for (size_t i = 0; i < spatial; ++i) {
        stride[i + 2] = win.strides[i];
        extra[i + 2] = win.kernel[i] - win.strides[i] - win.pads_begin[i] - win.pads_end[i];
    }
    // (in - 1) * s + k - pads = in * s + (k - s - pads); the batch and channel axes stay.
    const Output shape = op::add(op::multiply(in_shape, ints(stride)), ints(extra));
    const Output zero = scalar(x.get_element_type(), 0.0);
    const Output flat_zeros = op::reshape(op::broadcast(zero, shape), ints({-1}), false);
    const Output flat = make_node("ScatterElementsUpdate",
                                  {flat_zeros, op::reshape(indices, ints({-1}), false),
                                   op::reshape(x, ints({-1}), false), op::int64_scalar(0)},
                                  {}, 3)
                            ->output(0);
    Output y = op::reshape(flat, shape, false);
    if (ctx.has_input(2)) {
        // The indices address the unpooled shape; a larger output_shape (what MaxPool saw before
        // its floor rounding dropped the last rows) gets zeros after the end, as ORT does.
        const Output wanted = op::convert(ctx.input(2), element::i64);
        y = op::pad(y, op::multiply(shape, ints(std::vector<int64_t>(spatial + 2, 0))),
                    op::subtract(wanted, shape), "constant", zero);
    }
    return one(y);
}

OutputVector average_pool(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    const Window win = window(ctx, spatial_rank(ctx, x));
    const bool exclude_pad = ctx.attr_int("count_include_pad", 0) == 0;
    const std::string rounding = ctx.attr_int("ceil_mode", 0) ? "ceil_torch" : "floor";
    for (int64_t d : win.dilations)
        if (d != 1) ctx.unsupported("dilated average pooling is not supported");
    const auto pooled = op::avg_pool(x, win.strides, win.pads_begin, win.pads_end, win.kernel,
                                     exclude_pad, rounding, win.auto_pad);
    const bool padded =
        std::any_of(win.pads_begin.begin(), win.pads_begin.end(), [](int64_t p) { return p; }) ||
        std::any_of(win.pads_end.begin(), win.pads_end.end(), [](int64_t p) { return p; });
    if (exclude_pad || rounding != "ceil_torch" || win.auto_pad != "explicit" || !padded)
        return one(pooled);
    // count_include_pad with ceil_mode: ONNX divides a window by its taps inside the padded
    // input, padding included, but not by the part of a last window past the padding; the
    // core's AvgPool (OpenVINO's rule) divides by the whole kernel. So the padding becomes real
    // zeros and the pool excludes only what lies past them; its output is cut to the
    // original's windows (with the padding inside the data, no window starts in it any more).
    const auto spatial = win.pads_begin.size();
    std::vector<int64_t> begin(2, 0), end(2, 0);
    begin.insert(begin.end(), win.pads_begin.begin(), win.pads_begin.end());
    end.insert(end.end(), win.pads_end.begin(), win.pads_end.end());
    const Output zeros =
        op::pad(x, ints(begin), ints(end), "constant", scalar(x.get_element_type(), 0.0));
    const std::vector<int64_t> none(spatial, 0);
    const Output inside = op::avg_pool(zeros, win.strides, none, none, win.kernel,
                                       /*exclude_pad=*/true, rounding, "explicit");
    // The windows to keep: the pooling as written, whose shape is all that is read of it (a
    // constant when static; else its ShapeOf, which computes no element on CPU or TEMPLATE).
    Output windows;
    if (pooled->get_output_partial_shape(0).is_static()) {
        std::vector<int64_t> dims;
        for (size_t d : pooled->get_output_shape(0)) dims.push_back(static_cast<int64_t>(d));
        windows = ints(dims);
    } else {
        windows = op::shape_of(pooled);
    }
    const auto rank = static_cast<int64_t>(spatial + 2);
    return one(op::slice(inside, ints(std::vector<int64_t>(spatial + 2, 0)), windows,
                         ints(std::vector<int64_t>(spatial + 2, 1)), ints([rank] {
                             std::vector<int64_t> axes;
                             for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
                             return axes;
                         }())));
}

/// LpPool-1/2/11/18: (sum over the window of |x|^p)^(1/p), the padding counting as zeros. Every
/// window then holds prod(kernel) taps, so the sum is an average pool that counts the padding,
/// times the kernel size: AvgPool (oneDNN on CPU) between element-wise ops. Dilations and
/// ceil_mode (LpPool-18) are refused naming the attribute (a ceil-mode window past the padding
/// holds fewer taps).
OutputVector lp_pool(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    const size_t spatial = spatial_rank(ctx, x);
    const Window win = full_window(ctx, spatial);
    for (int64_t d : win.dilations)
        if (d != 1) ctx.unsupported("dilations other than 1 are not supported");
    if (ctx.attr_int("ceil_mode", 0) != 0) ctx.unsupported("ceil_mode=1 is not supported");
    // LpPool-1 names the exponent as a float; LpPool-2 and later as an int.
    const double p =
        ctx.opset() < 2 ? ctx.attr_float("p", 2.0) : static_cast<double>(ctx.attr_int("p", 2));
    if (!(p > 0) || !std::isfinite(p)) ctx.fail("p must be a positive number, got ", p);
    const auto type = x.get_element_type();
    const Output magnitude = op::unary("Abs", x);
    const Output powered = p == 1.0   ? magnitude
                           : p == 2.0 ? Output(op::multiply(x, x))
                                      : Output(op::power(magnitude, scalar(type, p)));
    double taps = 1;
    for (int64_t k : win.kernel) taps *= static_cast<double>(k);
    const Output mean = op::avg_pool(powered, win.strides, win.pads_begin, win.pads_end, win.kernel,
                                     /*exclude_pad=*/false, "floor", win.auto_pad);
    const Output sum = op::multiply(mean, scalar(type, taps));
    if (p == 1.0) return one(sum);
    if (p == 2.0) return one(op::sqrt(sum));
    return one(op::power(sum, scalar(type, 1.0 / p)));
}

/// GlobalLpPool-1/2: (sum over the spatial axes of |x|^p)^(1/p), ReduceL1 / ReduceL2 for p 1 and 2.
OutputVector global_lp_pool(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    const Output axes = axes_range(2, static_rank(ctx, x));
    const double p =
        ctx.opset() < 2 ? ctx.attr_float("p", 2.0) : static_cast<double>(ctx.attr_int("p", 2));
    if (!(p > 0) || !std::isfinite(p)) ctx.fail("p must be a positive number, got ", p);
    if (p == 1.0) return one(op::reduce("ReduceL1", x, axes, true));
    if (p == 2.0) return one(op::reduce("ReduceL2", x, axes, true));
    const auto type = x.get_element_type();
    const Output sum =
        op::reduce("ReduceSum", op::power(op::unary("Abs", x), scalar(type, p)), axes, true);
    return one(op::power(sum, scalar(type, 1.0 / p)));
}

Translator global_pool(const std::string& reduce) {
    return [reduce](const NodeContext& ctx) {
        const Output& x = ctx.input(0);
        return one(op::reduce(reduce, x, axes_range(2, static_rank(ctx, x)), true));
    };
}

OutputVector gemm(const NodeContext& ctx) {
    Output a = ctx.input(0), b = ctx.input(1);
    const auto t = a.get_element_type();
    const double alpha = ctx.attr_float("alpha", 1.0), beta = ctx.attr_float("beta", 1.0);
    Output y = op::matmul(a, b, ctx.attr_int("transA", 0) != 0, ctx.attr_int("transB", 0) != 0);
    if (alpha != 1.0) y = op::multiply(y, scalar(t, alpha));
    if (ctx.has_input(2) && beta != 0.0) {
        Output c = ctx.input(2);
        if (beta != 1.0) c = op::multiply(c, scalar(t, beta));
        y = op::add(y, c);
    }
    return one(y);
}

// Training mode (BatchNormalization-14/15's training_mode=1; before opset 14, asking for the mean
// and var outputs): y is normalised with the batch's own statistics, mean and population variance
// over every axis but the channel axis 1, and the running statistics move towards them:
// running = input * momentum + current * (1 - momentum), as ONNX's reference computes them.
OutputVector batch_norm_training(const NodeContext& ctx, double eps) {
    const Output& x = ctx.input(0);
    const int64_t rank = static_rank(ctx, x);
    if (rank < 2) ctx.fail("input of rank ", rank, " has no channel axis (expected N, C, ...)");
    const auto t = x.get_element_type();
    std::vector<int64_t> axes{0};
    for (int64_t a = 2; a < rank; ++a) axes.push_back(a);
    const Output mean = op::reduce_mean(x, ints(axes), false);  // [C]
    const Output centered = op::subtract(x, per_channel(mean, rank));
    const Output var = op::reduce_mean(op::multiply(centered, centered), ints(axes), false);
    auto in_type = [&](const Output& v) {
        return v.get_element_type() == t ? v : op::convert(v, t)->output(0);
    };
    const Output scale = per_channel(in_type(ctx.input(1)), rank);
    const Output bias = per_channel(in_type(ctx.input(2)), rank);
    Output y = op::divide(op::multiply(scale, centered),
                          op::sqrt(op::add(per_channel(var, rank), scalar(t, eps))));
    y = op::add(y, bias);
    const double momentum = ctx.attr_float("momentum", 0.9);
    // The running statistics keep the type of the input mean and var (ONNX's T2).
    auto running = [&](size_t input, const Output& current) -> Output {
        const Output& old = ctx.input(input);
        const auto t2 = old.get_element_type();
        const Output cur = t2 == t ? current : op::convert(current, t2)->output(0);
        return op::add(op::multiply(old, scalar(t2, momentum)),
                       op::multiply(cur, scalar(t2, 1.0 - momentum)));
    };
    return {y, ctx.has_output(1) ? running(3, mean) : Output(),
            ctx.has_output(2) ? running(4, var) : Output()};
}

OutputVector batch_norm(const NodeContext& ctx) {
    const double eps = ctx.attr_float("epsilon", 1e-5);
    if (ctx.opset() < 9 && ctx.attr_int("spatial", 1) == 0)
        ctx.unsupported("spatial=0 (per-element statistics) is not supported");
    const bool wants_running = ctx.has_output(1) || ctx.has_output(2);
    bool training;
    if (ctx.opset() >= 14) {
        training = ctx.attr_int("training_mode", 0) != 0;
        if (!training && wants_running)
            ctx.fail("outputs running_mean and running_var exist only with training_mode=1");
    } else {
        // Before opset 14 the outputs say the mode: Y alone is inference, Y, mean, var, ... is
        // training. saved_mean and saved_var (outputs 3 and 4) were left to each runtime (some
        // give the variance, others its inverse square root), so they are refused.
        for (size_t i = 3; i < ctx.output_size(); ++i)
            if (ctx.has_output(i))
                ctx.unsupported("output ", i, i == 3 ? " (saved_mean)" : " (saved_var)",
                                " of BatchNormalization before opset 14 is not supported (its "
                                "meaning is implementation-defined); mean and var are");
        training = wants_running;
    }
    if (training) return batch_norm_training(ctx, eps);
    return one(op::batch_norm_inference(ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3),
                                        ctx.input(4), eps));
}

OutputVector instance_norm(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    const int64_t rank = static_rank(ctx, x);
    Output y =
        op::mvn(x, axes_range(2, rank), true, ctx.attr_float("epsilon", 1e-5), "inside_sqrt");
    y = op::multiply(y, per_channel(ctx.input(1), rank));
    return one(op::add(y, per_channel(ctx.input(2), rank)));
}

/// GroupNormalization-18/21: x [N, C, ...] seen as [N, G, C/G * ...], each group normalised (mean
/// and population variance, epsilon inside the root), then scale and bias: per group ([G]) in
/// opset 18, per channel ([C]) from opset 21 (an opset-18 scale of C values, C != G, is read per
/// channel too: producers wrote that before the specification changed). stash_type (21) asks for
/// f32 statistics, which is what an f32 model computes anyway.
OutputVector group_norm(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    const int64_t rank = static_rank(ctx, x);
    if (rank < 2) ctx.fail("input must have rank >= 2, got ", rank);
    const int64_t groups = ctx.attr_int("num_groups");
    if (groups < 1) ctx.fail("num_groups must be >= 1, got ", groups);
    const auto& channels = x.get_partial_shape()[1];
    if (channels.is_static() && channels.get_length() % groups != 0)
        ctx.fail("the ", channels.get_length(), " channels do not divide into ", groups, " groups");
    const double eps = ctx.attr_float("epsilon", 1e-5);
    const Output grouped = op::reshape(x, ints({0, groups, -1}), true);
    Output y = op::mvn(grouped, ints({2}), true, eps, "inside_sqrt");
    const auto& scale_shape = ctx.input(1).get_partial_shape();
    const bool per_group =
        ctx.opset() < 21 && !(scale_shape.rank().is_static() &&
                              scale_shape.rank().get_length() == 1 && scale_shape[0].is_static() &&
                              channels.is_static() && scale_shape[0].get_length() != groups &&
                              scale_shape[0].get_length() == channels.get_length());
    if (per_group) {
        // [G] -> [G, 1] against [N, G, rest].
        y = op::multiply(y, op::unsqueeze(ctx.input(1), ints({1})));
        y = op::add(y, op::unsqueeze(ctx.input(2), ints({1})));
        return one(op::reshape(y, op::shape_of(x), false));
    }
    y = op::reshape(y, op::shape_of(x), false);
    y = op::multiply(y, per_channel(ctx.input(1), rank));
    return one(op::add(y, per_channel(ctx.input(2), rank)));
}

OutputVector layer_norm(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    const int64_t rank = static_rank(ctx, x);
    const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", -1), rank);
    const double eps = ctx.attr_float("epsilon", 1e-5);
    const Output axes = axes_range(axis, rank);
    const auto t = x.get_element_type();
    Output y = op::mvn(x, axes, true, eps, "inside_sqrt");
    y = op::multiply(y, ctx.input(1));
    if (ctx.has_input(2)) y = op::add(y, ctx.input(2));
    Output mean, inv_std;
    if (ctx.has_output(1) || ctx.has_output(2)) {
        mean = op::reduce_mean(x, axes, true);
        Output centered = op::subtract(x, mean);
        Output var = op::reduce_mean(op::multiply(centered, centered), axes, true);
        inv_std = op::divide(scalar(t, 1.0), op::sqrt(op::add(var, scalar(t, eps))));
    }
    return {y, mean, inv_std};
}

OutputVector lrn(const NodeContext& ctx) {
    const int64_t size = ctx.attr_int("size");
    if (size < 1) ctx.fail("size must be >= 1, got ", size);
    return one(make_node("LRN", {ctx.input(0), ints({1})},
                         {{"alpha", ctx.attr_float("alpha", 1e-4)},
                          {"beta", ctx.attr_float("beta", 0.75)},
                          {"bias", ctx.attr_float("bias", 1.0)},
                          {"size", size}}));
}

OutputVector mean_variance_norm(const NodeContext& ctx) {
    const auto axes = ctx.attr_ints("axes", {0, 2, 3});
    return one(op::mvn(ctx.input(0), ints(axes), true, 1e-9, "outside_sqrt"));
}

OutputVector lp_norm(const NodeContext& ctx) {
    const Output& x = ctx.input(0);
    const int64_t rank = static_rank(ctx, x);
    const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", -1), rank);
    const int64_t p = ctx.attr_int("p", 2);
    if (p == 2) return one(op::normalize_l2(x, ints({axis}), 0.0, "add"));
    if (p == 1) return one(op::divide(x, op::reduce("ReduceL1", x, ints({axis}), true)));
    ctx.fail("p must be 1 or 2, got ", p);
}

// Dropout's training mode: mask = U >= ratio with U uniform in [0, 1), y = x * mask / (1 - ratio)
// (ONNX's scale), built from RandomUniform; training_mode and ratio may be run-time values. A
// ratio of 0 keeps every element (U >= 0) with scale 1, so y is exactly x.
OutputVector dropout_training(const NodeContext& ctx, bool always_training) {
    const Output& x = ctx.input(0);
    const auto t = x.get_element_type();
    const element::Type ut = t == element::f64 ? element::f64 : element::f32;
    const Output ratio = ctx.has_input(1) ? as_scalar(ctx.input(1)) : scalar(t, 0.5);
    auto as_type = [](const Output& v, element::Type type) {
        return v.get_element_type() == type ? v : op::convert(v, type)->output(0);
    };
    // ONNX's seed attribute makes the mask reproducible; without it every run draws a new one.
    const int64_t op_seed = ctx.has_attribute("seed")
                                ? (int64_t{1} << 32) | static_cast<uint32_t>(ctx.attr_int("seed"))
                                : 0;
    const Output u =
        op::random_uniform(op::shape_of(x), scalar(ut, 0.0), scalar(ut, 1.0), ut, 0, op_seed);
    Output keep = op::compare("GreaterEqual", u, as_type(ratio, ut));
    const Output scale =
        op::divide(scalar(t, 1.0), op::subtract(scalar(t, 1.0), as_type(ratio, t)));
    // Select, not a product with the mask: ratio 1 has an infinite scale and drops everything.
    Output y = op::select(keep, op::multiply(x, scale), scalar(t, 0.0));
    if (!always_training) {
        const Output training = as_type(as_scalar(ctx.input(2)), element::boolean);
        y = op::select(training, y, x);
        keep = op::logical_or(keep, op::logical_not(training));
    }
    return {y, ctx.has_output(1) ? keep : Output()};
}

OutputVector dropout(const NodeContext& ctx) {
    // Inference (before opset 12 always; after, training_mode absent or a constant false): the
    // output is the input and the optional mask is all true. That holds in training mode too when
    // the ratio is a constant 0 (nothing is dropped, the scale is 1): exporters write
    // training_mode true with ratio 0 for layers whose dropout is off (torchvision's Swin), and
    // those graphs keep no random op.
    const Output& x = ctx.input(0);
    if (ctx.opset() >= 12 && ctx.has_input(2)) {
        const auto training = ctx.const_ints(2);
        const bool constant_false = training && !training->empty() && (*training)[0] == 0;
        const auto ratio = ctx.has_input(1) ? ctx.const_floats(1) : std::nullopt;
        const bool drops_nothing = ratio && !ratio->empty() && (*ratio)[0] == 0.0;
        if (!constant_false && !drops_nothing)
            return dropout_training(ctx, training && !training->empty());
    }
    Output mask;
    if (ctx.has_output(1))
        mask = op::broadcast(op::constant(element::boolean, Shape{}, std::vector<int64_t>{1}),
                             op::shape_of(x));
    return {identity(x), mask};
}

}  // namespace

void register_nn(TranslatorRegistry& r) {
    r.add("", "MatMul", 1,
          [](const NodeContext& ctx) { return one(op::matmul(ctx.input(0), ctx.input(1))); });
    r.add("", "Gemm", 1, gemm);
    r.add("", "Conv", 1, conv);
    r.add("", "ConvTranspose", 1, conv_transpose);
    r.add("", "MaxPool", 1, max_pool);
    r.add("", "AveragePool", 1, average_pool);
    r.add("", "LpPool", 1, lp_pool);
    r.add("", "MaxUnpool", 9, max_unpool);
    r.add("", "GlobalAveragePool", 1, global_pool("ReduceMean"));
    r.add("", "GlobalMaxPool", 1, global_pool("ReduceMax"));
    r.add("", "GlobalLpPool", 1, global_lp_pool);
    r.add("", "BatchNormalization", 1, batch_norm);
    r.add("", "InstanceNormalization", 1, instance_norm);
    r.add("", "GroupNormalization", 18, group_norm);
    // Standard from opset 17; ONNX Runtime has had it in the default domain from opset 1, and its
    // optimizer writes it into models of earlier opsets.
    r.add("", "LayerNormalization", 1, layer_norm);
    r.add("", "LRN", 1, lrn);
    r.add("", "MeanVarianceNormalization", 9, mean_variance_norm);
    r.add("", "LpNormalization", 1, lp_norm);
    r.add("", "Dropout", 1, dropout);
}

}  // namespace vireo::onnx_import
