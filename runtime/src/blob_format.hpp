// Declares the compiled-model blob format shared by CompiledModel::export_model,
// Core::import_model and the model cache: a checked header, then the plugin's own export.
#pragma once

#include <cstdint>
#include <istream>
#include <ostream>
#include <string>

#include "vireo/version.hpp"

namespace vireo::runtime {

/// Layout (integers little-endian):
///   8 bytes  magic "VIREOBLB"
///   u32      format version (kBlobFormatVersion)
///   u32      plugin ABI version (VIREO_PLUGIN_ABI_VERSION of the runtime that wrote it)
///   u32 len, bytes   plugin name (its library name, "vireo_template_plugin")
///   u32 len, bytes   plugin version (build number)
///   u32 len, bytes   origin: what the blob was compiled from (the model cache key for a cache
///                    entry; empty for CompiledModel::export_model)
///   u64      payload size in bytes
///   u64      payload checksum (payload_checksum() of the payload)
///   payload  what ICompiledModel::export_model wrote
inline constexpr char kBlobMagic[8] = {'V', 'I', 'R', 'E', 'O', 'B', 'L', 'B'};
// 3: origin field; 2: word-wise checksum (1: byte-wise FNV-1a)
inline constexpr uint32_t kBlobFormatVersion = 3;

/// Who wrote a blob, or who is asked to read it.
struct BlobIdentity {
    std::string plugin_name;
    std::string plugin_version;
    uint32_t abi_version = 0;
};

/// The identity of a plugin with `version` (as the core sets it: build number, library name)
/// under this runtime's ABI version.
BlobIdentity blob_identity_of(const Version& version);

uint64_t fnv1a64(const void* data, size_t size, uint64_t seed = 0xcbf29ce484222325ULL);

/// The blob's payload checksum: FNV-1a's xor-multiply on 64-bit little-endian words in four
/// interleaved lanes (so the multiplies overlap), each step followed by an xor-shift, the lanes
/// folded together, then the last 0-31 bytes. About 8x faster than byte-wise FNV-1a
/// (fnv1a64); the value depends only on the bytes and their count, not on the host.
uint64_t payload_checksum(const void* data, size_t size);

/// Writes the header for `payload` (with `origin`, see the layout), then the payload.
void write_blob(std::ostream& out, const BlobIdentity& writer, const std::string& payload,
                const std::string& origin = "");
/// Reads a blob and returns its payload after checking, in order: magic, format version,
/// complete header, plugin name, plugin version and ABI version equal to `reader`'s, the origin
/// equal to `*expected_origin` (not checked when null), payload complete, checksum. Throws
/// InvalidArgument naming `source` and what was expected vs found.
std::string read_blob(std::istream& in, const BlobIdentity& reader, const std::string& source,
                      const std::string* expected_origin = nullptr);

}  // namespace vireo::runtime
