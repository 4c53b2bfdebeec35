// Tests that bad ONNX input fails with the right error kind and a message naming the culprit:
// malformed protobufs, data sizes that disagree with shapes, dangling names, cycles, every
// unsupported op at once, and external data that is missing, out of bounds or outside the folder.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "onnx_test_util.hpp"
#include "vireo/core.hpp"
#include "vireo/frontend.hpp"
#include "vireo/ir.hpp"

namespace vireo {
namespace {

using test::OnnxBuilder;
using TP = onnx::TensorProto;

// Reads `b` from a file in a fresh folder and returns the error message; fails the test unless
// an exception of type E is thrown.
template <typename E>
std::string error_of(const OnnxBuilder& b, const test::TempDir& dir,
                     const std::string& file = "model.onnx") {
    b.write(dir.path() / file);
    try {
        read_onnx_model((dir.path() / file).string());
    } catch (const E& e) {
        return e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "wrong exception kind: " << e.what();
        return {};
    }
    ADD_FAILURE() << "no exception";
    return {};
}

OnnxBuilder add_one() {
    OnnxBuilder b;
    b.input("x", TP::FLOAT, {2, 2}).output("y", TP::FLOAT, {2, 2});
    b.initializer("one", {1}, {1.0f});
    b.node("Add", {"x", "one"}, {"y"}, "add");
    return b;
}

TEST(OnnxMalformed, EmptyTruncatedAndGarbageFiles) {
    test::TempDir dir;
    const std::string good = add_one().bytes();
    auto read_bytes = [&](const std::string& bytes) {
        const auto path = dir.path() / "m.onnx";
        std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
        read_onnx_model(path.string());
    };
    EXPECT_THROW(read_bytes(""), InvalidArgument);
    for (size_t cut : {good.size() / 3, good.size() / 2, good.size() - 1}) {
        SCOPED_TRACE(cut);
        EXPECT_THROW(read_bytes(good.substr(0, cut)), InvalidArgument);
    }
    EXPECT_THROW(read_bytes(std::string("\x08\x07\x3a\xff\xff\xff\xff\x0f garbage", 17)),
                 InvalidArgument);
    EXPECT_THROW(read_onnx_model(good.data(), good.size() / 2), InvalidArgument);
    EXPECT_THROW(read_onnx_model((dir.path() / "missing.onnx").string()), NotFound);
}

TEST(OnnxMalformed, EveryUnsupportedOpIsListedInOneMessage) {
    test::TempDir dir;
    OnnxBuilder b(13);
    b.input("x", TP::FLOAT, {2}).output("z", TP::FLOAT, {2});
    b.node("FrobnicateA", {"x"}, {"a"}, "first_bad");
    b.node("Relu", {"a"}, {"r"}, "fine");
    auto& custom = b.node("FrobnicateB", {"r"}, {"z"}, "second_bad");
    custom.set_domain("com.example");
    auto* op = b.proto().add_opset_import();
    op->set_domain("com.example");
    op->set_version(3);
    const std::string message = error_of<NotImplemented>(b, dir);
    EXPECT_NE(message.find("2 node(s)"), std::string::npos) << message;
    EXPECT_NE(message.find("FrobnicateA (domain ai.onnx, opset 13) in node 'first_bad'"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("FrobnicateB (domain com.example, opset 3) in node 'second_bad'"),
              std::string::npos)
        << message;
    EXPECT_EQ(message.find("Relu"), std::string::npos) << message;
}

TEST(OnnxMalformed, AnOpNewerThanTheImportedOpsetIsUnsupported) {
    test::TempDir dir;
    OnnxBuilder b(13);
    b.input("x", TP::FLOAT, {2, 3}).output("y", TP::FLOAT, {2, 3});
    // Gelu exists from opset 20. (Not LayerNormalization, standard from 17: ONNX Runtime has it in
    // the default domain from opset 1, its optimizer writes it into older models, and so Vireo
    // reads it there too.)
    b.node("Gelu", {"x"}, {"y"}, "gelu");
    const std::string message = error_of<NotImplemented>(b, dir);
    EXPECT_NE(message.find("Gelu (domain ai.onnx, opset 13)"), std::string::npos) << message;
}

TEST(OnnxMalformed, DataSizesMustAgreeWithShapes) {
    test::TempDir dir;
    {
        OnnxBuilder b = add_one();
        b.proto().mutable_graph()->mutable_initializer(0)->add_dims(
            3);  // [1, 3] needs 12 bytes, has 4
        const std::string m = error_of<InvalidArgument>(b, dir);
        EXPECT_NE(m.find("initializer 'one'"), std::string::npos) << m;
        EXPECT_NE(m.find("raw_data holds 4 bytes"), std::string::npos) << m;
    }
    {
        OnnxBuilder b = add_one();
        auto* t = b.proto().mutable_graph()->mutable_initializer(0);
        t->clear_raw_data();
        t->add_float_data(1.0f);
        t->add_float_data(2.0f);
        const std::string m = error_of<InvalidArgument>(b, dir);
        EXPECT_NE(m.find("float_data holds 2 values"), std::string::npos) << m;
    }
    {
        // Three values for a shape of 2^40 floats: refused on the count, before 4 TiB is allocated.
        OnnxBuilder b = add_one();
        auto* t = b.proto().mutable_graph()->mutable_initializer(0);
        t->clear_raw_data();
        t->set_dims(0, int64_t{1} << 40);
        for (int i = 0; i < 3; ++i) t->add_float_data(1.0f);
        const std::string m = error_of<InvalidArgument>(b, dir);
        EXPECT_NE(m.find("float_data holds 3 values"), std::string::npos) << m;
    }
    {
        OnnxBuilder b = add_one();
        b.proto().mutable_graph()->mutable_initializer(0)->set_dims(0, -4);
        const std::string m = error_of<InvalidArgument>(b, dir);
        EXPECT_NE(m.find("negative dimension -4"), std::string::npos) << m;
    }
    {
        OnnxBuilder b = add_one();
        auto* t = b.proto().mutable_graph()->mutable_initializer(0);
        t->clear_dims();
        for (int i = 0; i < 4; ++i) t->add_dims(int64_t{1} << 40);  // 2^160 elements
        const std::string m = error_of<InvalidArgument>(b, dir);
        EXPECT_NE(m.find("overflows"), std::string::npos) << m;
    }
    {
        OnnxBuilder b = add_one();
        b.proto().mutable_graph()->mutable_initializer(0)->set_data_type(TP::STRING);
        EXPECT_NE(error_of<NotImplemented>(b, dir).find("string tensors"), std::string::npos);
    }
    {
        OnnxBuilder b = add_one();
        b.proto().mutable_graph()->mutable_initializer(0)->set_data_type(99);
        EXPECT_NE(error_of<InvalidArgument>(b, dir).find("unknown ONNX element type code 99"),
                  std::string::npos);
    }
}

TEST(OnnxMalformed, DanglingNamesCyclesAndDuplicates) {
    test::TempDir dir;
    {
        OnnxBuilder b;
        b.input("x", TP::FLOAT, {2}).output("y", TP::FLOAT, {2});
        b.node("Add", {"x", "nowhere"}, {"y"}, "add");
        const std::string m = error_of<InvalidArgument>(b, dir);
        EXPECT_NE(m.find("input 'nowhere'"), std::string::npos) << m;
        EXPECT_NE(m.find("'add'"), std::string::npos) << m;
    }
    {
        OnnxBuilder b;
        b.input("x", TP::FLOAT, {2}).output("missing", TP::FLOAT, {2});
        b.node("Relu", {"x"}, {"y"}, "relu");
        EXPECT_NE(error_of<InvalidArgument>(b, dir).find("graph output 'missing'"),
                  std::string::npos);
    }
    {
        OnnxBuilder b;
        b.input("x", TP::FLOAT, {2}).output("b", TP::FLOAT, {2});
        b.node("Add", {"x", "b"}, {"a"}, "n1");
        b.node("Relu", {"a"}, {"b"}, "n2");
        EXPECT_NE(error_of<InvalidArgument>(b, dir).find("dependency cycle"), std::string::npos);
    }
    {
        OnnxBuilder b;
        b.input("x", TP::FLOAT, {2}).output("y", TP::FLOAT, {2});
        b.node("Relu", {"x"}, {"y"}, "n1");
        b.node("Relu", {"x"}, {"y"}, "n2");
        EXPECT_NE(error_of<InvalidArgument>(b, dir).find("already defined"), std::string::npos);
    }
    {
        OnnxBuilder b;
        b.input("x", TP::FLOAT, {2}).input("x", TP::FLOAT, {2}).output("y", TP::FLOAT, {2});
        b.node("Relu", {"x"}, {"y"});
        EXPECT_NE(error_of<InvalidArgument>(b, dir).find("listed twice"), std::string::npos);
    }
    {
        OnnxBuilder b;
        b.input("x", TP::FLOAT, {2}).output("y", TP::FLOAT, {2});
        b.node("Relu", {"x"}, {"y"});
        b.proto().mutable_graph()->mutable_input(0)->mutable_type()->mutable_sequence_type();
        EXPECT_NE(error_of<NotImplemented>(b, dir).find("sequence"), std::string::npos);
    }
}

TEST(OnnxMalformed, AnInitializerDefinedTwiceIsAnError) {
    test::TempDir dir;
    OnnxBuilder b = add_one();
    b.initializer("one", {1}, {2.0f});
    const std::string m = error_of<InvalidArgument>(b, dir);
    EXPECT_NE(m.find("initializer 'one' is defined twice"), std::string::npos) << m;
}

// Numbers past what their conversion can hold are named, not truncated or turned into
// "dimension -9223372036854775808 is invalid".
TEST(OnnxMalformed, OpsetVersionsBeyondInt32AreRefusedAsSuch) {
    test::TempDir dir;
    for (int64_t version : {int64_t{2147483648} + 5, int64_t{4294967296} + 13}) {
        OnnxBuilder b = add_one();
        b.proto().mutable_opset_import(0)->set_version(version);
        const std::string m = error_of<InvalidArgument>(b, dir);
        EXPECT_NE(m.find("has version " + std::to_string(version) + ", expected 1 to 2147483647"),
                  std::string::npos)
            << m;
    }
}

TEST(OnnxMalformed, RangeAndResizeWhoseSizesOverflowNameTheNode) {
    test::TempDir dir;
    {
        OnnxBuilder b(11);
        b.input("x", TP::INT64, {1}).output("y", TP::INT64, {-1});
        for (auto [name, value] : std::vector<std::pair<const char*, int64_t>>{
                 {"start", -9000000000000000000}, {"limit", 9000000000000000000}, {"delta", 1}}) {
            auto* t = b.proto().mutable_graph()->add_initializer();
            t->set_name(name);
            t->set_data_type(TP::INT64);
            t->add_int64_data(value);
        }
        b.node("Range", {"start", "limit", "delta"}, {"r"}, "big_range");
        b.node("Add", {"x", "r"}, {"y"}, "add");
        const std::string m = error_of<InvalidArgument>(b, dir);
        EXPECT_NE(m.find("'big_range'"), std::string::npos) << m;
        EXPECT_NE(m.find("more than a dimension can hold"), std::string::npos) << m;
    }
    for (float scale : {std::numeric_limits<float>::quiet_NaN(),
                        std::numeric_limits<float>::infinity(), -2.f, 1e30f}) {
        OnnxBuilder b(13);
        b.input("x", TP::FLOAT, {1, 1, 2, 2}).output("y", TP::FLOAT, {-1, -1, -1, -1});
        b.initializer("scales", {4}, {1.f, 1.f, scale, 1.f});
        b.node("Resize", {"x", "", "scales"}, {"y"}, "bad_resize");
        const std::string m = error_of<InvalidArgument>(b, dir);
        EXPECT_NE(m.find("'bad_resize'"), std::string::npos) << m;
        EXPECT_NE(m.find("axis 2"), std::string::npos) << m;
        EXPECT_EQ(m.find("-9223372036854775808"), std::string::npos) << m;
    }
}

// Every translator, at every opset it is registered for, meets nodes whose input and output
// lists are wrong — none, one, seven, an empty name first — and either translates them or refuses
// them with Vireo's error naming the node: never a crash or a read past the node's lists (a
// fuzzer found SequenceConstruct without an output reading output 0; builds with protobuf's
// debug checks turn such a read into an error that does not name the node).
TEST(OnnxMalformed, EveryOpMeetsWrongInputAndOutputListsWithAnError) {
    std::istringstream table(onnx_supported_ops_markdown());
    const std::vector<std::vector<std::string>> input_lists{
        {}, {"x"}, {"x", "x", "x", "x", "x", "x", "x"}, {"", "x"}};
    const std::vector<std::vector<std::string>> output_lists{
        {}, {"y"}, {"y", "y1", "y2", "y3", "y4", "y5", "y6"}, {"", "y"}};
    size_t ops = 0, imports = 0, refused = 0;
    for (std::string line; std::getline(table, line);) {
        // "| op | domain | v1, v2 |"
        std::vector<std::string> cells;
        std::istringstream row(line);
        for (std::string cell; std::getline(row, cell, '|');) {
            const size_t a = cell.find_first_not_of(' '), z = cell.find_last_not_of(' ');
            if (a != std::string::npos) cells.push_back(cell.substr(a, z - a + 1));
        }
        ASSERT_EQ(cells.size(), 3u) << line;
        const std::string& op = cells[0];
        const std::string domain = cells[1] == "ai.onnx" ? "" : cells[1];
        ++ops;
        std::istringstream versions(cells[2]);
        for (std::string v; std::getline(versions, v, ',');) {
            const int64_t version = std::stoll(v);
            for (const auto& inputs : input_lists)
                for (const auto& outputs : output_lists) {
                    OnnxBuilder b(domain.empty() ? version : 13);
                    if (!domain.empty()) {
                        auto* import = b.proto().add_opset_import();
                        import->set_domain(domain);
                        import->set_version(version);
                    }
                    b.input("x", TP::FLOAT, {2, 3}).output("out", TP::FLOAT, {2, 3});
                    b.node("Relu", {"x"}, {"out"});
                    b.node(op, inputs, outputs, "hostile").set_domain(domain);
                    const std::string bytes = b.bytes();
                    SCOPED_TRACE(op + "-" + std::to_string(version) + " with " +
                                 std::to_string(inputs.size()) + " inputs, " +
                                 std::to_string(outputs.size()) + " outputs");
                    ++imports;
                    try {
                        read_onnx_model(bytes.data(), bytes.size());
                    } catch (const Exception& e) {
                        ++refused;  // naming the node, not only the file
                        EXPECT_NE(std::string(e.what()).find("'hostile'"), std::string::npos)
                            << e.what();
                    } catch (const std::exception& e) {
                        ADD_FAILURE() << "not Vireo's error: " << e.what();
                    }
                }
        }
    }
    EXPECT_GT(ops, 150u);
    EXPECT_EQ(imports % 16, 0u);
    EXPECT_GT(refused, imports / 2);  // most of these lists are wrong for most ops
}

TEST(OnnxMalformed, UnsortedNodesAreOrderedByTheirInputs) {
    test::TempDir dir;
    OnnxBuilder b;
    b.input("x", TP::FLOAT, {3}).output("z", TP::FLOAT, {3});
    b.node("Neg", {"y"}, {"z"}, "second");
    b.node("Relu", {"x"}, {"y"}, "first");
    b.write(dir.path() / "m.onnx");
    Core core;
    auto compiled = core.compile_model((dir.path() / "m.onnx").string(), "TEMPLATE");
    auto request = compiled.create_infer_request();
    std::vector<float> x{-1.0f, 2.0f, -3.0f};
    request.set_input_tensor(0, Tensor(element::f32, Shape{3}, x.data()));
    request.infer();
    const float* z = request.get_output_tensor(0).data<float>();
    EXPECT_FLOAT_EQ(z[0], 0.0f);
    EXPECT_FLOAT_EQ(z[1], -2.0f);
    EXPECT_FLOAT_EQ(z[2], 0.0f);
}

// A model whose "w" initializer (3 floats) lives in external data.
OnnxBuilder external_model(const std::string& location, const std::string& offset,
                           const std::string& length) {
    OnnxBuilder b;
    b.input("x", TP::FLOAT, {3}).output("y", TP::FLOAT, {3});
    auto& w = b.initializer("w", {3}, {0, 0, 0});
    w.clear_raw_data();
    w.set_data_location(TP::EXTERNAL);
    auto add = [&](const std::string& k, const std::string& v) {
        if (v.empty()) return;
        auto* e = w.add_external_data();
        e->set_key(k);
        e->set_value(v);
    };
    add("location", location);
    add("offset", offset);
    add("length", length);
    b.node("Add", {"x", "w"}, {"y"}, "add");
    return b;
}

void write_weights(const std::filesystem::path& path) {
    const float values[4] = {99.0f, 10.0f, 20.0f, 30.0f};  // the model reads from offset 4
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(values), sizeof values);
}

TEST(OnnxExternalData, IsReadFromTheModelsFolder) {
    test::TempDir dir;
    std::filesystem::create_directories(dir.path() / "sub");
    write_weights(dir.path() / "sub" / "w.bin");
    external_model("sub/w.bin", "4", "12").write(dir.path() / "m.onnx");
    Core core;
    auto compiled = core.compile_model((dir.path() / "m.onnx").string(), "TEMPLATE");
    auto request = compiled.create_infer_request();
    std::vector<float> x{1.0f, 2.0f, 3.0f};
    request.set_input_tensor(0, Tensor(element::f32, Shape{3}, x.data()));
    request.infer();
    const float* y = request.get_output_tensor(0).data<float>();
    EXPECT_FLOAT_EQ(y[0], 11.0f);
    EXPECT_FLOAT_EQ(y[1], 22.0f);
    EXPECT_FLOAT_EQ(y[2], 33.0f);
}

// ENABLE_MMAP false reads external data into memory (issue 35): truncating or rewriting the file
// after read_model then changes nothing, where a mapping would be SIGBUS or silent new values.
TEST(OnnxExternalData, EnableMmapFalseCopiesSoTheFileMayChangeAfterwards) {
    test::TempDir dir;
    write_weights(dir.path() / "w.bin");
    external_model("w.bin", "4", "12").write(dir.path() / "m.onnx");
    Core core;
    core.set_property({{"ENABLE_MMAP", false}});
    auto model = core.read_model((dir.path() / "m.onnx").string());
    const auto& sources = model->get_rt_info().at("__source_files").as<std::vector<std::string>>();
    ASSERT_EQ(sources.size(), 2u);  // the model, then its external data
    EXPECT_EQ(std::filesystem::path(sources[0]).filename(), "m.onnx");
    EXPECT_EQ(std::filesystem::path(sources[1]).filename(), "w.bin");
    std::filesystem::resize_file(dir.path() / "w.bin", 0);  // truncated
    auto request = core.compile_model(model, "TEMPLATE").create_infer_request();
    std::vector<float> x{1.0f, 2.0f, 3.0f};
    request.set_input_tensor(0, Tensor(element::f32, Shape{3}, x.data()));
    request.infer();
    const float* y = request.get_output_tensor(0).data<float>();
    EXPECT_FLOAT_EQ(y[0], 11.0f);
    EXPECT_FLOAT_EQ(y[1], 22.0f);
    EXPECT_FLOAT_EQ(y[2], 33.0f);
}

// Converting must not destroy the source: an output path that is the ONNX file or its external
// data is refused, and both stay byte for byte as they were.
TEST(OnnxExternalData, SerializeRefusesTheModelsOwnFiles) {
    test::TempDir dir;
    write_weights(dir.path() / "m.bin");  // the external data has the name IR would give its .bin
    external_model("m.bin", "4", "12").write(dir.path() / "m.onnx");
    const auto size_of = [&](const char* name) {
        return std::filesystem::file_size(dir.path() / name);
    };
    const auto onnx_size = size_of("m.onnx"), bin_size = size_of("m.bin");
    Core core;
    auto model = core.read_model((dir.path() / "m.onnx").string());
    for (const char* target : {"m.xml", "m.onnx"}) {
        try {
            serialize(*model, (dir.path() / target).string());
            ADD_FAILURE() << "serialize to " << target << " should have been refused";
        } catch (const InvalidArgument& e) {
            EXPECT_NE(std::string(e.what()).find("read from"), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(size_of("m.onnx"), onnx_size);
    EXPECT_EQ(size_of("m.bin"), bin_size);
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "m.xml"));
    serialize(*model, (dir.path() / "ir.xml").string());
    EXPECT_TRUE(std::filesystem::exists(dir.path() / "ir.bin"));
    for (const auto& entry : std::filesystem::directory_iterator(dir.path()))  // no temporaries
        EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << entry.path();
}

TEST(OnnxExternalData, BadLocationsOffsetsAndLengthsAreRefused) {
    test::TempDir dir;
    write_weights(dir.path() / "w.bin");
    std::filesystem::create_directories(dir.path() / "sub");
    struct Case {
        std::string location, offset, length, expect;
    };
    const std::vector<Case> cases{
        {"/etc/passwd", "", "", "must be a relative path"},
        {"../w.bin", "", "", "leaves the model's folder"},
        {"sub/../../w.bin", "", "", "leaves the model's folder"},
        {"nothere.bin", "", "", "cannot be opened"},
        {"w.bin", "8", "", "lies outside 'w.bin'"},
        {"w.bin", "99999999999", "", "lies outside"},
        {"w.bin", "0", "8", "length 8 disagrees"},
        {"w.bin", "-4", "", "not a non-negative integer"},
        {"w.bin", "184467440737095516160", "", "not a non-negative integer"},
        {"", "", "", "without a 'location'"},
        {".", "", "", "outside the model's folder"},
        {"sub", "", "", "not a regular file"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.location + " @" + c.offset + " +" + c.length);
        const std::string m =
            error_of<InvalidArgument>(external_model(c.location, c.offset, c.length), dir);
        EXPECT_NE(m.find(c.expect), std::string::npos) << m;
        EXPECT_NE(m.find("initializer 'w'"), std::string::npos) << m;
    }
}

TEST(OnnxExternalData, ASymlinkOutOfTheFolderIsRefused) {
    test::TempDir outside, dir;
    write_weights(outside.path() / "w.bin");
    std::filesystem::create_symlink(outside.path() / "w.bin", dir.path() / "link.bin");
    const std::string m = error_of<InvalidArgument>(external_model("link.bin", "4", ""), dir);
    EXPECT_NE(m.find("resolves outside the model's folder"), std::string::npos) << m;
}

TEST(OnnxExternalData, IsRefusedForAModelInMemory) {
    const std::string bytes = external_model("w.bin", "4", "").bytes();
    try {
        read_onnx_model(bytes.data(), bytes.size());
        FAIL() << "no exception";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("read the model from its file"), std::string::npos)
            << e.what();
    }
}

TEST(OnnxFrontendModule, AMissingModuleIsUnavailableNamingWhereItLooked) {
    GTEST_FLAG_SET(death_test_style,
                   "threadsafe");  // a fresh process: the module is not loaded yet
    EXPECT_EXIT(
        {
            setenv("VIREO_ONNX_FRONTEND", "/nonexistent/libvireo_onnx_frontend.so", 1);
            const std::string bytes = add_one().bytes();
            try {
                read_onnx_model(bytes.data(), bytes.size());
            } catch (const Unavailable& e) {
                std::exit(std::string(e.what()).find("/nonexistent/libvireo_onnx_frontend.so") !=
                                  std::string::npos
                              ? 3
                              : 4);
            } catch (...) {
                std::exit(5);
            }
            std::exit(6);
        },
        ::testing::ExitedWithCode(3), "");
}

}  // namespace
}  // namespace vireo
