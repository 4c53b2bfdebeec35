// Tests that every malformed IR in tests/data/ir_malformed fails with the documented exception
// kind and a message naming the thing at fault (one test per file), and a few cases that need
// no file (a missing .xml, hostile input built in memory).
#include <filesystem>
#include <set>

#include "ir_test_util.hpp"
#include "vireo/log.hpp"

using namespace vireo;
using namespace vireo::ir_test;

namespace {

struct MalformedCase {
    const char* file;
    ErrorKind kind;
    std::vector<const char*> fragments;  // each must appear in the message
};

// Keep in step with tests/data/ir_malformed/README.md.
const std::vector<MalformedCase> kCases = {
    {"not_xml.xml", ErrorKind::kInvalidArgument, {"not_xml.xml", "not a valid XML document"}},
    {"missing_net.xml",
     ErrorKind::kInvalidArgument,
     {"the root element must be <net>, found <model>"}},
    {"missing_net_version.xml", ErrorKind::kInvalidArgument, {"<net> has no 'version' attribute"}},
    {"unsupported_version.xml",
     ErrorKind::kInvalidArgument,
     {"unsupported IR version '7'", "10, 11"}},
    {"duplicate_layer_id.xml",
     ErrorKind::kInvalidArgument,
     {"duplicate layer id=1", "'relu'", "'relu_again'"}},
    {"bad_layer_id.xml",
     ErrorKind::kInvalidArgument,
     {"layer #1 'relu'", "'id' must be an integer", "'one'"}},
    {"edge_to_missing_layer.xml",
     ErrorKind::kInvalidArgument,
     {"edge #1", "to-layer=9", "there is no layer id=9"}},
    {"edge_to_missing_port.xml",
     ErrorKind::kInvalidArgument,
     {"edge #0", "layer id=0 'x' (Parameter) has no output port id=5"}},
    {"edge_from_result.xml",
     ErrorKind::kInvalidArgument,
     {"layer id=2 'y/result' (Result)", "layer id=1 'early' (Result)",
      "a Result has no output another layer may read"}},
    {"edge_duplicate_input.xml",
     ErrorKind::kInvalidArgument,
     {"edge #1", "input port id=0 of layer id=1 'relu' (ReLU) already has an incoming edge"}},
    {"unconnected_input.xml",
     ErrorKind::kInvalidArgument,
     {"layer id=1 'sum' (Add): input port id=1 has no incoming edge"}},
    {"cycle.xml",
     ErrorKind::kInvalidArgument,
     {"the graph has a cycle through layer id=", "(layer ids "}},
    {"output_port_count.xml",
     ErrorKind::kInvalidArgument,
     {"layer id=1 'relu' (ReLU)", "lists 2 output ports", "has 1 outputs"}},
    {"dims_contradict_shape.xml",
     ErrorKind::kInvalidArgument,
     {"layer id=1 'relu' (ReLU): output port id=1 has dims [1,5] but the inferred shape is "
      "[1,10]"}},
    {"precision_contradicts_type.xml",
     ErrorKind::kInvalidArgument,
     {"layer id=1 'relu' (ReLU): output port id=1 has precision I32 but the inferred element type "
      "is f32"}},
    {"negative_dim.xml",
     ErrorKind::kInvalidArgument,
     {"layer id=1 'relu' (ReLU): output port id=1", "-2 is negative"}},
    {"overflowing_dim.xml",
     ErrorKind::kInvalidArgument,
     {"layer id=1 'relu' (ReLU): output port id=1", "<dim> must be an integer",
      "99999999999999999999"}},
    {"negative_shape_attribute.xml",
     ErrorKind::kInvalidArgument,
     {"layer id=0 'x' (Parameter): attribute 'shape'", "1,-5"}},
    {"unknown_element_type.xml",
     ErrorKind::kInvalidArgument,
     {"layer id=0 'x' (Parameter): attribute 'element_type'", "unknown element type 'f17'"}},
    {"unknown_op_type.xml",
     ErrorKind::kInvalidArgument,
     {"layer id=1 'frob' (FrobnicateX)", "unknown op type 'FrobnicateX'", "opset1"}},
    {"unknown_op_version.xml",
     ErrorKind::kInvalidArgument,
     {"layer id=1 'sm' (SoftMax)", "'SoftMax'", "no definition for version 'some_domain'"}},
    {"missing_required_attribute.xml",
     ErrorKind::kInvalidArgument,
     {"layer id=0 'x' (Parameter): missing required attribute 'shape'"}},
    {"unparsable_number.xml",
     ErrorKind::kInvalidArgument,
     {"layer id=1 'sm' (SoftMax): attribute 'axis': expected an integer, found 'one'"}},
    {"bad_bool.xml",
     ErrorKind::kInvalidArgument,
     {"layer id=2 'mm' (MatMul): attribute 'transpose_a': expected 'true' or 'false', found "
      "'maybe'"}},
    {"no_result.xml", ErrorKind::kInvalidArgument, {"has no Result"}},
    {"const_beyond_bin.xml",
     ErrorKind::kInvalidArgument,
     {"layer id=1 'c' (Const): offset=4 + size=40 reaches beyond the end of the weights (40 "
      "bytes)"}},
    {"const_offset_overflow.xml",
     ErrorKind::kInvalidArgument,
     {"layer id=1 'c' (Const): offset=18446744073709551615 + size=40 reaches beyond the end of the "
      "weights"}},
    {"const_size_mismatch.xml",
     ErrorKind::kInvalidArgument,
     {"layer id=1 'c' (Const): size=36 bytes does not match element_type f32 x shape [1,10] = 40 "
      "bytes"}},
    {"const_shape_overflow.xml",
     ErrorKind::kInvalidArgument,
     {"layer id=1 'c' (Const): attribute 'shape'", "more elements than can be addressed"}},
    {"const_dynamic_shape.xml",
     ErrorKind::kInvalidArgument,
     {"layer id=1 'c' (Const): attribute 'shape'", "must be static"}},
    {"const_missing_attribute.xml",
     ErrorKind::kInvalidArgument,
     {"layer id=1 'c' (Const): missing required attribute 'offset'"}},
    {"missing_bin.xml",
     ErrorKind::kNotFound,
     {"layer id=1 'c' (Const) needs 40 bytes of weights", "missing_bin.bin' does not exist"}},
};

// GoogleTest prints a parameter it has no printer for as raw bytes, padding included (valgrind
// reports those as uninitialised reads); print the file name instead.
void PrintTo(const MalformedCase& c, std::ostream* out) {
    *out << c.file;
}

class IrMalformed : public ::testing::TestWithParam<MalformedCase> {};

std::string case_name(const ::testing::TestParamInfo<MalformedCase>& info) {
    std::string name = info.param.file;
    name = name.substr(0, name.find('.'));
    for (auto& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
}

// Reads the file, expecting failure; returns the exception's kind and message.
std::pair<ErrorKind, std::string> read_failure(const std::string& path) {
    try {
        read_model(path);
    } catch (const Exception& e) {
        return {e.kind(), e.what()};
    } catch (const std::exception& e) {
        ADD_FAILURE() << "a foreign exception escaped: " << e.what();
        return {ErrorKind::kGeneral, e.what()};
    }
    ADD_FAILURE() << path << " was read without error";
    return {ErrorKind::kGeneral, ""};
}

TEST_P(IrMalformed, FailsWithKindAndMessage) {
    const auto& c = GetParam();
    const auto [kind, message] = read_failure(data_path(std::string("ir_malformed/") + c.file));
    EXPECT_EQ(kind, c.kind) << to_string(kind) << ": " << message;
    for (const char* fragment : c.fragments)
        EXPECT_NE(message.find(fragment), std::string::npos) << message;
}

INSTANTIATE_TEST_SUITE_P(Files, IrMalformed, ::testing::ValuesIn(kCases), case_name);

TEST(IrMalformedData, EveryFileHasACaseAndIsInTheReadme) {
    std::set<std::string> covered;
    for (const auto& c : kCases) covered.insert(c.file);
    const std::string readme = read_file(data_path("ir_malformed/README.md"));
    for (const auto& entry : std::filesystem::directory_iterator(data_path("ir_malformed"))) {
        const std::string name = entry.path().filename().string();
        if (entry.path().extension() != ".xml") continue;
        EXPECT_TRUE(covered.count(name)) << name << " has no test case";
        EXPECT_NE(readme.find(name), std::string::npos) << name << " is not listed in README.md";
    }
}

TEST(IrMalformedData, MissingXmlIsNotFound) {
    try {
        read_model(data_path("ir_malformed/no_such_model.xml"));
        FAIL() << "no exception";
    } catch (const NotFound& e) {
        EXPECT_NE(std::string(e.what()).find("no_such_model.xml' does not exist"),
                  std::string::npos)
            << e.what();
    }
}

TEST(IrMalformedData, EmptyAndTruncatedTextAreInvalid) {
    EXPECT_THROW(read_model_from_string("", Tensor()), InvalidArgument);
    const std::string tiny = read_file(data_path("models/golden/tiny/model.xml"));
    const Tensor weights = bytes_tensor(read_file(data_path("models/golden/tiny/model.bin")));
    // Every prefix of a valid file fails cleanly (or, past the closing tag, reads).
    for (size_t n = 0; n < tiny.size(); n += 7) {
        try {
            read_model_from_string(tiny.substr(0, n), weights);
        } catch (const InvalidArgument&) {
        }
    }
}

TEST(IrMalformedData, WeightsTooSmallInMemory) {
    const std::string tiny = read_file(data_path("models/golden/tiny/model.xml"));
    try {
        read_model_from_string(tiny, bytes_tensor("ab"));
        FAIL() << "no exception";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find(
                      "layer id=1 'one' (Const): offset=0 + size=4 reaches beyond the end of "
                      "the weights (2 bytes)"),
                  std::string::npos)
            << e.what();
    }
    // No weights at all: the same check, against 0 bytes.
    EXPECT_THROW(read_model_from_string(tiny, Tensor()), InvalidArgument);
}

TEST(IrMalformedData, UnknownAttributeIsIgnoredWithAWarning) {
    std::string tiny = read_file(data_path("models/golden/tiny/model.xml"));
    const std::string needle = "<data auto_broadcast=\"numpy\" />";
    ASSERT_NE(tiny.find(needle), std::string::npos);
    tiny.replace(tiny.find(needle), needle.size(),
                 "<data auto_broadcast=\"numpy\" frobnication=\"3\" />");
    const Tensor weights = bytes_tensor(read_file(data_path("models/golden/tiny/model.bin")));
    // Warnings must be on for this test even when the environment silences them
    // (GLOG_minloglevel=2 or higher used to make it fail).
    const log::Level saved = get_log_level();
    set_log_level(log::Level::WARNING);
    ::testing::internal::CaptureStderr();
    auto model = read_model_from_string(tiny, weights);
    const std::string log = ::testing::internal::GetCapturedStderr();
    set_log_level(saved);
    EXPECT_EQ(model->get_ordered_ops().size(), 4u);
    EXPECT_NE(
        log.find("layer id=2 'y' (Add): attribute 'frobnication' is not defined by Add-1; ignored"),
        std::string::npos)
        << log;
}

}  // namespace
