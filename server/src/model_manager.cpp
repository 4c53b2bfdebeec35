// Served models and their versions: scanning, loading by policy, lookups and draining.
#include "model_manager.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <filesystem>
#include <fstream>

#include "server_log.hpp"

namespace fs = std::filesystem;

namespace vireo::server {

namespace {

bool parse_version(const std::string& text, int64_t& out) {
    if (text.empty() || text.size() > 18) return false;
    for (char c : text) {
        if (c < '0' || c > '9') return false;
    }
    out = std::stoll(text);
    return out > 0;
}

// A relative path inside a model folder: "<version>/<file>" with plain components only.
bool safe_relative_path(const std::string& path) {
    if (path.empty() || path.front() == '/' || path.size() > 512) return false;
    const fs::path p(path);
    int parts = 0;
    for (const auto& part : p) {
        const std::string s = part.string();
        if (s.empty() || s == "." || s == ".." || s.find('\\') != std::string::npos) return false;
        ++parts;
    }
    return parts >= 2;
}

}  // namespace

std::map<int64_t, std::string> scan_versions(const std::string& base_path) {
    std::map<int64_t, std::string> out;
    std::error_code ec;
    if (!fs::is_directory(base_path, ec)) return out;
    for (const auto& dir : fs::directory_iterator(base_path, ec)) {
        int64_t version = 0;
        if (!dir.is_directory(ec) || !parse_version(dir.path().filename().string(), version)) {
            continue;
        }
        std::string chosen;
        for (const char* name : {"model.xml", "model.onnx"}) {
            if (fs::is_regular_file(dir.path() / name, ec)) {
                chosen = (dir.path() / name).string();
                break;
            }
        }
        if (chosen.empty()) {
            std::vector<std::string> candidates;
            for (const auto& file : fs::directory_iterator(dir.path(), ec)) {
                const auto ext = file.path().extension().string();
                if (file.is_regular_file(ec) && (ext == ".xml" || ext == ".onnx")) {
                    candidates.push_back(file.path().string());
                }
            }
            if (candidates.size() == 1) chosen = candidates[0];
        }
        if (!chosen.empty()) out[version] = chosen;
    }
    return out;
}

ModelManager::ModelManager(Core& core, Metrics& metrics, std::string upload_root)
    : m_core(core), m_metrics(metrics), m_upload_root(std::move(upload_root)) {}

void ModelManager::configure(const std::vector<ModelConfig>& models) {
    std::lock_guard<std::mutex> lock(m_mutex);
    for (const auto& config : models) m_models[config.name].config = config;
}

Status ModelManager::load(const std::string& name) {
    std::lock_guard<std::mutex> load_lock(m_load_mutex);
    ModelConfig config;
    std::map<int64_t, Entry> current;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        auto it = m_models.find(name);
        if (it == m_models.end())
            return {StatusCode::kNotFound, "model '" + name + "' is not configured"};
        config = it->second.config;
        current = it->second.versions;
    }
    const auto files = scan_versions(config.base_path);
    std::vector<int64_t> available;
    for (const auto& [v, file] : files) available.push_back(v);
    const auto wanted = config.version_policy.select(available);

    // Load the new versions first (LOADING in the index meanwhile); the old ones keep serving.
    std::map<int64_t, Entry> next;
    std::string first_error;
    for (int64_t v : wanted) {
        auto old = current.find(v);
        if (old != current.end() && old->second.loaded) {
            next[v] = old->second;
            continue;
        }
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_models[name].versions[v] = Entry{nullptr, "LOADING", ""};
        }
        Entry entry;
        try {
            entry.loaded = ModelVersion::load(m_core, config, v, files.at(v), m_metrics);
            entry.state = "READY";
            log_line("info", "loaded model '" + name + "' version " + std::to_string(v) + " from " +
                                 files.at(v) + " on " + config.target_device + " with " +
                                 std::to_string(entry.loaded->nireq()) + " infer requests");
        } catch (const std::exception& e) {
            entry.state = "UNAVAILABLE";
            entry.reason = e.what();
            if (first_error.empty()) first_error = "version " + std::to_string(v) + ": " + e.what();
            log_line("error", "loading model '" + name + "' version " + std::to_string(v) +
                                  " failed: " + e.what());
        }
        next[v] = std::move(entry);
    }
    size_t ready = 0;
    for (const auto& [v, e] : next) ready += e.loaded ? 1 : 0;
    std::vector<std::shared_ptr<ModelVersion>> retired;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        auto& model = m_models[name];
        for (auto& [v, e] : model.versions) {
            if (next.count(v) || !e.loaded) continue;
            if (!first_error.empty()) {
                // A wanted version failed to load: the versions it would replace keep serving
                // (Triton's and OVMS's rule) until a reload succeeds.
                next[v] = e;
                ++ready;
            } else {
                retired.push_back(e.loaded);
            }
        }
        model.versions = std::move(next);
    }
    // Dropped versions finish what they hold; requests still using them keep them alive.
    for (auto& version : retired) version->stop_accepting();
    Status result;
    if (wanted.empty()) {
        result = {StatusCode::kUnavailable, "model '" + name +
                                                "': no version folder with a model " + "file in '" +
                                                config.base_path + "' matches its version policy"};
    } else if (!first_error.empty()) {
        result = {StatusCode::kUnavailable,
                  "model '" + name + "': " + first_error +
                      (ready > 0 ? " (the loaded versions keep serving)" : "")};
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    m_models[name].error = ready > 0 ? std::string() : result.message;
    return result;
}

Status ModelManager::load_all() {
    std::vector<std::string> names;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        for (const auto& [name, model] : m_models) names.push_back(name);
    }
    Status first;
    for (const auto& name : names) {
        Status s = load(name);
        if (!s.ok() && first.ok()) first = s;
    }
    return first;
}

Status ModelManager::load_inline(const std::string& name,
                                 const std::map<std::string, std::string>& files,
                                 const std::string& config_json) {
    Status s = validate_model_name(name);
    if (!s.ok()) return s;
    ModelConfig config;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        auto it = m_models.find(name);
        if (it != m_models.end()) config = it->second.config;
    }
    config.name = name;
    if (!files.empty()) {
        if (m_upload_root.empty()) {
            return {StatusCode::kUnavailable, "this server accepts no inline model files"};
        }
        const fs::path dir = fs::path(m_upload_root) / name;
        for (const auto& [path, bytes] : files) {
            if (!safe_relative_path(path)) {
                return {
                    StatusCode::kInvalidArgument,
                    "file path '" + path + "' must be '<version>/<file name>' inside the model"};
            }
            int64_t version = 0;
            if (!parse_version(fs::path(path).begin()->string(), version)) {
                return {StatusCode::kInvalidArgument,
                        "file path '" + path + "' must start with a positive integer version"};
            }
        }
        std::error_code ec;
        fs::remove_all(dir, ec);
        for (const auto& [path, bytes] : files) {
            const fs::path target = dir / path;
            fs::create_directories(target.parent_path(), ec);
            std::ofstream out(target, std::ios::binary);
            out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
            if (!out) return {StatusCode::kInternal, "cannot write '" + target.string() + "'"};
        }
        config.base_path = dir.string();
    }
    if (!config_json.empty()) {
        rapidjson::Document doc;
        doc.Parse<rapidjson::kParseIterativeFlag>(config_json.c_str(), config_json.size());
        if (doc.HasParseError() || !doc.IsObject()) {
            return {StatusCode::kInvalidArgument, "parameter 'config' must be a JSON object"};
        }
        doc.RemoveMember("name");
        doc.RemoveMember("base_path");
        doc.AddMember("name", rapidjson::Value(name.c_str(), doc.GetAllocator()),
                      doc.GetAllocator());
        doc.AddMember("base_path", rapidjson::Value(config.base_path.c_str(), doc.GetAllocator()),
                      doc.GetAllocator());
        rapidjson::StringBuffer buffer;
        rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
        doc.Accept(writer);
        std::vector<ModelConfig> parsed;
        s = parse_model_config_list(
            std::string("{\"model_config_list\":[{\"config\":") + buffer.GetString() + "}]}",
            parsed);
        if (!s.ok()) return s;
        config = parsed.front();
    }
    if (config.base_path.empty()) {
        return {StatusCode::kNotFound,
                "model '" + name + "' is not configured and no files were given"};
    }
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_models[name].config = config;
    }
    return load(name);
}

Status ModelManager::unload(const std::string& name) {
    std::lock_guard<std::mutex> load_lock(m_load_mutex);
    std::vector<std::shared_ptr<ModelVersion>> retired;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        auto it = m_models.find(name);
        if (it == m_models.end())
            return {StatusCode::kNotFound, "model '" + name + "' is not known"};
        for (auto& [v, e] : it->second.versions) {
            if (e.loaded) retired.push_back(e.loaded);
        }
        it->second.versions.clear();
    }
    for (auto& version : retired) version->stop_accepting();
    return {};
}

Status ModelManager::find(const std::string& name, const std::string& version,
                          std::shared_ptr<ModelVersion>& out) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_models.find(name);
    if (it == m_models.end()) return {StatusCode::kNotFound, "model '" + name + "' is not known"};
    const auto& versions = it->second.versions;
    if (version.empty()) {
        for (auto v = versions.rbegin(); v != versions.rend(); ++v) {
            if (v->second.loaded) {
                out = v->second.loaded;
                return {};
            }
        }
        return {StatusCode::kUnavailable, "model '" + name + "' has no version loaded"};
    }
    int64_t number = 0;
    if (!parse_version(version, number)) {
        return {StatusCode::kInvalidArgument,
                "model version '" + version + "' is not a positive integer"};
    }
    auto v = versions.find(number);
    if (v == versions.end()) {
        return {StatusCode::kNotFound, "model '" + name + "' has no version " + version};
    }
    if (!v->second.loaded) {
        return {StatusCode::kUnavailable,
                "model '" + name + "' version " + version + " is " + v->second.state +
                    (v->second.reason.empty() ? "" : ": " + v->second.reason)};
    }
    out = v->second.loaded;
    return {};
}

std::vector<int64_t> ModelManager::ready_versions(const std::string& name) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::vector<int64_t> out;
    auto it = m_models.find(name);
    if (it == m_models.end()) return out;
    for (auto v = it->second.versions.rbegin(); v != it->second.versions.rend(); ++v) {
        if (v->second.loaded) out.push_back(v->first);
    }
    return out;
}

bool ModelManager::config_of(const std::string& name, ModelConfig& out) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_models.find(name);
    if (it == m_models.end()) return false;
    out = it->second.config;
    return true;
}

bool ModelManager::all_ready() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    for (const auto& [name, model] : m_models) {
        bool any = false;
        for (const auto& [v, e] : model.versions) any = any || e.loaded != nullptr;
        if (!any) return false;
    }
    return true;
}

std::vector<VersionStatus> ModelManager::index() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::vector<VersionStatus> out;
    for (const auto& [name, model] : m_models) {
        if (model.versions.empty()) {
            out.push_back(
                {name, 0, "UNAVAILABLE", model.error.empty() ? "not loaded" : model.error});
        }
        for (const auto& [v, e] : model.versions) out.push_back({name, v, e.state, e.reason});
    }
    return out;
}

std::vector<std::shared_ptr<ModelVersion>> ModelManager::loaded() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::vector<std::shared_ptr<ModelVersion>> out;
    for (const auto& [name, model] : m_models) {
        for (const auto& [v, e] : model.versions) {
            if (e.loaded) out.push_back(e.loaded);
        }
    }
    return out;
}

bool ModelManager::drain(Clock::time_point until) {
    const auto versions = loaded();
    for (const auto& v : versions) v->stop_accepting();
    bool drained = true;
    for (const auto& v : versions) drained = v->wait_idle(until) && drained;
    return drained;
}

}  // namespace vireo::server
