// Issue 23 item 1 and item 4 (IR files): a model's .bin truncated or rewritten in place after
// read_model or compile_model must not crash or change results when ENABLE_MMAP is false; with
// the default (true) a file replaced by rename is safe. IR files that are FIFOs are refused
// at once instead of blocking in open().
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "hostile_util.hpp"
#include "vireo/ir.hpp"
#include "vireo/ops.hpp"

namespace vireo::hostile {
namespace {

constexpr size_t kCount = 4096;  // 16 KB of f32 weights: several pages of the mapping

// y = x + c with c[i] = 0.5 i, saved as <dir>/add.xml + add.bin.
std::string write_add_model(const std::string& dir) {
    std::vector<float> weights(kCount);
    for (size_t i = 0; i < kCount; ++i) weights[i] = 0.5f * static_cast<float>(i);
    auto x = op::parameter(element::f32, PartialShape(Shape{1, kCount}), "x");
    auto c = op::constant<float>(element::f32, Shape{1, kCount}, weights);
    auto y = op::add(x, c);
    y->output(0).set_names({"y"});
    const Model model(OutputVector{y}, ParameterVector{x}, "add");
    const std::string xml = dir + "/add.xml";
    serialize(model, xml);
    return xml;
}

std::string bin_of(const std::string& xml) {
    return xml.substr(0, xml.size() - 4) + ".bin";
}

// Runs x[i] = i through the compiled model and checks y[i] = i + 0.5 i (computed here).
void expect_original_outputs(CompiledModel& compiled) {
    auto request = compiled.create_infer_request();
    Tensor x(element::f32, Shape{1, kCount});
    for (size_t i = 0; i < kCount; ++i) x.data<float>()[i] = static_cast<float>(i);
    request.set_tensor("x", x);
    request.infer();
    const float* y = request.get_tensor("y").data<float>();
    size_t wrong = 0;
    for (size_t i = 0; i < kCount; ++i)
        if (y[i] != 1.5f * static_cast<float>(i)) ++wrong;
    EXPECT_EQ(wrong, 0u);
}

// Same size as the original .bin, other values: a deploy script's `cp new.bin model.bin`.
void rewrite_in_place(const std::string& bin) {
    const auto size = std::filesystem::file_size(bin);
    write_file(bin, std::string(size, '\x7f'));
}

class ChangedBin : public ::testing::TestWithParam<std::string> {};

TEST_P(ChangedBin, TruncatedAfterReadModelWithoutMmap) {
    const std::string xml = write_add_model(temp_dir());
    Core core = make_core();
    core.set_property({enable_mmap(false)});
    auto model = core.read_model(xml);
    std::filesystem::resize_file(bin_of(xml), 0);
    auto compiled = core.compile_model(model, GetParam());
    expect_original_outputs(compiled);
}

TEST_P(ChangedBin, RewrittenAfterReadModelWithoutMmap) {
    const std::string xml = write_add_model(temp_dir());
    Core core = make_core();
    core.set_property({enable_mmap(false)});
    auto model = core.read_model(xml);
    rewrite_in_place(bin_of(xml));
    auto compiled = core.compile_model(model, GetParam());
    expect_original_outputs(compiled);
}

TEST_P(ChangedBin, TruncatedAndRewrittenAfterCompileWithoutMmap) {
    const std::string xml = write_add_model(temp_dir());
    Core core = make_core();
    core.set_property({enable_mmap(false)});
    auto compiled = core.compile_model(xml, GetParam());  // the path overload reads too
    std::filesystem::resize_file(bin_of(xml), 0);
    expect_original_outputs(compiled);
    rewrite_in_place(bin_of(xml));
    expect_original_outputs(compiled);
}

TEST_P(ChangedBin, ReplacedByRenameIsSafeWithMmap) {
    const std::string dir = temp_dir();
    const std::string xml = write_add_model(dir);
    Core core = make_core();
    ASSERT_TRUE(core.get_property(enable_mmap.name()).as<bool>());
    auto model = core.read_model(xml);
    // The new file is written beside the old and renamed over it: the old inode stays mapped.
    write_file(dir + "/new.bin", std::string(std::filesystem::file_size(bin_of(xml)), '\x7f'));
    std::filesystem::rename(dir + "/new.bin", bin_of(xml));
    auto compiled = core.compile_model(model, GetParam());
    expect_original_outputs(compiled);
}

INSTANTIATE_TEST_SUITE_P(Devices, ChangedBin, ::testing::Values("TEMPLATE", "MOCK_REMOTE.0"),
                         [](const auto& info) {
                             return info.param == "TEMPLATE" ? "TEMPLATE" : "MOCK_REMOTE";
                         });

TEST(EnableMmap, IsACoreProperty) {
    Core core = make_core();
    EXPECT_TRUE(core.get_property(enable_mmap.name()).as<bool>());
    const auto listed =
        core.get_property(supported_properties.name()).as<std::vector<PropertyName>>();
    EXPECT_NE(std::find(listed.begin(), listed.end(), enable_mmap.name()), listed.end());
    core.set_property({enable_mmap(false)});
    EXPECT_FALSE(core.get_property(enable_mmap.name()).as<bool>());
}

TEST(Fifo, XmlThatIsAFifoIsRefusedWithoutBlocking) {
    const std::string dir = temp_dir();
    const std::string xml = dir + "/fifo.xml";
    ASSERT_EQ(::mkfifo(xml.c_str(), 0600), 0);
    expect_error<InvalidArgument>([&] { read_model(xml); }, {xml, "not a regular file"});
}

TEST(Fifo, BinThatIsAFifoIsRefusedWithoutBlocking) {
    const std::string dir = temp_dir();
    const std::string xml = write_add_model(dir);
    std::filesystem::remove(bin_of(xml));
    ASSERT_EQ(::mkfifo(bin_of(xml).c_str(), 0600), 0);
    for (bool mmap : {true, false}) {
        Core core = make_core();
        core.set_property({enable_mmap(mmap)});
        expect_error<InvalidArgument>([&] { core.read_model(xml); },
                                      {bin_of(xml), "not a regular file"});
    }
}

}  // namespace
}  // namespace vireo::hostile
