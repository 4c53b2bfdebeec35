// Implements the indexed reads and writes: Gather-1/7/8 (batch_dims, negative indices; out of
// range: zeros in v8, an error in v1/v7), GatherElements-6 and ScatterUpdate-3, by element size.
#include "tensor_common.hpp"

namespace vireo::reference::tensor {
namespace {

size_t product(const Shape& s, size_t from, size_t to) {
    size_t n = 1;
    for (size_t i = from; i < to; ++i) n *= s[i];
    return n;
}

// A single axis value from a scalar or 1-element input.
int64_t read_axis(const Tensor& t, const std::string& who, const char* what) {
    const auto v = read_ints(t, who, what);
    if (v.size() != 1)
        throw_error<InvalidArgument>(who, ": ", what, " must hold one value, got ", v.size());
    return v[0];
}

class GatherKernel final : public Kernel {
  public:
    explicit GatherKernel(const Node& node)
        : m_who(node.describe()),
          m_batch_dims(node.has_attribute("batch_dims") ? node.get_attribute<int64_t>("batch_dims")
                                                        : 0),
          m_zero_out_of_range(node.get_version() >= 8) {}

    void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        check_arity(inputs, 3, outputs, 1, m_who);
        const Shape& data = inputs[0].get_shape();
        const Shape& indices_shape = inputs[1].get_shape();
        const size_t axis = normalize_axis(read_axis(inputs[2], m_who, "input 2 (axis)"),
                                           data.size(), m_who, "axis");
        int64_t b = m_batch_dims < 0 ? m_batch_dims + static_cast<int64_t>(indices_shape.size())
                                     : m_batch_dims;
        if (b < 0 || static_cast<size_t>(b) > axis || static_cast<size_t>(b) > indices_shape.size())
            throw_error<InvalidArgument>(m_who, ": batch_dims ", m_batch_dims,
                                         " is out of range for data ", data, ", indices ",
                                         indices_shape, " and axis ", axis);
        const auto batch_dims = static_cast<size_t>(b);
        for (size_t i = 0; i < batch_dims; ++i)
            if (data[i] != indices_shape[i])
                throw_error<InvalidArgument>(m_who, ": batch dimension ", i,
                                             " differs between data ", data, " and indices ",
                                             indices_shape);
        const size_t batches = product(data, 0, batch_dims);
        const size_t outer = product(data, batch_dims, axis);
        const auto axis_dim = static_cast<int64_t>(data[axis]);
        const size_t inner = product(data, axis + 1, data.size());
        const size_t per_batch = product(indices_shape, batch_dims, indices_shape.size());
        if (outputs[0].get_size() != batches * outer * per_batch * inner)
            throw_error<InvalidArgument>(m_who, ": output ", outputs[0].get_shape(),
                                         " does not match data ", data, " gathered by indices ",
                                         indices_shape, " on axis ", axis);
        const auto indices = read_ints(inputs[1], m_who, "input 1 (indices)");
        const size_t bytes = inputs[0].get_element_type().size();
        const size_t block = inner * bytes;
        const auto* src = static_cast<const uint8_t*>(inputs[0].data());
        auto* dst = static_cast<uint8_t*>(outputs[0].data());
        for (size_t bi = 0; bi < batches; ++bi) {
            for (size_t o = 0; o < outer; ++o) {
                const uint8_t* slab =
                    src + ((bi * outer + o) * static_cast<size_t>(axis_dim)) * block;
                for (size_t i = 0; i < per_batch; ++i, dst += block) {
                    const int64_t given = indices[bi * per_batch + i];
                    const int64_t idx = given < 0 ? given + axis_dim : given;
                    // Gather-8 defines zeros for an index out of range; v1/v7 leave it undefined,
                    // and the frontends that use them (ONNX) call it an error: say so.
                    if (idx < 0 || idx >= axis_dim) {
                        if (!m_zero_out_of_range)
                            throw_error<InvalidArgument>(
                                m_who, ": index ", given, " is out of range for axis ", axis,
                                " of size ", axis_dim, " (data ", data, ")");
                        if (block != 0) std::memset(dst, 0, block);
                    } else if (block != 0) {  // an empty slab (a cache of length 0) has no data
                        std::memcpy(dst, slab + static_cast<size_t>(idx) * block, block);
                    }
                }
            }
        }
    }

  private:
    std::string m_who;
    int64_t m_batch_dims;
    bool m_zero_out_of_range;
};

std::unique_ptr<Kernel> make_gather_elements_kernel(const Node& node) {
    const int64_t axis_attr = node.get_attribute<int64_t>("axis");
    return make_kernel([who = node.describe(), axis_attr](const std::vector<Tensor>& inputs,
                                                          std::vector<Tensor>& outputs) {
        check_arity(inputs, 2, outputs, 1, who);
        const Shape& data = inputs[0].get_shape();
        const Shape& ishape = inputs[1].get_shape();
        const size_t axis = normalize_axis(axis_attr, data.size(), who, "attribute 'axis'");
        bool ok = ishape.size() == data.size() && outputs[0].get_shape() == ishape;
        for (size_t i = 0; ok && i < data.size(); ++i) ok = i == axis || ishape[i] == data[i];
        if (!ok)
            throw_error<InvalidArgument>(who, ": indices ", ishape, " and output ",
                                         outputs[0].get_shape(), " must match data ", data,
                                         " except on axis ", axis);
        const auto indices = read_ints(inputs[1], who, "input 1 (indices)");
        // Element p of the output reads data at p with its axis coordinate replaced by the index.
        const size_t outer = product(ishape, 0, axis),
                     inner = product(ishape, axis + 1, ishape.size());
        const size_t n_idx = ishape[axis];
        const auto dim = static_cast<int64_t>(data[axis]);
        dispatch_by_size(inputs[0].get_element_type(), who, [&](auto tag) {
            using U = decltype(tag);
            const U* src = tensor_data<U>(inputs[0]);
            U* dst = tensor_data<U>(outputs[0]);
            for (size_t o = 0; o < outer; ++o)
                for (size_t j = 0; j < n_idx; ++j)
                    for (size_t k = 0; k < inner; ++k) {
                        const size_t at = (o * n_idx + j) * inner + k;
                        int64_t idx = indices[at];
                        if (idx < 0) idx += dim;
                        if (idx < 0 || idx >= dim)
                            throw_error<InvalidArgument>(who, ": index ", indices[at],
                                                         " is out of range for axis ", axis,
                                                         " of size ", dim);
                        dst[at] =
                            src[(o * static_cast<size_t>(dim) + static_cast<size_t>(idx)) * inner +
                                k];
                    }
        });
    });
}

std::unique_ptr<Kernel> make_scatter_update_kernel(const Node& node) {
    return make_kernel([who = node.describe()](const std::vector<Tensor>& inputs,
                                               std::vector<Tensor>& outputs) {
        check_arity(inputs, 4, outputs, 1, who);
        const Shape& data = inputs[0].get_shape();
        const Shape& ishape = inputs[1].get_shape();
        const Shape& ushape = inputs[2].get_shape();
        const size_t axis =
            normalize_axis(read_axis(inputs[3], who, "input 3 (axis)"), data.size(), who, "axis");
        const size_t outer = product(data, 0, axis), inner = product(data, axis + 1, data.size());
        const size_t n_idx = shape_size(ishape);
        if (inputs[2].get_size() != outer * n_idx * inner ||
            inputs[2].get_element_type() != inputs[0].get_element_type())
            throw_error<InvalidArgument>(who, ": updates ", ushape, " (",
                                         inputs[2].get_element_type(), ") do not match data ", data,
                                         " (", inputs[0].get_element_type(), ") with indices ",
                                         ishape, " at axis ", axis);
        if (outputs[0].get_byte_size() != inputs[0].get_byte_size())
            throw_error<InvalidArgument>(who, ": output ", outputs[0].get_shape(),
                                         " differs from data ", data);
        if (outputs[0].data() != inputs[0].data() && inputs[0].get_byte_size() != 0)
            std::memcpy(outputs[0].data(), inputs[0].data(), inputs[0].get_byte_size());
        const auto indices = read_ints(inputs[1], who, "input 1 (indices)");
        const size_t block = inner * inputs[0].get_element_type().size();
        const auto dim = static_cast<int64_t>(data[axis]);
        const auto* src = static_cast<const uint8_t*>(inputs[2].data());
        auto* dst = static_cast<uint8_t*>(outputs[0].data());
        for (size_t o = 0; o < outer; ++o)
            for (size_t i = 0; i < n_idx; ++i) {
                int64_t idx = indices[i];
                if (idx < 0) idx += dim;
                if (idx < 0 || idx >= dim)
                    throw_error<InvalidArgument>(who, ": index ", indices[i],
                                                 " is out of range for axis ", axis, " of size ",
                                                 dim);
                std::memcpy(dst + (o * static_cast<size_t>(dim) + static_cast<size_t>(idx)) * block,
                            src + (o * n_idx + i) * block, block);
            }
    });
}

}  // namespace

void register_gather_kernels(KernelRegistry& registry) {
    registry.add("Gather", [](const Node& node) {
        if (node.input_value(0).get_element_type().is_sub_byte())
            throw_error<NotImplemented>(node.describe(),
                                        ": sub-byte element types are not supported");
        return std::make_unique<GatherKernel>(node);
    });
    registry.add("GatherElements", make_gather_elements_kernel);
    registry.add("ScatterUpdate", make_scatter_update_kernel);
}

}  // namespace vireo::reference::tensor
