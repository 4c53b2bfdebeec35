// Declares PrePostProcessor: records how a model's inputs and outputs should be converted and
// builds a model with those conversions as ordinary ops, so every plugin runs them.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "vireo/layout.hpp"
#include "vireo/model.hpp"
#include "vireo/preprocess_input.hpp"
#include "vireo/preprocess_output.hpp"

namespace vireo {

/// Pre- and post-processing in the manner of OpenVINO's ov::preprocess::PrePostProcessor.
///
/// Per input, describe the user's tensor, the steps and (if the model does not say) the model's
/// layout; per output, the steps and the tensor the user wants. build() then returns a new model
/// in which the steps are ops (Convert, Transpose, Interpolate, Subtract, Divide, Gather, or any
/// custom ones) between new Parameters of the user's type and shape and the original graph, and
/// between the original graph and new Results. Inputs and outputs keep their tensor names and
/// friendly names and their order, so ports are found by the same names; each new input and
/// output carries its tensor's layout in rt_info["layout"].
///
///     PrePostProcessor ppp(model);                        // model: f32 [1,3,224,224], "NCHW"
///     ppp.input("image").tensor().set_element_type(element::u8).set_layout("NHWC")
///                                 .set_spatial_static_shape(480, 640);
///     ppp.input("image").preprocess().convert_element_type(element::f32)
///                                    .mean({123.7f, 116.3f, 103.5f}).scale(58.f)
///                                    .resize(ResizeAlgorithm::kLinear);
///     ppp.input("image").model().set_layout("NCHW");
///     ppp.output().tensor().set_element_type(element::f16);
///     std::shared_ptr<Model> ready = ppp.build();        // u8 [1,480,640,3] in, f16 out
///
/// Ownership: the PrePostProcessor shares the model; build() does not change it (the new model
/// is a clone whose constants share data with the original). The references input() and
/// output() return live as long as the PrePostProcessor.
///
/// Errors: input()/output() throw NotFound for an unknown name or index (listing what exists) and
/// InvalidArgument for input()/output() without an argument on a model with several. build()
/// throws InvalidArgument naming the input or output and the step at fault (e.g. "input 'image':
/// resize: the layout 'NC' has no H and W"), and leaves the model unchanged.
///
/// Thread safety: none; use one PrePostProcessor from one thread.
class PrePostProcessor {
  public:
    /// Throws InvalidArgument if `model` is null.
    explicit PrePostProcessor(std::shared_ptr<Model> model);
    ~PrePostProcessor();
    PrePostProcessor(const PrePostProcessor&) = delete;
    PrePostProcessor& operator=(const PrePostProcessor&) = delete;

    /// The only input (InvalidArgument if the model has several), the input at `index`, or the
    /// input whose tensor names include `name`.
    InputInfo& input();
    InputInfo& input(size_t index);
    InputInfo& input(const std::string& name);
    OutputInfo& output();
    OutputInfo& output(size_t index);
    OutputInfo& output(const std::string& name);

    /// Builds the model with every recorded step (see the class comment). May be called again
    /// after more steps are recorded; each call starts from the original model.
    std::shared_ptr<Model> build();

  private:
    std::shared_ptr<Model> m_model;
    std::map<size_t, std::unique_ptr<InputInfo>> m_inputs;    // by input index
    std::map<size_t, std::unique_ptr<OutputInfo>> m_outputs;  // by output index
};

}  // namespace vireo
