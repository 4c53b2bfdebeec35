// Implements the IR test helpers: files, the "ir_test" op set, graph comparison, a reference
// interpreter and a small .npy reader.
#include "ir_test_util.hpp"

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "vireo/reference/kernel.hpp"

namespace vireo::ir_test {

std::string data_path(const std::string& relative) {
    return std::string(VIREO_TEST_DATA_DIR) + "/" + relative;
}

std::string temp_dir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "_" + info->name();
    for (auto& c : name)
        if (c == '/') c = '_';
    const auto dir = std::filesystem::path(::testing::TempDir()) /
                     ("vireo_ir_" + std::to_string(::getpid()) + "_" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir.string();
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) ADD_FAILURE() << "cannot read " << path;
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

void write_file(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) ADD_FAILURE() << "cannot write " << path;
}

Tensor bytes_tensor(const std::string& bytes) {
    Tensor t(element::u8, Shape{bytes.size()});
    if (!bytes.empty()) std::memcpy(t.data(), bytes.data(), bytes.size());
    return t;
}

void register_test_ops() {
    static std::once_flag once;
    std::call_once(once, [] {
        auto same_as_input = [](const Node&, const std::vector<InferInput>& in) {
            return std::vector<InferOutput>{{in[0].type, in[0].shape}};
        };
        OpDef all{"AllAttrs",
                  1,
                  "ir_test",
                  1,
                  1,
                  {{"flag", AttrType::kBool, AttrValue{false}, {}},
                   {"count", AttrType::kInt, std::nullopt, {}},
                   {"scale", AttrType::kFloat, AttrValue{1.0}, {}},
                   {"mode",
                    AttrType::kString,
                    AttrValue{std::string("fast")},
                    {"fast", "exact", "a&b<c>\"'"}},
                   {"label", AttrType::kString, AttrValue{std::string()}, {}},
                   {"axes", AttrType::kIntList, AttrValue{std::vector<int64_t>{}}, {}},
                   {"weights", AttrType::kFloatList, AttrValue{std::vector<double>{}}, {}},
                   {"tags", AttrType::kStringList, AttrValue{std::vector<std::string>{}}, {}},
                   {"dtype", AttrType::kElementType, AttrValue{element::f32}, {}},
                   {"target", AttrType::kShape, AttrValue{PartialShape{}}, {}}},
                  same_as_input,
                  {}};
        OpRegistry::instance().add(all);
        OpDef split{"Split2",
                    1,
                    "ir_test",
                    1,
                    1,
                    {},
                    [](const Node&, const std::vector<InferInput>& in) {
                        return std::vector<InferOutput>{{in[0].type, in[0].shape},
                                                        {in[0].type, in[0].shape}};
                    },
                    {}};
        OpRegistry::instance().add(split);
    });
}

NodePtr make_domain_node(const std::string& type, int version, const std::string& domain,
                         const OutputVector& inputs, std::map<std::string, AttrValue> attributes) {
    const OpDef* def = OpRegistry::instance().find(type, version, domain);
    if (!def)
        throw_error<NotFound>("op ", type, "-", version, " in domain ", domain,
                              " is not registered");
    auto node = std::make_shared<Node>(*def, inputs, std::move(attributes));
    node->validate_and_infer_types();
    return node;
}

void expect_same_graph(const Model& a, const Model& b) {
    EXPECT_EQ(a.get_name(), b.get_name());
    const auto ops_a = a.get_ordered_ops();
    const auto ops_b = b.get_ordered_ops();
    ASSERT_EQ(ops_a.size(), ops_b.size());
    std::map<const Node*, size_t> index_a, index_b;
    for (size_t i = 0; i < ops_a.size(); ++i) {
        index_a[ops_a[i].get()] = i;
        index_b[ops_b[i].get()] = i;
    }
    for (size_t i = 0; i < ops_a.size(); ++i) {
        const Node& x = *ops_a[i];
        const Node& y = *ops_b[i];
        SCOPED_TRACE("op #" + std::to_string(i) + " " + x.describe());
        EXPECT_EQ(x.get_type_name(), y.get_type_name());
        EXPECT_EQ(x.get_version(), y.get_version());
        EXPECT_EQ(x.get_op_def().domain, y.get_op_def().domain);
        EXPECT_EQ(x.get_friendly_name(), y.get_friendly_name());
        ASSERT_EQ(x.get_attributes().size(), y.get_attributes().size());
        for (const auto& [name, value] : x.get_attributes()) {
            ASSERT_TRUE(y.has_attribute(name)) << name;
            EXPECT_TRUE(value == y.get_attributes().at(name))
                << name << ": '" << attr_to_string(value) << "' vs '"
                << attr_to_string(y.get_attributes().at(name)) << "'";
        }
        ASSERT_EQ(x.get_input_size(), y.get_input_size());
        for (size_t k = 0; k < x.get_input_size(); ++k) {
            EXPECT_EQ(index_a.at(x.input_value(k).get_node()),
                      index_b.at(y.input_value(k).get_node()))
                << "input " << k;
            EXPECT_EQ(x.input_value(k).get_index(), y.input_value(k).get_index()) << "input " << k;
        }
        ASSERT_EQ(x.get_output_size(), y.get_output_size());
        for (size_t k = 0; k < x.get_output_size(); ++k) {
            EXPECT_EQ(x.get_output_element_type(k), y.get_output_element_type(k)) << "output " << k;
            EXPECT_EQ(x.get_output_partial_shape(k), y.get_output_partial_shape(k))
                << "output " << k;
            EXPECT_EQ(x.get_output_desc(k).names, y.get_output_desc(k).names) << "output " << k;
        }
        if (x.get_type_name() == "Constant") {
            const Tensor& vx = x.get_constant_value();
            const Tensor& vy = y.get_constant_value();
            ASSERT_EQ(vx.get_element_type(), vy.get_element_type());
            ASSERT_EQ(vx.get_shape(), vy.get_shape());
            ASSERT_EQ(vx.get_byte_size(), vy.get_byte_size());
            const Tensor cx = vx.is_continuous() ? vx : vx.clone();
            if (vx.get_byte_size() >
                0) {  // an empty Constant has no memory: memcmp(nullptr, ..) is UB
                EXPECT_EQ(0, std::memcmp(cx.data(), vy.data(), vx.get_byte_size()))
                    << "constant bytes differ";
            }
        }
    }
    auto positions = [](const NodeVector& nodes, const std::map<const Node*, size_t>& index) {
        std::vector<size_t> out;
        for (const auto& n : nodes) out.push_back(index.at(n.get()));
        return out;
    };
    EXPECT_EQ(positions(a.get_parameters(), index_a), positions(b.get_parameters(), index_b));
    EXPECT_EQ(positions(a.get_results(), index_a), positions(b.get_results(), index_b));
    EXPECT_EQ(positions(a.get_sinks(), index_a), positions(b.get_sinks(), index_b));
    std::map<std::string, std::string> rt_a, rt_b;
    // "version" is the IR version read; "__" keys are per-process bookkeeping (source files).
    for (const auto& [k, v] : a.get_rt_info())
        if (k != "version" && k.rfind("__", 0) != 0) rt_a[k] = v.to_string();
    for (const auto& [k, v] : b.get_rt_info())
        if (k != "version" && k.rfind("__", 0) != 0) rt_b[k] = v.to_string();
    EXPECT_EQ(rt_a, rt_b);
}

std::shared_ptr<Model> round_trip(const Model& model, std::string* xml, std::string* bin) {
    std::ostringstream xml_out, bin_out;
    serialize(model, xml_out, bin_out);
    if (xml) *xml = xml_out.str();
    if (bin) *bin = bin_out.str();
    return read_model_from_string(xml_out.str(), bytes_tensor(bin_out.str()));
}

std::vector<Tensor> run_reference(const Model& model, const std::vector<Tensor>& inputs) {
    std::map<Output, Tensor> values;
    const auto& parameters = model.get_parameters();
    for (const auto& node : model.get_ordered_ops()) {
        const auto& type = node->get_type_name();
        if (type == "Parameter") {
            const size_t i =
                std::find(parameters.begin(), parameters.end(), node) - parameters.begin();
            values[node->output(0)] = inputs.at(i);
        } else if (type == "Constant") {
            values[node->output(0)] = node->get_constant_value();
        } else if (type == "Result") {
            values[node->output(0)] = values.at(node->input_value(0));
        } else {
            std::vector<Tensor> args;
            for (const auto& in : node->input_values()) args.push_back(values.at(in));
            auto outs = reference::evaluate(*node, args);
            for (size_t k = 0; k < outs.size(); ++k) values[node->output(k)] = outs[k];
        }
    }
    std::vector<Tensor> out;
    for (const auto& r : model.get_results()) out.push_back(values.at(r->output(0)));
    return out;
}

Tensor read_npy_f32(const std::string& path) {
    const std::string bytes = read_file(path);
    if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) {
        ADD_FAILURE() << path << " is not a .npy file";
        return {};
    }
    const unsigned major = static_cast<unsigned char>(bytes[6]);
    size_t header_len =
        static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    size_t start = 10;
    if (major >= 2) {
        header_len |= (static_cast<size_t>(static_cast<unsigned char>(bytes[10])) << 16) |
                      (static_cast<size_t>(static_cast<unsigned char>(bytes[11])) << 24);
        start = 12;
    }
    const std::string header = bytes.substr(start, header_len);
    EXPECT_NE(header.find("'<f4'"), std::string::npos) << header;
    EXPECT_NE(header.find("'fortran_order': False"), std::string::npos) << header;
    Shape shape;
    const size_t open = header.find('(', header.find("'shape'"));
    const size_t close = header.find(')', open);
    std::stringstream dims(header.substr(open + 1, close - open - 1));
    std::string item;
    while (std::getline(dims, item, ','))
        if (item.find_first_not_of(' ') != std::string::npos) shape.push_back(std::stoul(item));
    Tensor t(element::f32, shape);
    const size_t data = start + header_len;
    EXPECT_EQ(bytes.size() - data, t.get_byte_size()) << path;
    std::memcpy(t.data(), bytes.data() + data, std::min(t.get_byte_size(), bytes.size() - data));
    return t;
}

}  // namespace vireo::ir_test
