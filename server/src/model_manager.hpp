// Declares ModelManager: the served models, each a set of versions loaded from an OVMS-layout
// repository (`<base_path>/<version>/model.{xml,onnx}`) by its version policy, and the lookups
// the front ends make (which version serves a request, readiness, the repository index).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "model_version.hpp"
#include "server_config.hpp"

namespace vireo::server {

/// One entry of the repository index: a version and its state.
struct VersionStatus {
    std::string model;
    int64_t version = 0;
    std::string state;   // "READY", "LOADING", "UNAVAILABLE"
    std::string reason;  // the load error of an UNAVAILABLE version
};

/// The model versions found in `base_path`: integer-named folders holding model.xml or
/// model.onnx (or a single other .xml/.onnx), mapped to that file.
std::map<int64_t, std::string> scan_versions(const std::string& base_path);

/// Owns every served model version.
///
/// Loading: load(name) scans the model's base path, loads the versions its policy selects that
/// are not loaded yet beside those that are, then drops the versions no longer selected. A
/// request that already holds a version (find() returns a shared_ptr) finishes on it even if it
/// is dropped meanwhile. A version that fails to load is UNAVAILABLE with its error as the
/// reason; the others keep serving, and so do the loaded versions it would have replaced (until a
/// later load succeeds).
///
/// Thread safety: all methods may be called from any thread; loads are serialized.
class ModelManager {
  public:
    /// `core` must outlive the manager; `upload_root` is where RepositoryModelLoad writes inline
    /// model files (one folder per model).
    ModelManager(Core& core, Metrics& metrics, std::string upload_root);

    /// Registers the configured models (their names must be valid) without loading them.
    void configure(const std::vector<ModelConfig>& models);
    /// (Re)loads model `name` from its base path. kNotFound for an unconfigured name,
    /// kUnavailable when no version was found or a wanted version failed to load (the message
    /// says whether loaded versions keep serving).
    Status load(const std::string& name);
    /// Loads every configured model; returns the first error (the others are still loaded).
    Status load_all();
    /// Writes `files` (relative path -> bytes, such as "1/model.onnx") under the upload root and
    /// loads model `name` from there, configured by `config_json` (an OVMS config object without
    /// name and base_path; may be empty). Paths leaving the model's folder are refused.
    Status load_inline(const std::string& name, const std::map<std::string, std::string>& files,
                       const std::string& config_json);
    /// Unloads every version of `name`; it stays configured (load() brings it back).
    Status unload(const std::string& name);

    /// The version serving a request: `version` empty means the highest ready one. kNotFound
    /// for an unknown model or a version not configured; kUnavailable for one not loaded.
    Status find(const std::string& name, const std::string& version,
                std::shared_ptr<ModelVersion>& out) const;
    /// Every ready version of `name`, highest first (empty if none).
    std::vector<int64_t> ready_versions(const std::string& name) const;
    /// The configuration of `name`; false if unknown.
    bool config_of(const std::string& name, ModelConfig& out) const;
    /// True when every configured model has a ready version.
    bool all_ready() const;
    /// Every known version with its state, by model name then version.
    std::vector<VersionStatus> index() const;
    /// Every loaded version.
    std::vector<std::shared_ptr<ModelVersion>> loaded() const;
    /// Tells every version to refuse new requests, then waits until they are idle or `until`.
    bool drain(Clock::time_point until);

  private:
    struct Entry {
        std::shared_ptr<ModelVersion> loaded;
        std::string state;
        std::string reason;
    };
    struct Model {
        ModelConfig config;
        std::map<int64_t, Entry> versions;
        std::string error;  // why the last load left no version (for the index), else empty
    };

    Core& m_core;
    Metrics& m_metrics;
    std::string m_upload_root;
    std::mutex m_load_mutex;  // one load at a time; taken before m_mutex
    mutable std::mutex m_mutex;
    std::map<std::string, Model> m_models;
};

}  // namespace vireo::server
