// Implements the samples' JSON reading and quoting on RapidJSON: a document parsed strictly
// (RFC 8259, UTF-8 validated, iteratively) and copied into JsonValue's tree.
#include "json.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace vireo::samples {
namespace {

constexpr int kMaxDepth = 64;

JsonValue copy(const rapidjson::Value& from, int depth) {
    if (depth > kMaxDepth) throw std::runtime_error("invalid JSON: nesting deeper than 64 levels");
    JsonValue v;
    switch (from.GetType()) {
        case rapidjson::kNullType:
            break;
        case rapidjson::kFalseType:
        case rapidjson::kTrueType:
            v.kind = JsonValue::Kind::Bool;
            v.boolean = from.GetBool();
            break;
        case rapidjson::kNumberType:
            v.kind = JsonValue::Kind::Number;
            v.number = from.GetDouble();
            break;
        case rapidjson::kStringType:
            v.kind = JsonValue::Kind::String;
            v.text.assign(from.GetString(), from.GetStringLength());
            break;
        case rapidjson::kArrayType:
            v.kind = JsonValue::Kind::Array;
            for (const auto& item : from.GetArray()) v.items.push_back(copy(item, depth + 1));
            break;
        case rapidjson::kObjectType:
            v.kind = JsonValue::Kind::Object;
            for (const auto& member : from.GetObject())
                v.members[std::string(member.name.GetString(), member.name.GetStringLength())] =
                    copy(member.value, depth + 1);
            break;
    }
    return v;
}

}  // namespace

JsonValue parse_json(const std::string& text) {
    rapidjson::Document document;
    // Not kParseFullPrecisionFlag: RapidJSON 1.1.0's full-precision conversion has undefined
    // behaviour on some numbers (genai/src/json_value.cpp); a setting's number needs no last bit.
    constexpr unsigned kFlags =
        rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag;
    document.Parse<kFlags>(text.data(), text.size());
    if (document.HasParseError())
        throw std::runtime_error("invalid JSON at offset " +
                                 std::to_string(document.GetErrorOffset()) + ": " +
                                 rapidjson::GetParseError_En(document.GetParseError()));
    return copy(document, 0);
}

std::string json_quote(const std::string& text) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
    return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace vireo::samples
