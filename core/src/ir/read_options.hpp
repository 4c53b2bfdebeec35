// Declares the internal IR file reader with options; vireo::read_model is it with the defaults,
// and Core::read_model passes the Core's ENABLE_MMAP value.
#pragma once

#include <memory>
#include <string>

#include "vireo/model.hpp"

namespace vireo::ir {

/// Options of read_model_file.
struct ReadOptions {
    /// true: the .bin is memory-mapped and Constants point into the mapping (no copy; the file
    /// must not be truncated or rewritten in place while the model or a compiled model built
    /// from it lives). false: the .bin is read into memory the model owns, and nothing done to
    /// the file afterwards matters. The .xml is always read, never mapped.
    bool enable_mmap = true;
};

/// read_model(xml_path, bin_path) with `options`; same errors.
std::shared_ptr<Model> read_model_file(const std::string& xml_path, const std::string& bin_path,
                                       const ReadOptions& options);

}  // namespace vireo::ir
