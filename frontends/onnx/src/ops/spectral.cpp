// Translators for ONNX's spectral and linear-algebra ops: DFT-17/20 and STFT-17 on the core's
// DFT/IDFT-7, MelWeightMatrix-17 built from element-wise ops, Det-11 and TfIdfVectorizer-9 (integer
// tokens) on the core ops of those names.
#include <cmath>

#include "ops/common.hpp"

namespace vireo::onnx_import {
namespace {

/// `x` [..., 1 or 2] as complex [..., 2] (a zero imaginary part for real input); `real` tells
/// which it was. The last axis must be static.
Output as_complex(const NodeContext& ctx, const Output& x, bool& real) {
    const auto& shape = x.get_partial_shape();
    const int64_t rank = static_rank(ctx, x);
    if (rank < 2) ctx.fail("input ", shape, " must have a batch axis and end with 1 or 2");
    const auto& last = shape[static_cast<size_t>(rank - 1)];
    if (!last.is_static() || (last.get_length() != 1 && last.get_length() != 2))
        ctx.fail("input ", shape, " must end with 1 (real) or 2 (real, imaginary)");
    real = last.get_length() == 1;
    if (!real) return x;
    const Output zeros = op::broadcast(scalar(x.get_element_type(), 0.0), op::shape_of(x));
    return op::concat({x, zeros}, rank - 1);
}

/// The first n / 2 + 1 entries of `y` on `axis` (n its length there): a real signal's spectrum
/// without the conjugate-symmetric half.
Output one_sided(const Output& y, int64_t axis) {
    const Output n = op::gather(op::shape_of(y), ints({axis}), op::int64_scalar(0));
    const Output stop = op::add(op::divide(n, ints({2})), ints({1}));
    return op::slice(y, ints({0}), stop, ints({1}), ints({axis}));
}

/// ONNX DFT on complex axis `axis` of `x` [..., 1 or 2] (rank static), optional length.
Output dft(const NodeContext& ctx, const Output& x, int64_t axis, const Output& length,
           bool inverse, bool onesided) {
    bool real = false;
    const Output xc = as_complex(ctx, x, real);
    const int64_t rank = static_rank(ctx, x);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis > rank - 2)
        ctx.fail("axis ", axis, " is out of range for input ", x.get_partial_shape(),
                 " (the last axis holds the real and imaginary parts)");
    if (onesided && (inverse || !real))
        ctx.unsupported("onesided=1 ", inverse ? "with inverse=1" : "of a complex input",
                        " is not supported (ONNX defines it for a real forward transform)");
    OutputVector in{xc, ints({axis})};
    if (length) in.push_back(op::reshape(op::convert(length, element::i64), ints({1}), false));
    Output y = make_node(inverse ? "IDFT" : "DFT", in, {}, 7)->output(0);
    return onesided ? one_sided(y, axis) : y;
}

OutputVector dft_op(const NodeContext& ctx) {
    int64_t axis = 1;
    if (ctx.opset() >= 20) {
        axis = -2;
        if (ctx.has_input(2)) {
            const auto values = ctx.const_ints(2);
            if (!values || values->size() != 1) ctx.fail("axis must be a constant of one value");
            axis = values->front();
        }
    } else {
        axis = ctx.attr_int("axis", 1);
    }
    const Output length = ctx.has_input(1) ? as_scalar(ctx.input(1)) : Output();
    return one(dft(ctx, ctx.input(0), axis, length, ctx.attr_int("inverse", 0) != 0,
                   ctx.attr_int("onesided", 0) != 0));
}

// STFT-17: frames of frame_length samples every frame_step, times the window, each transformed.
// signal [B, T, 1 or 2] -> [B, frames, bins, 2], frames = (T - frame_length) / frame_step + 1.
OutputVector stft(const NodeContext& ctx) {
    const Output& signal = ctx.input(0);
    if (static_rank(ctx, signal, "signal") != 3)
        ctx.fail("signal ", signal.get_partial_shape(), " must be [batch, length, 1 or 2]");
    const Output step = op::convert(as_scalar(ctx.input(1)), element::i64);
    const bool windowed = ctx.has_input(2);
    Output length;
    if (ctx.has_input(3))
        length = op::convert(as_scalar(ctx.input(3)), element::i64);
    else if (windowed)
        length = op::gather(op::shape_of(ctx.input(2)), op::int64_scalar(0), op::int64_scalar(0));
    else
        ctx.fail("needs a window or a frame_length to know the frame length");
    const Output total = op::gather(op::shape_of(signal), op::int64_scalar(1), op::int64_scalar(0));
    const Output frames =
        op::add(op::divide(op::subtract(total, length), step), op::int64_scalar(1));
    const Output one_i = op::int64_scalar(1), zero_i = op::int64_scalar(0);
    const Output starts = op::multiply(op::range(zero_i, frames, one_i, element::i64), step);
    const Output offsets = op::range(zero_i, length, one_i, element::i64);
    const Output index =
        op::add(op::unsqueeze(starts, ints({1})), op::unsqueeze(offsets, ints({0})));  // [F, L]
    Output framed = op::gather(signal, index, op::int64_scalar(1));  // [B, F, L, C]
    if (windowed) {
        const Output window = op::convert(ctx.input(2), signal.get_element_type());
        framed = op::multiply(framed, op::reshape(window, ints({1, 1, -1, 1}), false));
    }
    return one(dft(ctx, framed, 2, length, false, ctx.attr_int("onesided", 1) != 0));
}

// MelWeightMatrix-17: [dft_length / 2 + 1, num_mel_bins] triangular filters between mel-spaced
// points (num_mel_bins + 2 of them from lower_edge_hertz to upper_edge_hertz, mel = 2595
// log10(1 + hz / 700)), each point's frequency bin floor((dft_length + 1) * hz / sample_rate).
// Computed in f64; the filter of band i rises over [low, centre], is 1 at the centre and falls
// over [centre, high).
OutputVector mel_weight_matrix(const NodeContext& ctx) {
    const auto out_type = to_element_type(
        static_cast<int32_t>(ctx.attr_int("output_datatype", onnx::TensorProto::FLOAT)),
        ctx.describe() + " output_datatype");
    const auto f64 = element::f64;
    auto real = [&](size_t i) { return op::convert(as_scalar(ctx.input(i)), f64)->output(0); };
    const Output mel_bins = op::convert(as_scalar(ctx.input(0)), element::i64);
    const Output dft_length = op::convert(as_scalar(ctx.input(1)), element::i64);
    const Output sample_rate = real(2), low_hz = real(3), high_hz = real(4);
    auto to_mel = [&](const Output& hz) {
        const Output ratio = op::add(scalar(f64, 1.0), op::divide(hz, scalar(f64, 700.0)));
        return op::multiply(op::unary("Log", ratio), scalar(f64, 2595.0 / std::log(10.0)))
            ->output(0);
    };
    const Output points = op::add(mel_bins, op::int64_scalar(2));
    const Output low_mel = to_mel(low_hz);
    const Output mel_step =
        op::divide(op::subtract(to_mel(high_hz), low_mel), op::convert(points, f64));
    const Output mel = op::add(
        op::multiply(op::range(scalar(f64, 0), op::convert(points, f64), scalar(f64, 1), f64),
                     mel_step),
        low_mel);
    const Output hz = op::multiply(
        scalar(f64, 700.0),
        op::subtract(op::power(scalar(f64, 10.0), op::divide(mel, scalar(f64, 2595.0))),
                     scalar(f64, 1.0)));
    const Output bin = op::unary(
        "Floor",
        op::divide(op::multiply(op::convert(op::add(dft_length, op::int64_scalar(1)), f64), hz),
                   sample_rate));
    auto band_points = [&](int64_t from) {  // bin[from : from + num_mel_bins] as [1, num_mel_bins]
        const Output stop =
            op::reshape(op::add(mel_bins, op::int64_scalar(from)), ints({1}), false);
        return op::unsqueeze(op::slice(bin, ints({from}), stop, ints({1}), ints({0})), ints({0}))
            ->output(0);
    };
    const Output low = band_points(0), centre = band_points(1), high = band_points(2);
    const Output spectrum_bins =
        op::add(op::divide(dft_length, op::int64_scalar(2)), op::int64_scalar(1));
    const Output j = op::unsqueeze(
        op::range(scalar(f64, 0), op::convert(spectrum_bins, f64), scalar(f64, 1), f64), ints({1}));
    const Output rising = op::divide(op::subtract(j, low), op::subtract(centre, low));
    const Output falling = op::divide(op::subtract(high, j), op::subtract(high, centre));
    const Output zero = scalar(f64, 0.0);
    Output w =
        op::select(op::logical_and(op::greater(j, centre), op::less(j, high)), falling, zero);
    w = op::select(op::logical_and(op::compare("GreaterEqual", j, low), op::less(j, centre)),
                   rising, w);
    w = op::select(op::equal(j, centre), scalar(f64, 1.0), w);
    return one(op::convert(w, out_type));
}

OutputVector det(const NodeContext& ctx) {
    return one(make_node("Det", {ctx.input(0)}, {}, 1));
}

OutputVector tfidf_vectorizer(const NodeContext& ctx) {
    if (ctx.has_attribute("pool_strings"))
        ctx.unsupported("pool_strings (string tokens) are not supported: Vireo has no string type");
    const Output& x = ctx.input(0);
    if (!x.get_element_type().is_integral_number())
        ctx.fail("X must hold integer tokens, got ", x.get_element_type());
    return one(make_node("TfIdfVectorizer", {x},
                         {{"min_gram_length", ctx.attr_int("min_gram_length", 1)},
                          {"max_gram_length", ctx.attr_int("max_gram_length", 1)},
                          {"max_skip_count", ctx.attr_int("max_skip_count", 0)},
                          {"mode", ctx.attr_string("mode", "TF")},
                          {"ngram_counts", ctx.attr_ints("ngram_counts", {})},
                          {"ngram_indexes", ctx.attr_ints("ngram_indexes", {})},
                          {"pool_int64s", ctx.attr_ints("pool_int64s", {})},
                          {"weights", ctx.attr_floats("weights", {})}},
                         1));
}

}  // namespace

void register_spectral(TranslatorRegistry& r) {
    r.add("", "DFT", 17, dft_op);
    r.add("", "DFT", 20, dft_op);
    r.add("", "STFT", 17, stft);
    r.add("", "MelWeightMatrix", 17, mel_weight_matrix);
    r.add("", "Det", 11, det);
    r.add("", "TfIdfVectorizer", 9, tfidf_vectorizer);
}

}  // namespace vireo::onnx_import
