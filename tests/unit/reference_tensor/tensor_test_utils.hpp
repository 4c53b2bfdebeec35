// Declares helpers for the tensor-kernel tests: building nodes, filling and reading tensors of
// any element type, random data and running a node once through the reference kernels.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "vireo/node.hpp"
#include "vireo/ops.hpp"
#include "vireo/reference/kernel.hpp"
#include "vireo/tensor.hpp"

namespace vireo::test {

using Attrs = std::map<std::string, AttrValue>;
using Ints = std::vector<int64_t>;

/// A tensor of `type` holding `values` converted element by element (bool-as-byte for boolean).
template <typename V>
Tensor make_tensor(element::Type type, const Shape& shape, const std::vector<V>& values) {
    Tensor t(type, shape);
    EXPECT_EQ(values.size(), t.get_size()) << "test data does not match shape " << shape;
    void* p = t.data();
    for (size_t i = 0; i < values.size() && i < t.get_size(); ++i) {
        const double v = static_cast<double>(values[i]);
        switch (type.id()) {
            case element::TypeId::boolean:
                static_cast<uint8_t*>(p)[i] = v != 0;
                break;
            case element::TypeId::u8:
                static_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(v);
                break;
            case element::TypeId::i8:
                static_cast<int8_t*>(p)[i] = static_cast<int8_t>(v);
                break;
            case element::TypeId::u16:
                static_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(v);
                break;
            case element::TypeId::i16:
                static_cast<int16_t*>(p)[i] = static_cast<int16_t>(v);
                break;
            case element::TypeId::u32:
                static_cast<uint32_t*>(p)[i] = static_cast<uint32_t>(v);
                break;
            case element::TypeId::i32:
                static_cast<int32_t*>(p)[i] = static_cast<int32_t>(v);
                break;
            case element::TypeId::u64:
                static_cast<uint64_t*>(p)[i] = static_cast<uint64_t>(values[i]);
                break;
            case element::TypeId::i64:
                static_cast<int64_t*>(p)[i] = static_cast<int64_t>(values[i]);
                break;
            case element::TypeId::f16:
                static_cast<float16*>(p)[i] = float16(static_cast<float>(v));
                break;
            case element::TypeId::bf16:
                static_cast<bfloat16*>(p)[i] = bfloat16(static_cast<float>(v));
                break;
            case element::TypeId::f32:
                static_cast<float*>(p)[i] = static_cast<float>(values[i]);
                break;
            case element::TypeId::f64:
                static_cast<double*>(p)[i] = static_cast<double>(values[i]);
                break;
            default:
                ADD_FAILURE() << "make_tensor: unsupported type " << type;
                return t;
        }
    }
    return t;
}

/// The elements of any numeric tensor as doubles.
std::vector<double> values_of(const Tensor& t);
/// The elements of an integer tensor as int64.
std::vector<int64_t> ints_of(const Tensor& t);

/// Deterministic uniform values in [lo, hi); with `integral` rounded to whole numbers (so that
/// products are exact in every type).
std::vector<double> random_values(size_t n, uint32_t seed, double lo = -1.0, double hi = 1.0,
                                  bool integral = false);

inline NodePtr param(element::Type type, const Shape& shape) {
    return op::parameter(type, PartialShape(shape));
}
inline NodePtr constant(const Tensor& value) {
    return op::constant(value);
}

/// Runs `node` once on `inputs` through the kernel registry (shape inference, allocation, kernel).
inline std::vector<Tensor> run(const NodePtr& node, const std::vector<Tensor>& inputs) {
    return reference::evaluate(*node, inputs);
}

/// Expects `actual` to match `expected` element by element within `tol` (absolute, plus the
/// same relative to |expected|).
void expect_near(const std::vector<double>& actual, const std::vector<double>& expected, double tol,
                 const std::string& what = "");

}  // namespace vireo::test
