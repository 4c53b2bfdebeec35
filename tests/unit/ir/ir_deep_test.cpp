// Tests that very deep graphs (a 100k-layer Relu chain in generated XML) read, serialize and
// are released without recursion deep enough to overflow the stack.
#include <sstream>

#include "ir_test_util.hpp"

using namespace vireo;
using namespace vireo::ir_test;

namespace {

constexpr size_t kDepth = 100000;

// Parameter -> kDepth x ReLU -> Result, with layers listed last-first so that the reader's
// topological sort has to do the ordering.
std::string relu_chain_xml(size_t depth) {
    std::ostringstream xml;
    xml << "<?xml version=\"1.0\"?>\n<net name=\"deep\" version=\"11\">\n<layers>\n";
    xml << "<layer id=\"" << depth + 1 << "\" name=\"out\" type=\"Result\" version=\"opset1\">"
        << "<input><port id=\"0\"><dim>4</dim></port></input></layer>\n";
    for (size_t i = depth; i >= 1; --i) {
        xml << "<layer id=\"" << i << "\" name=\"r" << i << "\" type=\"ReLU\" version=\"opset1\">"
            << "<input><port id=\"0\"><dim>4</dim></port></input>"
            << "<output><port id=\"1\" precision=\"FP32\"><dim>4</dim></port></output></layer>\n";
    }
    xml << "<layer id=\"0\" name=\"x\" type=\"Parameter\" version=\"opset1\"><data "
           "element_type=\"f32\" shape=\"4\"/>"
        << "<output><port id=\"0\" precision=\"FP32\" "
           "names=\"x\"><dim>4</dim></port></output></layer>\n";
    xml << "</layers>\n<edges>\n";
    for (size_t i = 0; i <= depth; ++i)
        xml << "<edge from-layer=\"" << i << "\" from-port=\"" << (i == 0 ? 0 : 1)
            << "\" to-layer=\"" << i + 1 << "\" to-port=\"0\"/>\n";
    xml << "</edges>\n</net>\n";
    return xml.str();
}

}  // namespace

TEST(IrDeep, HundredThousandReluChainReadsWritesAndReleases) {
    auto model = read_model_from_string(relu_chain_xml(kDepth), Tensor());
    const auto ops = model->get_ordered_ops();
    ASSERT_EQ(ops.size(), kDepth + 2);
    EXPECT_EQ(ops.front()->get_type_name(), "Parameter");
    EXPECT_EQ(ops[1]->get_friendly_name(), "r1");
    EXPECT_EQ(ops[kDepth]->get_friendly_name(), "r" + std::to_string(kDepth));
    EXPECT_EQ(ops.back()->get_type_name(), "Result");
    EXPECT_EQ(model->output(0).get_partial_shape(), PartialShape({4}));

    std::ostringstream xml, bin;
    serialize(*model, xml, bin);
    EXPECT_TRUE(bin.str().empty());
    const std::string text = xml.str();
    size_t layers = 0;
    for (size_t at = text.find("<layer "); at != std::string::npos;
         at = text.find("<layer ", at + 1))
        ++layers;
    EXPECT_EQ(layers, kDepth + 2);
    // Dropping the model releases 100k chained nodes; this must not recurse once per node.
    model.reset();
    SUCCEED();
}

TEST(IrDeep, CycleInALongChainIsReported) {
    std::string xml = relu_chain_xml(1000);
    // Feed r1 from r1000 instead of from x: a 1000-layer cycle.
    const std::string edge =
        "<edge from-layer=\"0\" from-port=\"0\" to-layer=\"1\" to-port=\"0\"/>";
    ASSERT_NE(xml.find(edge), std::string::npos);
    xml.replace(xml.find(edge), edge.size(),
                "<edge from-layer=\"1000\" from-port=\"1\" to-layer=\"1\" to-port=\"0\"/>");
    try {
        read_model_from_string(xml, Tensor());
        FAIL() << "no exception";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("the graph has a cycle through layer id="),
                  std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find(" <- ..."), std::string::npos) << e.what();
    }
}
