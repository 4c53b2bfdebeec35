// Implements Einsum-7 by direct summation: every label (and every axis an ellipsis stands for)
// is one loop; output labels are the outer loops, summed labels the inner ones. Repeated labels
// in one input take diagonals, ellipsis axes broadcast numpy-style.
#include <algorithm>
#include <cctype>
#include <map>

#include "tensor_common.hpp"

namespace vireo::reference::tensor {
namespace {

constexpr char kEllipsis = '.';

using Equation = EinsumEquation;

class EinsumKernel final : public Kernel {
  public:
    explicit EinsumKernel(const Node& node)
        : m_who(node.describe()),
          m_equation(parse_einsum_equation(node.get_attribute<std::string>("equation"),
                                           node.get_input_size(), m_who)),
          m_type(node.get_output_element_type(0)) {
        if (!contains(NumericTypes{}, m_type))
            throw_error<NotImplemented>(m_who, ": element type ", m_type, " is not supported");
    }

    void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        check_arity(inputs, m_equation.inputs.size(), outputs, 1, m_who);
        // Labels are numbered: letters by character, ellipsis axes as 256 + axis (right-aligned).
        size_t ellipsis_rank = 0;
        for (size_t i = 0; i < inputs.size(); ++i) {
            const auto& sub = m_equation.inputs[i];
            const size_t labels = sub.size() - std::count(sub.begin(), sub.end(), kEllipsis);
            if (inputs[i].get_shape().size() < labels)
                throw_error<InvalidArgument>(m_who, ": input ", i, " ", inputs[i].get_shape(),
                                             " has fewer axes than its subscript");
            if (std::count(sub.begin(), sub.end(), kEllipsis))
                ellipsis_rank = std::max(ellipsis_rank, inputs[i].get_shape().size() - labels);
        }
        std::map<int, size_t> dims;
        // Per input: for each label, the summed element stride of its axes.
        std::vector<std::map<int, int64_t>> strides(inputs.size());
        for (size_t i = 0; i < inputs.size(); ++i) {
            const Shape& shape = inputs[i].get_shape();
            const auto& sub = m_equation.inputs[i];
            const std::vector<size_t> es = element_strides(shape);
            const size_t labels = sub.size() - std::count(sub.begin(), sub.end(), kEllipsis);
            const size_t own_ellipsis = shape.size() - labels;
            size_t axis = 0;
            for (char c : sub) {
                if (c == kEllipsis) {
                    for (size_t j = 0; j < own_ellipsis; ++j, ++axis) {
                        const int id = 256 + static_cast<int>(ellipsis_rank - own_ellipsis + j);
                        add_axis(dims, strides[i], id, shape[axis], es[axis]);
                    }
                    continue;
                }
                add_axis(dims, strides[i], c, shape[axis], es[axis]);
                ++axis;
            }
        }
        // Loop order: output labels, then the summed ones.
        std::vector<int> order;
        for (char c : m_equation.output) {
            if (c == kEllipsis) {
                for (size_t j = 0; j < ellipsis_rank; ++j)
                    order.push_back(256 + static_cast<int>(j));
            } else {
                order.push_back(c);
            }
        }
        Shape out_shape;
        for (int id : order) {
            if (!dims.count(id))
                throw_error<InvalidArgument>(m_who, ": output label is in no input");
            out_shape.push_back(dims[id]);
        }
        if (out_shape != outputs[0].get_shape())
            throw_error<InvalidArgument>(m_who, ": output ", outputs[0].get_shape(),
                                         " differs from the expected ", out_shape);
        const size_t output_loops = order.size();
        for (const auto& [id, d] : dims)
            if (std::find(order.begin(), order.end(), id) == order.end()) order.push_back(id);
        Plan plan;
        for (int id : order) {
            plan.sizes.push_back(dims[id]);
            std::vector<int64_t> s;
            for (size_t i = 0; i < inputs.size(); ++i)
                s.push_back(strides[i].count(id) ? strides[i][id] : 0);
            plan.strides.push_back(s);
        }
        plan.output_loops = output_loops;
        dispatch(NumericTypes{}, m_type, m_who.c_str(), [&](auto tag) {
            using T = decltype(tag);
            run<T>(plan, inputs, tensor_data<T>(outputs[0]));
        });
    }

  private:
    struct Plan {
        std::vector<size_t> sizes;                  // per loop
        std::vector<std::vector<int64_t>> strides;  // per loop, per input
        size_t output_loops = 0;
    };

    void add_axis(std::map<int, size_t>& dims, std::map<int, int64_t>& strides, int id, size_t size,
                  size_t stride) const {
        auto [it, inserted] = dims.emplace(id, size);
        if (!inserted && it->second != size) {
            // Ellipsis axes broadcast: a 1 takes the other size and reads with stride 0.
            if (id >= 256 && (size == 1 || it->second == 1)) {
                if (size == 1) return;
                it->second = size;
            } else {
                throw_error<InvalidArgument>(m_who, ": label '", static_cast<char>(id),
                                             "' has sizes ", it->second, " and ", size);
            }
        }
        if (size != 1 || id < 256) strides[id] += static_cast<int64_t>(stride);
    }

    template <typename T>
    static void run(const Plan& plan, const std::vector<Tensor>& inputs, T* out) {
        using A =
            std::conditional_t<std::is_integral_v<T>,
                               std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>, double>;
        const size_t loops = plan.sizes.size(), n_in = inputs.size();
        size_t total = 1, out_total = 1;
        for (size_t l = 0; l < loops; ++l) total *= plan.sizes[l];
        for (size_t l = 0; l < plan.output_loops; ++l) out_total *= plan.sizes[l];
        const size_t inner_total = out_total == 0 ? 0 : total / out_total;
        std::vector<const T*> data(n_in);
        for (size_t i = 0; i < n_in; ++i) data[i] = tensor_data<T>(inputs[i]);
        std::fill(out, out + out_total, T{});
        if (total == 0) return;
        std::vector<size_t> index(loops, 0);
        std::vector<int64_t> offset(n_in, 0);
        A acc{};
        for (size_t step = 0; step < total; ++step) {
            A product = A{1};
            for (size_t i = 0; i < n_in; ++i) product *= static_cast<A>(data[i][offset[i]]);
            acc += product;
            if ((step + 1) % inner_total == 0) {
                out[step / inner_total] = static_cast<T>(acc);
                acc = A{};
            }
            for (size_t l = loops; l-- > 0;) {
                for (size_t i = 0; i < n_in; ++i) offset[i] += plan.strides[l][i];
                if (++index[l] < plan.sizes[l]) break;
                for (size_t i = 0; i < n_in; ++i)
                    offset[i] -= plan.strides[l][i] * static_cast<int64_t>(plan.sizes[l]);
                index[l] = 0;
            }
        }
    }

    std::string m_who;
    Equation m_equation;
    element::Type m_type;
};

}  // namespace

void register_einsum_kernels(KernelRegistry& registry) {
    registry.add("Einsum", [](const Node& node) { return std::make_unique<EinsumKernel>(node); });
}

}  // namespace vireo::reference::tensor

namespace vireo::reference {
namespace {

constexpr char kEinsumEllipsis = '.';

std::vector<char> einsum_tokens(const std::string& subscript, const std::string& who) {
    std::vector<char> out;
    for (size_t i = 0; i < subscript.size(); ++i) {
        if (subscript.compare(i, 3, "...") == 0) {
            out.push_back(kEinsumEllipsis);
            i += 2;
        } else if (std::isalpha(static_cast<unsigned char>(subscript[i]))) {
            out.push_back(subscript[i]);
        } else {
            throw_error<InvalidArgument>(who, ": invalid subscript '", subscript, "'");
        }
    }
    return out;
}

}  // namespace

EinsumEquation parse_einsum_equation(const std::string& text, size_t input_count,
                                     const std::string& who) {
    std::string eq;
    for (char c : text)
        if (c != ' ') eq += c;
    EinsumEquation e;
    const size_t arrow = eq.find("->");
    const std::string lhs = eq.substr(0, arrow);
    size_t start = 0;
    while (true) {
        const size_t comma = lhs.find(',', start);
        e.inputs.push_back(einsum_tokens(
            lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start),
            who));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (e.inputs.size() != input_count)
        throw_error<InvalidArgument>(who, ": equation '", text, "' has ", e.inputs.size(),
                                     " subscripts for ", input_count, " inputs");
    if (arrow != std::string::npos) {
        e.output = einsum_tokens(eq.substr(arrow + 2), who);
    } else {
        // Implicit output: the ellipsis, then the labels used once, alphabetically.
        std::map<char, int> count;
        bool ellipsis = false;
        for (const auto& in : e.inputs)
            for (char c : in) {
                if (c == kEinsumEllipsis)
                    ellipsis = true;
                else
                    ++count[c];
            }
        if (ellipsis) e.output.push_back(kEinsumEllipsis);
        for (const auto& [c, n] : count)
            if (n == 1) e.output.push_back(c);
    }
    return e;
}

}  // namespace vireo::reference
