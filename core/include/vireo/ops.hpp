// Declares typed builders for the standard ops: the readable way to make a graph in C++.
#pragma once

#include <string>
#include <vector>

#include "vireo/float16.hpp"
#include "vireo/node.hpp"

namespace vireo::op {

/// A model input of `type` and `shape`; `name` becomes its friendly name and tensor name.
NodePtr parameter(element::Type type, const PartialShape& shape, const std::string& name = "");
/// A constant holding `value` (shared, not copied).
NodePtr constant(const Tensor& value);
/// A constant of `type` and `shape` from `values` (converted to `type`); a single value is
/// broadcast to the whole shape. Throws InvalidArgument if the count does not match.
template <typename T>
NodePtr constant(element::Type type, const Shape& shape, const std::vector<T>& values);
NodePtr result(const Output& value);

// ---- Implementation of the template above ----
namespace detail {
NodePtr constant_from_doubles(element::Type type, const Shape& shape, const std::vector<double>& values);
NodePtr constant_from_i64(element::Type type, const Shape& shape, const std::vector<int64_t>& values);
}  // namespace detail

template <typename T>
NodePtr constant(element::Type type, const Shape& shape, const std::vector<T>& values) {
    if constexpr (std::is_integral_v<T>) {
        return detail::constant_from_i64(type, shape, std::vector<int64_t>(values.begin(), values.end()));
    } else {
        std::vector<double> v;
        v.reserve(values.size());
        for (const auto& x : values) v.push_back(static_cast<double>(x));
        return detail::constant_from_doubles(type, shape, v);
    }
}

}  // namespace vireo::op
