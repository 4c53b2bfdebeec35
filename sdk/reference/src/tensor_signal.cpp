// Implements DFT-7/IDFT-7, Det-1 and TfIdfVectorizer-1 (definitions in
// core/src/ops/signal_ops.cpp).
//
// DFT/IDFT: the input is cropped or zero-padded to the output's size on every transformed axis,
// then each axis is transformed in turn with a direct O(n^2) sum over precomputed twiddles, in
// double; IDFT uses the conjugate twiddles and divides by each axis's length. Det: LU
// factorisation with partial pivoting per matrix, in double. TfIdfVectorizer: per row, every
// n-gram of min..max_gram_length tokens whose tokens are skip + 1 apart (skip 0..max_skip_count;
// 1-grams once) that is in the pool adds one to its output slot; IDF turns a count into the
// slot's weight (1 without weights), TFIDF multiplies it by the weight.
#include <cmath>
#include <complex>
#include <map>

#include "math_common.hpp"
#include "tensor_common.hpp"

namespace vireo::reference::tensor {
namespace {

using Complex = std::complex<double>;

/// Reads a real tensor into doubles.
std::vector<double> read_reals(const Tensor& t, const std::string& who) {
    std::vector<double> v(t.get_size());
    dispatch(RealTypes{}, t.get_element_type(), who.c_str(), [&](auto tag) {
        using T = decltype(tag);
        const T* p = tensor_data<T>(t);
        for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(math::to_compute(p[i]));
    });
    return v;
}

void write_reals(const std::vector<double>& v, Tensor& t, const std::string& who) {
    dispatch(RealTypes{}, t.get_element_type(), who.c_str(), [&](auto tag) {
        using T = decltype(tag);
        T* p = tensor_data<T>(t);
        for (size_t i = 0; i < v.size(); ++i)
            p[i] = math::from_compute<T>(static_cast<math::compute_t<T>>(v[i]));
    });
}

std::unique_ptr<Kernel> make_dft(const Node& node) {
    const bool inverse = node.get_type_name() == "IDFT";
    return make_kernel(
        [who = node.describe(), inverse](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
            if (in.size() < 2 || in.size() > 3 || out.size() != 1)
                throw_error<InvalidArgument>(who, ": expected 2 or 3 inputs and 1 output");
            const Shape& data = in[0].get_shape();
            if (data.size() < 2 || data.back() != 2)
                throw_error<InvalidArgument>(who, ": data ", data,
                                             " must end with an axis of 2 (real, imaginary)");
            const size_t rank = data.size() - 1;  // complex axes
            const auto axes_values = read_ints(in[1], who, "input 1 (axes)");
            std::vector<size_t> axes;
            for (int64_t a : axes_values) axes.push_back(normalize_axis(a, rank, who, "axes"));
            Shape shape(data.begin(), data.end() - 1);
            if (in.size() == 3) {
                const auto sizes = read_ints(in[2], who, "input 2 (signal_size)");
                if (sizes.size() != axes.size())
                    throw_error<InvalidArgument>(who, ": signal_size has ", sizes.size(),
                                                 " values for ", axes.size(), " axes");
                for (size_t k = 0; k < axes.size(); ++k) {
                    if (sizes[k] == -1) continue;
                    if (sizes[k] < 1)
                        throw_error<InvalidArgument>(who, ": signal_size ", sizes[k], " for axis ",
                                                     axes[k], " must be positive or -1");
                    shape[axes[k]] = static_cast<size_t>(sizes[k]);
                }
            }
            Shape expected = shape;
            expected.push_back(2);
            if (out[0].get_shape() != expected)
                throw_error<InvalidArgument>(who, ": output ", out[0].get_shape(), " should be ",
                                             expected);
            const auto raw = read_reals(in[0], who);
            // Crop or zero-pad into the output's complex shape.
            std::vector<Complex> buf(shape_size(shape));
            const Shape in_complex(data.begin(), data.end() - 1);
            const auto in_strides = element_strides(in_complex);
            const auto strides = element_strides(shape);
            for (size_t i = 0; i < buf.size(); ++i) {
                size_t rest = i, src = 0;
                bool inside = true;
                for (size_t d = 0; d < rank; ++d) {
                    const size_t c = rest / strides[d];
                    rest %= strides[d];
                    if (c >= in_complex[d]) {
                        inside = false;
                        break;
                    }
                    src += c * in_strides[d];
                }
                if (inside) buf[i] = Complex(raw[2 * src], raw[2 * src + 1]);
            }
            std::vector<Complex> line, result;
            for (size_t axis : axes) {
                const size_t n = shape[axis];
                if (n == 0) continue;
                std::vector<Complex> twiddle(n);
                const double sign = inverse ? 1.0 : -1.0;
                for (size_t k = 0; k < n; ++k)
                    twiddle[k] = std::polar(
                        1.0, sign * 2.0 * M_PI * static_cast<double>(k) / static_cast<double>(n));
                const size_t stride = strides[axis];
                const size_t outer = buf.size() / (n * stride);
                line.resize(n);
                result.resize(n);
                for (size_t o = 0; o < outer; ++o)
                    for (size_t s = 0; s < stride; ++s) {
                        const size_t base = o * n * stride + s;
                        for (size_t j = 0; j < n; ++j) line[j] = buf[base + j * stride];
                        for (size_t k = 0; k < n; ++k) {
                            Complex sum = 0;
                            for (size_t j = 0; j < n; ++j) sum += line[j] * twiddle[(j * k) % n];
                            result[k] = inverse ? sum / static_cast<double>(n) : sum;
                        }
                        for (size_t k = 0; k < n; ++k) buf[base + k * stride] = result[k];
                    }
            }
            std::vector<double> flat(2 * buf.size());
            for (size_t i = 0; i < buf.size(); ++i) {
                flat[2 * i] = buf[i].real();
                flat[2 * i + 1] = buf[i].imag();
            }
            write_reals(flat, out[0], who);
        });
}

std::unique_ptr<Kernel> make_det(const Node& node) {
    return make_kernel(
        [who = node.describe()](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
            check_arity(in, 1, out, 1, who);
            const Shape& x = in[0].get_shape();
            if (x.size() < 2 || x[x.size() - 1] != x[x.size() - 2])
                throw_error<InvalidArgument>(who, ": input ", x, " must end with square matrices");
            const size_t m = x.back();
            const size_t count = out[0].get_size();
            if (count * m * m != in[0].get_size())
                throw_error<InvalidArgument>(who, ": output ", out[0].get_shape(),
                                             " does not match input ", x);
            const auto values = read_reals(in[0], who);
            std::vector<double> dets(count), a(m * m);
            for (size_t b = 0; b < count; ++b) {
                std::copy(values.begin() + static_cast<std::ptrdiff_t>(b * m * m),
                          values.begin() + static_cast<std::ptrdiff_t>((b + 1) * m * m), a.begin());
                double det = 1;
                for (size_t c = 0; c < m && det != 0; ++c) {
                    size_t pivot = c;
                    for (size_t r = c + 1; r < m; ++r)
                        if (std::fabs(a[r * m + c]) > std::fabs(a[pivot * m + c])) pivot = r;
                    if (a[pivot * m + c] == 0) {
                        det = 0;
                        break;
                    }
                    if (pivot != c) {
                        for (size_t k = 0; k < m; ++k) std::swap(a[c * m + k], a[pivot * m + k]);
                        det = -det;
                    }
                    const double p = a[c * m + c];
                    det *= p;
                    for (size_t r = c + 1; r < m; ++r) {
                        const double f = a[r * m + c] / p;
                        for (size_t k = c; k < m; ++k) a[r * m + k] -= f * a[c * m + k];
                    }
                }
                dets[b] = det;
            }
            write_reals(dets, out[0], who);
        });
}

std::unique_ptr<Kernel> make_tfidf(const Node& node) {
    const int64_t min_n = node.get_attribute<int64_t>("min_gram_length");
    const int64_t max_n = node.get_attribute<int64_t>("max_gram_length");
    const int64_t max_skip = node.get_attribute<int64_t>("max_skip_count");
    const std::string& mode = node.get_attribute<std::string>("mode");
    const auto& counts = node.get_attribute<std::vector<int64_t>>("ngram_counts");
    const auto& indexes = node.get_attribute<std::vector<int64_t>>("ngram_indexes");
    const auto& pool = node.get_attribute<std::vector<int64_t>>("pool_int64s");
    const auto& weights = node.get_attribute<std::vector<double>>("weights");
    // The pool as a map from an n-gram (its tokens) to its position among the pool's n-grams.
    std::map<std::vector<int64_t>, size_t> grams;
    size_t position = 0;
    for (size_t n = 0; n < counts.size(); ++n) {
        const auto begin = static_cast<size_t>(counts[n]);
        const size_t end = n + 1 < counts.size() ? static_cast<size_t>(counts[n + 1]) : pool.size();
        for (size_t at = begin; at + n + 1 <= end; at += n + 1)
            grams.emplace(
                std::vector<int64_t>(pool.begin() + static_cast<std::ptrdiff_t>(at),
                                     pool.begin() + static_cast<std::ptrdiff_t>(at + n + 1)),
                position++);
    }
    return make_kernel([who = node.describe(), min_n, max_n, max_skip, mode, indexes, weights,
                        grams](const std::vector<Tensor>& in, std::vector<Tensor>& out) {
        check_arity(in, 1, out, 1, who);
        const Shape& x = in[0].get_shape();
        const size_t rows = x.size() == 2 ? x[0] : 1;
        const size_t cols = x.empty() ? 0 : x.back();
        const size_t width = x.size() == 2 ? out[0].get_shape().back() : out[0].get_size();
        if (out[0].get_size() != rows * width || out[0].get_element_type() != element::f32)
            throw_error<InvalidArgument>(who, ": output ", out[0].get_shape(), " does not match X ",
                                         x);
        const auto tokens = read_ints(in[0], who, "input 0 (X)");
        float* o = out[0].data<float>();
        std::fill(o, o + out[0].get_size(), 0.0F);
        std::vector<int64_t> gram;
        for (size_t r = 0; r < rows; ++r) {
            const int64_t* row = tokens.data() + r * cols;
            float* counts_row = o + r * width;
            for (int64_t n = min_n; n <= max_n; ++n) {
                const int64_t skips = n == 1 ? 0 : max_skip;  // a 1-gram is counted once
                for (int64_t skip = 0; skip <= skips; ++skip) {
                    const auto step = static_cast<size_t>(skip + 1);
                    const size_t span = static_cast<size_t>(n - 1) * step + 1;
                    for (size_t start = 0; start + span <= cols; ++start) {
                        gram.clear();
                        for (int64_t k = 0; k < n; ++k)
                            gram.push_back(row[start + static_cast<size_t>(k) * step]);
                        auto it = grams.find(gram);
                        if (it != grams.end())
                            counts_row[static_cast<size_t>(indexes[it->second])] += 1.0F;
                    }
                }
            }
        }
        if (mode == "TF") return;
        // Slot -> weight (the last n-gram naming a slot wins, as the pool lists each slot once).
        std::vector<float> slot_weight(width, 1.0F);
        if (!weights.empty())
            for (size_t g = 0; g < indexes.size(); ++g)
                slot_weight[static_cast<size_t>(indexes[g])] = static_cast<float>(weights[g]);
        for (size_t i = 0; i < out[0].get_size(); ++i) {
            const float w = slot_weight[i % width];
            o[i] = mode == "IDF" ? (o[i] > 0 ? w : 0.0F) : o[i] * w;
        }
    });
}

}  // namespace

void register_signal_kernels(KernelRegistry& registry) {
    registry.add("DFT", make_dft);
    registry.add("IDFT", make_dft);
    registry.add("Det", make_det);
    registry.add("TfIdfVectorizer", make_tfidf);
}

}  // namespace vireo::reference::tensor
