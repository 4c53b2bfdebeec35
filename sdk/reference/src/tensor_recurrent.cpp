// Implements RNNSequence-5, GRUSequence-5 and LSTMSequence-1/5: every batch entry and direction
// walks its own sequence length (a reverse pass starts at its last valid step), outputs past it
// are zero and the final states are those of its last valid step. Computed in double.
#include <algorithm>
#include <cmath>
#include <optional>

#include "tensor_common.hpp"

namespace vireo::reference::tensor {
namespace {

enum class Cell { kRnn, kGru, kLstm };

// The activation is resolved to an enum once per kernel: it runs for every gate of every step.
enum class Fn {
    kSigmoid,
    kTanh,
    kRelu,
    kAffine,
    kLeakyRelu,
    kThresholdedRelu,
    kScaledTanh,
    kHardSigmoid,
    kElu,
    kSoftsign,
    kSoftplus
};

struct Activation {
    Fn fn = Fn::kSigmoid;
    double alpha = 0, beta = 0;

    double operator()(double x) const {
        switch (fn) {
            case Fn::kSigmoid:
                return 1.0 / (1.0 + std::exp(-x));
            case Fn::kTanh:
                return std::tanh(x);
            case Fn::kRelu:
                return std::max(x, 0.0);
            case Fn::kAffine:
                return alpha * x + beta;
            case Fn::kLeakyRelu:
                return x >= 0 ? x : alpha * x;
            case Fn::kThresholdedRelu:
                return x > alpha ? x : 0.0;
            case Fn::kScaledTanh:
                return alpha * std::tanh(beta * x);
            case Fn::kHardSigmoid:
                return std::clamp(alpha * x + beta, 0.0, 1.0);
            case Fn::kElu:
                return x >= 0 ? x : alpha * (std::exp(x) - 1.0);
            case Fn::kSoftsign:
                return x / (1.0 + std::fabs(x));
            case Fn::kSoftplus:
                return std::log1p(std::exp(-std::fabs(x))) + std::max(x, 0.0);  // stable
        }
        return x;
    }
};

// An activation by name (checked by shape inference), with the spec's default alpha and beta when
// the lists leave them out.
Activation make_activation(const std::string& name, std::optional<double> alpha,
                           std::optional<double> beta, const std::string& who) {
    static const std::vector<std::pair<const char*, Fn>> table{
        {"sigmoid", Fn::kSigmoid},
        {"tanh", Fn::kTanh},
        {"relu", Fn::kRelu},
        {"affine", Fn::kAffine},
        {"leakyrelu", Fn::kLeakyRelu},
        {"thresholdedrelu", Fn::kThresholdedRelu},
        {"scaledtanh", Fn::kScaledTanh},
        {"hardsigmoid", Fn::kHardSigmoid},
        {"elu", Fn::kElu},
        {"softsign", Fn::kSoftsign},
        {"softplus", Fn::kSoftplus}};
    Activation a;
    auto it = std::find_if(table.begin(), table.end(),
                           [&](const auto& entry) { return name == entry.first; });
    if (it == table.end())
        throw_error<InvalidArgument>(who, ": activation '", name, "' is not supported");
    a.fn = it->second;
    a.alpha = alpha.value_or(a.fn == Fn::kLeakyRelu ? 0.01 : a.fn == Fn::kHardSigmoid ? 0.2 : 1.0);
    a.beta = beta.value_or(a.fn == Fn::kHardSigmoid ? 0.5 : a.fn == Fn::kScaledTanh ? 1.0 : 0.0);
    return a;
}

std::vector<double> to_doubles(const Tensor& t, const std::string& who) {
    std::vector<double> v(t.get_size());
    dispatch(RealTypes{}, t.get_element_type(), who.c_str(), [&](auto tag) {
        using T = decltype(tag);
        const T* p = tensor_data<T>(t);
        for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(p[i]);
    });
    return v;
}

void from_doubles(const std::vector<double>& v, Tensor& t, const std::string& who) {
    dispatch(RealTypes{}, t.get_element_type(), who.c_str(), [&](auto tag) {
        using T = decltype(tag);
        T* p = tensor_data<T>(t);
        for (size_t i = 0; i < v.size(); ++i) p[i] = static_cast<T>(v[i]);
    });
}

class SequenceKernel final : public Kernel {
  public:
    SequenceKernel(const Node& node, Cell cell) : m_who(node.describe()), m_cell(cell) {
        m_hidden = static_cast<size_t>(node.get_attribute<int64_t>("hidden_size"));
        const std::string& direction = node.get_attribute<std::string>("direction");
        m_directions = direction == "bidirectional" ? 2 : 1;
        m_reverse_first = direction == "reverse";
        m_clip = node.get_attribute<double>("clip");
        const auto& names = node.get_attribute<std::vector<std::string>>("activations");
        const auto& alpha = node.get_attribute<std::vector<double>>("activations_alpha");
        const auto& beta = node.get_attribute<std::vector<double>>("activations_beta");
        for (size_t i = 0; i < names.size(); ++i)
            m_activations.push_back(make_activation(
                names[i], i < alpha.size() ? std::optional<double>(alpha[i]) : std::nullopt,
                i < beta.size() ? std::optional<double>(beta[i]) : std::nullopt, m_who));
        m_per_direction = cell == Cell::kRnn ? 1 : cell == Cell::kGru ? 2 : 3;
        if (cell == Cell::kGru)
            m_linear_before_reset = node.get_attribute<bool>("linear_before_reset");
        if (cell == Cell::kLstm) {
            // Row block of each gate (i, f, c, o) in W, R and B.
            const std::string format = node.get_version() >= 5
                                           ? std::string("fico")
                                           : node.get_attribute<std::string>("weights_format");
            for (size_t g = 0; g < 4; ++g) m_lstm_block[g] = format.find("ifco"[g]);
            if (node.get_version() < 5) m_input_forget = node.get_attribute<bool>("input_forget");
        }
    }

    void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        const size_t states = m_cell == Cell::kLstm ? 2 : 1;
        const size_t lens_at = 1 + states;
        if (inputs.size() < lens_at + 4 || outputs.size() != 1 + states)
            throw_error<InvalidArgument>(m_who, ": got ", inputs.size(), " inputs and ",
                                         outputs.size(), " outputs");
        const Shape& xs = inputs[0].get_shape();
        const size_t batch = xs[0], steps = xs[1], in_size = xs[2], H = m_hidden;
        const auto x = to_doubles(inputs[0], m_who), h0 = to_doubles(inputs[1], m_who);
        const auto c0 = states == 2 ? to_doubles(inputs[2], m_who) : std::vector<double>{};
        const auto lens = read_ints(inputs[lens_at], m_who, "sequence_lengths");
        const auto w = to_doubles(inputs[lens_at + 1], m_who);
        const auto r = to_doubles(inputs[lens_at + 2], m_who);
        const auto b = to_doubles(inputs[lens_at + 3], m_who);
        const auto p = inputs.size() > lens_at + 4 ? to_doubles(inputs[lens_at + 4], m_who)
                                                   : std::vector<double>{};
        const size_t gates = m_cell == Cell::kRnn ? 1 : m_cell == Cell::kGru ? 3 : 4;
        const size_t bias_rows = (gates + (m_linear_before_reset ? 1 : 0)) * H;
        if (h0.size() != batch * m_directions * H || lens.size() != batch ||
            w.size() != m_directions * gates * H * in_size ||
            r.size() != m_directions * gates * H * H || b.size() != m_directions * bias_rows ||
            (!p.empty() && p.size() != m_directions * 3 * H))
            throw_error<InvalidArgument>(m_who, ": input shapes disagree with X ", xs,
                                         " and hidden_size ", H);
        std::vector<double> y(batch * m_directions * steps * H, 0.0), ho(h0), co(c0);
        std::vector<double> pre(gates * H), h(H), c(H), next(H);
        for (size_t d = 0; d < m_directions; ++d) {
            const bool reverse = m_reverse_first || d == 1;
            const Activation* act =
                &m_activations[m_activations.size() == m_per_direction ? 0 : d * m_per_direction];
            const double* wd = w.data() + d * gates * H * in_size;
            const double* rd = r.data() + d * gates * H * H;
            const double* bd = b.data() + d * bias_rows;
            const double* pd = p.empty() ? nullptr : p.data() + d * 3 * H;
            for (size_t n = 0; n < batch; ++n) {
                if (lens[n] < 0)
                    throw_error<InvalidArgument>(m_who, ": sequence length ", lens[n],
                                                 " of batch entry ", n, " is negative");
                const size_t len = std::min(static_cast<size_t>(lens[n]), steps);
                const size_t state_at = (n * m_directions + d) * H;
                std::copy_n(h0.data() + state_at, H, h.begin());
                if (states == 2) std::copy_n(c0.data() + state_at, H, c.begin());
                for (size_t s = 0; s < len; ++s) {
                    const size_t t = reverse ? len - 1 - s : s;
                    const double* xt = x.data() + (n * steps + t) * in_size;
                    // pre = W x + b (+ R h, except GRU's candidate row block, done below).
                    for (size_t row = 0; row < gates * H; ++row) {
                        double sum = bd[row];
                        for (size_t i = 0; i < in_size; ++i) sum += wd[row * in_size + i] * xt[i];
                        const bool gru_candidate = m_cell == Cell::kGru && row >= 2 * H;
                        if (!gru_candidate)
                            for (size_t j = 0; j < H; ++j) sum += rd[row * H + j] * h[j];
                        pre[row] = sum;
                    }
                    step(act, rd, bd, pd, pre, h, c, next);
                    h.swap(next);
                    std::copy_n(h.begin(), H,
                                y.begin() + static_cast<std::ptrdiff_t>(
                                                ((n * m_directions + d) * steps + t) * H));
                }
                std::copy_n(h.begin(), H, ho.begin() + static_cast<std::ptrdiff_t>(state_at));
                if (states == 2)
                    std::copy_n(c.begin(), H, co.begin() + static_cast<std::ptrdiff_t>(state_at));
            }
        }
        from_doubles(y, outputs[0], m_who);
        from_doubles(ho, outputs[1], m_who);
        if (states == 2) from_doubles(co, outputs[2], m_who);
    }

  private:
    double clip(double v) const { return m_clip > 0 ? std::clamp(v, -m_clip, m_clip) : v; }

    // One cell step from the gate pre-activations: writes the new hidden state to `next` (and
    // the LSTM cell state to `c`).
    void step(const Activation* act, const double* rd, const double* bd, const double* pd,
              const std::vector<double>& pre, const std::vector<double>& h, std::vector<double>& c,
              std::vector<double>& next) const {
        const size_t H = m_hidden;
        if (m_cell == Cell::kRnn) {
            for (size_t j = 0; j < H; ++j) next[j] = act[0](clip(pre[j]));
            return;
        }
        if (m_cell == Cell::kGru) {
            // Rows: z, r, h. Without linear_before_reset the candidate reads r (.) h over every
            // unit, so all of r comes first (c holds it: GRU has no cell state).
            for (size_t k = 0; k < H; ++k) c[k] = act[0](clip(pre[H + k]));
            for (size_t j = 0; j < H; ++j) {
                const double z = act[0](clip(pre[j]));
                double recurrent = 0;
                for (size_t k = 0; k < H; ++k)
                    recurrent +=
                        rd[(2 * H + j) * H + k] * (m_linear_before_reset ? h[k] : c[k] * h[k]);
                const double cand = m_linear_before_reset
                                        ? pre[2 * H + j] + c[j] * (recurrent + bd[3 * H + j])
                                        : pre[2 * H + j] + recurrent;
                next[j] = (1 - z) * act[1](clip(cand)) + z * h[j];
            }
            return;
        }
        // LSTM: gates i, f, c, o in their row blocks; peepholes P are (i, o, f).
        const auto at = [&](size_t gate, size_t j) { return pre[m_lstm_block[gate] * H + j]; };
        for (size_t j = 0; j < H; ++j) {
            const double i = act[0](clip(at(0, j) + (pd ? pd[j] * c[j] : 0.0)));
            const double f = m_input_forget
                                 ? 1.0 - i
                                 : act[0](clip(at(1, j) + (pd ? pd[2 * H + j] * c[j] : 0.0)));
            const double cell = f * c[j] + i * act[1](clip(at(2, j)));
            const double o = act[0](clip(at(3, j) + (pd ? pd[H + j] * cell : 0.0)));
            c[j] = cell;
            next[j] = o * act[2](cell);
        }
    }

    std::string m_who;
    Cell m_cell;
    size_t m_hidden = 0, m_directions = 1, m_per_direction = 1;
    bool m_reverse_first = false, m_linear_before_reset = false, m_input_forget = false;
    double m_clip = 0;
    std::vector<Activation> m_activations;
    size_t m_lstm_block[4] = {0, 1, 2, 3};
};

}  // namespace

void register_recurrent_kernels(KernelRegistry& registry) {
    registry.add("RNNSequence", [](const Node& node) {
        return std::make_unique<SequenceKernel>(node, Cell::kRnn);
    });
    registry.add("GRUSequence", [](const Node& node) {
        return std::make_unique<SequenceKernel>(node, Cell::kGru);
    });
    registry.add("LSTMSequence", [](const Node& node) {
        return std::make_unique<SequenceKernel>(node, Cell::kLstm);
    });
}

}  // namespace vireo::reference::tensor
