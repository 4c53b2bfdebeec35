// Issue 23 item 5: tiny models that ask for huge memory. TEMPLATE's constant folding stays
// within a total budget (nodes past it run at inference); MOCK_REMOTE refuses a model whose
// values together exceed the machine's memory even when each fits alone. (The planner's
// O(n log n) behaviour is tested in plugins/template/tests/memory_plan_test.cpp.)
#include <unistd.h>

#include <string>

#include "hostile_util.hpp"
#include "vireo/ir.hpp"
#include "vireo/ops.hpp"

namespace vireo::hostile {
namespace {

size_t machine_memory() {
    return static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) *
           static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

size_t count_type(const Model& model, const std::string& type) {
    size_t n = 0;
    for (const auto& node : model.get_ordered_ops()) n += node->get_type_name() == type ? 1 : 0;
    return n;
}

// y = x + sum_k ReduceSum(Broadcast(k + 1, [elements])): every Broadcast has constant inputs.
std::shared_ptr<Model> broadcasts_model(size_t count, size_t elements) {
    auto x = op::parameter(element::f32, PartialShape(Shape{1}), "x");
    Output sum = x;
    for (size_t k = 0; k < count; ++k) {
        auto big = op::broadcast(
            op::constant<float>(element::f32, Shape{}, {static_cast<float>(k + 1)}),
            op::constant<int64_t>(element::i64, Shape{1}, {static_cast<int64_t>(elements)}));
        auto reduced =
            op::reduce_sum(big, op::constant<int64_t>(element::i64, Shape{1}, {0}), true);
        sum = op::add(sum, reduced);
    }
    sum.set_names({"y"});
    return std::make_shared<Model>(OutputVector{sum}, ParameterVector{x}, "broadcasts");
}

TEST(Amplification, TemplateFoldingStaysWithinItsBudget) {
    const size_t budget = std::min<size_t>(size_t{256} << 20, machine_memory() / 8);
    // f32: each Broadcast a little under a quarter of the budget (the folded ReduceSums take a
    // few bytes of it too).
    const size_t elements = budget / 4 / 4 - 1024;
    const size_t count = 6;  // 1.5 x the budget if all were folded
    Core core = make_core();
    auto compiled = core.compile_model(broadcasts_model(count, elements), "TEMPLATE");
    auto runtime = compiled.get_runtime_model();
    // At most four fit: the rest are left to run at inference (their ReduceSum with them).
    EXPECT_EQ(count_type(*runtime, "Broadcast"), 2u);
    auto request = compiled.create_infer_request();
    Tensor x(element::f32, Shape{1});
    x.data<float>()[0] = 0.5f;
    request.set_tensor("x", x);
    request.infer();
    // sum_k (k + 1) * elements, in double: 21 * elements (exact in float up to 2^24 * 2^k).
    const double expected = 0.5 + 21.0 * static_cast<double>(elements);
    EXPECT_NEAR(request.get_tensor("y").data<float>()[0], expected, expected * 1e-6);
}

TEST(Amplification, MockRemoteRefusesValuesThatFitAloneButNotTogether) {
    // Three values of 40% of memory each: every one passes the per-value check.
    const size_t elements = machine_memory() / 10;  // f32: 40% of memory
    Core core = make_core();
    expect_error<InvalidArgument>(
        [&] { core.compile_model(broadcasts_model(3, elements), "MOCK_REMOTE.0"); },
        {"MOCK_REMOTE", "broadcasts", "together", "bytes of memory this machine has"});
}

// A minimal IR (x -> Result) with `rt_info` as the net-level <rt_info> element's content.
std::string ir_with_rt_info(const std::string& rt_info) {
    return "<?xml version=\"1.0\"?>\n<net name=\"rt\" version=\"11\"><layers>\n"
           "<layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\"><data shape=\"2\" "
           "element_type=\"f32\"/><output><port id=\"0\" "
           "precision=\"FP32\"><dim>2</dim></port></output></layer>\n"
           "<layer id=\"1\" name=\"y\" type=\"Result\" version=\"opset1\"><input><port "
           "id=\"0\"><dim>2</dim>"
           "</port></input></layer>\n</layers><edges><edge from-layer=\"0\" from-port=\"0\" "
           "to-layer=\"1\" "
           "to-port=\"0\"/></edges><rt_info>" +
           rt_info + "</rt_info></net>\n";
}

TEST(Amplification, RtInfoNestThatExpandsQuadraticallyIsRefused) {
    // 40 levels of 2000-character names, then 10000 leaves: 0.9 MB of XML whose keys would
    // repeat the 80 KB path 10000 times (800 MB).
    const std::string name(2000, 'n');
    std::string open, close;
    for (int d = 0; d < 40; ++d) {
        open += "<" + name + ">";
        close = "</" + name + ">" + close;
    }
    std::string leaves;
    for (int i = 0; i < 10000; ++i) leaves += "<k value=\"\"/>";
    expect_error<InvalidArgument>(
        [&] { read_model_from_string(ir_with_rt_info(open + leaves + close), Tensor()); },
        {"rt_info", "expands to more than 16777216 bytes"});
}

TEST(Amplification, RtInfoNestedTooDeeplyIsRefusedAndOrdinaryNestsRead) {
    std::string open, close;
    for (int d = 0; d < 80; ++d) {  // tinyxml2 itself stops at 100 levels of the whole document
        open += "<a>";
        close = "</a>" + close;
    }
    expect_error<InvalidArgument>(
        [&] { read_model_from_string(ir_with_rt_info(open + close), Tensor()); },
        {"rt_info", "nested deeper than 64 levels"});
    auto model = read_model_from_string(
        ir_with_rt_info(
            "<model_info><resolution><height value=\"224\"/></resolution></model_info>"),
        Tensor());
    EXPECT_EQ(model->get_rt_info().at("model_info/resolution/height").as<std::string>(), "224");
}

}  // namespace
}  // namespace vireo::hostile
