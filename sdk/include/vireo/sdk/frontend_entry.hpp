// Declares the entry point a model frontend module exports (the ONNX reader is one): the formats it
// detects and reads, and the ABI check the runtime makes before calling it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "vireo/model.hpp"
#include "vireo/version.hpp"  // VIREO_TOOLCHAIN_TAG

/// Bump on any change a built frontend would not survive (these structs, or the layout of a type
/// they pass: Model, Node, Tensor, OpDef). Checked with the toolchain tag before anything else.
///
/// History: 3 was the private core header's last version (one format per module, named by the
/// module). 4: the module declares its formats (FrontendFormat: name, file extensions, content
/// probe), so the runtime's format registry picks a frontend without knowing any format itself.
#define VIREO_FRONTEND_ABI_VERSION 4
/// Name of the single exported symbol: `extern "C" const vireo::sdk::FrontendEntry* f()`.
#define VIREO_FRONTEND_ENTRY_SYMBOL "vireo_frontend_entry"

namespace vireo::sdk {

/// One model format a frontend reads. The runtime asks every format's probe about a model's first
/// bytes; when none claims them, a file whose extension a format lists goes to that format.
struct FrontendFormat {
    /// What messages and the registry's list call it ("ONNX"); unique among the loaded formats.
    const char* name;
    /// File extensions with the dot, lower case, ending with a null entry ({".onnx", nullptr});
    /// null for none.
    const char* const* extensions;
    /// True when `head` (the first `size` bytes of the model: at most 64, fewer for a short file;
    /// `size` may be 0) starts like this format. Must not throw. Null: by extension only.
    bool (*probe)(const unsigned char* head, size_t size);
};

/// What the module's entry returns. The first two fields are plain C so the runtime can check
/// them before it trusts anything C++. The functions throw vireo::Exception (NotFound for a
/// missing file, InvalidArgument for malformed content, NotImplemented for unsupported
/// operations).
struct FrontendEntry {
    uint32_t abi_version;           ///< VIREO_FRONTEND_ABI_VERSION
    const char* toolchain_tag;      ///< VIREO_TOOLCHAIN_TAG
    const FrontendFormat* formats;  ///< the formats the module reads, `format_count` of them (>= 1)
    size_t format_count;
    /// Reads a model from a file; external data resolves against the file's folder and is
    /// mapped (`enable_mmap`, Core's ENABLE_MMAP) or read into memory. The model's rt_info
    /// "__source_files" lists the files it was read from (model and external data, absolute).
    std::shared_ptr<Model> (*read_file)(const std::string& path, bool enable_mmap);
    /// Reads a model held in memory (copied as needed; `data` may be freed afterwards). External
    /// data is refused: there is no folder to resolve it against.
    std::shared_ptr<Model> (*read_buffer)(const void* data, size_t size);
    /// The supported operations as Markdown table rows ("| Op | domain | versions |"), from the
    /// translator registry itself (docs/onnx.md is generated from it). May be null.
    std::string (*supported_ops_markdown)();
};

using FrontendEntryFunction = const FrontendEntry* (*)();

}  // namespace vireo::sdk
