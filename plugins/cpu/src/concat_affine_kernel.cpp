// Implements concat_affine_kernel (concat_affine_kernel.hpp).
#include "concat_affine_kernel.hpp"

#include <immintrin.h>

#include <algorithm>
#include <numeric>

#include "cpu_isa.hpp"
#include "team_parts.hpp"
#include "vireo/exception.hpp"

namespace vireo::cpu_plugin {
namespace {

// One input's part of one output row: y[c] = x[c] * scale[c] + shift[c] (then ReLU), c < n.
void affine_row(const float* x, const float* scale, const float* shift, bool relu, size_t n,
                float* y) {
    for (size_t c = 0; c < n; ++c) {
        const float v = x[c] * scale[c] + shift[c];
        y[c] = relu ? std::max(v, 0.f) : v;
    }
}

__attribute__((target("avx512f,fma"))) void affine_row_avx512(const float* x, const float* scale,
                                                              const float* shift, bool relu,
                                                              size_t n, float* y) {
    const __m512 zero = _mm512_setzero_ps();
    size_t c = 0;
    for (; c + 16 <= n; c += 16) {
        __m512 v = _mm512_fmadd_ps(_mm512_loadu_ps(x + c), _mm512_loadu_ps(scale + c),
                                   _mm512_loadu_ps(shift + c));
        if (relu) v = _mm512_mask_max_ps(v, 0xFFFF, v, zero);  // (GCC 12 warns on _mm512_max_ps)
        _mm512_storeu_ps(y + c, v);
    }
    if (c < n) {
        const __mmask16 m = static_cast<__mmask16>((1u << (n - c)) - 1);
        __m512 v =
            _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, x + c), _mm512_maskz_loadu_ps(m, scale + c),
                            _mm512_maskz_loadu_ps(m, shift + c));
        if (relu) v = _mm512_mask_max_ps(v, 0xFFFF, v, zero);  // (GCC 12 warns on _mm512_max_ps)
        _mm512_mask_storeu_ps(y + c, m, v);
    }
}

class ConcatAffineKernel final : public reference::Kernel {
  public:
    explicit ConcatAffineKernel(ConcatAffineSpec spec) : m_spec(std::move(spec)) {
        m_offsets.resize(m_spec.channels.size());
        std::exclusive_scan(m_spec.channels.begin(), m_spec.channels.end(), m_offsets.begin(),
                            size_t{0});
        m_total = std::accumulate(m_spec.channels.begin(), m_spec.channels.end(), size_t{0});
    }

    void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        Tensor& y = outputs.at(0);
        if (inputs.size() != m_spec.channels.size() || y.get_element_type() != element::f32 ||
            y.get_shape().size() < 2 || y.get_shape()[1] != m_total ||
            m_spec.scale.size() != m_total || m_spec.shift.size() != m_total)
            throw_error<InvalidArgument>("CPU: ", m_spec.what, ": the fused concatenation takes ",
                                         m_spec.channels.size(), " inputs into an f32 output of ",
                                         m_total, " channels, got ", inputs.size(), " into ",
                                         y.get_element_type(), " ", y.get_shape());
        const size_t pixels = y.get_size() / m_total;
        std::vector<const float*> in(inputs.size());
        for (size_t i = 0; i < inputs.size(); ++i) {
            const Tensor& x = inputs[i];
            if (x.get_element_type() != element::f32 || x.get_size() != pixels * m_spec.channels[i])
                throw_error<InvalidArgument>("CPU: ", m_spec.what, ": input ", i, " is ",
                                             x.get_element_type(), " ", x.get_shape(),
                                             ", expected ", pixels, " pixels of ",
                                             m_spec.channels[i], " f32 channels");
            in[i] = static_cast<const float*>(x.data());
        }
        if (pixels == 0) return;
        auto* out = static_cast<float*>(y.data());
        const bool avx512 = has_avx512();
        const auto body = [&](size_t p0, size_t p1) {
            for (size_t p = p0; p < p1; ++p)
                for (size_t i = 0; i < in.size(); ++i) {
                    const size_t n = m_spec.channels[i], off = m_offsets[i];
                    const float* x = in[i] + p * n;
                    float* row = out + p * m_total + off;
                    const float* s = m_spec.scale.data() + off;
                    const float* b = m_spec.shift.data() + off;
                    if (avx512)
                        affine_row_avx512(x, s, b, m_spec.relu, n, row);
                    else
                        affine_row(x, s, b, m_spec.relu, n, row);
                }
        };
        // Small outputs stay on this thread (a fork costs more than the pass).
        for_team_parts(pixels, y.get_size() < (size_t{1} << 15), body);
    }

    double flops(const std::vector<Tensor>&, const std::vector<Tensor>& outputs) const override {
        return 2.0 * static_cast<double>(outputs.at(0).get_size());
    }

  private:
    ConcatAffineSpec m_spec;
    std::vector<size_t> m_offsets;  // per input, its first output channel
    size_t m_total = 0;
};

}  // namespace

std::shared_ptr<const reference::Kernel> concat_affine_kernel(ConcatAffineSpec spec) {
    return std::make_shared<ConcatAffineKernel>(std::move(spec));
}

}  // namespace vireo::cpu_plugin
