// Declares the MOCK_REMOTE export format: what CompiledModel::export_model writes and
// Plugin::import_model reads back.
#pragma once

#include <istream>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "vireo/model.hpp"

namespace vireo::mock_remote {

/// Layout (integers little-endian as the host writes them; strings are u64 length + bytes):
///   "VIREO_MOCK_REMOTE" magic (17 bytes), u32 format version, string plugin version,
///   u32 setting count, that many (string key, string value), string IR xml, string IR weights.
struct Blob {
    std::shared_ptr<Model> model;
    std::vector<std::pair<std::string, std::string>> settings;
};

void write_blob(std::ostream& out, const Model& model,
                const std::vector<std::pair<std::string, std::string>>& settings,
                const std::string& plugin_version);
/// Throws InvalidArgument for a foreign, damaged or truncated blob, or one written by another
/// plugin version, saying which.
Blob read_blob(std::istream& in, const std::string& plugin_version);

}  // namespace vireo::mock_remote
