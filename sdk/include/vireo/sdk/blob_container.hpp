// Declares BlobContainer: the one compiled-model blob format — what CompiledModel::export_model
// writes, Core::import_model and the model cache read — a header naming who wrote it, the
// plugin's sections (vireo/sdk/blob_sections.hpp) and one checksum over all of it.
#pragma once

#include <cstdint>
#include <istream>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "vireo/version.hpp"

namespace vireo::sdk {

/// Layout (integers little-endian; a "string" is a u32 length, at most 4096, then its bytes):
///   8 bytes  magic "VIREOBLB"
///   u32      format version (kBlobFormatVersion)
///   u32      plugin ABI version (VIREO_PLUGIN_ABI_VERSION of the runtime that wrote it)
///   string   plugin name (its library name, "vireo_template_plugin")
///   string   plugin version (its build number)
///   string   origin: what the blob was compiled from (the model cache key for a cache entry;
///            empty for CompiledModel::export_model)
///   u64      payload size
///   payload  the plugin's sections, exactly as its export_model wrote them
///   u64      checksum of every byte before it, magic to payload (blob_checksum)
/// The header is the core's: the plugin never sees it, and its fields are checked before the
/// payload is read. A plugin whose export_model writes something other than sections (one built
/// before format 4) gets it stored as the one section "vireo.raw" and handed back unchanged.
/// Version history: 4 one container (sections, checksum over header and payload); 3 origin field;
/// 2 word-wise checksum; 1 byte-wise FNV-1a.
inline constexpr uint32_t kBlobFormatVersion = 4;

/// Who wrote a blob, or who is asked to read it.
struct BlobIdentity {
    std::string plugin_name;
    std::string plugin_version;
    uint32_t abi_version = 0;
    /// A plugin with `version` as the core sets it (build number, library name) under this
    /// runtime's ABI version.
    static BlobIdentity of(const Version& version);
};

/// FNV-1a's xor-multiply on 64-bit little-endian words in four interleaved lanes, each step
/// followed by an xor-shift, the lanes folded together with the size, then the last 0-31 bytes
/// byte-wise. Depends only on the bytes, not on the host.
uint64_t blob_checksum(const void* data, size_t size);

/// A blob read and checked. Not copyable or movable (plugin_stream() reads its bytes in place);
/// not thread-safe.
///
///     sdk::BlobContainer blob(in, sdk::BlobIdentity::of(plugin_version), "import_model");
///     auto compiled = plugin.import_model(blob.plugin_stream(), config);
class BlobContainer {
  public:
    /// Writes a blob holding `plugin_bytes` (what the plugin's export_model wrote). Throws
    /// Exception "cannot write the compiled-model blob: <strerror>" when the stream fails.
    static void write(std::ostream& out, const BlobIdentity& writer, std::string_view plugin_bytes,
                      const std::string& origin = "");

    /// Reads a blob, checking in order: the magic ("not a Vireo compiled-model blob"), the format
    /// version ("blob format version 3 is not supported by this build (expected 4); re-export
    /// the model"), a complete header, plugin name, version and ABI equal to `reader`'s ("the
    /// blob was exported by plugin 'A' version 'x' (ABI n), but it is being imported by ..."),
    /// the origin equal to `*expected_origin` (when not null), a complete payload ("truncated
    /// blob: the header announces a payload of N bytes, found only M"; never allocating more than
    /// the stream holds or, unseekable, than the machine's memory) and the checksum ("damaged
    /// blob: checksum ..."). Every error is InvalidArgument starting with `source`.
    BlobContainer(std::istream& in, const BlobIdentity& reader, const std::string& source,
                  const std::string* expected_origin = nullptr);
    ~BlobContainer();
    BlobContainer(const BlobContainer&) = delete;
    BlobContainer& operator=(const BlobContainer&) = delete;

    /// What the plugin's export_model wrote, byte for byte, as a seekable stream over this
    /// object's memory (valid while it lives): the stream to hand the plugin's import_model.
    std::istream& plugin_stream();

  private:
    struct View;
    std::string m_payload;
    std::string_view m_plugin_bytes;
    std::unique_ptr<View> m_view;
};

}  // namespace vireo::sdk
