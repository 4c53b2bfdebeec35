// Declares the per-output parts of PrePostProcessor: the model's side of an output, the steps that
// turn it into what the user wants (PostProcessSteps) and the user's tensor (OutputTensorInfo).
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "vireo/element_type.hpp"
#include "vireo/layout.hpp"
#include "vireo/preprocess_input.hpp"

namespace vireo {

/// What the model's output is: its layout, when the model does not already say (a "layout"
/// entry in the rt_info of the Result or of the output it consumes).
class OutputModelInfo {
  public:
    OutputModelInfo& set_layout(const Layout& layout);
    const std::optional<Layout>& layout() const { return m_layout; }

  private:
    std::optional<Layout> m_layout;
};

/// The steps from the model's output to the user's tensor, in the order added. After them
/// build() adds, when still needed, a Convert to the tensor's element type and a Transpose to the
/// tensor's layout.
class PostProcessSteps {
  public:
    /// Convert to `type`; element::dynamic (the default) means the tensor's element type.
    PostProcessSteps& convert_element_type(element::Type type = element::dynamic);
    /// Transpose to `layout`; the empty layout (the default) means the tensor's layout.
    PostProcessSteps& convert_layout(const Layout& layout = {});
    /// Any ops: `fn` gets the current output and returns the new one (layout is kept).
    PostProcessSteps& custom(std::function<Output(const Output&)> fn);

    const std::vector<PreprocessStep>& steps() const { return m_steps; }

  private:
    std::vector<PreprocessStep> m_steps;
};

/// The tensor the user gets for one model output. Every setter is optional.
class OutputTensorInfo {
  public:
    /// The element type the user receives (a Convert is added at the end when it differs).
    OutputTensorInfo& set_element_type(element::Type type);
    /// The layout the user receives (a Transpose is added when it differs from the model's).
    OutputTensorInfo& set_layout(const Layout& layout);

    const std::optional<element::Type>& element_type() const { return m_type; }
    const std::optional<Layout>& layout() const { return m_layout; }

  private:
    std::optional<element::Type> m_type;
    std::optional<Layout> m_layout;
};

/// Everything about one output. Owned by its PrePostProcessor; references stay valid as long
/// as it.
class OutputInfo {
  public:
    OutputModelInfo& model() { return m_model; }
    PostProcessSteps& postprocess() { return m_steps; }
    OutputTensorInfo& tensor() { return m_tensor; }
    const OutputModelInfo& model() const { return m_model; }
    const PostProcessSteps& postprocess() const { return m_steps; }
    const OutputTensorInfo& tensor() const { return m_tensor; }

  private:
    OutputModelInfo m_model;
    PostProcessSteps m_steps;
    OutputTensorInfo m_tensor;
};

}  // namespace vireo
