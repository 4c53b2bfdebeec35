// Implements Shape helpers: element counts with overflow checks, strides, printing.
#include "vireo/shape.hpp"

#include <sstream>

#include "vireo/exception.hpp"

namespace vireo {

std::string Shape::to_string() const {
    std::ostringstream out;
    out << *this;
    return out.str();
}

size_t shape_size(const std::vector<size_t>& shape) {
    // A zero axis anywhere empties the tensor, however large the other axes are.
    for (size_t d : shape)
        if (d == 0) return 0;
    size_t total = 1;
    for (size_t d : shape) {
        if (d != 0 && total > SIZE_MAX / d) {
            Shape s(shape);
            throw_error<InvalidArgument>("shape ", s, " has more elements than can be addressed");
        }
        total *= d;
    }
    return total;
}

Strides row_major_strides(const Shape& shape, size_t element_bytes) {
    Strides strides(shape.size());
    size_t stride = element_bytes;
    for (size_t i = shape.size(); i-- > 0;) {
        strides[i] = stride;
        stride *= shape[i] == 0 ? 1 : shape[i];
    }
    return strides;
}

std::ostream& operator<<(std::ostream& out, const Shape& shape) {
    out << '[';
    for (size_t i = 0; i < shape.size(); ++i) out << (i ? "," : "") << shape[i];
    return out << ']';
}

}  // namespace vireo
