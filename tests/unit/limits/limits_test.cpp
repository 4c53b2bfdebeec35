// Resource limits: tensors, Constants and compiled models whose shapes ask for more memory than
// the machine has, or whose shape x element size overflows, fail with a clear InvalidArgument
// before anything is allocated (under ASan a huge allocation would abort instead), and the
// objects involved stay usable.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "vireo/core.hpp"
#include "vireo/ir.hpp"
#include "vireo/ops.hpp"

namespace vireo {
namespace {

constexpr size_t kMillion = 1000000;
const Shape kHuge{kMillion, kMillion, kMillion};  // 1e18 elements: 4e18 bytes of f32

size_t machine_memory() {
    return static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) *
           static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

/// Runs `f`, expects InvalidArgument whose message holds every fragment; returns the message.
template <typename F>
std::string expect_invalid(F&& f, const std::vector<std::string>& fragments) {
    try {
        f();
    } catch (const InvalidArgument& e) {
        const std::string message = e.what();
        for (const auto& fragment : fragments)
            EXPECT_NE(message.find(fragment), std::string::npos)
                << "'" << fragment << "' not in: " << message;
        return message;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "expected InvalidArgument, got: " << e.what();
        return {};
    }
    ADD_FAILURE() << "expected InvalidArgument, nothing was thrown";
    return {};
}

Core make_core() {
    return Core(std::string(VIREO_BUILD_LIB_DIR) + "/plugins.xml");
}

std::shared_ptr<Model> relu_model(const Shape& shape) {
    auto x = op::parameter(element::f32, PartialShape(shape), "x");
    auto y = op::relu(x);
    y->output(0).set_names({"y"});
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "relu");
}

TEST(TensorLimits, LargerThanMemoryIsRefusedBeforeAllocating) {
    expect_invalid([] { Tensor t(element::f32, kHuge); },
                   {"cannot allocate", "4000000000000000000 bytes", "[1000000,1000000,1000000]",
                    std::to_string(machine_memory()) + " bytes of memory"});
}

TEST(TensorLimits, ElementCountOverflowIsRefused) {
    const size_t big = size_t{1} << 40;
    expect_invalid(
        [&] {
            Tensor t(element::u8, Shape{big, big});
        },
        {"more elements than can be addressed"});
}

TEST(TensorLimits, AZeroAxisMakesAnEmptyTensorWhateverTheOtherAxes) {
    const size_t big = size_t{1} << 40;
    Tensor t(element::f32, Shape{big, big, 0});
    EXPECT_EQ(t.get_size(), 0u);
    EXPECT_EQ(t.get_byte_size(), 0u);
    Tensor copy(element::f32, Shape{big, big, 0});
    t.copy_to(copy);  // nothing to copy, nothing touched
    EXPECT_EQ(copy.get_size(), 0u);
}

TEST(TensorLimits, ByteCountOverflowIsRefused) {
    expect_invalid([] { Tensor t(element::f64, Shape{size_t{1} << 62}); }, {"overflow"});
}

TEST(TensorLimits, SizeJustBelowTheAddressLimitIsRefused) {
    // Rounding this up to the 64-byte alignment used to wrap around to a tiny allocation.
    expect_invalid([] { Tensor t(element::u8, Shape{SIZE_MAX - 10}); }, {"cannot allocate"});
}

TEST(TensorLimits, SetShapeBeyondMemoryKeepsTheTensor) {
    Tensor t(element::f32, Shape{2, 2});
    float* p = t.data<float>();
    for (int i = 0; i < 4; ++i) p[i] = static_cast<float>(i);
    expect_invalid([&] { t.set_shape(kHuge); }, {"cannot allocate"});
    EXPECT_EQ(t.get_shape(), (Shape{2, 2}));
    EXPECT_EQ(t.data<float>()[3], 3.f);
}

TEST(IrLimits, ConstantWhoseShapeFarExceedsItsBytesIsRefused) {
    const std::string xml = R"(<?xml version="1.0"?>
<net name="huge_const" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="1" element_type="f32"/>
      <output><port id="0" precision="FP32"><dim>1</dim></port></output>
    </layer>
    <layer id="1" name="huge" type="Const" version="opset1">
      <data element_type="f32" shape="1000000,1000000,1000000" offset="0" size="4"/>
      <output><port id="0" precision="FP32"><dim>1000000</dim><dim>1000000</dim><dim>1000000</dim></port></output>
    </layer>
    <layer id="2" name="sum" type="Add" version="opset1">
      <input><port id="0"><dim>1</dim></port><port id="1"><dim>1000000</dim><dim>1000000</dim><dim>1000000</dim></port></input>
      <output><port id="2" precision="FP32"><dim>1000000</dim><dim>1000000</dim><dim>1000000</dim></port></output>
    </layer>
    <layer id="3" name="out" type="Result" version="opset1">
      <input><port id="0"><dim>1000000</dim><dim>1000000</dim><dim>1000000</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
    <edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
    <edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
  </edges>
</net>)";
    std::vector<float> bytes{1.f};
    const Tensor weights(element::f32, Shape{1}, bytes.data());
    expect_invalid([&] { read_model_from_string(xml, weights); }, {"huge"});
}

TEST(TemplateLimits, ParameterLargerThanMemoryFailsAtCompile) {
    Core core = make_core();
    expect_invalid([&] { core.compile_model(relu_model(kHuge), "TEMPLATE"); },
                   {"TEMPLATE", "'x'", "4000000000000000000 bytes",
                    std::to_string(machine_memory()) + " bytes of memory"});
    // The core and the device still work.
    auto compiled = core.compile_model(relu_model(Shape{1, 4}), "TEMPLATE");
    auto request = compiled.create_infer_request();
    request.infer();
}

TEST(TemplateLimits, ArenaLargerThanMemoryFailsAtCompile) {
    // x, relu(x) and x + relu(x) each take 40% of memory and are alive at once: 120% in all.
    const size_t n = machine_memory() / 10;  // f32 elements: 0.4 x memory bytes
    auto x = op::parameter(element::f32, PartialShape(Shape{n}), "x");
    auto r = op::relu(x);
    auto y = op::add(x, r);
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "three_big_values");
    Core core = make_core();
    expect_invalid([&] { core.compile_model(model, "TEMPLATE"); },
                   {"TEMPLATE", "three_big_values", "arena", "bytes of memory"});
}

TEST(TemplateLimits, RunTimeShapeLargerThanMemoryFailsTheRunNotTheRequest) {
    // A dynamic model: broadcast a scalar to a shape given at run time.
    auto target = op::parameter(element::i64, PartialShape(Shape{3}), "target");
    auto y = op::broadcast(op::constant<float>(element::f32, {}, {1.5f}), target);
    y->output(0).set_names({"y"});
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{target}, "broadcast");
    Core core = make_core();
    auto compiled = core.compile_model(model, "TEMPLATE");
    auto request = compiled.create_infer_request();

    Tensor shape(element::i64, Shape{3});
    auto set_target = [&](int64_t a, int64_t b, int64_t c) {
        int64_t* p = shape.data<int64_t>();
        p[0] = a;
        p[1] = b;
        p[2] = c;
        request.set_tensor("target", shape);
    };
    set_target(1000000, 1000000, 1000000);
    expect_invalid([&] { request.infer(); }, {"bytes of memory"});

    set_target(2, 3, 4);
    request.infer();
    const Tensor out = request.get_tensor("y");
    ASSERT_EQ(out.get_shape(), (Shape{2, 3, 4}));
    const float* p = out.data<float>();
    for (size_t i = 0; i < 24; ++i) EXPECT_EQ(p[i], 1.5f) << i;
}

TEST(MockRemoteLimits, ParameterLargerThanMemoryFailsAtCompile) {
    Core core = make_core();
    expect_invalid([&] { core.compile_model(relu_model(kHuge), "MOCK_REMOTE.0"); },
                   {"MOCK_REMOTE", "'x'", "4000000000000000000 bytes", "bytes of memory"});
}

}  // namespace
}  // namespace vireo
