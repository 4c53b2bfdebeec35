// Issue 23 item 6: a tensor name carried by two different outputs is refused by the IR reader
// (naming both) and by name lookups on models built in C++ (get_tensor, output(name)), instead
// of one of them being picked silently.
#include <set>
#include <sstream>
#include <string>

#include "hostile_util.hpp"
#include "vireo/ir.hpp"
#include "vireo/ops.hpp"

namespace vireo::hostile {
namespace {

std::string layer(int id, const std::string& name, const std::string& type,
                  const std::string& body) {
    return "<layer id=\"" + std::to_string(id) + "\" name=\"" + name + "\" type=\"" + type +
           "\" version=\"opset1\">" + body + "</layer>\n";
}

const std::string kPort2 = "<dim>2</dim>";

std::string ir_with_output_names(const std::string& first, const std::string& second) {
    const std::string in = "<input><port id=\"0\">" + kPort2 + "</port></input>";
    auto out = [&](const std::string& names) {
        return "<output><port id=\"1\" precision=\"FP32\" names=\"" + names + "\">" + kPort2 +
               "</port></output>";
    };
    return "<?xml version=\"1.0\"?>\n<net name=\"dup\" version=\"11\"><layers>\n" +
           layer(0, "x", "Parameter",
                 "<data shape=\"2\" element_type=\"f32\"/><output><port id=\"0\" "
                 "precision=\"FP32\">" +
                     kPort2 + "</port></output>") +
           layer(1, "first", "Relu", in + out(first)) +
           layer(2, "second", "Relu", in + out(second)) + layer(3, "r1", "Result", in) +
           layer(4, "r2", "Result", in) +
           "</layers><edges>"
           "<edge from-layer=\"0\" from-port=\"0\" to-layer=\"1\" to-port=\"0\"/>"
           "<edge from-layer=\"0\" from-port=\"0\" to-layer=\"2\" to-port=\"0\"/>"
           "<edge from-layer=\"1\" from-port=\"1\" to-layer=\"3\" to-port=\"0\"/>"
           "<edge from-layer=\"2\" from-port=\"1\" to-layer=\"4\" to-port=\"0\"/>"
           "</edges></net>\n";
}

TEST(DuplicateNames, IrReaderRefusesATensorNameOnTwoOutputs) {
    expect_error<InvalidArgument>(
        [] { read_model_from_string(ir_with_output_names("y", "y"), Tensor()); },
        {"tensor name 'y' is used by two outputs", "first", "second"});
    expect_error<InvalidArgument>(
        [] { read_model_from_string(ir_with_output_names("a,y", "y,b"), Tensor()); },
        {"tensor name 'y'"});
    auto fine = read_model_from_string(ir_with_output_names("a/b", "a:b"), Tensor());
    EXPECT_EQ(fine->get_results().size(), 2u);
}

// Found by fuzz_ir: in IR v10, Parameters without `names` take their layer name as tensor name.
// Layer names "in" and "in " used to give two names that the writer wrote and the reader, which
// trims the `names` attribute, read back as one (so a model that read did not read back). The
// fallback is trimmed the same way, so the clash is reported on the first read.
TEST(DuplicateNames, LayerNamesDifferingOnlyBySpacesAreOneTensorName) {
    auto ir = [](const std::string& second) {
        const std::string port = "<port id=\"0\" precision=\"FP32\">" + kPort2 + "</port>";
        const std::string param =
            "<data shape=\"2\" element_type=\"f32\"/><output>" + port + "</output>";
        const std::string in = "<input>" + port + "</input>";
        return "<?xml version=\"1.0\"?>\n<net name=\"sp\" version=\"10\"><layers>\n" +
               layer(0, "in", "Parameter", param) + layer(1, second, "Parameter", param) +
               layer(2, "r1", "Result", in) + layer(3, "r2", "Result", in) +
               "</layers><edges>"
               "<edge from-layer=\"0\" from-port=\"0\" to-layer=\"2\" to-port=\"0\"/>"
               "<edge from-layer=\"1\" from-port=\"0\" to-layer=\"3\" to-port=\"0\"/>"
               "</edges></net>\n";
    };
    expect_error<InvalidArgument>([&] { read_model_from_string(ir("in "), Tensor()); },
                                  {"tensor name 'in' is used by two outputs"});
    auto model = read_model_from_string(ir(" other "), Tensor());
    ASSERT_EQ(model->get_parameters().size(), 2u);
    EXPECT_EQ(model->get_parameters()[1]->output(0).get_names(), std::set<std::string>{"other"});
    std::ostringstream xml, bin;
    serialize(*model, xml, bin);
    auto again = read_model_from_string(xml.str(), Tensor());
    EXPECT_EQ(again->get_parameters()[1]->output(0).get_names(), std::set<std::string>{"other"});
}

TEST(DuplicateNames, LookupByAnAmbiguousNameNamesBothPorts) {
    auto x = op::parameter(element::f32, PartialShape(Shape{2}), "x");
    auto a = op::relu(x);
    auto b = op::unary("Negative", x);
    a->set_friendly_name("a");
    b->set_friendly_name("b");
    a->output(0).set_names({"y"});
    b->output(0).set_names({"y"});
    auto model = std::make_shared<Model>(OutputVector{a, b}, ParameterVector{x}, "dup");
    Core core = make_core();
    auto compiled = core.compile_model(model, "TEMPLATE");
    expect_error<InvalidArgument>([&] { compiled.output("y"); },
                                  {"'y' is ambiguous", "'a'", "'b'"});
    auto request = compiled.create_infer_request();
    expect_error<InvalidArgument>([&] { request.get_tensor("y"); },
                                  {"'y' is ambiguous", "'a'", "'b'"});
    // Two Results of one value are one tensor: its name is not ambiguous.
    auto c = op::relu(x);
    c->output(0).set_names({"z"});
    auto same = std::make_shared<Model>(OutputVector{c, c}, ParameterVector{x}, "same");
    auto compiled_same = core.compile_model(same, "TEMPLATE");
    try {
        compiled_same.output("z");
    } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
    }
}

}  // namespace
}  // namespace vireo::hostile
