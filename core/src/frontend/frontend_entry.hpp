// Declares the entry point a model frontend module (the ONNX reader) exports, and the ABI check
// the core makes before calling it. Private to the tree: frontends are built with the runtime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "vireo/model.hpp"

/// Bump on any change a built frontend would not survive (this struct, or the layout of a type
/// it passes: Model, Node, Tensor, OpDef). Checked with the toolchain tag before anything else.
#define VIREO_FRONTEND_ABI_VERSION 3
#define VIREO_FRONTEND_ENTRY_SYMBOL "vireo_frontend_entry"

namespace vireo::frontend {

/// What the module's entry returns. The first two fields are plain C so the core can check them
/// before it trusts anything C++. The functions throw vireo::Exception (NotFound for a missing
/// file, InvalidArgument for malformed content, NotImplemented for unsupported operations).
struct FrontendEntry {
    uint32_t abi_version;
    const char* toolchain_tag;
    const char* format_name;  // "onnx"
    /// Reads a model from a file; external data resolves against the file's folder and is
    /// mapped (`enable_mmap`, Core's ENABLE_MMAP) or read into memory. The model's rt_info
    /// "__source_files" lists the files it was read from (model and external data, absolute).
    std::shared_ptr<Model> (*read_file)(const std::string& path, bool enable_mmap);
    /// Reads a model held in memory (copied as needed; `data` may be freed afterwards). External
    /// data is refused: there is no folder to resolve it against.
    std::shared_ptr<Model> (*read_buffer)(const void* data, size_t size);
    /// The supported operations as Markdown table rows ("| Op | domain | versions |"), from the
    /// translator registry itself (docs/onnx.md is generated from it).
    std::string (*supported_ops_markdown)();
};

using FrontendEntryFunction = const FrontendEntry* (*)();

}  // namespace vireo::frontend
