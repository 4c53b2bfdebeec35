// ScaledDotProductAttention-13 reference kernel: for each batch index and query row, the scores
// against every key, the mask, a max-shifted softmax and the weighted sum of the values, in a
// plain loop with double accumulation (the oracle the CPU plugin's flash kernel is tested
// against). f32, f16 and bf16 (computed in f32 inputs, double sums).
#include <cmath>
#include <limits>

#include "tensor_common.hpp"

namespace vireo::reference::tensor {
namespace {

class AttentionKernel final : public Kernel {
  public:
    explicit AttentionKernel(const Node& node)
        : m_who(node.describe()), m_causal(node.get_attribute<bool>("causal")) {
        validate(node);
    }

    static void validate(const Node& node) {
        const element::Type t = node.input_value(0).get_element_type();
        if (!runs_on_f32_engine(t))
            throw_error<NotImplemented>(node.describe(), ": element type ", t,
                                        " is not supported (f32, f16, bf16)");
        for (size_t i = 1; i < node.get_input_size(); ++i) {
            const element::Type ti = node.input_value(i).get_element_type();
            if (ti != t && !(i == 3 && ti == element::boolean))
                throw_error<NotImplemented>(node.describe(), ": input ", i, " is ", ti,
                                            ", expected ", t);
        }
    }

    void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        check_arity(inputs, 3, outputs, 1, m_who);
        std::vector<float> wq, wk, wv, wm, wo;
        const float* q = f32_view(inputs[0], wq);
        const float* k = f32_view(inputs[1], wk);
        const float* v = f32_view(inputs[2], wv);
        const Shape& qs = inputs[0].get_shape();
        const Shape& ks = inputs[1].get_shape();
        const Shape& vs = inputs[2].get_shape();
        Tensor& out = outputs[0];
        const Shape& os = out.get_shape();
        const size_t rank = os.size();
        const size_t l = qs[rank - 2], e = qs[rank - 1], s = ks[rank - 2], ev = vs[rank - 1];
        double scale = 1.0 / std::sqrt(static_cast<double>(e));
        if (inputs.size() > 4) {
            std::vector<float> ws;
            scale = f32_view(inputs[4], ws)[0];
        }
        const bool has_mask = inputs.size() > 3 && !m_causal;
        const float* fmask = nullptr;
        const uint8_t* bmask = nullptr;
        std::vector<size_t> ms;
        if (has_mask) {
            if (inputs[3].get_element_type() == element::boolean)
                bmask = tensor_data<uint8_t>(inputs[3]);
            else
                fmask = f32_view(inputs[3], wm);
            ms = broadcast_strides(inputs[3].get_shape(), rank);
        }
        const auto qst = broadcast_strides(qs, rank), kst = broadcast_strides(ks, rank),
                   vst = broadcast_strides(vs, rank);
        size_t batches = 1;
        for (size_t i = 0; i + 2 < rank; ++i) batches *= os[i];
        wo.assign(out.get_size(), 0.f);
        std::vector<double> scores(s);
        std::vector<double> acc(ev);
        for (size_t b = 0; b < batches; ++b) {
            // Offsets of this batch index in each input.
            size_t qo = 0, ko = 0, vo = 0, mo = 0;
            for (size_t i = rank - 2, rest = b; i-- > 0;) {
                const size_t idx = rest % os[i];
                rest /= os[i];
                qo += idx * qst[i];
                ko += idx * kst[i];
                vo += idx * vst[i];
                if (has_mask) mo += idx * ms[i];
            }
            for (size_t i = 0; i < l; ++i) {
                double peak = -std::numeric_limits<double>::infinity();
                for (size_t j = 0; j < s; ++j) {
                    double dot = 0;
                    for (size_t c = 0; c < e; ++c)
                        dot += static_cast<double>(q[qo + i * qst[rank - 2] + c * qst[rank - 1]]) *
                               k[ko + j * kst[rank - 2] + c * kst[rank - 1]];
                    double x = dot * scale;
                    if (m_causal && j > i) x = -std::numeric_limits<double>::infinity();
                    if (has_mask) {
                        const size_t at = mo + i * ms[rank - 2] + j * ms[rank - 1];
                        if (bmask)
                            x = bmask[at] ? x : -std::numeric_limits<double>::infinity();
                        else
                            x += fmask[at];
                    }
                    scores[j] = x;
                    peak = std::max(peak, x);
                }
                // A row whose every score is -inf gives NaN, as Softmax over it does; no keys
                // (S = 0) give zeros, as a product over an empty axis does.
                double sum = 0;
                for (size_t j = 0; j < s; ++j) {
                    scores[j] = std::exp(scores[j] - peak);
                    sum += scores[j];
                }
                std::fill(acc.begin(), acc.end(), 0.0);
                for (size_t j = 0; j < s; ++j)
                    for (size_t c = 0; c < ev; ++c)
                        acc[c] += scores[j] * v[vo + j * vst[rank - 2] + c * vst[rank - 1]];
                float* row = wo.data() + (b * l + i) * ev;
                for (size_t c = 0; c < ev; ++c)
                    row[c] = s == 0 ? 0.f : static_cast<float>(acc[c] / sum);
            }
        }
        store_f32(wo.data(), out);
    }

    double flops(const std::vector<Tensor>& inputs,
                 const std::vector<Tensor>& outputs) const override {
        // Q·Kᵀ and P·V: two multiply-adds per query element and per output element, per key.
        const Shape& ks = inputs.at(1).get_shape();
        const double s = static_cast<double>(ks[ks.size() - 2]);
        return 2.0 * s * static_cast<double>(inputs.at(0).get_size() + outputs.at(0).get_size());
    }

  private:
    std::string m_who;
    bool m_causal;
};

}  // namespace

void register_attention_kernels(KernelRegistry& registry) {
    registry.add(
        "ScaledDotProductAttention",
        [](const Node& node) { return std::make_unique<AttentionKernel>(node); },
        [](const Node& node) {
            AttentionKernel::validate(node);
            return true;
        });
}

}  // namespace vireo::reference::tensor
