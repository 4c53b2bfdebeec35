// Command line, OVMS config.json and version policies.
#include "server_config.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>

// RapidJSON 1.1's object member iterators define comparisons that C++20's reversed-operator rules
// make ambiguous for clang (a warning at every loop over an object's members, not a bug).
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wambiguous-reversed-operator"
#endif

namespace vireo::server {

namespace {

Status invalid(std::string message) {
    return {StatusCode::kInvalidArgument, std::move(message)};
}

bool parse_int(const std::string& text, long long min, long long max, long long& out) {
    if (text.empty()) return false;
    size_t used = 0;
    try {
        out = std::stoll(text, &used);
    } catch (const std::exception&) {
        return false;
    }
    return used == text.size() && out >= min && out <= max;
}

std::string json_to_text(const rapidjson::Value& value) {
    if (value.IsString()) return value.GetString();
    if (value.IsBool()) return value.GetBool() ? "YES" : "NO";
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    value.Accept(writer);
    return buffer.GetString();
}

Status parse_policy(const rapidjson::Value& value, VersionPolicy& policy) {
    if (!value.IsObject() || value.MemberCount() != 1) {
        return invalid(
            "model_version_policy must be an object with one of 'all', 'latest', 'specific'");
    }
    const auto& member = *value.MemberBegin();
    const std::string kind = member.name.GetString();
    const rapidjson::Value& body = member.value;
    if (!body.IsObject()) return invalid("model_version_policy." + kind + " must be an object");
    if (kind == "all") {
        policy.kind = VersionPolicy::Kind::kAll;
    } else if (kind == "latest") {
        policy.kind = VersionPolicy::Kind::kLatest;
        policy.num_versions = 1;
        if (body.HasMember("num_versions")) {
            const auto& n = body["num_versions"];
            if (!n.IsUint() || n.GetUint() == 0) {
                return invalid("model_version_policy.latest.num_versions must be an integer >= 1");
            }
            policy.num_versions = n.GetUint();
        }
    } else if (kind == "specific") {
        policy.kind = VersionPolicy::Kind::kSpecific;
        if (!body.HasMember("versions") || !body["versions"].IsArray() ||
            body["versions"].Empty()) {
            return invalid("model_version_policy.specific.versions must be a non-empty array");
        }
        for (const auto& v : body["versions"].GetArray()) {
            if (!v.IsInt64() || v.GetInt64() < 1) {
                return invalid(
                    "model_version_policy.specific.versions holds a non-positive or "
                    "non-integer version");
            }
            policy.versions.push_back(v.GetInt64());
        }
    } else {
        return invalid("unknown model_version_policy '" + kind +
                       "' (expected all, latest or specific)");
    }
    return {};
}

Status parse_one_model(const rapidjson::Value& config, ModelConfig& model) {
    if (!config.IsObject()) return invalid("model_config_list[].config must be an object");
    auto string_field = [&](const char* key, std::string& out, bool required) -> Status {
        if (!config.HasMember(key)) {
            return required ? invalid(std::string("config.") + key + " is required") : Status{};
        }
        if (!config[key].IsString())
            return invalid(std::string("config.") + key + " must be a string");
        out = config[key].GetString();
        return {};
    };
    Status s = string_field("name", model.name, true);
    if (!s.ok()) return s;
    s = validate_model_name(model.name);
    if (!s.ok()) return s;
    if (!(s = string_field("base_path", model.base_path, true)).ok()) return s;
    if (!(s = string_field("target_device", model.target_device, false)).ok()) return s;
    if (config.HasMember("nireq")) {
        if (!config["nireq"].IsUint() || config["nireq"].GetUint() > 1024) {
            return invalid("config.nireq of model '" + model.name + "' must be 0..1024");
        }
        model.nireq = config["nireq"].GetUint();
    }
    if (config.HasMember("max_queue_size")) {
        if (!config["max_queue_size"].IsUint()) {
            return invalid("config.max_queue_size of model '" + model.name + "' must be >= 0");
        }
        model.max_queue_size = config["max_queue_size"].GetUint();
    }
    if (config.HasMember("plugin_config")) {
        const auto& pc = config["plugin_config"];
        if (!pc.IsObject()) return invalid("config.plugin_config must be an object");
        for (const auto& m : pc.GetObject())
            model.plugin_config[m.name.GetString()] = json_to_text(m.value);
    }
    if (config.HasMember("shape")) {
        const auto& shape = config["shape"];
        if (shape.IsString()) {
            Status st = parse_shape_setting(shape.GetString(), model.shapes);
            if (!st.ok()) return invalid("model '" + model.name + "': " + st.message);
        } else if (shape.IsObject()) {
            for (const auto& m : shape.GetObject()) {
                if (!m.value.IsString()) return invalid("config.shape values must be strings");
                if (std::string(m.value.GetString()) == "auto") {
                    return invalid("model '" + model.name +
                                   "': shape 'auto' is not supported (deprecated in OVMS); give "
                                   "a shape or a dynamic one such as \"(-1,3,224,224)\"");
                }
                model.shapes[m.name.GetString()] = m.value.GetString();
            }
        } else {
            return invalid("config.shape must be a string or an object of input shapes");
        }
    }
    if (config.HasMember("batch_size")) {
        const auto& b = config["batch_size"];
        long long value = 0;
        const bool ok = b.IsInt64() ? (value = b.GetInt64(), true)
                                    : b.IsString() && parse_int(b.GetString(), 1, 1 << 20, value);
        if (!ok || value < 1) {
            return invalid("model '" + model.name +
                           "': batch_size must be a positive integer ('auto' is not supported)");
        }
        model.batch_size = value;
    }
    if (config.HasMember("dynamic_batching")) {
        const auto& db = config["dynamic_batching"];
        const std::string where = "config.dynamic_batching of model '" + model.name + "'";
        if (!db.IsObject()) return invalid(where + " must be an object");
        auto& out = model.dynamic_batching;
        if (!db.HasMember("max_batch_size") || !db["max_batch_size"].IsUint() ||
            db["max_batch_size"].GetUint() < 1 || db["max_batch_size"].GetUint() > 4096) {
            return invalid(where + ": max_batch_size must be 1..4096");
        }
        out.max_batch_size = db["max_batch_size"].GetUint();
        if (db.HasMember("max_queue_delay_microseconds")) {
            if (!db["max_queue_delay_microseconds"].IsUint64()) {
                return invalid(where + ": max_queue_delay_microseconds must be >= 0");
            }
            out.max_queue_delay_microseconds = db["max_queue_delay_microseconds"].GetUint64();
        }
        if (db.HasMember("preferred_batch_size")) {
            if (!db["preferred_batch_size"].IsArray()) {
                return invalid(where + ": preferred_batch_size must be an array");
            }
            for (const auto& v : db["preferred_batch_size"].GetArray()) {
                if (!v.IsUint() || v.GetUint() < 1 || v.GetUint() > out.max_batch_size) {
                    return invalid(where +
                                   ": preferred_batch_size values must be 1..max_batch_size");
                }
                out.preferred_batch_size.push_back(v.GetUint());
            }
        }
    }
    if (model.batch_size > 0 && model.dynamic_batching.max_batch_size > 0) {
        return invalid("model '" + model.name +
                       "': batch_size and dynamic_batching both set dimension 0; give one");
    }
    if (config.HasMember("model_version_policy")) {
        s = parse_policy(config["model_version_policy"], model.version_policy);
        if (!s.ok()) return invalid("model '" + model.name + "': " + s.message);
    }
    return {};
}

}  // namespace

std::vector<int64_t> VersionPolicy::select(std::vector<int64_t> available) const {
    std::sort(available.begin(), available.end(), std::greater<>());
    available.erase(std::unique(available.begin(), available.end()), available.end());
    switch (kind) {
        case Kind::kAll:
            return available;
        case Kind::kLatest:
            if (available.size() > num_versions) available.resize(num_versions);
            return available;
        case Kind::kSpecific: {
            std::vector<int64_t> out;
            for (int64_t v : available) {
                if (std::find(versions.begin(), versions.end(), v) != versions.end())
                    out.push_back(v);
            }
            return out;
        }
    }
    return {};
}

Status validate_model_name(const std::string& name) {
    if (name.empty() || name.size() > 128) {
        return invalid("model name must have 1 to 128 characters, got " +
                       std::to_string(name.size()));
    }
    if (name == "." || name == "..") return invalid("model name '" + name + "' is not allowed");
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
        if (!ok) {
            return invalid("model name '" + name +
                           "' may hold only letters, digits, '_', '-' and '.'");
        }
    }
    return {};
}

Status parse_shape_setting(const std::string& json_or_text,
                           std::map<std::string, std::string>& out) {
    if (json_or_text == "auto") {
        return invalid(
            "shape 'auto' is not supported (deprecated in OVMS); give a shape or a "
            "dynamic one such as \"(-1,3,224,224)\"");
    }
    if (!json_or_text.empty() && json_or_text.front() == '{') {
        rapidjson::Document doc;
        doc.Parse<rapidjson::kParseIterativeFlag>(json_or_text.c_str(), json_or_text.size());
        if (doc.HasParseError() || !doc.IsObject()) return invalid("shape must be a JSON object");
        for (const auto& m : doc.GetObject()) {
            if (!m.value.IsString()) return invalid("shape values must be strings");
            out[m.name.GetString()] = m.value.GetString();
        }
        return {};
    }
    out[""] = json_or_text;
    return {};
}

Status parse_plugin_config(const std::string& json_text, std::map<std::string, std::string>& out) {
    rapidjson::Document doc;
    doc.Parse<rapidjson::kParseIterativeFlag>(json_text.c_str(), json_text.size());
    if (doc.HasParseError() || !doc.IsObject()) {
        return invalid("--plugin_config must be a JSON object, e.g. '{\"NUM_STREAMS\":\"2\"}'");
    }
    for (const auto& m : doc.GetObject()) out[m.name.GetString()] = json_to_text(m.value);
    return {};
}

Status parse_model_config_list(const std::string& json_text, std::vector<ModelConfig>& models) {
    rapidjson::Document doc;
    doc.Parse<rapidjson::kParseIterativeFlag>(json_text.c_str(), json_text.size());
    if (doc.HasParseError()) {
        return invalid(std::string("config file is not valid JSON: ") +
                       rapidjson::GetParseError_En(doc.GetParseError()) + " at offset " +
                       std::to_string(doc.GetErrorOffset()));
    }
    if (!doc.IsObject() || !doc.HasMember("model_config_list") ||
        !doc["model_config_list"].IsArray()) {
        return invalid("config file needs an array 'model_config_list'");
    }
    for (const auto& entry : doc["model_config_list"].GetArray()) {
        if (!entry.IsObject() || !entry.HasMember("config")) {
            return invalid("each model_config_list entry needs a 'config' object");
        }
        ModelConfig model;
        Status s = parse_one_model(entry["config"], model);
        if (!s.ok()) return s;
        for (const auto& other : models) {
            if (other.name == model.name)
                return invalid("model '" + model.name + "' is listed twice");
        }
        models.push_back(std::move(model));
    }
    return {};
}

std::string usage_text() {
    return "Usage: vireo_server [options]\n"
           "  One model:   --model_path DIR --model_name NAME [--target_device CPU] [--nireq N]\n"
           "               [--plugin_config '{json}'] [--max_queue_size N]\n"
           "               [--shape '(1,3,224,224)' | '{\"in\":\"(1,3,-1,-1)\"}'] [--batch_size "
           "N]\n"
           "  Many models: --config_path config.json (OVMS model_config_list)\n"
           "  --port N                  gRPC port (0: off, -1: any free port, logged)\n"
           "  --rest_port N             REST port (0: off, -1: any free port, logged)\n"
           "  --file_system_poll_wait_seconds N  reload the repository every N s (0: off)\n"
           "  --grpc_bind_address A     default 0.0.0.0\n"
           "  --rest_bind_address A     default 0.0.0.0\n"
           "  --rest_workers N          REST worker threads (default 64)\n"
           "  --metrics_enable          serve Prometheus metrics at GET /metrics on the REST port\n"
           "  --allow_client_shm        let clients register system shared memory regions (off)\n"
           "  --shutdown_grace_seconds N  drain time on SIGTERM/SIGINT (default 30)\n"
           "  --max_request_bytes N     gRPC message / REST body limit (default 256 MiB)\n"
           "  --stream_max_pending N    requests of one gRPC stream read and not yet answered "
           "(default 64)\n"
           "  --max_json_depth N        JSON nesting limit of REST bodies (default 32)\n"
           "  --plugins_xml PATH        plugins.xml to load devices from\n"
           "  --tls_cert PEM --tls_key PEM  TLS for gRPC and REST\n"
           "  --tls_client_ca PEM       require client certificates signed by this CA (mutual "
           "TLS)\n";
}

Status parse_command_line(int argc, const char* const argv[], ServerOptions& options, bool& help) {
    help = false;
    ModelConfig single;
    bool have_path = false, have_name = false;
    std::string plugin_config;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "-h" || arg == "--help") {
            help = true;
            return {};
        }
        if (arg.rfind("--", 0) != 0) return invalid("unexpected argument '" + arg + "'");
        std::string key = arg.substr(2), value;
        const size_t eq = key.find('=');
        bool has_value = false;
        if (eq != std::string::npos) {
            value = key.substr(eq + 1);
            key = key.substr(0, eq);
            has_value = true;
        }
        if (key == "metrics_enable") {
            options.metrics_enable = !has_value || value == "true" || value == "1";
            continue;
        }
        if (key == "allow_client_shm") {
            if (has_value && value != "true" && value != "1" && value != "false" && value != "0")
                return invalid("--allow_client_shm takes true or false, got '" + value + "'");
            options.allow_client_shm = !has_value || value == "true" || value == "1";
            continue;
        }
        if (!has_value) {
            if (i + 1 >= argc) return invalid("--" + key + " needs a value");
            value = argv[++i];
        }
        long long n = 0;
        auto int_flag = [&](long long min, long long max, auto& dst) -> Status {
            if (!parse_int(value, min, max, n)) {
                return invalid("--" + key + " must be an integer in " + std::to_string(min) + ".." +
                               std::to_string(max) + ", got '" + value + "'");
            }
            dst = static_cast<std::decay_t<decltype(dst)>>(n);
            return {};
        };
        Status s;
        if (key == "port")
            s = int_flag(-1, 65535, options.grpc_port);
        else if (key == "rest_port")
            s = int_flag(-1, 65535, options.rest_port);
        else if (key == "file_system_poll_wait_seconds")
            s = int_flag(0, 86400, options.poll_wait_seconds);
        else if (key == "grpc_bind_address")
            options.grpc_address = value;
        else if (key == "rest_bind_address")
            options.rest_address = value;
        else if (key == "rest_workers")
            s = int_flag(1, 4096, options.rest_workers);
        else if (key == "shutdown_grace_seconds")
            s = int_flag(0, 3600, options.shutdown_grace_seconds);
        else if (key == "max_request_bytes")
            s = int_flag(1024, 1ll << 31, options.max_request_bytes);
        else if (key == "stream_max_pending")
            s = int_flag(1, 65536, options.stream_max_pending);
        else if (key == "max_json_depth")
            s = int_flag(2, 1000, options.max_json_depth);
        else if (key == "config_path")
            options.config_path = value;
        else if (key == "plugins_xml")
            options.plugins_xml = value;
        else if (key == "tls_cert")
            options.tls_cert = value;
        else if (key == "tls_key")
            options.tls_key = value;
        else if (key == "tls_client_ca")
            options.tls_client_ca = value;
        else if (key == "model_path")
            single.base_path = value, have_path = true;
        else if (key == "model_name")
            single.name = value, have_name = true;
        else if (key == "target_device")
            single.target_device = value;
        else if (key == "nireq")
            s = int_flag(0, 1024, single.nireq);
        else if (key == "max_queue_size")
            s = int_flag(0, 1 << 20, single.max_queue_size);
        else if (key == "plugin_config")
            plugin_config = value;
        else if (key == "shape")
            s = parse_shape_setting(value, single.shapes);
        else if (key == "batch_size")
            s = int_flag(1, 1 << 20, single.batch_size);
        else
            return invalid("unknown flag --" + key + " (see --help)");
        if (!s.ok()) return s;
    }
    if (have_path != have_name) return invalid("--model_path and --model_name go together");
    if (have_path && !options.config_path.empty()) {
        return invalid("give either --model_path/--model_name or --config_path, not both");
    }
    if (have_path) {
        Status s = validate_model_name(single.name);
        if (!s.ok()) return s;
        if (!plugin_config.empty()) {
            s = parse_plugin_config(plugin_config, single.plugin_config);
            if (!s.ok()) return s;
        }
        options.models.push_back(std::move(single));
    } else if (!options.config_path.empty()) {
        std::ifstream in(options.config_path);
        if (!in) return invalid("cannot read --config_path '" + options.config_path + "'");
        std::stringstream text;
        text << in.rdbuf();
        Status s = parse_model_config_list(text.str(), options.models);
        if (!s.ok()) return {s.code, options.config_path + ": " + s.message};
    }
    if (options.tls_cert.empty() != options.tls_key.empty()) {
        return invalid("--tls_cert and --tls_key go together");
    }
    if (!options.tls_client_ca.empty() && options.tls_cert.empty()) {
        return invalid("--tls_client_ca needs --tls_cert and --tls_key");
    }
    if (options.grpc_port == 0 && options.rest_port == 0) {
        return invalid("give --port (gRPC) and/or --rest_port (REST)");
    }
    return {};
}

}  // namespace vireo::server
