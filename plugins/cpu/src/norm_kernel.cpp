// Implements norm_kernel (norm_kernel.hpp).
#include "norm_kernel.hpp"

#include <cmath>

#include "team_parts.hpp"
#include "vireo/exception.hpp"

namespace vireo::cpu_plugin {
namespace {

// Sums in 16 lanes, so that the compiler vectorises them (a single running sum is a chain it
// may not reorder).
constexpr size_t kLanes = 16;

float sum_of(const float* x, size_t d, float shift, bool squares) {
    float lanes[kLanes] = {};
    size_t i = 0;
    for (; i + kLanes <= d; i += kLanes)
        for (size_t l = 0; l < kLanes; ++l) {
            const float v = x[i + l] - shift;
            lanes[l] += squares ? v * v : v;
        }
    float total = 0.f;
    for (; i < d; ++i) {
        const float v = x[i] - shift;
        total += squares ? v * v : v;
    }
    for (float l : lanes) total += l;
    return total;
}

class NormKernel final : public reference::Kernel {
  public:
    explicit NormKernel(NormSpec spec) : m_spec(std::move(spec)) {}

    void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        const Tensor& x = inputs.at(0);
        Tensor& y = outputs.at(0);
        const Shape& shape = x.get_shape();
        if (x.get_element_type() != element::f32 || y.get_element_type() != element::f32 ||
            shape.size() < m_spec.axes || y.get_shape() != shape)
            throw_error<InvalidArgument>("CPU: ", m_spec.what, ": the fused normalization takes ",
                                         "an f32 input of rank >= ", m_spec.axes, ", got ",
                                         x.get_element_type(), " ", shape);
        size_t d = 1;
        for (size_t i = shape.size() - m_spec.axes; i < shape.size(); ++i) d *= shape[i];
        const size_t total = x.get_size();
        if (total == 0 || d == 0) return;
        size_t next = 1;
        const float* gamma = m_spec.gamma ? affine(inputs, next++, d, "scale") : nullptr;
        const float* beta = m_spec.beta ? affine(inputs, next++, d, "shift") : nullptr;
        const auto* in = static_cast<const float*>(x.data());
        auto* out = static_cast<float*>(y.data());
        const size_t rows = total / d;
        const auto body = [&](size_t r0, size_t r1) {
            for (size_t r = r0; r < r1; ++r) row(in + r * d, d, gamma, beta, out + r * d);
        };
        // A decode step's few rows stay on this thread; a prompt's many split.
        for_team_parts(rows, total < (size_t{1} << 16), body);
    }

  private:
    // Input `index` as D scale or shift values.
    const float* affine(const std::vector<Tensor>& inputs, size_t index, size_t d,
                        const char* name) const {
        const Tensor& t = inputs.at(index);
        if (t.get_element_type() != element::f32 || t.get_size() != d)
            throw_error<InvalidArgument>("CPU: ", m_spec.what, ": the normalization's ", name,
                                         " has ", t.get_size(), " ", t.get_element_type(),
                                         " values for rows of ", d);
        return static_cast<const float*>(t.data());
    }

    void row(const float* x, size_t d, const float* gamma, const float* beta, float* y) const {
        const float n = static_cast<float>(d);
        const float mean = m_spec.subtract_mean ? sum_of(x, d, 0.f, false) / n : 0.f;
        const float variance = sum_of(x, d, mean, true) / n;
        const float inv = 1.f / std::sqrt(variance + m_spec.epsilon);
        for (size_t i = 0; i < d; ++i) {
            float v = (x[i] - mean) * inv;
            if (gamma) v *= gamma[i];
            if (beta) v += beta[i];
            y[i] = v;
        }
    }

    NormSpec m_spec;
};

}  // namespace

std::shared_ptr<const reference::Kernel> norm_kernel(NormSpec spec) {
    return std::make_shared<NormKernel>(std::move(spec));
}

}  // namespace vireo::cpu_plugin
