// Helpers for the op shape-inference tests: parameters from shape text, i64 constants, and
// assertions on output shapes and on errors that name the node.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "vireo/op_registry.hpp"
#include "vireo/ops.hpp"

namespace vireo::test {

/// A Parameter of `type` and the shape written as IR text ("1,3,?,1..10", "..." for dynamic rank).
inline NodePtr param(const std::string& shape, element::Type type = element::f32) {
    return op::parameter(type, PartialShape::parse(shape));
}

inline NodePtr i64(const std::vector<int64_t>& values) {
    return op::int64_vector(values);
}
inline NodePtr i64_scalar(int64_t value) {
    return op::int64_scalar(value);
}
inline NodePtr i32(const std::vector<int64_t>& values) {
    return op::constant<int64_t>(element::i32, Shape{values.size()}, values);
}

/// Output `index`'s shape as IR text with brackets: "[1,3,?]", "[...]".
inline std::string shape_of(const NodePtr& node, size_t index = 0) {
    return node->get_output_partial_shape(index).to_string();
}

/// Runs `make` and checks it throws InvalidArgument whose message contains every piece of `parts`.
inline void expect_invalid(const std::function<void()>& make,
                           const std::vector<std::string>& parts) {
    try {
        make();
        ADD_FAILURE() << "expected InvalidArgument containing '" << (parts.empty() ? "" : parts[0])
                      << "'";
    } catch (const InvalidArgument& e) {
        const std::string what = e.what();
        for (const auto& p : parts)
            EXPECT_NE(what.find(p), std::string::npos) << "'" << p << "' not in: " << what;
    }
}

}  // namespace vireo::test
