// Implements the translator registry and fills the built-in one.
#include "translator_registry.hpp"

#include <algorithm>
#include <limits>

namespace vireo::onnx_import {

std::string canonical_domain(const std::string& domain) {
    return domain == "ai.onnx" ? std::string() : domain;
}

void TranslatorRegistry::add(const std::string& domain, const std::string& op, int since,
                             Translator fn) {
    m_table[{canonical_domain(domain), op}][since] = std::move(fn);
}

const Translator* TranslatorRegistry::find(const std::string& domain, const std::string& op,
                                           int64_t version) const {
    auto it = m_table.find({canonical_domain(domain), op});
    if (it == m_table.end()) return nullptr;
    // Clamped rather than cast: a version past int's range must not wrap to a small one.
    const auto since =
        static_cast<int>(std::clamp<int64_t>(version, -1, std::numeric_limits<int>::max()));
    auto v = it->second.upper_bound(since);
    if (v == it->second.begin()) return nullptr;
    return &std::prev(v)->second;
}

std::vector<TranslatorRegistry::Entry> TranslatorRegistry::list() const {
    std::vector<Entry> out;
    for (const auto& [key, versions] : m_table) {
        Entry e{key.first, key.second, {}};
        for (const auto& [since, fn] : versions) e.versions.push_back(since);
        out.push_back(std::move(e));
    }
    return out;
}

const TranslatorRegistry& TranslatorRegistry::builtin() {
    static const TranslatorRegistry registry = [] {
        TranslatorRegistry r;
        register_elementwise(r);
        register_activations(r);
        register_nn(r);
        register_shape_ops(r);
        register_reductions(r);
        register_indexing(r);
        register_misc(r);
        register_quantization(r);
        register_losses(r);
        register_recurrent(r);
        register_signal_training(r);
        register_spectral(r);
        register_sequence(r);
        register_control_flow(r);
        register_vision(r);
        register_random(r);
        register_microsoft(r);
        return r;
    }();
    return registry;
}

}  // namespace vireo::onnx_import
