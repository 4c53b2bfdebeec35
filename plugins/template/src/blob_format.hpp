// Declares the TEMPLATE export blob: a header (magic, format version), then a checksummed
// payload with the plugin version, the compile properties and the serialized model.
#pragma once

#include <istream>
#include <ostream>
#include <string>

#include "vireo/any.hpp"

namespace vireo::template_plugin {

/// What an exported compiled model holds.
///
/// Layout (integers little-endian):
///     "VIREOTPL"  u32 format version  u64 payload size  payload  u64 FNV-1a-64 of the payload
/// payload: string plugin version, u32 property count, (string key, string value) per property,
/// string model xml, string model weights; each string is u64 length + bytes.
struct BlobContents {
    std::string plugin_version;
    AnyMap properties;  ///< compile properties, values as text
    std::string xml;
    std::string weights;
};

inline constexpr uint32_t kBlobFormatVersion = 1;

void write_blob(std::ostream& out, const BlobContents& blob);
/// Reads a blob. Throws InvalidArgument saying what is wrong: not a TEMPLATE blob (magic), an
/// unknown format version, truncated, damaged (checksum), or an inconsistent payload. Never
/// allocates more than the stream actually holds.
BlobContents read_blob(std::istream& in);

}  // namespace vireo::template_plugin
