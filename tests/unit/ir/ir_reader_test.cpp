// Tests reader behaviour on small hand-written IR: Parameter/Result order of appearance,
// layers listed out of order, misaligned Const offsets (copied), v10 names of multi-output
// producers, empty list attributes, and concurrent reads.
#include <cstring>
#include <thread>

#include "ir_test_util.hpp"

using namespace vireo;
using namespace vireo::ir_test;

namespace {

std::string parameter_layer(int id, const std::string& name, const std::string& names_attr = "") {
    return "<layer id=\"" + std::to_string(id) + "\" name=\"" + name +
           "\" type=\"Parameter\" version=\"opset1\"><data element_type=\"f32\" shape=\"2\"/>"
           "<output><port id=\"0\" precision=\"FP32\"" +
           names_attr + "><dim>2</dim></port></output></layer>\n";
}

std::string result_layer(int id, const std::string& name) {
    return "<layer id=\"" + std::to_string(id) + "\" name=\"" + name +
           "\" type=\"Result\" version=\"opset1\"><input><port "
           "id=\"0\"><dim>2</dim></port></input></layer>\n";
}

std::string edge(int from, int from_port, int to, int to_port) {
    return "<edge from-layer=\"" + std::to_string(from) + "\" from-port=\"" +
           std::to_string(from_port) + "\" to-layer=\"" + std::to_string(to) + "\" to-port=\"" +
           std::to_string(to_port) + "\"/>\n";
}

std::string net(const std::string& version, const std::string& layers, const std::string& edges) {
    return "<?xml version=\"1.0\"?>\n<net name=\"hand\" version=\"" + version + "\"><layers>\n" +
           layers + "</layers><edges>\n" + edges + "</edges></net>\n";
}

}  // namespace

TEST(IrReader, ParametersAndResultsKeepTheirOrderOfAppearance) {
    // Results listed first, Parameters with descending ids, Results feeding from p2 then p1.
    const std::string layers = result_layer(7, "from_p1") + result_layer(3, "from_p2") +
                               parameter_layer(9, "p2") + parameter_layer(1, "p1");
    auto model =
        read_model_from_string(net("11", layers, edge(1, 0, 7, 0) + edge(9, 0, 3, 0)), Tensor());
    ASSERT_EQ(model->get_parameters().size(), 2u);
    EXPECT_EQ(model->get_parameters()[0]->get_friendly_name(), "p2");
    EXPECT_EQ(model->get_parameters()[1]->get_friendly_name(), "p1");
    ASSERT_EQ(model->get_results().size(), 2u);
    EXPECT_EQ(model->get_results()[0]->get_friendly_name(), "from_p1");
    EXPECT_EQ(model->get_results()[1]->get_friendly_name(), "from_p2");
    EXPECT_EQ(model->output(0).get_node()->input_value(0).get_node()->get_friendly_name(), "p1");
    // v11: no names are invented.
    EXPECT_TRUE(model->input(0).get_names().empty());
}

TEST(IrReader, V10NamesMultiOutputProducersByPort) {
    register_test_ops();
    const std::string split =
        "<layer id=\"2\" name=\"halves\" type=\"Split2\" version=\"ir_test\">"
        "<input><port id=\"0\"><dim>2</dim></port></input>"
        "<output><port id=\"1\" precision=\"FP32\"><dim>2</dim></port>"
        "<port id=\"2\" precision=\"FP32\" names=\"named\"><dim>2</dim></port></output></layer>\n";
    const std::string layers =
        parameter_layer(0, "x") + split + result_layer(3, "r0") + result_layer(4, "r1");
    auto model = read_model_from_string(
        net("10", layers, edge(0, 0, 2, 0) + edge(2, 1, 3, 0) + edge(2, 2, 4, 0)), Tensor());
    EXPECT_EQ(model->input(0).get_names(), (std::set<std::string>{"x"}));
    EXPECT_EQ(model->output(0).get_names(), (std::set<std::string>{"halves.0", "r0"}));
    EXPECT_EQ(model->output(1).get_names(),
              (std::set<std::string>{"named"}));  // had names: kept as they are
}

TEST(IrReader, MisalignedConstIsCopiedAndAlignedOnesAreShared) {
    // Bytes: 2 bytes of padding, then three f32 values; an aligned i8 constant at offset 0.
    std::string bin(2, '\x7f');
    const float values[3] = {1.5f, -2.25f, 1e20f};
    bin.append(reinterpret_cast<const char*>(values), sizeof values);
    const Tensor weights = bytes_tensor(bin);
    const std::string layers =
        "<layer id=\"0\" name=\"odd\" type=\"Const\" version=\"opset1\">"
        "<data element_type=\"f32\" shape=\"3\" offset=\"2\" size=\"12\"/>"
        "<output><port id=\"0\" precision=\"FP32\"><dim>3</dim></port></output></layer>\n"
        "<layer id=\"1\" name=\"bytes\" type=\"Const\" version=\"opset1\">"
        "<data element_type=\"i8\" shape=\"2\" offset=\"0\" size=\"2\"/>"
        "<output><port id=\"0\" precision=\"I8\"><dim>2</dim></port></output></layer>\n" +
        std::string(
            "<layer id=\"2\" name=\"r\" type=\"Result\" version=\"opset1\">"
            "<input><port id=\"0\"><dim>3</dim></port></input></layer>\n") +
        "<layer id=\"3\" name=\"r2\" type=\"Result\" version=\"opset1\">"
        "<input><port id=\"0\"><dim>2</dim></port></input></layer>\n";
    auto model =
        read_model_from_string(net("11", layers, edge(0, 0, 2, 0) + edge(1, 0, 3, 0)), weights);
    const Tensor odd = model->get_results()[0]->input_value(0).get_node()->get_constant_value();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(odd.data()) % alignof(float), 0u);
    EXPECT_NE(odd.data(), static_cast<const char*>(weights.data()) + 2);
    EXPECT_EQ(odd.data<float>()[0], 1.5f);
    EXPECT_EQ(odd.data<float>()[1], -2.25f);
    EXPECT_EQ(odd.data<float>()[2], 1e20f);
    const Tensor aligned = model->get_results()[1]->input_value(0).get_node()->get_constant_value();
    EXPECT_EQ(aligned.data(), weights.data());
    EXPECT_EQ(aligned.data<int8_t>()[1], 0x7f);
}

TEST(IrReader, EmptyListAttributesAndSpacesAreAccepted) {
    register_test_ops();
    const std::string op =
        "<layer id=\"1\" name=\"attrs\" type=\"AllAttrs\" version=\"ir_test\">"
        "<data count=\" 7 \" axes=\"\" weights=\" 1.5 , -2 \" tags=\"a, b ,c\" flag=\"TRUE\" "
        "dtype=\"FP16\" "
        "target=\"1, ?, 2..5\"/>"
        "<input><port id=\"0\"><dim>2</dim></port></input>"
        "<output><port id=\"1\" precision=\"FP32\"><dim>2</dim></port></output></layer>\n";
    const std::string layers = parameter_layer(0, "x") + op + result_layer(2, "y");
    auto model =
        read_model_from_string(net("11", layers, edge(0, 0, 1, 0) + edge(1, 1, 2, 0)), Tensor());
    const Node& node = *model->get_results()[0]->input_value(0).get_node();
    EXPECT_EQ(node.get_attribute<int64_t>("count"), 7);
    EXPECT_TRUE(node.get_attribute<std::vector<int64_t>>("axes").empty());
    EXPECT_EQ(node.get_attribute<std::vector<double>>("weights"), (std::vector<double>{1.5, -2.0}));
    EXPECT_EQ(node.get_attribute<std::vector<std::string>>("tags"),
              (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_TRUE(node.get_attribute<bool>("flag"));
    EXPECT_EQ(node.get_attribute<element::Type>("dtype"), element::f16);
    EXPECT_EQ(node.get_attribute<PartialShape>("target"),
              PartialShape({Dimension(1), Dimension(), Dimension(2, 5)}));
    EXPECT_EQ(node.get_attribute<double>("scale"), 1.0);  // default filled in
}

TEST(IrReader, ConcurrentReadsOfOneFile) {
    const std::string path = data_path("models/golden/cnn/model.xml");
    auto reference_model = read_model(path);
    std::vector<std::shared_ptr<Model>> models(4);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < models.size(); ++i)
        threads.emplace_back([&, i] { models[i] = read_model(path); });
    for (auto& t : threads) t.join();
    for (const auto& m : models) {
        ASSERT_TRUE(m);
        expect_same_graph(*reference_model, *m);
    }
}
