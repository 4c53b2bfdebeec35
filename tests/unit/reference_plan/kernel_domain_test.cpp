// Reference kernels are found by (domain, type) (issue 35: an extension's op named Relu in its
// own domain replaced the standard Relu kernel for every model).
#include <gtest/gtest.h>

#include <mutex>

#include "vireo/exception.hpp"
#include "vireo/op_registry.hpp"
#include "vireo/ops.hpp"
#include "vireo/reference/kernel.hpp"

namespace {
using namespace vireo;

constexpr const char* kShadowDomain = "kernel_domain_test";

// y = 42 everywhere: what the custom "Relu" computes, so its kernel is told apart at once.
class FortyTwoKernel : public reference::Kernel {
  public:
    void execute(const std::vector<Tensor>&, std::vector<Tensor>& outputs) const override {
        float* y = outputs[0].data<float>();
        for (size_t i = 0; i < outputs[0].get_size(); ++i) y[i] = 42.f;
    }
};

std::vector<InferOutput> same_shape_as_input(const Node&, const std::vector<InferInput>& in) {
    return {{in[0].type, in[0].shape}};
}

void register_custom_relu() {
    static std::once_flag once;
    std::call_once(once, [] {
        OpRegistry::instance().add(
            OpDef{"Relu", 1, kShadowDomain, 1, 1, {}, same_shape_as_input, {}});
        reference::KernelRegistry::instance().add(
            kShadowDomain, "Relu", [](const Node&) { return std::make_unique<FortyTwoKernel>(); });
    });
}

TEST(KernelDomains, ACustomOpNamedLikeAStandardOneKeepsBothKernelsApart) {
    register_custom_relu();
    auto x = op::parameter(element::f32, PartialShape{4}, "x");
    Tensor input(element::f32, Shape{4});
    const float values[] = {-2.f, -0.5f, 0.5f, 3.f};
    std::copy(values, values + 4, input.data<float>());

    auto standard = op::relu(x);
    const auto y = reference::evaluate(*standard, {input});
    const float expected[] = {0.f, 0.f, 0.5f, 3.f};
    for (size_t i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(y[0].data<float>()[i], expected[i]) << i;

    const OpDef* def = OpRegistry::instance().find("Relu", 1, kShadowDomain);
    ASSERT_NE(def, nullptr);
    auto custom = std::make_shared<Node>(*def, OutputVector{x}, std::map<std::string, AttrValue>{});
    custom->validate_and_infer_types();
    const auto z = reference::evaluate(*custom, {input});
    for (size_t i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(z[0].data<float>()[i], 42.f) << i;
}

TEST(KernelDomains, ReplacingABuiltInKernelIsRefused) {
    try {
        reference::KernelRegistry::instance().add(
            "Relu", [](const Node&) { return std::make_unique<FortyTwoKernel>(); });
        FAIL() << "replacing the built-in Relu kernel must be refused";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("built in"), std::string::npos) << e.what();
    }
}

}  // namespace
