// Tests serialize(): real and builder-made models read back as identical graphs with identical
// results; the output is deterministic, Const offsets are 64-byte aligned and identical
// constants share bytes; rt_info, tensor names and every attribute kind survive.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "ir_test_util.hpp"
#include "vireo/float16.hpp"
#include "vireo/ops.hpp"

using namespace vireo;
using namespace vireo::ir_test;

namespace {

const char* const kRealModels[] = {
    "models/openvino_ir/dummy/dummy.xml",
    "models/openvino_ir/increment_1x3x4x5/increment_1x3x4x5.xml",
    "models/openvino_ir/add_two_inputs_model/add.xml",
    "models/openvino_ir/passthrough/passthrough.xml",
    "models/golden/tiny/model.xml",
    "models/golden/mlp/model.xml",
    "models/golden/cnn/model.xml",
};

std::vector<uint64_t> const_offsets(const std::string& xml) {
    std::vector<uint64_t> out;
    const std::regex pattern("offset=\"([0-9]+)\"");
    for (auto it = std::sregex_iterator(xml.begin(), xml.end(), pattern);
         it != std::sregex_iterator(); ++it)
        out.push_back(std::stoull((*it)[1]));
    return out;
}

NodePtr node(const std::string& type, const OutputVector& inputs,
             std::map<std::string, AttrValue> attributes = {}) {
    return make_node(type, inputs, std::move(attributes));
}

}  // namespace

TEST(IrRoundTrip, RealModelsReadBackIdentical) {
    for (const char* path : kRealModels) {
        SCOPED_TRACE(path);
        auto model = read_model(data_path(path));
        std::string xml;
        auto again = round_trip(*model, &xml);
        expect_same_graph(*model, *again);
        EXPECT_EQ(again->get_rt_info().at("version").as<int64_t>(), 11);
        EXPECT_NE(xml.find("<net name=\"" + model->get_name() + "\" version=\"11\">"),
                  std::string::npos);
        for (uint64_t offset : const_offsets(xml)) EXPECT_EQ(offset % 64, 0u) << offset;
    }
}

TEST(IrRoundTrip, ThroughFilesWithDerivedBinPath) {
    const std::string dir = temp_dir();
    auto model = read_model(data_path("models/golden/cnn/model.xml"));
    serialize(*model, dir + "/cnn.xml");
    auto again = read_model(dir + "/cnn.xml");
    expect_same_graph(*model, *again);
    // The cnn's constants are already 64-byte aligned and distinct: the same layout comes out.
    EXPECT_EQ(read_file(dir + "/cnn.bin"), read_file(data_path("models/golden/cnn/model.bin")));
}

// Writers never destroy their input (issue 35): serialize() refuses the files the model was read
// from and an .xml that would also be the .bin, leaves both files as they were, and writes
// through temporaries renamed at the end (none left behind).
TEST(IrRoundTrip, SerializeRefusesItsOwnSourceAndOneFileForBoth) {
    const std::string dir = temp_dir();
    serialize(*read_model(data_path("models/golden/cnn/model.xml")), dir + "/m.xml");
    const std::string xml_before = read_file(dir + "/m.xml"),
                      bin_before = read_file(dir + "/m.bin");
    auto model = read_model(dir + "/m.xml");
    const auto& sources = model->get_rt_info().at("__source_files").as<std::vector<std::string>>();
    ASSERT_EQ(sources.size(), 2u);
    auto expect_refused = [&](const std::string& xml, const std::string& bin, const char* words) {
        try {
            serialize(*model, xml, bin);
            ADD_FAILURE() << "serialize(" << xml << ", " << bin << ") should have been refused";
        } catch (const InvalidArgument& e) {
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    };
    expect_refused(dir + "/m.xml", "", "read from");
    expect_refused(dir + "/other.xml", dir + "/m.bin", "read from");
    expect_refused(dir + "/./sub/../m.xml", "", "read from");
    expect_refused(dir + "/out.bin", "", "both be written");
    expect_refused(dir + "/a.xml", dir + "/a.xml", "both be written");
    EXPECT_EQ(read_file(dir + "/m.xml"), xml_before);
    EXPECT_EQ(read_file(dir + "/m.bin"), bin_before);
    // Over existing files that are not its source: replaced whole.
    { std::ofstream(dir + "/again.xml") << "stale"; }
    serialize(*model, dir + "/again.xml");
    expect_same_graph(*model, *read_model(dir + "/again.xml"));
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << entry.path();
}

TEST(IrRoundTrip, GoldenResultsAreIdenticalAfterRoundTrip) {
    for (const std::string name : {"tiny", "cnn"}) {
        SCOPED_TRACE(name);
        const std::string dir = data_path("models/golden/" + name);
        auto model = read_model(dir + "/model.xml");
        auto again = round_trip(*model);
        const Tensor x = read_npy_f32(dir + "/input_x.npy");
        auto first = run_reference(*model, {x});
        auto second = run_reference(*again, {x});
        ASSERT_EQ(first.size(), 1u);
        ASSERT_EQ(second.size(), 1u);
        ASSERT_EQ(first[0].get_byte_size(), second[0].get_byte_size());
        EXPECT_EQ(0, std::memcmp(first[0].data(), second[0].data(), first[0].get_byte_size()));
    }
}

TEST(IrRoundTrip, OutputIsDeterministic) {
    auto model = read_model(data_path("models/golden/cnn/model.xml"));
    std::string xml1, bin1, xml2, bin2;
    auto again = round_trip(*model, &xml1, &bin1);
    round_trip(*model, &xml2, &bin2);
    EXPECT_EQ(xml1, xml2);
    EXPECT_EQ(bin1, bin2);
    // Writing what was read back gives the same text again.
    std::string xml3, bin3;
    round_trip(*again, &xml3, &bin3);
    EXPECT_EQ(xml1, xml3);
    EXPECT_EQ(bin1, bin3);
}

TEST(IrRoundTrip, IdenticalConstantsShareBytesAndOffsetsAreAligned) {
    auto x = op::parameter(element::f32, {2, 3}, "x");
    auto a = op::constant<float>(element::f32, {2, 3}, {1, 2, 3, 4, 5, 6});
    auto b = op::constant<float>(element::f32, {2, 3}, {1, 2, 3, 4, 5, 6});  // same bytes as a
    auto c = op::constant<float>(element::f32, {1}, {7});  // 4 bytes, then padding
    auto d = op::constant<int8_t>(element::i8, {3}, {1, 2, 3});
    auto y = node("Add", {node("Add", {node("Add", {x, a}), b}), c});
    auto z = node("Add", {d, d});
    auto model = std::make_shared<Model>(OutputVector{y, z}, ParameterVector{x}, "shared");
    std::string xml, bin;
    auto again = round_trip(*model, &xml, &bin);
    expect_same_graph(*model, *again);
    const auto offsets = const_offsets(xml);
    ASSERT_EQ(offsets.size(), 4u);
    // a and b share offset 0 (24 bytes); c at 64; d at 128 (3 bytes) -> 131 bytes in all.
    EXPECT_EQ(std::multiset<uint64_t>(offsets.begin(), offsets.end()),
              (std::multiset<uint64_t>{0, 0, 64, 128}));
    EXPECT_EQ(bin.size(), 131u);
    float expected_a[6] = {1, 2, 3, 4, 5, 6};
    EXPECT_EQ(0, std::memcmp(bin.data(), expected_a, sizeof expected_a));
    EXPECT_EQ(std::string(bin.data() + 24, 40), std::string(40, '\0'));  // padding is zeros
}

TEST(IrRoundTrip, LargeConstantsShareBytesOnlyWhenEveryByteMatches) {
    // Past 1 KiB the writer groups constants by a hash of a few windows of their bytes; equal
    // windows must not be enough to share: c differs from a only between the windows, d only in
    // the last byte.
    std::vector<float> values(4096);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 97);
    auto x = op::parameter(element::f32, {4096}, "x");
    auto a = op::constant<float>(element::f32, {4096}, values);
    auto b = op::constant<float>(element::f32, {4096}, values);  // same bytes as a
    std::vector<float> between = values, last = values;
    between[500] = -1.f;  // bytes 2000..2003, outside the windows at 0, 5376, 10752 and 16128
    last.back() = -1.f;
    auto c = op::constant<float>(element::f32, {4096}, between);
    auto d = op::constant<float>(element::f32, {4096}, last);
    auto y = node("Add", {node("Add", {node("Add", {node("Add", {x, a}), b}), c}), d});
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "large");
    std::string xml, bin;
    auto again = round_trip(*model, &xml, &bin);
    expect_same_graph(*model, *again);
    const auto offsets = const_offsets(xml);
    EXPECT_EQ(std::multiset<uint64_t>(offsets.begin(), offsets.end()),
              (std::multiset<uint64_t>{0, 0, 16384, 32768}));
    EXPECT_EQ(bin.size(), 3u * 16384u);
    EXPECT_EQ(0, std::memcmp(bin.data() + 16384, between.data(), 16384));
    EXPECT_EQ(0, std::memcmp(bin.data() + 32768, last.data(), 16384));
}

TEST(IrRoundTrip, EveryAttributeKindAndTensorNames) {
    register_test_ops();
    auto x = op::parameter(element::f16, PartialShape::parse("1..8,?,3,2.."), "x");
    auto all = make_domain_node("AllAttrs", 1, "ir_test", {x},
                                {{"flag", true},
                                 {"count", int64_t{-42}},
                                 {"scale", 0.1},
                                 {"mode", std::string("a&b<c>\"'")},
                                 {"label", std::string("tab\there, spaces  ")},
                                 {"axes", std::vector<int64_t>{-1, 0, 9223372036854775807}},
                                 {"weights", std::vector<double>{1e-300, -2.5, 3.141592653589793}},
                                 {"tags", std::vector<std::string>{"a", "b c", "d"}},
                                 {"dtype", element::bf16},
                                 {"target", PartialShape::parse("?,1..10,3")}});
    auto empty_lists = make_domain_node("AllAttrs", 1, "ir_test", {all}, {{"count", int64_t{0}}});
    auto split = make_domain_node("Split2", 1, "ir_test", {empty_lists});
    split->set_friendly_name("split & <friends>");
    split->output(0).set_names({"first", "with,comma", "with space"});
    split->output(1).set_names({"second"});
    auto model = std::make_shared<Model>(OutputVector{split->output(1), split->output(0)},
                                         ParameterVector{x}, "attrs");
    std::string xml;
    auto again = round_trip(*model, &xml);
    expect_same_graph(*model, *again);
    EXPECT_NE(xml.find("version=\"ir_test\""),
              std::string::npos);  // a custom domain writes the domain
    EXPECT_NE(xml.find("names=\"first,with space,with\\,comma\""), std::string::npos) << xml;
    EXPECT_NE(xml.find("shape=\"1..8,?,3,2..\""),
              std::string::npos);  // bounds kept in the attribute
    EXPECT_EQ(again->output(0).get_names(), (std::set<std::string>{"second"}));
    EXPECT_EQ(again->input(0).get_partial_shape(), PartialShape::parse("1..8,?,3,2.."));
}

TEST(IrRoundTrip, ConstantsOfEveryElementType) {
    ParameterVector none;
    OutputVector outputs;
    for (const auto& type : element::Type::all_static()) {
        // 5 elements: sub-byte types pack into a partial last byte.
        const size_t bytes = type.bytes_for(5);
        Tensor value(type, Shape{5});
        for (size_t i = 0; i < bytes; ++i)
            static_cast<uint8_t*>(value.data())[i] = static_cast<uint8_t>(0x11 * (i + 1));
        outputs.push_back(op::constant(value));
    }
    outputs.push_back(op::constant<float>(element::f32, {}, {2.5f}));    // scalar: shape=""
    outputs.push_back(op::constant(Tensor(element::f32, Shape{0, 4})));  // empty: no bytes
    auto model = std::make_shared<Model>(outputs, none, "constants");
    std::string xml;
    auto again = round_trip(*model, &xml);
    expect_same_graph(*model, *again);
    EXPECT_NE(xml.find("shape=\"\" offset="), std::string::npos);
    EXPECT_NE(xml.find("shape=\"0,4\" offset=\"0\" size=\"0\""), std::string::npos);
}

TEST(IrRoundTrip, ParameterAndResultOrderAndDynamicShapes) {
    auto a = op::parameter(element::f32, PartialShape::dynamic(), "a");  // dynamic rank: no <dim>
    auto b = op::parameter(element::f32, {2, 3}, "b");
    auto c = op::parameter(element::i32, PartialShape::dynamic(1), "c");
    // Parameters listed in an order unlike their use; results likewise.
    auto r1 = op::result(node("Relu", {b}));
    auto r2 = op::result(a);
    auto r3 = op::result(c);
    r1->set_friendly_name("r1");
    auto model = std::make_shared<Model>(ResultVector{r3, r1, r2}, SinkVector{},
                                         ParameterVector{c, a, b}, "order");
    model->get_rt_info()["answer"] = int64_t{42};
    model->get_rt_info()["nested/deeper/key"] = std::string("v & <w>");
    model->get_rt_info()["nested"] = std::string("parent value");
    model->get_rt_info()["has space/x"] = std::string("flat form");
    model->get_rt_info()["version"] = int64_t{10};  // not written: the reader sets it
    auto again = round_trip(*model);
    expect_same_graph(*model, *again);
    EXPECT_EQ(again->get_rt_info().at("version").as<int64_t>(), 11);
    EXPECT_EQ(again->get_rt_info().at("answer").as<std::string>(), "42");
    EXPECT_EQ(again->get_rt_info().at("has space/x").as<std::string>(), "flat form");
    EXPECT_EQ(again->input(0).get_names(), (std::set<std::string>{"c"}));
    EXPECT_EQ(again->output(1).get_node()->get_friendly_name(), "r1");
}
