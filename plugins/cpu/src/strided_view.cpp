// Implements the CPU plugin's strided views (reshaped_strides, strided_view).
#include "strided_view.hpp"

#include "config.hpp"
#include "vireo/dev/itensor.hpp"
#include "vireo/exception.hpp"

namespace vireo::cpu_plugin {
namespace {

class StridedView final : public sdk::ITensor {
  public:
    StridedView(Tensor source, const Shape& shape, const Strides& strides)
        : m_source(std::move(source)), m_shape(shape), m_strides(strides) {}

    element::Type get_element_type() const override { return m_source.get_element_type(); }
    const Shape& get_shape() const override { return m_shape; }
    void set_shape(const Shape& shape) override {
        throw_error<InvalidArgument>(kDeviceName, ": a strided view of shape ", m_shape,
                                     " cannot take shape ", shape);
    }
    const Strides& get_strides() const override { return m_strides; }
    void* data() const override { return m_source.data(); }

  private:
    Tensor m_source;
    Shape m_shape;
    Strides m_strides;
};

// Bytes from the first element to one past the last (0 for an empty tensor).
size_t extent(const Shape& shape, const Strides& strides, size_t element_size) {
    size_t last = 0;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == 0) return 0;
        last += (shape[i] - 1) * strides[i];
    }
    return last + element_size;
}

}  // namespace

std::optional<Strides> reshaped_strides(const Shape& from, const Strides& strides, const Shape& to,
                                        size_t element_size) {
    if (from.size() != strides.size() || shape_size(from) != shape_size(to) || shape_size(to) == 0)
        return std::nullopt;
    // The source without its dimensions of 1 (their strides mean nothing).
    std::vector<size_t> dims, steps;
    for (size_t i = 0; i < from.size(); ++i)
        if (from[i] != 1) {
            dims.push_back(from[i]);
            steps.push_back(strides[i]);
        }
    Strides out(to.size(), element_size);
    size_t o = 0, n = 0;  // next source and target dimension
    while (o < dims.size() && n < to.size()) {
        // The shortest run of source dimensions [o, oe) and target dimensions [n, ne) of equal
        // products.
        size_t oe = o + 1, ne = n + 1, op = dims[o], np = to[n];
        while (op != np) {
            if (np < op) {
                if (ne == to.size()) return std::nullopt;
                np *= to[ne++];
            } else {
                if (oe == dims.size()) return std::nullopt;
                op *= dims[oe++];
            }
        }
        // The run reads as one block only if each of its source dimensions steps over exactly
        // the next one.
        for (size_t k = o; k + 1 < oe; ++k)
            if (steps[k] != dims[k + 1] * steps[k + 1]) return std::nullopt;
        out[ne - 1] = steps[oe - 1];
        for (size_t k = ne - 1; k > n; --k) out[k - 1] = out[k] * to[k];
        o = oe;
        n = ne;
    }
    // Dimensions of 1 left at the end of the target keep the element size.
    return out;
}

Tensor strided_view(const Tensor& source, const Shape& shape, const Strides& strides) {
    if (!source || source.is_remote() || source.data() == nullptr ||
        source.get_element_type().is_sub_byte())
        throw_error<InvalidArgument>(kDeviceName, ": a strided view needs a host tensor");
    const size_t element_size = source.get_element_type().size();
    if (strides.size() != shape.size() ||
        extent(shape, strides, element_size) >
            extent(source.get_shape(), source.get_strides(), element_size))
        throw_error<InvalidArgument>(kDeviceName, ": a view of shape ", shape,
                                     " does not fit in its source of shape ", source.get_shape());
    return Tensor(std::make_shared<StridedView>(source, shape, strides));
}

}  // namespace vireo::cpu_plugin
