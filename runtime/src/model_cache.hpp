// Declares ModelCache: compile_model through a cache directory of exported compiled models
// (key = hash of the serialized model, device, properties and plugin version).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "plugin.hpp"
#include "vireo/sdk/blob_container.hpp"
#include "vireo/sdk/device_handles.hpp"

namespace vireo::runtime {

/// One cache directory. Stateless apart from the directory: many threads and processes may
/// use the same directory at once (entries are written to a temporary file and renamed).
/// The directory is used only if it is owned by this user or root and, when every user may write
/// to it, has the sticky bit; otherwise compile bypasses the cache (logged). See docs/plugins.md.
class ModelCache {
  public:
    explicit ModelCache(std::string directory);

    /// A hit imports the entry (the handle's loaded_from_cache() is true); a miss, or an entry
    /// that is damaged, truncated, foreign or that the plugin refuses, compiles and (re)writes the
    /// entry. A plugin that does not list device::capability::kExportImport is compiled without
    /// the cache. Failing to write an entry is logged, never an error.
    /// `device_settings` (the device's current read-write values, read from the plugin) count
    /// in the key only: `config` is what the plugin receives.
    sdk::CompiledModelHandle compile(const std::shared_ptr<Plugin>& plugin,
                                     const std::shared_ptr<const Model>& model,
                                     const std::string& device, const AnyMap& config,
                                     const AnyMap& device_settings = {}) const;

    /// 16 hex digits: FNV-1a 64 over, each length-prefixed, a format tag, the serialized IR
    /// (xml then bin), the full device name, every key=value of `config` (sorted by key), the
    /// plugin's library name and build number, and the ABI version.
    static std::string compute_key(const Model& model, const std::string& device,
                                   const AnyMap& config, const Version& plugin_version);
    /// The entry's file: <directory>/<key>.blob
    std::string entry_path(const std::string& key) const;

  private:
    /// The entry at `path` if it is a regular file (not a symlink) owned by this user whose blob
    /// was compiled for `key` and passes every check; nullopt (logged) otherwise.
    std::optional<sdk::CompiledModelHandle> try_load(const Plugin& plugin, const std::string& path,
                                                     const std::string& key,
                                                     const AnyMap& config) const;
    /// Writes the entry through an exclusive, unpredictably named temporary (mkstemp) and a
    /// rename; removes this user's stale temporaries first.
    void store(const std::string& path, const std::string& key, const sdk::BlobIdentity& identity,
               const std::string& payload) const;

    std::string m_directory;
};

}  // namespace vireo::runtime
