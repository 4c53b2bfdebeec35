// Declares the translation of custom-domain ONNX nodes through the mappings extensions register
// (vireo/extension.hpp: register_onnx_op_mapping).
#pragma once

#include <string>

#include "translator_registry.hpp"

namespace vireo::onnx_import {

/// The translator for `op` of the custom `domain` when an extension mapped it; empty otherwise.
Translator custom_translator(const std::string& domain, const std::string& op);

}  // namespace vireo::onnx_import
