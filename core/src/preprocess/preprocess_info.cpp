// Implements the recording side of pre/post-processing: the setters of the tensor and model
// infos and the step lists (nothing is checked here; build() checks everything).
#include <utility>

#include "vireo/preprocess.hpp"

namespace vireo {

InputTensorInfo& InputTensorInfo::set_element_type(element::Type type) {
    m_type = type;
    return *this;
}

InputTensorInfo& InputTensorInfo::set_layout(const Layout& layout) {
    m_layout = layout;
    return *this;
}

InputTensorInfo& InputTensorInfo::set_shape(const PartialShape& shape) {
    m_shape = shape;
    return *this;
}

InputTensorInfo& InputTensorInfo::set_spatial_static_shape(size_t height, size_t width) {
    m_spatial = std::make_pair(height, width);
    return *this;
}

namespace {
PreprocessStep step(PreprocessStep::Kind kind) {
    PreprocessStep s;
    s.kind = kind;
    return s;
}
}  // namespace

PreProcessSteps& PreProcessSteps::convert_element_type(element::Type type) {
    auto s = step(PreprocessStep::Kind::kConvertElementType);
    s.type = type;
    m_steps.push_back(std::move(s));
    return *this;
}

PreProcessSteps& PreProcessSteps::convert_layout(const Layout& layout) {
    auto s = step(PreprocessStep::Kind::kConvertLayout);
    s.layout = layout;
    m_steps.push_back(std::move(s));
    return *this;
}

PreProcessSteps& PreProcessSteps::resize(ResizeAlgorithm algorithm) {
    auto s = step(PreprocessStep::Kind::kResize);
    s.algorithm = algorithm;
    m_steps.push_back(std::move(s));
    return *this;
}

PreProcessSteps& PreProcessSteps::resize(ResizeAlgorithm algorithm, size_t height, size_t width) {
    auto s = step(PreprocessStep::Kind::kResize);
    s.algorithm = algorithm;
    s.size = std::make_pair(height, width);
    m_steps.push_back(std::move(s));
    return *this;
}

PreProcessSteps& PreProcessSteps::mean(float value) {
    return mean(std::vector<float>{value});
}

PreProcessSteps& PreProcessSteps::mean(const std::vector<float>& values) {
    auto s = step(PreprocessStep::Kind::kMean);
    s.values = values;
    m_steps.push_back(std::move(s));
    return *this;
}

PreProcessSteps& PreProcessSteps::scale(float value) {
    return scale(std::vector<float>{value});
}

PreProcessSteps& PreProcessSteps::scale(const std::vector<float>& values) {
    auto s = step(PreprocessStep::Kind::kScale);
    s.values = values;
    m_steps.push_back(std::move(s));
    return *this;
}

PreProcessSteps& PreProcessSteps::reverse_channels() {
    m_steps.push_back(step(PreprocessStep::Kind::kReverseChannels));
    return *this;
}

PreProcessSteps& PreProcessSteps::custom(std::function<Output(const Output&)> fn) {
    auto s = step(PreprocessStep::Kind::kCustom);
    s.custom = std::move(fn);
    m_steps.push_back(std::move(s));
    return *this;
}

InputModelInfo& InputModelInfo::set_layout(const Layout& layout) {
    m_layout = layout;
    return *this;
}

OutputModelInfo& OutputModelInfo::set_layout(const Layout& layout) {
    m_layout = layout;
    return *this;
}

PostProcessSteps& PostProcessSteps::convert_element_type(element::Type type) {
    auto s = step(PreprocessStep::Kind::kConvertElementType);
    s.type = type;
    m_steps.push_back(std::move(s));
    return *this;
}

PostProcessSteps& PostProcessSteps::convert_layout(const Layout& layout) {
    auto s = step(PreprocessStep::Kind::kConvertLayout);
    s.layout = layout;
    m_steps.push_back(std::move(s));
    return *this;
}

PostProcessSteps& PostProcessSteps::custom(std::function<Output(const Output&)> fn) {
    auto s = step(PreprocessStep::Kind::kCustom);
    s.custom = std::move(fn);
    m_steps.push_back(std::move(s));
    return *this;
}

OutputTensorInfo& OutputTensorInfo::set_element_type(element::Type type) {
    m_type = type;
    return *this;
}

OutputTensorInfo& OutputTensorInfo::set_layout(const Layout& layout) {
    m_layout = layout;
    return *this;
}

}  // namespace vireo
