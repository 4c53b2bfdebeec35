// Implements TopK-1/3/11: the k largest or smallest elements along an axis with their indices,
// sorted by value or by index; equal values always keep the lower index first (stable).
#include <algorithm>

#include "tensor_common.hpp"

namespace vireo::reference::tensor {
namespace {

using TopKTypes = NumericTypes;

class TopKKernel final : public Kernel {
  public:
    explicit TopKKernel(const Node& node)
        : m_who(node.describe()),
          m_axis(node.get_attribute<int64_t>("axis")),
          m_max(node.get_attribute<std::string>("mode") == "max"),
          m_sort_by_index(node.get_attribute<std::string>("sort") == "index"),
          m_type(node.input_value(0).get_element_type()) {
        if (!contains(TopKTypes{}, m_type))
            throw_error<NotImplemented>(m_who, ": element type ", m_type, " is not supported");
    }

    void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        check_arity(inputs, 2, outputs, 2, m_who);
        const Shape& shape = inputs[0].get_shape();
        const size_t axis = normalize_axis(m_axis, shape.size(), m_who, "attribute 'axis'");
        const auto k_values = read_ints(inputs[1], m_who, "input 1 (k)");
        if (k_values.size() != 1 || k_values[0] < 0)
            throw_error<InvalidArgument>(m_who, ": k must be one non-negative value");
        const size_t dim = shape[axis];
        const size_t k = std::min(static_cast<size_t>(k_values[0]), dim);
        Shape expected = shape;
        expected[axis] = k;
        if (outputs[0].get_shape() != expected || outputs[1].get_shape() != expected)
            throw_error<InvalidArgument>(m_who, ": outputs ", outputs[0].get_shape(), " and ",
                                         outputs[1].get_shape(), " differ from the expected ",
                                         expected);
        const element::Type index_type = outputs[1].get_element_type();
        if (index_type != element::i32 && index_type != element::i64)
            throw_error<NotImplemented>(m_who, ": index output type ", index_type,
                                        " is not i32 or i64");
        size_t outer = 1, inner = 1;
        for (size_t i = 0; i < axis; ++i) outer *= shape[i];
        for (size_t i = axis + 1; i < shape.size(); ++i) inner *= shape[i];
        dispatch(TopKTypes{}, m_type, m_who.c_str(), [&](auto tag) {
            using T = decltype(tag);
            if (index_type == element::i32) {
                run<T, int32_t>(tensor_data<T>(inputs[0]), outer, dim, inner, k,
                                tensor_data<T>(outputs[0]), tensor_data<int32_t>(outputs[1]));
            } else {
                run<T, int64_t>(tensor_data<T>(inputs[0]), outer, dim, inner, k,
                                tensor_data<T>(outputs[0]), tensor_data<int64_t>(outputs[1]));
            }
        });
    }

  private:
    template <typename T, typename I>
    void run(const T* in, size_t outer, size_t dim, size_t inner, size_t k, T* values,
             I* indices) const {
        using Key =
            std::conditional_t<std::is_floating_point_v<T> || std::is_integral_v<T>, T, float>;
        std::vector<std::pair<Key, size_t>> items(dim);
        const bool max = m_max;
        auto before = [max](const std::pair<Key, size_t>& a, const std::pair<Key, size_t>& b) {
            if (a.first != b.first) return max ? a.first > b.first : a.first < b.first;
            return a.second < b.second;
        };
        for (size_t o = 0; o < outer; ++o)
            for (size_t i = 0; i < inner; ++i) {
                const T* src = in + o * dim * inner + i;
                for (size_t j = 0; j < dim; ++j) items[j] = {static_cast<Key>(src[j * inner]), j};
                std::partial_sort(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(k),
                                  items.end(), before);
                if (m_sort_by_index)
                    std::sort(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(k),
                              [](const auto& a, const auto& b) { return a.second < b.second; });
                T* v = values + o * k * inner + i;
                I* x = indices + o * k * inner + i;
                for (size_t j = 0; j < k; ++j) {
                    v[j * inner] = src[items[j].second * inner];
                    x[j * inner] = static_cast<I>(items[j].second);
                }
            }
    }

    std::string m_who;
    int64_t m_axis;
    bool m_max;
    bool m_sort_by_index;
    element::Type m_type;
};

}  // namespace

void register_topk_kernels(KernelRegistry& registry) {
    registry.add("TopK", [](const Node& node) { return std::make_unique<TopKKernel>(node); });
}

}  // namespace vireo::reference::tensor
