// Implements rotary_kernel (rotary_kernel.hpp).
#include "rotary_kernel.hpp"

#include <vector>

#include "vireo/exception.hpp"

namespace vireo::cpu_plugin {
namespace {

// cos or sin read as if broadcast to x: the start of the row that x's row r reads, and the step
// along the last axis (0 when that axis broadcasts).
class Operand {
  public:
    Operand(const Tensor& t, const Shape& xs, const std::string& what, const char* name)
        : m_data(static_cast<const float*>(t.data())) {
        const Shape& ts = t.get_shape();
        if (t.get_element_type() != element::f32 || ts.size() > xs.size())
            throw_error<InvalidArgument>("CPU: ", what, ": the rotary embedding's ", name, " ",
                                         t.get_element_type(), " ", ts, " does not broadcast to ",
                                         xs);
        // Strides of t aligned to x's axes (0 where t has no axis or an axis of 1).
        const size_t offset = xs.size() - ts.size();
        std::vector<size_t> strides(xs.size(), 0);
        size_t stride = 1;
        for (size_t i = ts.size(); i-- > 0;) {
            if (ts[i] != 1 && ts[i] != xs[offset + i])
                throw_error<InvalidArgument>("CPU: ", what, ": the rotary embedding's ", name, " ",
                                             ts, " does not broadcast to ", xs);
            if (ts[i] != 1) strides[offset + i] = stride;
            stride *= ts[i];
        }
        m_step = strides.back();
        m_lead.assign(xs.begin(), xs.end() - 1);
        m_lead_strides.assign(strides.begin(), strides.end() - 1);
    }

    const float* row(size_t r) const {
        size_t at = 0;
        for (size_t i = m_lead.size(); i-- > 0;) {
            at += (r % m_lead[i]) * m_lead_strides[i];
            r /= m_lead[i];
        }
        return m_data + at;
    }

    size_t step() const { return m_step; }

  private:
    const float* m_data;
    size_t m_step = 0;
    std::vector<size_t> m_lead, m_lead_strides;
};

class RotaryKernel final : public reference::Kernel {
  public:
    explicit RotaryKernel(std::string what) : m_what(std::move(what)) {}

    void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        const Tensor& x = inputs.at(0);
        Tensor& y = outputs.at(0);
        const Shape& xs = x.get_shape();
        if (x.get_element_type() != element::f32 || xs.empty() || xs.back() % 2 != 0 ||
            y.get_shape() != xs || y.get_element_type() != element::f32)
            throw_error<InvalidArgument>("CPU: ", m_what, ": the rotary embedding takes an f32 ",
                                         "input with an even last axis, got ", x.get_element_type(),
                                         " ", xs);
        const size_t d = xs.back(), half = d / 2, rows = d == 0 ? 0 : x.get_size() / d;
        const Operand cos(inputs.at(1), xs, m_what, "cos");
        const Operand sin(inputs.at(2), xs, m_what, "sin");
        const size_t cs = cos.step(), ss = sin.step();
        const auto* in = static_cast<const float*>(x.data());
        auto* out = static_cast<float*>(y.data());
        for (size_t r = 0; r < rows; ++r) {
            const float* xr = in + r * d;
            const float* c = cos.row(r);
            const float* s = sin.row(r);
            float* yr = out + r * d;
            for (size_t i = 0; i < half; ++i) yr[i] = xr[i] * c[i * cs] + -xr[i + half] * s[i * ss];
            for (size_t i = half; i < d; ++i) yr[i] = xr[i] * c[i * cs] + xr[i - half] * s[i * ss];
        }
    }

  private:
    std::string m_what;
};

}  // namespace

std::shared_ptr<const reference::Kernel> rotary_kernel(std::string what) {
    return std::make_shared<RotaryKernel>(std::move(what));
}

}  // namespace vireo::cpu_plugin
