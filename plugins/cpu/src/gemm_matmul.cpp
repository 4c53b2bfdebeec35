// Implements gemm_matmul_kernel: an f32 MatMul of a dynamic graph on oneDNN's sgemm, which runs
// on the stream's OpenMP threads (a few rows by a matrix on gemv_f32), with the reference kernel
// for the shapes it does not take.
#include "gemm_matmul.hpp"

#include <algorithm>

#include "fallback_kernel.hpp"
#include "gemv.hpp"
#include "oneapi/dnnl/dnnl.hpp"
#include "vireo/exception.hpp"

namespace vireo::cpu_plugin {
namespace {

class GemmMatMulKernel final : public FallbackKernel {
  public:
    GemmMatMulKernel(std::unique_ptr<reference::Kernel> fallback, bool transpose_a,
                     bool transpose_b)
        : FallbackKernel(std::move(fallback)), m_ta(transpose_a), m_tb(transpose_b) {}

    const char* path(const std::vector<Tensor>& inputs,
                     const std::vector<Tensor>& outputs) const override {
        return plan(inputs, outputs).path;
    }

  private:
    static constexpr const char* kGemv = "gemv";
    static constexpr const char* kSgemm = "sgemm";
    static constexpr const char* kReference = "ref";

    struct Plan {
        const char* path = kReference;
        size_t batches = 1, m = 0, k = 0, n = 0;
    };

    // The products sgemm takes: B of rank 2 under an A of any rank >= 2 (its leading dimensions
    // are rows; A transposed only at rank 2), or A and B of one rank >= 3 with the same batch
    // dimensions (one sgemm per matrix). A decode step (one or two rows of A against a B [k, n]
    // of rank 2) streams B with gemv_f32 instead. Anything else (1-D operands, broadcast
    // batches, other types) is the reference kernel's.
    Plan plan(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs) const {
        Plan p;
        if (inputs.size() != 2 || outputs.size() != 1) return p;
        const Tensor& a = inputs[0];
        const Tensor& b = inputs[1];
        const Tensor& y = outputs[0];
        for (const Tensor* t : {&a, &b, &y})
            if (t->get_element_type() != element::f32 || !t->is_continuous() || t->is_remote())
                return p;
        const Shape& as = a.get_shape();
        const Shape& bs = b.get_shape();
        if (as.size() < 2 || bs.size() < 2) return p;
        if (bs.size() == 2) {
            if (m_ta && as.size() != 2) return p;
            p.k = m_ta ? as[0] : as.back();
            p.m = m_ta ? as[1] : shape_size(Shape(as.begin(), as.end() - 1));
        } else {
            if (as.size() != bs.size()) return p;
            for (size_t i = 0; i + 2 < as.size(); ++i) {
                if (as[i] != bs[i]) return p;
                p.batches *= as[i];
            }
            p.m = m_ta ? as[as.size() - 1] : as[as.size() - 2];
            p.k = m_ta ? as[as.size() - 2] : as[as.size() - 1];
        }
        const size_t b_rows = bs[bs.size() - 2], b_cols = bs[bs.size() - 1];
        if ((m_tb ? b_cols : b_rows) != p.k) return p;
        p.n = m_tb ? b_rows : b_cols;
        if (y.get_size() != p.batches * p.m * p.n) return p;
        p.path = bs.size() == 2 && !m_ta && !m_tb && gemv_f32_takes(p.m, p.k, p.n) ? kGemv : kSgemm;
        return p;
    }

    bool run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        const Plan p = plan(inputs, outputs);
        if (p.path == kReference) return false;
        Tensor& y = outputs[0];
        if (y.get_size() == 0) return true;
        const auto* pa = static_cast<const float*>(inputs[0].data());
        const auto* pb = static_cast<const float*>(inputs[1].data());
        auto* py = static_cast<float*>(y.data());
        if (p.path == kGemv) {
            gemv_f32(pa, p.k, p.m, pb, p.k, p.n, py);
            return true;
        }
        const size_t m = p.m, k = p.k, n = p.n;
        if (k == 0) {
            std::fill_n(py, y.get_size(), 0.f);
            return true;
        }
        const Shape& bs = inputs[1].get_shape();
        const size_t a_cols = m_ta ? m : k;
        const size_t b_cols = bs.back();
        const size_t a_step = bs.size() == 2 ? 0 : m * k;
        const size_t b_step = bs.size() == 2 ? 0 : k * n;
        for (size_t i = 0; i < p.batches; ++i) {
            const auto status = dnnl::sgemm(
                m_ta ? 'T' : 'N', m_tb ? 'T' : 'N', static_cast<dnnl_dim_t>(m),
                static_cast<dnnl_dim_t>(n), static_cast<dnnl_dim_t>(k), 1.f, pa + i * a_step,
                static_cast<dnnl_dim_t>(a_cols), pb + i * b_step, static_cast<dnnl_dim_t>(b_cols),
                0.f, py + i * m * n, static_cast<dnnl_dim_t>(n));
            if (status != dnnl::status::success)
                throw_error<Exception>("CPU: oneDNN sgemm failed on a MatMul (status ",
                                       static_cast<int>(status), ")");
        }
        return true;
    }

    bool m_ta, m_tb;
};

}  // namespace

std::shared_ptr<const reference::Kernel> gemm_matmul_kernel(
    std::unique_ptr<reference::Kernel> fallback, bool transpose_a, bool transpose_b) {
    return std::make_shared<GemmMatMulKernel>(std::move(fallback), transpose_a, transpose_b);
}

}  // namespace vireo::cpu_plugin
