// An example Vireo extension: the custom op Squash (domain "vireo_example", version 1),
//     y = alpha * x / (1 + |x|)        (f32; attribute alpha, default 1)
// with its type and shape inference, its kernel for the reference kernel registry (so TEMPLATE
// runs it), and the mapping of ONNX nodes "Squash" of domain "com.example.vireo" to it.
// Loaded with core.add_extension("libvireo_example_extension.so"); see README.md.
#include <cmath>

#include "vireo/exception.hpp"
#include "vireo/extension.hpp"
#include "vireo/op_registry.hpp"
#include "vireo/reference/kernel.hpp"

namespace {

constexpr const char* kDomain = "vireo_example";

std::vector<vireo::InferOutput> infer_squash(const vireo::Node& node,
                                             const std::vector<vireo::InferInput>& inputs) {
    if (inputs[0].type != vireo::element::f32 && inputs[0].type != vireo::element::dynamic)
        vireo::throw_error<vireo::InvalidArgument>(node.describe(), ": Squash takes f32 data, got ",
                                                   inputs[0].type);
    return {{inputs[0].type, inputs[0].shape}};
}

class SquashKernel : public vireo::reference::Kernel {
  public:
    explicit SquashKernel(const vireo::Node& node)
        : m_alpha(static_cast<float>(node.get_attribute<double>("alpha"))) {}

    void execute(const std::vector<vireo::Tensor>& inputs,
                 std::vector<vireo::Tensor>& outputs) const override {
        const float* x = inputs[0].data<float>();
        float* y = outputs[0].data<float>();
        const size_t n = inputs[0].get_size();
        for (size_t i = 0; i < n; ++i) y[i] = m_alpha * x[i] / (1.0f + std::fabs(x[i]));
    }

  private:
    float m_alpha;
};

void register_squash() {
    vireo::OpDef def;
    def.type = "Squash";
    def.version = 1;
    def.domain = kDomain;
    def.min_inputs = def.max_inputs = 1;
    def.attributes = {{"alpha", vireo::AttrType::kFloat, vireo::AttrValue(1.0), {}}};
    def.infer = infer_squash;
    vireo::OpRegistry::instance().add(def);

    // Under the op's own domain: a kernel never meets (or replaces) a standard op's.
    vireo::reference::KernelRegistry::instance().add(
        kDomain, "Squash",
        [](const vireo::Node& node) { return std::make_unique<SquashKernel>(node); },
        [](const vireo::Node& node) {
            return node.input_value(0).get_element_type() == vireo::element::f32;
        });

    vireo::register_onnx_op_mapping({"com.example.vireo", "Squash", "Squash", 1, kDomain, {}});
}

}  // namespace

VIREO_DEFINE_EXTENSION("vireo_example", "1.0.0", register_squash)
