// Implements OpRegistry: registration and lookup of op definitions by type and opset version.
#include "vireo/op_registry.hpp"

#include <algorithm>
#include <charconv>

namespace vireo {

const AttrSpec* OpDef::find_attribute(const std::string& name) const {
    for (const auto& a : attributes)
        if (a.name == name) return &a;
    return nullptr;
}

OpRegistry& OpRegistry::instance() {
    static OpRegistry registry;
    return registry;
}

OpRegistry::OpRegistry() {
    register_standard_ops(*this);
}

void OpRegistry::add(OpDef def) {
    if (def.type.empty()) throw_error<InvalidArgument>("an op definition needs a type name");
    if (!def.infer) throw_error<InvalidArgument>("op ", def.type, " has no inference function");
    if (def.min_inputs > def.max_inputs)
        throw_error<InvalidArgument>("op ", def.type, ": min_inputs > max_inputs");
    std::lock_guard<std::mutex> lock(m_mutex);
    auto& versions = m_defs[def.type];
    const auto key = std::make_pair(def.domain, def.version);
    if (versions.count(key))
        throw_error<InvalidArgument>("op ", def.type, " version ", def.version,
                                     def.domain.empty() ? "" : " in domain " + def.domain,
                                     " is already registered");
    for (const auto& alias : def.aliases) m_aliases[alias] = def.type;
    versions.emplace(key, std::make_unique<OpDef>(std::move(def)));
}

const OpDef* OpRegistry::find(const std::string& type, int version,
                              const std::string& domain) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_defs.find(type);
    if (it == m_defs.end()) return nullptr;
    auto v = it->second.find({domain, version});
    return v == it->second.end() ? nullptr : v->second.get();
}

const OpDef& OpRegistry::resolve(const std::string& type, const std::string& version) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_defs.find(type);
    if (it == m_defs.end()) {
        auto alias = m_aliases.find(type);
        if (alias != m_aliases.end()) it = m_defs.find(alias->second);
    }
    if (it == m_defs.end())
        throw_error<NotFound>("unknown op type '", type, "' (version '", version,
                              "'): no such op is registered");
    int number = -1;
    if (version.rfind("opset", 0) == 0) {
        const char* begin = version.data() + 5;
        const char* end = version.data() + version.size();
        auto [ptr, ec] = std::from_chars(begin, end, number);
        if (ec != std::errc() || ptr != end || number < 1) number = -1;
    }
    const OpDef* best = nullptr;
    if (number > 0) {
        for (const auto& [key, def] : it->second)
            if (key.first.empty() && key.second <= number && (!best || key.second > best->version))
                best = def.get();
    } else {
        for (const auto& [key, def] : it->second)
            if (key.first == version && (!best || key.second > best->version)) best = def.get();
    }
    if (!best) {
        std::string known;
        for (const auto& [key, def] : it->second)
            known += (known.empty() ? "" : ", ") +
                     (key.first.empty() ? "opset" + std::to_string(key.second) : key.first);
        throw_error<NotFound>("op type '", type, "' has no definition for version '", version,
                              "' (known: ", known, ")");
    }
    return *best;
}

const OpDef& OpRegistry::latest(const std::string& type) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_defs.find(type);
    if (it == m_defs.end()) {
        auto alias = m_aliases.find(type);
        if (alias != m_aliases.end()) it = m_defs.find(alias->second);
    }
    const OpDef* best = nullptr;
    if (it != m_defs.end()) {
        for (const auto& [key, def] : it->second)
            if (!best ||
                (key.first.empty() && (!best->domain.empty() || key.second > best->version)))
                best = def.get();
    }
    if (!best) throw_error<NotFound>("unknown op type '", type, "': no such op is registered");
    return *best;
}

std::vector<const OpDef*> OpRegistry::all() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::vector<const OpDef*> out;
    for (const auto& [type, versions] : m_defs)
        for (const auto& [key, def] : versions) out.push_back(def.get());
    return out;
}

}  // namespace vireo
