// Helpers for the math kernel tests: tensors from plain values, one-node evaluation through
// vireo::reference::evaluate(), and value checks with per-type tolerances and NaN awareness.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "vireo/node.hpp"
#include "vireo/ops.hpp"
#include "vireo/reference/dispatch.hpp"
#include "vireo/reference/kernel.hpp"

namespace vireo::reference::test {

/// A tensor of `type` and `shape` holding `values` converted with static_cast (boolean: != 0).
template <typename V>
Tensor make_tensor(element::Type type, const Shape& shape, const std::vector<V>& values) {
    Tensor t(type, shape);
    EXPECT_EQ(values.size(), t.get_size()) << "test data for shape " << shape;
    if (type == element::boolean) {
        auto* p = static_cast<uint8_t*>(t.data());
        for (size_t i = 0; i < values.size() && i < t.get_size(); ++i)
            p[i] = values[i] != V(0) ? 1 : 0;
        return t;
    }
    dispatch(AllTypes{}, type, "make_tensor", [&](auto tag) {
        using T = decltype(tag);
        auto* p = static_cast<T*>(t.data());
        for (size_t i = 0; i < values.size() && i < t.get_size(); ++i) {
            if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>)
                p[i] = T(static_cast<float>(values[i]));
            else
                p[i] = static_cast<T>(values[i]);
        }
    });
    return t;
}

inline Tensor f32(const Shape& shape, const std::vector<double>& values) {
    return make_tensor(element::f32, shape, values);
}
inline Tensor i64s(const std::vector<int64_t>& values) {
    return make_tensor(element::i64, Shape{values.size()}, values);
}

/// The elements of a tensor as doubles (reals and integers up to 2^53 are exact).
inline std::vector<double> values_of(const Tensor& t) {
    std::vector<double> out(t.get_size());
    dispatch(AllTypes{}, t.get_element_type(), "values_of", [&](auto tag) {
        using T = decltype(tag);
        const auto* p = static_cast<const T*>(t.data());
        for (size_t i = 0; i < out.size(); ++i) {
            if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>)
                out[i] = static_cast<float>(p[i]);
            else
                out[i] = static_cast<double>(p[i]);
        }
    });
    return out;
}

/// The elements of an integer tensor as int64 (exact for every integer type but large u64).
inline std::vector<int64_t> ints_of(const Tensor& t) {
    std::vector<int64_t> out(t.get_size());
    dispatch(TypeList<element::TypeId::boolean, element::TypeId::i8, element::TypeId::u8,
                      element::TypeId::i16, element::TypeId::u16, element::TypeId::i32,
                      element::TypeId::u32, element::TypeId::i64, element::TypeId::u64>{},
             t.get_element_type(), "ints_of", [&](auto tag) {
                 using T = decltype(tag);
                 const auto* p = static_cast<const T*>(t.data());
                 for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int64_t>(p[i]);
             });
    return out;
}

/// Relative tolerance suited to an element type's precision.
inline double tolerance_for(element::Type type) {
    switch (type.id()) {
        case element::TypeId::f16:
            return 2e-3;
        case element::TypeId::bf16:
            return 1.6e-2;
        case element::TypeId::f32:
            return 2e-6;
        case element::TypeId::f64:
            return 1e-12;
        default:
            return 0.0;
    }
}

/// Checks every element against `expected` (NaN must match NaN, infinities exactly, others within
/// `rel` relative or `rel` absolute near zero).
inline void expect_values(const Tensor& t, const std::vector<double>& expected, double rel = -1.0,
                          const std::string& context = "") {
    if (rel < 0) rel = tolerance_for(t.get_element_type());
    const auto got = values_of(t);
    ASSERT_EQ(got.size(), expected.size()) << context;
    for (size_t i = 0; i < got.size(); ++i) {
        const double e = expected[i];
        if (std::isnan(e)) {
            EXPECT_TRUE(std::isnan(got[i]))
                << context << " element " << i << ": expected NaN, got " << got[i];
        } else if (std::isinf(e)) {
            EXPECT_EQ(got[i], e) << context << " element " << i;
        } else {
            EXPECT_NEAR(got[i], e, rel * std::max(1.0, std::fabs(e)))
                << context << " element " << i << " (" << t.get_element_type() << ")";
        }
    }
}

/// Builds a node of `type` over Parameters shaped like `inputs` (or Constants for the indices in
/// `constants`), then evaluates it on `inputs` and returns output `index`.
inline std::vector<Tensor> run_all(const std::string& type, const std::vector<Tensor>& inputs,
                                   std::map<std::string, AttrValue> attributes = {},
                                   int version = -1, const std::set<size_t>& constants = {}) {
    OutputVector args;
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (constants.count(i))
            args.push_back(op::constant(inputs[i]));
        else
            args.push_back(
                op::parameter(inputs[i].get_element_type(), PartialShape(inputs[i].get_shape())));
    }
    const NodePtr node = make_node(type, args, std::move(attributes), version);
    return evaluate(*node, inputs);
}

inline Tensor run(const std::string& type, const std::vector<Tensor>& inputs,
                  std::map<std::string, AttrValue> attributes = {}, int version = -1,
                  const std::set<size_t>& constants = {}) {
    return run_all(type, inputs, std::move(attributes), version, constants).at(0);
}

/// The types the arithmetic tests run over.
inline const std::vector<element::Type>& real_types() {
    static const std::vector<element::Type> types{element::f16, element::bf16, element::f32,
                                                  element::f64};
    return types;
}
inline const std::vector<element::Type>& integer_types() {
    static const std::vector<element::Type> types{element::i8,  element::u8,  element::i16,
                                                  element::u16, element::i32, element::u32,
                                                  element::i64, element::u64};
    return types;
}
inline std::vector<element::Type> numeric_types() {
    std::vector<element::Type> all = real_types();
    all.insert(all.end(), integer_types().begin(), integer_types().end());
    return all;
}

}  // namespace vireo::reference::test
