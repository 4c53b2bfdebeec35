// Declares extensions: shared libraries that bring custom ops to Vireo (OpenVINO's
// core.add_extension). An extension registers, when loaded, op definitions with type and shape
// inference (OpRegistry), their kernels for the reference kernel registry (so TEMPLATE and every
// plugin built on the SDK's reference kernels run them) and, for ONNX models, how nodes of its
// custom ONNX domain map to those ops. docs/extensions.md has the walkthrough;
// samples/extension/ is a complete example.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "vireo/version.hpp"  // VIREO_TOOLCHAIN_TAG

/// Bumped whenever ExtensionEntry or what register_all may rely on changes incompatibly.
#define VIREO_EXTENSION_ABI_VERSION 1
#define VIREO_EXTENSION_ENTRY_SYMBOL "vireo_extension_entry"

namespace vireo {

/// How a node of a custom ONNX domain becomes a registered op: its inputs, in order, are the
/// op's inputs; each ONNX attribute is passed as the op attribute of the same name (or the name
/// `attributes` maps it to), converted to the attribute's declared type (int, float, string,
/// their lists, bool from an int); the op's outputs are the node's outputs. An attribute the op
/// does not declare is an error naming the node, as are missing required ones.
struct OnnxOpMapping {
    std::string onnx_domain;   ///< "com.example" (declared in the model's opset_import)
    std::string onnx_op_type;  ///< the node's op_type
    std::string op_type;       ///< the registered op (OpRegistry)
    int op_version = 1;
    std::string op_domain;                          ///< the registered op's domain
    std::map<std::string, std::string> attributes;  ///< ONNX name -> op name, when they differ
};

/// Registers a mapping, process-wide like the OpRegistry (never removed). Throws InvalidArgument
/// when (onnx_domain, onnx_op_type) is mapped already, the domain is a standard ONNX one ("",
/// "ai.onnx", "ai.onnx.ml"), or the target op is not registered.
void register_onnx_op_mapping(const OnnxOpMapping& mapping);

/// The mapping for a node of `onnx_domain` / `onnx_op_type`, if one was registered.
std::optional<OnnxOpMapping> find_onnx_op_mapping(const std::string& onnx_domain,
                                                  const std::string& onnx_op_type);

namespace extension {

/// What an extension library exports (through VIREO_DEFINE_EXTENSION). Plain C fields first:
/// the core reads abi_version and toolchain_tag before it trusts anything C++.
struct ExtensionEntry {
    uint32_t abi_version;
    const char* toolchain_tag;
    const char* name;
    const char* version;
    /// Registers the extension's ops, kernels and ONNX mappings; called once per process. May
    /// throw vireo::Exception (the core adds the library's path to the message).
    void (*register_all)();
};
using ExtensionEntryFunction = const ExtensionEntry* (*)();

}  // namespace extension
}  // namespace vireo

/// Defines the entry of an extension library:
///     void register_my_ops() { vireo::OpRegistry::instance().add(...); ... }
///     VIREO_DEFINE_EXTENSION("my_ops", "1.0", register_my_ops)
#define VIREO_DEFINE_EXTENSION(NAME, VERSION, REGISTER)                                         \
    extern "C" __attribute__((visibility("default"))) const ::vireo::extension::ExtensionEntry* \
    vireo_extension_entry() {                                                                   \
        static const ::vireo::extension::ExtensionEntry entry{                                  \
            VIREO_EXTENSION_ABI_VERSION, VIREO_TOOLCHAIN_TAG, NAME, VERSION, REGISTER};         \
        return &entry;                                                                          \
    }
