// Implements custom-domain ONNX nodes: the generic translator built from an extension's mapping.
#include "custom_ops.hpp"

#include <onnx/onnx_pb.h>

#include "node_context.hpp"
#include "vireo/extension.hpp"
#include "vireo/op_registry.hpp"

namespace vireo::onnx_import {
namespace {

AttrValue convert_attribute(const NodeContext& context, const onnx::AttributeProto& attr,
                            const AttrSpec& spec) {
    using AP = onnx::AttributeProto;
    auto expect = [&](AP::AttributeType type) {
        if (attr.type() != type)
            context.fail("attribute '", attr.name(), "' has ONNX type ",
                         AP::AttributeType_Name(attr.type()), ", op attribute '", spec.name,
                         "' needs ", AP::AttributeType_Name(type));
    };
    switch (spec.type) {
        case AttrType::kBool:
            expect(AP::INT);
            return attr.i() != 0;
        case AttrType::kInt:
            expect(AP::INT);
            return static_cast<int64_t>(attr.i());
        case AttrType::kFloat:
            expect(AP::FLOAT);
            return static_cast<double>(attr.f());
        case AttrType::kString:
            expect(AP::STRING);
            return attr.s();
        case AttrType::kIntList:
            expect(AP::INTS);
            return std::vector<int64_t>(attr.ints().begin(), attr.ints().end());
        case AttrType::kFloatList:
            expect(AP::FLOATS);
            return std::vector<double>(attr.floats().begin(), attr.floats().end());
        case AttrType::kStringList:
            expect(AP::STRINGS);
            return std::vector<std::string>(attr.strings().begin(), attr.strings().end());
        default:
            break;
    }
    context.unsupported("attribute '", attr.name(), "': op attribute '", spec.name,
                        "' has a kind ONNX mappings do not convert (element type or shape)");
}

}  // namespace

Translator custom_translator(const std::string& domain, const std::string& op) {
    auto mapping = find_onnx_op_mapping(domain, op);
    if (!mapping) return {};
    return [mapping = *mapping](const NodeContext& context) -> OutputVector {
        const OpDef* def =
            OpRegistry::instance().find(mapping.op_type, mapping.op_version, mapping.op_domain);
        if (!def)
            context.fail("mapped op ", mapping.op_type, "-", mapping.op_version,
                         " is not registered");
        std::map<std::string, AttrValue> attributes;
        for (const auto& attr : context.proto().attribute()) {
            auto renamed = mapping.attributes.find(attr.name());
            const std::string& name =
                renamed == mapping.attributes.end() ? attr.name() : renamed->second;
            const AttrSpec* spec = def->find_attribute(name);
            if (!spec)
                context.fail("attribute '", attr.name(), "' is not an attribute of op ", def->type);
            attributes[name] = convert_attribute(context, attr, *spec);
        }
        OutputVector inputs;
        for (const auto& input : context.inputs()) {
            if (!input)
                context.unsupported("an omitted optional input has no meaning for mapped op ",
                                    def->type);
            inputs.push_back(input);
        }
        auto node = std::make_shared<Node>(*def, inputs, std::move(attributes));
        node->validate_and_infer_types();
        return node->outputs();
    };
}

}  // namespace vireo::onnx_import
