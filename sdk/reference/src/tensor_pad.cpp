// Implements Pad-1 and Pad-12: constant, edge, reflect and symmetric modes, and negative pads
// (cropping) in Pad-12, through one source-index map per axis.
#include "tensor_common.hpp"

namespace vireo::reference::tensor {
namespace {

enum class PadMode { kConstant, kEdge, kReflect, kSymmetric };

PadMode parse_mode(const std::string& mode, const std::string& who) {
    if (mode == "constant") return PadMode::kConstant;
    if (mode == "edge") return PadMode::kEdge;
    if (mode == "reflect") return PadMode::kReflect;
    if (mode == "symmetric") return PadMode::kSymmetric;
    throw_error<InvalidArgument>(who, ": unknown pad_mode '", mode, "'");
}

// Source index along one axis for output position o, or -1 for the constant value.
int64_t source_index(int64_t o, int64_t pad_begin, int64_t dim, PadMode mode) {
    int64_t c = o - pad_begin;
    if (c >= 0 && c < dim) return c;
    if (mode == PadMode::kConstant || dim == 0) return -1;
    if (mode == PadMode::kEdge) return c < 0 ? 0 : dim - 1;
    // Mirror until inside: reflect excludes the edge element, symmetric repeats it. A period of
    // 2 * (dim - 1) (or 2 * dim) keeps pads wider than the axis well defined.
    if (mode == PadMode::kReflect) {
        if (dim == 1) return 0;
        const int64_t period = 2 * (dim - 1);
        c %= period;
        if (c < 0) c += period;
        return c < dim ? c : period - c;
    }
    const int64_t period = 2 * dim;
    c %= period;
    if (c < 0) c += period;
    return c < dim ? c : period - 1 - c;
}

class PadKernel final : public Kernel {
  public:
    explicit PadKernel(const Node& node)
        : m_who(node.describe()),
          m_mode(parse_mode(node.get_attribute<std::string>("pad_mode"), m_who)),
          m_allow_negative(node.get_version() >= 12) {
        if (node.input_value(0).get_element_type().is_sub_byte())
            throw_error<NotImplemented>(m_who, ": sub-byte element types are not supported");
    }

    void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        check_arity(inputs, 3, outputs, 1, m_who);
        const Shape& data = inputs[0].get_shape();
        const Shape& out = outputs[0].get_shape();
        const size_t rank = data.size();
        const auto begin = read_ints(inputs[1], m_who, "input 1 (pads_begin)");
        const auto end = read_ints(inputs[2], m_who, "input 2 (pads_end)");
        if (begin.size() != rank || end.size() != rank || out.size() != rank)
            throw_error<InvalidArgument>(m_who, ": pads_begin (", begin.size(),
                                         " values), pads_end (", end.size(), " values) and output ",
                                         out, " must match the rank of data ", data);
        std::vector<std::vector<int64_t>> maps(rank);
        for (size_t a = 0; a < rank; ++a) {
            if (!m_allow_negative && (begin[a] < 0 || end[a] < 0))
                throw_error<InvalidArgument>(m_who, ": negative pads need Pad-12, got ", begin[a],
                                             " and ", end[a], " on axis ", a);
            const int64_t expected = static_cast<int64_t>(data[a]) + begin[a] + end[a];
            if (expected != static_cast<int64_t>(out[a]))
                throw_error<InvalidArgument>(m_who, ": output ", out, " axis ", a,
                                             " should have size ", expected);
            if (data[a] == 0 && out[a] != 0 && m_mode != PadMode::kConstant)
                throw_error<InvalidArgument>(m_who, ": cannot pad the empty axis ", a,
                                             " in this pad_mode");
            maps[a].resize(out[a]);
            for (size_t o = 0; o < out[a]; ++o)
                maps[a][o] = source_index(static_cast<int64_t>(o), begin[a],
                                          static_cast<int64_t>(data[a]), m_mode);
        }
        const Tensor* pad_value =
            inputs.size() > 3 && m_mode == PadMode::kConstant ? &inputs[3] : nullptr;
        if (pad_value && pad_value->get_element_type() != inputs[0].get_element_type())
            throw_error<InvalidArgument>(m_who, ": pad_value type ", pad_value->get_element_type(),
                                         " differs from data ", inputs[0].get_element_type());
        dispatch_by_size(inputs[0].get_element_type(), m_who, [&](auto tag) {
            using U = decltype(tag);
            const U fill =
                pad_value && pad_value->get_size() > 0 ? tensor_data<U>(*pad_value)[0] : U{0};
            fill_output(tensor_data<U>(inputs[0]), data, maps, fill, tensor_data<U>(outputs[0]),
                        out);
        });
    }

  private:
    template <typename U>
    static void fill_output(const U* src, const Shape& data,
                            const std::vector<std::vector<int64_t>>& maps, U fill, U* dst,
                            const Shape& out) {
        const size_t total = shape_size(out);
        if (total == 0) return;
        const size_t rank = out.size();
        if (rank == 0) {
            dst[0] = src[0];
            return;
        }
        const std::vector<size_t> in_strides = element_strides(data);
        const std::vector<int64_t>& last = maps[rank - 1];
        std::vector<size_t> index(rank, 0);
        for (size_t at = 0; at < total; at += out[rank - 1]) {
            // Source row offset from the outer axes; -1 when any of them lands in constant padding.
            int64_t row = 0;
            for (size_t a = 0; a + 1 < rank && row >= 0; ++a) {
                const int64_t s = maps[a][index[a]];
                row = s < 0 ? -1 : row + s * static_cast<int64_t>(in_strides[a]);
            }
            U* o = dst + at;
            if (row < 0) {
                std::fill(o, o + out[rank - 1], fill);
            } else {
                for (size_t i = 0; i < out[rank - 1]; ++i)
                    o[i] = last[i] < 0 ? fill : src[row + last[i]];
            }
            for (size_t a = rank - 1; a-- > 0;) {
                if (++index[a] < out[a]) break;
                index[a] = 0;
            }
        }
    }

    std::string m_who;
    PadMode m_mode;
    bool m_allow_negative;
};

}  // namespace

void register_pad_kernels(KernelRegistry& registry) {
    registry.add("Pad", [](const Node& node) { return std::make_unique<PadKernel>(node); });
}

}  // namespace vireo::reference::tensor
