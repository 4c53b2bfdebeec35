// Declares the per-input parts of PrePostProcessor: what the user's tensor is (InputTensorInfo),
// the steps that turn it into what the model expects (PreProcessSteps) and the model's side.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "vireo/element_type.hpp"
#include "vireo/layout.hpp"
#include "vireo/node.hpp"
#include "vireo/partial_shape.hpp"

namespace vireo {

class PrePostProcessor;

/// Resize algorithms of PreProcessSteps::resize(). kNearest picks the source pixel
/// floor(dst * in / out) (OpenCV's INTER_NEAREST; Interpolate "nearest", "asymmetric", "floor");
/// kLinear is bilinear with half-pixel centres, clamped at the borders (OpenCV's INTER_LINEAR;
/// Interpolate "linear_onnx", "half_pixel"); kCubic is bicubic (a = -0.75) with half-pixel
/// centres, borders replicated (OpenCV's INTER_CUBIC; Interpolate "cubic"). kBilinearPillow and
/// kBicubicPillow resample as Pillow's Image.resize(BILINEAR / BICUBIC) does, filters widened
/// by the downscale factor (antialiased; Interpolate-11 "bilinear_pillow", "bicubic_pillow"
/// with a = -0.5), so a model trained on Pillow-resized images sees the same pixels. Integer
/// results round to nearest and saturate.
enum class ResizeAlgorithm { kNearest, kLinear, kCubic, kBilinearPillow, kBicubicPillow };

/// The user's tensor for one model input. Every setter is optional; what is not set is taken
/// from the model's input (element type, layout, shape). Setters return *this for chaining.
class InputTensorInfo {
  public:
    InputTensorInfo& set_element_type(element::Type type);
    /// The layout of the user's tensor, e.g. "NHWC". Needed by convert_layout, resize, per-channel
    /// mean/scale and reverse_channels when the model's layout differs or is unknown.
    InputTensorInfo& set_layout(const Layout& layout);
    /// The whole shape of the user's tensor (overrides set_spatial_static_shape()).
    InputTensorInfo& set_shape(const PartialShape& shape);
    /// Only the H and W dimensions differ from the model's (needs a tensor layout with H and W,
    /// checked in build()); the shape is then the model's shape in the tensor layout with these.
    InputTensorInfo& set_spatial_static_shape(size_t height, size_t width);

    const std::optional<element::Type>& element_type() const { return m_type; }
    const std::optional<Layout>& layout() const { return m_layout; }
    const std::optional<PartialShape>& shape() const { return m_shape; }
    const std::optional<std::pair<size_t, size_t>>& spatial_shape() const { return m_spatial; }

  private:
    std::optional<element::Type> m_type;
    std::optional<Layout> m_layout;
    std::optional<PartialShape> m_shape;
    std::optional<std::pair<size_t, size_t>> m_spatial;
};

/// One recorded pre- or post-processing step (what build() turns into ops).
struct PreprocessStep {
    enum class Kind {
        kConvertElementType,
        kConvertLayout,
        kResize,
        kMean,
        kScale,
        kReverseChannels,
        kCustom
    };
    Kind kind;
    element::Type type = element::dynamic;  ///< kConvertElementType; dynamic: the target's
    Layout layout;                          ///< kConvertLayout; empty: the target's
    ResizeAlgorithm algorithm = ResizeAlgorithm::kLinear;
    std::optional<std::pair<size_t, size_t>> size;  ///< kResize: (height, width); none: the model's
    std::vector<float> values;                      ///< kMean, kScale: one value or one per channel
    std::function<Output(const Output&)> custom;    ///< kCustom
};

/// The steps from the user's tensor to the model's input, applied in the order they are added.
/// After them build() adds, when still needed, a Convert to the model's element type and a
/// Transpose to the model's layout; any other mismatch (e.g. a spatial size without resize())
/// is an error of build(). Steps are checked in build(), which throws InvalidArgument naming the
/// input and the step.
class PreProcessSteps {
  public:
    /// Convert to `type`; element::dynamic (the default) means the model's element type.
    PreProcessSteps& convert_element_type(element::Type type = element::dynamic);
    /// Transpose to `layout`; the empty layout (the default) means the model's layout. Both
    /// layouts must name every dimension (no '?' or '...') and the same set of names.
    PreProcessSteps& convert_layout(const Layout& layout = {});
    /// Resize H and W to the model's size (needs the model's layout with H and W and static
    /// sizes there) or to (height, width). The current layout must have H and W.
    PreProcessSteps& resize(ResizeAlgorithm algorithm);
    PreProcessSteps& resize(ResizeAlgorithm algorithm, size_t height, size_t width);
    /// x - mean: one value for every element, or one per channel (needs a layout with C and as
    /// many values as channels). The data must already be floating-point.
    PreProcessSteps& mean(float value);
    PreProcessSteps& mean(const std::vector<float>& values);
    /// x / scale, like mean(); a zero scale is an error.
    PreProcessSteps& scale(float value);
    PreProcessSteps& scale(const std::vector<float>& values);
    /// Reverses the order of the channels (RGB <-> BGR); needs a layout with a static C.
    PreProcessSteps& reverse_channels();
    /// Any ops: `fn` gets the current output and returns the new one (layout is kept).
    PreProcessSteps& custom(std::function<Output(const Output&)> fn);

    const std::vector<PreprocessStep>& steps() const { return m_steps; }

  private:
    std::vector<PreprocessStep> m_steps;
};

/// What the model's input is: its layout, when the model does not already say (a "layout" entry
/// in the Parameter's rt_info, as IR v11 stores it).
class InputModelInfo {
  public:
    InputModelInfo& set_layout(const Layout& layout);
    const std::optional<Layout>& layout() const { return m_layout; }

  private:
    std::optional<Layout> m_layout;
};

/// Everything about one input. Owned by its PrePostProcessor; references stay valid as long as it.
class InputInfo {
  public:
    InputTensorInfo& tensor() { return m_tensor; }
    PreProcessSteps& preprocess() { return m_steps; }
    InputModelInfo& model() { return m_model; }
    const InputTensorInfo& tensor() const { return m_tensor; }
    const PreProcessSteps& preprocess() const { return m_steps; }
    const InputModelInfo& model() const { return m_model; }

  private:
    InputTensorInfo m_tensor;
    PreProcessSteps m_steps;
    InputModelInfo m_model;
};

}  // namespace vireo
