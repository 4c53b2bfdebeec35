// Tests JsonValue's parser: escapes (surrogate pairs to UTF-8), structure, and the errors it
// reports for malformed text.
#include "json_value.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>
#include <vireo/exception.hpp>

namespace vireo::genai::detail {
namespace {

TEST(JsonValue, ParsesNestedDocument) {
    const auto v = JsonValue::parse(R"( {"a": [1, -2.5e1, true, null], "b": {"c": "x"}} )", "t");
    ASSERT_TRUE(v.is_object());
    const auto& a = v.find("a")->as_array();
    ASSERT_EQ(a.size(), 4u);
    EXPECT_EQ(a[0].as_int(), 1);
    EXPECT_DOUBLE_EQ(a[1].as_number(), -25.0);
    EXPECT_TRUE(a[2].as_bool());
    EXPECT_TRUE(a[3].is_null());
    EXPECT_EQ(v.find("b")->find("c")->as_string(), "x");
    EXPECT_EQ(v.find("missing"), nullptr);
}

TEST(JsonValue, DecodesEscapesToUtf8) {
    const auto v = JsonValue::parse(R"("\u0120\n\"\\\/\ud83d\ude42\u00e9x")", "t");
    // U+0120, newline, quote, backslash, slash, U+1F642 (a surrogate pair), U+00E9, x.
    EXPECT_EQ(v.as_string(), "\xC4\xA0\n\"\\/\xF0\x9F\x99\x82\xC3\xA9x");
    // A NUL escape stays inside the string.
    EXPECT_EQ(JsonValue::parse(R"("a\u0000b")", "t").as_string(), std::string("a\0b", 3));
}

TEST(JsonValue, RejectsMalformedText) {
    // ..., a lone high surrogate, bytes that are not UTF-8, a number too big for a double.
    for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "\"abc", "tru", "[1] x", "\"\\q\"", "01x",
                            "\"\\ud800x\"", "\"\xff\"", "1e999", "// comment\n1", "{\"a\": 1,}"})
        EXPECT_THROW(JsonValue::parse(bad, "bad.json"), InvalidArgument) << bad;
    try {
        JsonValue::parse("{\"a\": ]", "file.json");
        FAIL();
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("file.json: JSON error at byte 6"), std::string::npos)
            << e.what();
    }
}

// Numbers are converted from their text, correctly rounded, including the zero significand that
// made RapidJSON's own full-precision conversion compute clz(0) (the fuzz target's find) and
// numbers below a double's range (zero); one above it is an error that quotes it.
TEST(JsonValue, NumbersAtTheEdgesOfADouble) {
    const auto v = JsonValue::parse(
        "[0.00000000000000000000000000000000e5, 5e-324, 1.7976931348623157e308, 1e-999, -1e-999, "
        "0.1, -0, 12345678901234567890, 2.2250738585072011e-308]",
        "t");
    const auto& a = v.as_array();
    ASSERT_EQ(a.size(), 9u);
    EXPECT_EQ(a[0].as_number(), 0.0);
    EXPECT_EQ(a[1].as_number(), std::numeric_limits<double>::denorm_min());
    EXPECT_EQ(a[2].as_number(), std::numeric_limits<double>::max());
    EXPECT_EQ(a[3].as_number(), 0.0);
    EXPECT_EQ(a[4].as_number(), 0.0);
    EXPECT_TRUE(std::signbit(a[4].as_number()));
    EXPECT_EQ(a[5].as_number(), 0.1);
    EXPECT_TRUE(std::signbit(a[6].as_number()));
    EXPECT_EQ(a[7].as_number(), 12345678901234567890.0);
    EXPECT_EQ(a[8].as_number(), 2.2250738585072011e-308);
    // RapidJSON refuses an exponent past 308 itself; a larger value with a smaller exponent
    // reaches the conversion.
    for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
             {"-1e999", "Number too big"},
             {"18e307", "the number '18e307' is out of range of a double"}}) {
        try {
            JsonValue::parse("{\"temperature\": " + text + "}", "config.json");
            ADD_FAILURE() << text;
        } catch (const InvalidArgument& e) {
            EXPECT_NE(std::string(e.what()).find("config.json: JSON error at byte "),
                      std::string::npos)
                << e.what();
            EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
        }
    }
}

TEST(JsonValue, RefusesNestingDeeperThan256WithoutExhaustingTheStack) {
    const std::string ok = std::string(256, '[') + std::string(256, ']');
    EXPECT_TRUE(JsonValue::parse(ok, "ok.json").is_array());
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    try {
        JsonValue::parse(deep, "deep.json");
        FAIL();
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("deep.json: JSON error at byte 256: nesting deeper"),
                  std::string::npos)
            << e.what();
    }
}

TEST(JsonValue, KeepsMembersInFileOrderAndFindsTheFirstOfDuplicates) {
    const auto v = JsonValue::parse(R"({"b": 1, "a": 2, "b": 3, "big": 12345678901234567})", "t");
    const auto& members = v.as_object();
    ASSERT_EQ(members.size(), 4u);
    EXPECT_EQ(members[0].first, "b");
    EXPECT_EQ(members[1].first, "a");
    EXPECT_EQ(v.find("b")->as_int(), 1);
    EXPECT_DOUBLE_EQ(v.find("big")->as_number(), 12345678901234567.0);
}

TEST(JsonValue, TypedAccessOfWrongTypeThrows) {
    const auto v = JsonValue::parse("[\"s\"]", "t");
    EXPECT_THROW(v.as_object(), InvalidArgument);
    EXPECT_THROW(v.as_array()[0].as_int(), InvalidArgument);
}

}  // namespace
}  // namespace vireo::genai::detail
