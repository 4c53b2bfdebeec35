// Declares the op builders behind PrePostProcessor::build(): each recorded step becomes ops on
// the current output, checked against the current element type, shape and layout.
#pragma once

#include <string>

#include "vireo/layout.hpp"
#include "vireo/node.hpp"
#include "vireo/preprocess_input.hpp"

namespace vireo::preprocess_impl {

/// The data between two steps: the output carrying it and what its dimensions mean.
struct Current {
    Output output;
    Layout layout;
};

/// What a step may default to: the element type, layout and shape at the other end (the model's
/// input for preprocessing, the user's tensor for postprocessing); dynamic or empty: unknown.
struct Target {
    element::Type type = element::dynamic;
    Layout layout;
    PartialShape shape = PartialShape::dynamic();
};

/// Applies one step; `what` names the input or output for error messages ("input 'x'").
/// Throws InvalidArgument naming `what` and the step when the step does not fit the data.
void apply_step(Current& cur, const PreprocessStep& step, const Target& target,
                const std::string& what);

/// Convert to `type` (nothing when it already is).
void convert_type(Current& cur, element::Type type);
/// Transpose from cur.layout to `layout` (nothing when equal); `step` names the step for errors.
void convert_layout(Current& cur, const Layout& layout, const std::string& what,
                    const std::string& step);

/// The layout recorded in a port's rt_info ("layout"), or in its node's; empty when none.
Layout layout_from_rt_info(const Output& port);

}  // namespace vireo::preprocess_impl
