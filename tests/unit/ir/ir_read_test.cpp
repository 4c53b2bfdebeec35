// Tests reading the real OpenVINO IR files and the golden models: inputs, outputs, tensor
// names, shapes, types, op types, rt_info, constants mapped from the .bin without copies.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "ir_test_util.hpp"

using namespace vireo;
using namespace vireo::ir_test;

namespace {

// Op types by friendly name.
std::map<std::string, std::string> types_by_name(const Model& model) {
    std::map<std::string, std::string> out;
    for (const auto& node : model.get_ordered_ops())
        out[node->get_friendly_name()] = node->get_type_name();
    return out;
}

NodePtr find_node(const Model& model, const std::string& name) {
    for (const auto& node : model.get_ordered_ops())
        if (node->get_friendly_name() == name) return node;
    ADD_FAILURE() << "no node named " << name;
    return nullptr;
}

// The address range [begin, end) of the mapping of `path` in this process, from /proc/self/maps.
std::pair<uintptr_t, uintptr_t> mapping_of(const std::string& path) {
    const std::string canonical = std::filesystem::canonical(path).string();
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        if (line.size() < canonical.size() ||
            line.compare(line.size() - canonical.size(), canonical.size(), canonical))
            continue;
        std::istringstream in(line);
        std::string range;
        in >> range;
        const auto dash = range.find('-');
        return {std::stoull(range.substr(0, dash), nullptr, 16),
                std::stoull(range.substr(dash + 1), nullptr, 16)};
    }
    return {0, 0};
}

float read_f32_at(const std::string& bytes, size_t offset) {
    float v = 0;
    std::memcpy(&v, bytes.data() + offset, sizeof v);
    return v;
}

}  // namespace

TEST(IrRead, DummyV10) {
    auto model = read_model(data_path("models/openvino_ir/dummy/dummy.xml"));
    EXPECT_EQ(model->get_name(), "saved_model");
    EXPECT_EQ(model->get_rt_info().at("version").as<int64_t>(), 10);
    ASSERT_EQ(model->inputs().size(), 1u);
    ASSERT_EQ(model->outputs().size(), 1u);
    EXPECT_EQ(model->input(0).get_names(),
              (std::set<std::string>{"b"}));  // v10: layer name as tensor name
    EXPECT_EQ(model->input(0).get_element_type(), element::f32);
    EXPECT_EQ(model->input(0).get_partial_shape(), PartialShape({1, 10}));
    EXPECT_EQ(model->output(0).get_names(), (std::set<std::string>{"a", "a/sink_port_0"}));
    EXPECT_EQ(model->output(0).get_partial_shape(), PartialShape({1, 10}));
    EXPECT_EQ(model->output("a").get_node(), model->get_results()[0].get());
    EXPECT_EQ(types_by_name(*model),
              (std::map<std::string, std::string>{{"b", "Parameter"},
                                                  {"c/read/Output_0/Data_/copy_const", "Constant"},
                                                  {"a", "Add"},
                                                  {"a/sink_port_0", "Result"}}));
    // Const port id="1" is the Const's output 0; its 4 bytes are the whole .bin.
    auto c = find_node(*model, "c/read/Output_0/Data_/copy_const");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->get_constant_value().get_shape(), (Shape{1, 1}));
    const std::string bin = read_file(data_path("models/openvino_ir/dummy/dummy.bin"));
    EXPECT_EQ(c->get_constant_value().data<float>()[0], read_f32_at(bin, 0));
    // Net-level rt_info, nested elements flattened; <meta_data> ignored.
    const auto& rt = model->get_rt_info();
    EXPECT_EQ(rt.at("MO_version").as<std::string>(), "2020.1.0-61-gd349c3ba4a");
    EXPECT_EQ(rt.at("conversion_parameters/data_type").as<std::string>(), "float");
    EXPECT_EQ(rt.at("model_info/precision").as<std::string>(), "FP16");
    EXPECT_EQ(rt.at("model_info/resolution/height").as<std::string>(), "200");
    EXPECT_EQ(rt.at("model_info/resolution/width").as<std::string>(), "300");
    EXPECT_EQ(rt.at("optimization").as<std::string>(), "");
    EXPECT_EQ(rt.count("cli_parameters/input"), 0u);
    EXPECT_EQ(rt.count("model_info"), 0u);  // a parent without a value is no key of its own
}

TEST(IrRead, Increment1x3x4x5V10) {
    auto model =
        read_model(data_path("models/openvino_ir/increment_1x3x4x5/increment_1x3x4x5.xml"));
    EXPECT_EQ(model->input("input").get_partial_shape(), PartialShape({1, 3, 4, 5}));
    EXPECT_EQ(model->output(0).get_names(),
              (std::set<std::string>{"output", "output/sink_port_0"}));
    EXPECT_EQ(model->output(0).get_partial_shape(), PartialShape({1, 3, 4, 5}));
    auto add = find_node(*model, "output");
    ASSERT_TRUE(add);
    EXPECT_EQ(add->get_type_name(), "Add");
    EXPECT_EQ(add->input_value(1).get_partial_shape(), PartialShape({1, 1, 1, 1}));
}

TEST(IrRead, AddTwoInputsWithEmptyBin) {
    auto model = read_model(data_path("models/openvino_ir/add_two_inputs_model/add.xml"));
    ASSERT_EQ(model->inputs().size(), 2u);
    // Parameters keep their XML order.
    EXPECT_EQ(model->input(0).get_names(), (std::set<std::string>{"input1"}));
    EXPECT_EQ(model->input(1).get_names(), (std::set<std::string>{"input2"}));
    EXPECT_EQ(model->output(0).get_names(), (std::set<std::string>{"sum", "sum/sink_port_0"}));
    EXPECT_EQ(model->get_ordered_ops().size(), 4u);
    EXPECT_EQ(model->get_rt_info().count("MO_version"), 0u);  // only in <meta_data>
}

TEST(IrRead, PassthroughV11DynamicU8) {
    auto model = read_model(data_path("models/openvino_ir/passthrough/passthrough.xml"));
    EXPECT_EQ(model->get_rt_info().at("version").as<int64_t>(), 11);
    EXPECT_EQ(model->input(0).get_names(), (std::set<std::string>{"input", "input:0"}));
    EXPECT_EQ(model->input(0).get_element_type(), element::u8);
    EXPECT_EQ(model->input(0).get_partial_shape(), PartialShape::dynamic(2));
    // v11: no layer names added to tensor names.
    EXPECT_EQ(model->output(0).get_names(), (std::set<std::string>{"copy:0"}));
    EXPECT_EQ(model->get_results()[0]->get_friendly_name(), "copy:0");
    EXPECT_EQ(model->output(0).get_element_type(), element::u8);
    EXPECT_EQ(model->output(0).get_partial_shape(), PartialShape::dynamic(2));
    auto c = find_node(*model, "const");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->output(0).get_names(), (std::set<std::string>{"const:0"}));
    EXPECT_EQ(c->get_constant_value().get_shape(), (Shape{1, 1}));  // shape="1, 1"
    EXPECT_EQ(c->get_constant_value().data<uint8_t>()[0], 0);
    EXPECT_EQ(model->get_rt_info().at("conversion_parameters/input").as<std::string>(),
              "input[-1,-1]{u8}");
    EXPECT_EQ(model->get_rt_info().at("legacy_frontend").as<std::string>(), "True");
}

TEST(IrRead, GoldenTiny) {
    auto model = read_model(data_path("models/golden/tiny/model.xml"));
    EXPECT_EQ(model->get_name(), "tiny");
    EXPECT_EQ(model->input("x").get_partial_shape(), PartialShape({1, 10}));
    EXPECT_EQ(model->output("y").get_partial_shape(), PartialShape({1, 10}));
    EXPECT_EQ(model->output(0).get_names(), (std::set<std::string>{"y"}));  // v11: as written
    EXPECT_EQ(model->get_ordered_ops().size(), 4u);
}

TEST(IrRead, GoldenMlp) {
    auto model = read_model(data_path("models/golden/mlp/model.xml"));
    EXPECT_EQ(model->input("x").get_partial_shape(), PartialShape({1, 1024}));
    EXPECT_EQ(model->output("y").get_partial_shape(), PartialShape({1, 1024}));
    std::map<std::string, int> counts;
    for (const auto& node : model->get_ordered_ops()) ++counts[node->get_type_name()];
    EXPECT_EQ(counts, (std::map<std::string, int>{{"Parameter", 1},
                                                  {"Constant", 6},
                                                  {"MatMul", 3},
                                                  {"Add", 3},
                                                  {"Relu", 3},
                                                  {"Result", 1}}));
}

TEST(IrRead, GoldenCnn) {
    auto model = read_model(data_path("models/golden/cnn/model.xml"));
    EXPECT_EQ(model->input("x").get_partial_shape(), PartialShape({1, 3, 64, 64}));
    EXPECT_EQ(model->output("y").get_partial_shape(), PartialShape({1, 10}));
    const auto types = types_by_name(*model);
    EXPECT_EQ(types.at("conv1"), "Convolution");
    EXPECT_EQ(types.at("relu1"), "Relu");  // type="ReLU"
    EXPECT_EQ(types.at("pool2"), "MaxPool");
    EXPECT_EQ(types.at("gap"), "ReduceMean");
    EXPECT_EQ(types.at("fc"), "MatMul");
    EXPECT_EQ(types.at("y"), "Softmax");  // type="SoftMax"
    EXPECT_EQ(types.at("gap/axes"), "Constant");
    auto conv = find_node(*model, "conv2");
    ASSERT_TRUE(conv);
    EXPECT_EQ(conv->get_attribute<std::vector<int64_t>>("strides"), (std::vector<int64_t>{1, 1}));
    EXPECT_EQ(conv->get_attribute<std::vector<int64_t>>("pads_begin"),
              (std::vector<int64_t>{1, 1}));
    EXPECT_EQ(conv->get_attribute<std::string>("auto_pad"), "explicit");
    EXPECT_EQ(conv->get_output_partial_shape(0), PartialShape({1, 64, 32, 32}));
    EXPECT_EQ(find_node(*model, "gap")->get_attribute<bool>("keep_dims"), false);
    auto axes = find_node(*model, "gap/axes")->get_constant_value();
    EXPECT_EQ(axes.get_element_type(), element::i64);
    EXPECT_EQ(axes.data<int64_t>()[0], 2);
    EXPECT_EQ(axes.data<int64_t>()[1], 3);
}

TEST(IrRead, MlpConstantsPointIntoTheMappedBin) {
    const std::string bin_path = data_path("models/golden/mlp/model.bin");
    const std::string bin = read_file(bin_path);
    Tensor kept;
    {
        auto model = read_model(data_path("models/golden/mlp/model.xml"));
        const auto [begin, end] = mapping_of(bin_path);
        ASSERT_NE(begin, 0u) << "model.bin is not mapped";
        EXPECT_GE(end - begin, bin.size());
        int constants = 0;
        for (const auto& node : model->get_ordered_ops()) {
            if (node->get_type_name() != "Constant") continue;
            ++constants;
            const Tensor& value = node->get_constant_value();
            const auto address = reinterpret_cast<uintptr_t>(value.data());
            EXPECT_GE(address, begin) << node->describe();
            EXPECT_LE(address + value.get_byte_size(), begin + bin.size()) << node->describe();
            // The bytes are the file's bytes at the Const's offset.
            EXPECT_EQ(0, std::memcmp(value.data(), bin.data() + (address - begin),
                                     value.get_byte_size()));
            if (value.get_byte_size() == 1024u * 1024u * 4u) kept = value;
        }
        EXPECT_EQ(constants, 6);
        ASSERT_TRUE(kept);
    }
    // The model is gone; the constant's handle keeps the mapping alive...
    EXPECT_NE(mapping_of(bin_path).first, 0u);
    EXPECT_EQ(kept.data<float>()[0], read_f32_at(bin, reinterpret_cast<uintptr_t>(kept.data()) -
                                                          mapping_of(bin_path).first));
    // ...and releasing it unmaps the file.
    kept = Tensor();
    EXPECT_EQ(mapping_of(bin_path).first, 0u);
}

TEST(IrRead, ExplicitBinPathAndWeightsInMemory) {
    const std::string xml_path = data_path("models/golden/tiny/model.xml");
    const std::string bin_path = data_path("models/golden/tiny/model.bin");
    auto from_files = read_model(xml_path, bin_path);
    const std::string bin = read_file(bin_path);
    Tensor weights = bytes_tensor(bin);
    auto from_memory = read_model_from_string(read_file(xml_path), weights);
    expect_same_graph(*from_files, *from_memory);
    // Constants share the weights tensor's memory.
    auto one = find_node(*from_memory, "one");
    ASSERT_TRUE(one);
    EXPECT_EQ(one->get_constant_value().data(), weights.data());
    EXPECT_EQ(one->get_constant_value().data<float>()[0], read_f32_at(bin, 0));
}

TEST(IrRead, DerivedBinMayBeMissingWithoutConstants) {
    const std::string dir = temp_dir();
    write_file(dir + "/add.xml",
               read_file(data_path("models/openvino_ir/add_two_inputs_model/add.xml")));
    auto model = read_model(dir + "/add.xml");
    EXPECT_EQ(model->inputs().size(), 2u);
    // An explicit .bin must exist.
    EXPECT_THROW(read_model(dir + "/add.xml", dir + "/nope.bin"), NotFound);
    // No weights at all is fine in memory too.
    EXPECT_EQ(read_model_from_string(read_file(dir + "/add.xml"), Tensor())->inputs().size(), 2u);
}

TEST(IrRead, GoldenModelsGiveTheRecordedOutputs) {
    for (const std::string name : {"tiny", "mlp", "cnn"}) {
        SCOPED_TRACE(name);
        const std::string dir = data_path("models/golden/" + name);
        auto model = read_model(dir + "/model.xml");
        const Tensor x = read_npy_f32(dir + "/input_x.npy");
        const Tensor expected = read_npy_f32(dir + "/output_y.npy");
        auto outputs = run_reference(*model, {x});
        ASSERT_EQ(outputs.size(), 1u);
        ASSERT_EQ(outputs[0].get_shape(), expected.get_shape());
        const float* got = outputs[0].data<float>();
        const float* want = expected.data<float>();
        for (size_t i = 0; i < expected.get_size(); ++i)
            ASSERT_NEAR(got[i], want[i], 1e-4f + 1e-4f * std::abs(want[i])) << "element " << i;
    }
}
