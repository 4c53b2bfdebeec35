// Declares load_extension, behind Core::add_extension.
#pragma once

#include <string>

namespace vireo::runtime {

/// Loads and registers the extension library at `path` once per process (see
/// Core::add_extension for the rules and errors).
void load_extension(const std::string& path);

}  // namespace vireo::runtime
