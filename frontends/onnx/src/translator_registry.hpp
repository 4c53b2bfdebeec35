// Declares the translator registry: (domain, op type, first opset version) -> translator. A model
// importing opset N uses, for each op, the translator registered at the highest version <= N.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "vireo/node.hpp"

namespace vireo::onnx_import {

class NodeContext;

/// Builds the outputs of one ONNX node from core ops. Returns one Output per declared node
/// output (an empty Output for an optional output it does not produce).
using Translator = std::function<OutputVector(const NodeContext&)>;

class TranslatorRegistry {
  public:
    /// The registry with every built-in translator (built once, read-only afterwards).
    static const TranslatorRegistry& builtin();

    /// Registers `fn` for `op` of `domain` ("" and "ai.onnx" are the same) from opset `since`.
    void add(const std::string& domain, const std::string& op, int since, Translator fn);
    /// The translator for `op` under imported opset `version`; null when none applies (no
    /// translator, or the model's opset is older than the first one registered).
    const Translator* find(const std::string& domain, const std::string& op, int64_t version) const;

    struct Entry {
        std::string domain, op;
        std::vector<int> versions;
    };
    /// Every registered op with the versions it has translators for (for docs/onnx.md).
    std::vector<Entry> list() const;

  private:
    std::map<std::pair<std::string, std::string>, std::map<int, Translator>> m_table;
};

/// "" for the default domain (ai.onnx), the name otherwise.
std::string canonical_domain(const std::string& domain);

// Registration functions, one per translator family (src/ops/*.cpp).
void register_elementwise(TranslatorRegistry& r);
void register_activations(TranslatorRegistry& r);
void register_nn(TranslatorRegistry& r);
void register_shape_ops(TranslatorRegistry& r);
void register_reductions(TranslatorRegistry& r);
void register_indexing(TranslatorRegistry& r);
void register_misc(TranslatorRegistry& r);
void register_quantization(TranslatorRegistry& r);
void register_losses(TranslatorRegistry& r);
void register_recurrent(TranslatorRegistry& r);
void register_signal_training(TranslatorRegistry& r);
void register_spectral(TranslatorRegistry& r);  // ops/spectral.cpp
void register_sequence(TranslatorRegistry& r);  // ops/sequence.cpp
void register_control_flow(TranslatorRegistry& r);
void register_vision(TranslatorRegistry& r);
void register_random(TranslatorRegistry& r);     // ops/random.cpp
void register_microsoft(TranslatorRegistry& r);  // ops/microsoft.cpp (com.microsoft, float)

}  // namespace vireo::onnx_import
