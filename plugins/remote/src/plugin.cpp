// Implements the REMOTE plugin: instances and their settings, the two model-loading modes,
// query_model, properties, and the module entry point.
#include "plugin.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "compiled_model.hpp"
#include "protocol.hpp"
#include "vireo/ir.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"
#include "vireo/sdk/icore.hpp"
#include "vireo/sdk/plugin_entry.hpp"

#ifndef VIREO_PLUGIN_VERSION
#define VIREO_PLUGIN_VERSION "0.0.0"
#endif

namespace vireo::remote {
namespace {

// The deadline of control calls (metadata, readiness, load).
constexpr std::chrono::milliseconds kControlTimeout{60'000};
constexpr std::chrono::milliseconds kNameTimeout{2'000};

// REMOTE_TIMEOUT_MS is the inferences' deadline; a load can take much longer than an inference.
std::chrono::milliseconds control_timeout(const Config&) {
    return kControlTimeout;
}

std::vector<std::string> ids_up_to(size_t count) {
    std::vector<std::string> ids;
    for (size_t i = 0; i < count; ++i) ids.push_back(std::to_string(i));
    return ids;
}

std::vector<std::string> split_urls(const char* text) {
    std::vector<std::string> urls;
    if (!text) return urls;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (!item.empty()) urls.push_back(item);
    }
    return urls;
}

// The module stays loaded once loaded: gRPC keeps threads and callbacks, and protobuf keeps the
// generated descriptors registered in libprotobuf's pool, both beyond any unload_plugin.
void pin_module() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&pin_module), &info) && info.dli_fname)
        dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

// The text of the PEM file `path` that property `key` names; empty for no path. The table checked
// the file was readable when the key was set; it may have gone since.
std::string read_pem(const std::string& device, const std::string& key, const std::string& path) {
    if (path.empty()) return {};
    std::ifstream in(path, std::ios::binary);
    if (!in) throw_error<InvalidArgument>(device, ": cannot read ", key, " '", path, "'");
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// A failed control call's exception, saying what to check when a TLS handshake may have failed.
[[noreturn]] void throw_control_status(const grpc::Status& s, const Config& config,
                                       const std::string& where, const char* what,
                                       std::chrono::milliseconds timeout) {
    throw_status(s, where, what, timeout, false, tls_hint(s, config.url, !config.tls_cert.empty()));
}

uint64_t fnv1a(uint64_t hash, const std::string& bytes) {
    for (unsigned char c : bytes) {
        hash ^= c;
        hash *= 1099511628211ull;
    }
    return hash;
}

// IR text without its `name="..."` attributes (of the net and of each layer): the names an
// importer gives unnamed nodes come from a process-wide counter, so two reads of one file differ
// there and nowhere else. Tensor names (`names="..."`, what servers call inputs and outputs) stay.
std::string without_node_names(const std::string& xml) {
    std::string out;
    out.reserve(xml.size());
    size_t at = 0;
    while (true) {
        const size_t found = xml.find(" name=\"", at);
        if (found == std::string::npos) break;
        const size_t end = xml.find('"', found + 7);
        if (end == std::string::npos) break;
        out.append(xml, at, found - at);
        at = end + 1;
    }
    out.append(xml, at, std::string::npos);
    return out;
}

// The bytes of the ONNX file `model` was read from, when sending that file loads exactly `model`:
// the ONNX frontend recorded it as the model's only source file (no external data), and reading
// it again gives a model whose IR (`xml`, `bin`) is the model's byte for byte but for generated
// node names — so a reshape, preprocessing or any edit since read_model sends IR instead. Empty
// when not.
std::string onnx_source_of(const Model& model, const std::string& xml, const std::string& bin,
                           const sdk::ICore& core) {
    const auto& rt = model.get_rt_info();
    auto format = rt.find("source_format");
    auto files = rt.find("__source_files");
    if (format == rt.end() || files == rt.end() || !format->second.is<std::string>() ||
        format->second.as<std::string>() != "onnx" || !files->second.is<std::vector<std::string>>())
        return {};
    const auto& paths = files->second.as<std::vector<std::string>>();
    if (paths.size() != 1) return {};
    try {
        std::ostringstream again_xml;
        std::ostringstream again_bin(std::ios::binary);
        serialize(*core.read_model(paths[0]), again_xml, again_bin);
        if (without_node_names(again_xml.str()) != without_node_names(xml) ||
            again_bin.str() != bin)
            return {};
        std::ifstream in(paths[0], std::ios::binary);
        std::ostringstream bytes(std::ios::binary);
        bytes << in.rdbuf();
        if (!in.good() && !in.eof()) return {};
        return bytes.str();
    } catch (const std::exception&) {
        return {};  // moved, changed or unreadable since: IR says what the model is
    }
}

std::string shape_text(const google::protobuf::RepeatedField<int64_t>& dims) {
    std::string text = "[";
    for (int i = 0; i < dims.size(); ++i) text += (i ? "," : "") + std::to_string(dims[i]);
    return text + "]";
}

// Binds the model's ports to the server model's metadata, checking names, datatypes and shapes.
void bind_ports(const Model& model, const inference::ModelMetadataResponse& metadata,
                const std::string& where, bool by_index_fallback, ServedModel& served) {
    auto bind = [&](const OutputVector& ports,
                    const google::protobuf::RepeatedPtrField<
                        inference::ModelMetadataResponse::TensorMetadata>& remote,
                    const char* kind, std::vector<ServedModel::Port>& out) {
        std::string listed;
        for (const auto& r : remote) listed += (listed.empty() ? "" : ", ") + r.name();
        for (size_t i = 0; i < ports.size(); ++i) {
            const Output& port = ports[i];
            const auto& names = port.get_names();
            const std::string friendly = port.get_node()->get_friendly_name();
            const inference::ModelMetadataResponse::TensorMetadata* found = nullptr;
            for (const auto& r : remote)
                if (names.count(r.name()) || (names.empty() && r.name() == friendly)) found = &r;
            if (!found && by_index_fallback && static_cast<size_t>(remote.size()) == ports.size())
                found = &remote[static_cast<int>(i)];
            const std::string label = names.empty() ? friendly : *names.begin();
            if (!found)
                throw_error<InvalidArgument>(where, ": the server's model has no ", kind, " '",
                                             label, "' (its ", kind, "s: ", listed, ")");
            const std::string datatype = datatype_of(port.get_element_type());
            if (found->datatype() != datatype)
                throw_error<InvalidArgument>(where, ": ", kind, " '", label, "' is ",
                                             found->datatype(), " on the server, the model has ",
                                             port.get_element_type(), " (", datatype, ")");
            const PartialShape& shape = port.get_partial_shape();
            if (shape.rank_is_static()) {
                bool ok = static_cast<size_t>(found->shape_size()) == shape.size();
                for (size_t d = 0; ok && d < shape.size(); ++d) {
                    const int64_t r = found->shape(static_cast<int>(d));
                    if (r >= 0 && shape[d].is_static() && shape[d].get_length() != r) ok = false;
                }
                if (!ok)
                    throw_error<InvalidArgument>(where, ": ", kind, " '", label, "' has shape ",
                                                 shape_text(found->shape()),
                                                 " on the server, the model has ", shape);
            }
            out.push_back({found->name(), datatype});
        }
    };
    bind(model.inputs(), metadata.inputs(), "input", served.inputs);
    bind(model.outputs(), metadata.outputs(), "output", served.outputs);
}

}  // namespace

Plugin::Plugin() {
    pin_module();
    namespace cap = device::capability;
    std::vector<sdk::PropertySpec> specs = config_specs();
    specs.push_back(
        sdk::common::full_name([this](const std::string& id) { return full_name(id); }));
    // PROFILING is not claimed: the stage rows are reported, but KServe v2 carries no per-op
    // timings of the server.
    specs.push_back(sdk::common::capabilities({cap::kFP32, cap::kFP16, cap::kDynamicShapes}));
    // No DEVICE_TYPE: a device on another machine is used where it is named, never picked by a
    // plain "AUTO" or "MULTI".
    m_properties = std::make_unique<sdk::PropertyTable>(kDeviceName, std::move(specs));
    const std::vector<std::string> urls = split_urls(std::getenv("VIREO_REMOTE_URLS"));
    const size_t count = std::clamp<size_t>(urls.size(), 1, kMaxInstances);
    m_properties->set_instances(ids_up_to(count));
    for (size_t i = 0; i < urls.size() && i < kMaxInstances; ++i)
        m_properties->set({{device::id.name(), std::to_string(i)}, {url.name(), urls[i]}});
}

Plugin::~Plugin() = default;

std::string Plugin::instance_name(const std::string& id) const {
    const std::string& registered = get_device_name();
    return (registered.empty() ? std::string(kDeviceName) : registered) + "." + id;
}

Plugin::Instance Plugin::instance(const std::string& id, const Config& config) const {
    const std::string name = instance_name(id);
    if (config.url.empty())
        throw_error<Unavailable>(name, ": no server is configured: set REMOTE_URL (",
                                 "core.set_property(\"", name,
                                 "\", {{\"REMOTE_URL\", \"host:port\"}})) or VIREO_REMOTE_URLS");
    check_tls_pair(name, config.tls_cert, config.tls_key);  // compile_model's own arguments
    std::lock_guard<std::mutex> lock(m_mutex);
    Instance& instance = m_instances[id];
    // The files are read when the channel is made: a certificate renewed under the same path is
    // taken by the next channel, not by this one.
    if (!instance.client || instance.url != config.url || instance.tls_ca != config.tls_ca ||
        instance.tls_cert != config.tls_cert || instance.tls_key != config.tls_key) {
        kserve::TlsOptions tls;
        tls.ca_pem = read_pem(name, tls_ca.name(), config.tls_ca);
        tls.cert_chain_pem = read_pem(name, tls_cert.name(), config.tls_cert);
        tls.private_key_pem = read_pem(name, tls_key.name(), config.tls_key);
        try {
            instance.client = std::make_shared<kserve::Client>(config.url, tls);
        } catch (const std::invalid_argument& e) {
            throw_error<InvalidArgument>(name, ": REMOTE_URL: ", e.what());
        }
        instance.url = config.url;
        instance.tls_ca = config.tls_ca;
        instance.tls_cert = config.tls_cert;
        instance.tls_key = config.tls_key;
    }
    if (!instance.host) {
        instance.host =
            std::make_shared<sdk::CPUStreamsExecutor>(sdk::StreamsConfig{name + "/host", 2, 1});
        // Each request in flight waits on one of these threads for its call to end.
        instance.wait =
            std::make_shared<sdk::CPUStreamsExecutor>(sdk::StreamsConfig{name + "/wait", 16, 1});
    }
    return instance;
}

ServedModel Plugin::use_model(const Model& model, const Config& config, const std::string& where,
                              kserve::Client& client) const {
    ServedModel served;
    served.name = config.model_name;
    served.version = config.model_version;
    const std::string model_where = where + ", REMOTE_MODEL_NAME '" + served.name + "'" +
                                    (served.version.empty() ? "" : " version " + served.version);
    inference::ModelMetadataResponse metadata;
    grpc::Status s =
        client.model_metadata(served.name, served.version, &metadata, control_timeout(config));
    if (!s.ok())
        throw_control_status(s, config, model_where, "ModelMetadata", control_timeout(config));
    bind_ports(model, metadata, model_where, false, served);
    return served;
}

ServedModel Plugin::load_model(const Model& model, const Config& config, const std::string& where,
                               kserve::Client& client) const {
    for (const auto& port : model.inputs())
        if (datatype_of(port.get_element_type()).empty())
            throw_error<InvalidArgument>(where, ": input '", port.get_node()->get_friendly_name(),
                                         "' has element type ", port.get_element_type(),
                                         ", which KServe v2 cannot carry");
    for (const auto& port : model.outputs())
        if (datatype_of(port.get_element_type()).empty())
            throw_error<InvalidArgument>(where, ": output '", port.get_node()->get_friendly_name(),
                                         "' has element type ", port.get_element_type(),
                                         ", which KServe v2 cannot carry");
    std::ostringstream xml;
    std::ostringstream bin(std::ios::binary);
    serialize(model, xml, bin);
    const std::string xml_bytes = xml.str();
    const std::string bin_bytes = bin.str();
    // A model read from ONNX goes as that file (servers without Vireo's IR reader, such as
    // Triton's ONNX Runtime backend, can load it), unless REMOTE_MODEL_FORMAT is IR.
    std::string onnx_bytes;
    if (config.send_source)
        if (auto core = get_core()) onnx_bytes = onnx_source_of(model, xml_bytes, bin_bytes, *core);
    // The same model (and server device) gets the same name from every client, which then share
    // it on the server.
    uint64_t hash = 14695981039346656037ull;
    if (onnx_bytes.empty()) {
        hash = fnv1a(hash, without_node_names(xml_bytes));  // generated names vary by process
        hash = fnv1a(hash, "\n");
        hash = fnv1a(hash, bin_bytes);
    } else {
        hash = fnv1a(hash, onnx_bytes);
        hash = fnv1a(hash, "\nonnx");
    }
    hash = fnv1a(hash, "\n" + config.server_device);
    std::ostringstream name;
    name << "vireo_" << std::hex << std::setw(16) << std::setfill('0') << hash;
    ServedModel served;
    served.name = name.str();
    served.loaded_here = true;
    served.format = onnx_bytes.empty() ? "IR" : "ONNX";
    const std::string model_where = where + ", model '" + served.name + "'";
    const auto timeout = control_timeout(config);
    bool ready = false;
    grpc::Status s = client.model_ready(served.name, "", &ready, timeout);
    if (!s.ok() && s.error_code() != grpc::StatusCode::NOT_FOUND &&
        s.error_code() != grpc::StatusCode::INVALID_ARGUMENT)
        throw_control_status(s, config, model_where, "ModelReady", timeout);
    auto request = std::make_shared<inference::RepositoryModelLoadRequest>();
    {
        inference::RepositoryModelLoadRequest& load = *request;
        load.set_model_name(served.name);
        auto& parameters = *load.mutable_parameters();
        if (onnx_bytes.empty()) {
            parameters["file:1/model.xml"].set_bytes_param(xml_bytes);
            parameters["file:1/model.bin"].set_bytes_param(bin_bytes);
        } else {
            parameters["file:1/model.onnx"].set_bytes_param(onnx_bytes);
        }
        if (!config.server_device.empty())
            parameters["config"].set_string_param("{\"target_device\":\"" + config.server_device +
                                                  "\"}");
    }
    served.load = request;
    if (!s.ok() || !ready) {
        s = client.load(*request, timeout);
        if (!s.ok()) throw_control_status(s, config, model_where, "RepositoryModelLoad", timeout);
    }
    inference::ModelMetadataResponse metadata;
    s = client.model_metadata(served.name, "", &metadata, timeout);
    if (!s.ok()) throw_control_status(s, config, model_where, "ModelMetadata", timeout);
    bind_ports(model, metadata, model_where, true, served);
    return served;
}

std::shared_ptr<sdk::ICompiledModel> Plugin::compile_model(
    const std::shared_ptr<const Model>& model, const AnyMap& properties) const {
    if (!model) throw_error<InvalidArgument>(kDeviceName, ": compile_model was given no model");
    const sdk::PropertyValues values = m_properties->resolve(properties);
    const Config config = Config::from(values);
    const std::string id = values.instance().empty() ? "0" : values.instance();
    const std::string name = instance_name(id);
    Instance inst = instance(id, config);
    const std::string where = name + " (" + config.url + ")";
    ServedModel served = config.model_name.empty() ? load_model(*model, config, where, *inst.client)
                                                   : use_model(*model, config, where, *inst.client);
    if (served.loaded_here) {
        std::lock_guard<std::mutex> lock(m_mutex);
        ++m_loaded[{config.url, served.name}];
    }
    return std::make_shared<CompiledModel>(
        model->clone(), std::static_pointer_cast<const Plugin>(shared_from_this()), inst.client,
        inst.host, inst.wait, config, std::move(served), name, id);
}

void Plugin::release_model(const std::shared_ptr<kserve::Client>& client, const std::string& name,
                           bool unload) const {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        auto it = m_loaded.find({client->url(), name});
        if (it == m_loaded.end()) return;
        if (--it->second > 0) return;
        m_loaded.erase(it);
    }
    if (unload) client->unload(name, kNameTimeout);  // best effort: the server may be gone
}

std::shared_ptr<sdk::ICompiledModel> Plugin::import_model(std::istream&, const AnyMap&) const {
    throw_error<NotImplemented>(kDeviceName,
                                ": import_model is not supported (the model lives on the server; "
                                "compile it again, or name it with REMOTE_MODEL_NAME)");
}

sdk::SupportedOpsMap Plugin::query_model(const std::shared_ptr<const Model>& model,
                                         const AnyMap& properties) const {
    if (!model) throw_error<InvalidArgument>(kDeviceName, ": query_model was given no model");
    const sdk::PropertyValues values = m_properties->resolve(properties);
    const Config config = Config::from(values);
    const std::string id = values.instance().empty() ? "0" : values.instance();
    const std::string name = instance_name(id);
    Instance inst = instance(id, config);
    const std::string where = name + " (" + config.url + ")";
    if (!config.model_name.empty()) {
        use_model(*model, config, where, *inst.client);  // throws when the metadata differs
    } else {
        // The server answers (ServerReady may say no while another client's model loads).
        inference::ServerMetadataResponse metadata;
        grpc::Status s = inst.client->server_metadata(&metadata, control_timeout(config));
        if (!s.ok())
            throw_control_status(s, config, where, "ServerMetadata", control_timeout(config));
    }
    // The server runs the whole model or refuses it at load: every op is on this instance.
    sdk::SupportedOpsMap supported;
    for (const auto& node : model->get_ordered_ops()) supported[node->get_friendly_name()] = name;
    return supported;
}

void Plugin::set_property(const AnyMap& properties) {
    // "REMOTE.N" (DEVICE_ID N) adds instance N, and those below it, when it is new.
    std::lock_guard<std::mutex> serial(m_set_mutex);
    const std::vector<std::string> before = m_properties->instances();
    auto it = properties.find(device::id.name());
    if (it != properties.end()) {
        const std::string id = it->second.as<std::string>();
        if (!id.empty() && id.size() <= 2 && std::all_of(id.begin(), id.end(), ::isdigit)) {
            const size_t index = std::stoul(id);
            if (index < kMaxInstances && index >= before.size())
                m_properties->set_instances(ids_up_to(index + 1));
        }
    }
    try {
        check_tls_set(properties);
        m_properties->set(properties);
    } catch (...) {
        m_properties->set_instances(before);
        throw;
    }
}

void Plugin::check_tls_set(const AnyMap& properties) const {
    AnyMap pair;
    for (const std::string key : {tls_cert.name(), tls_key.name()}) {
        auto it = properties.find(key);
        if (it != properties.end()) pair.insert(*it);
    }
    if (pair.empty()) return;
    // Without DEVICE_ID the set is for every instance (and drops their own values of these keys).
    // resolve() checks the values as set() will, and gives the pair each instance would have.
    auto id = properties.find(device::id.name());
    const std::vector<std::string> ids =
        id != properties.end() ? std::vector<std::string>{id->second.as<std::string>()}
                               : m_properties->instances();
    for (const auto& each : ids) {
        AnyMap call = pair;
        call[device::id.name()] = each;
        const Config after = Config::from(m_properties->resolve(call));
        check_tls_pair(instance_name(each.empty() ? "0" : each), after.tls_cert, after.tls_key);
    }
}

Any Plugin::get_property(const std::string& name, const AnyMap& arguments) const {
    if (name == available_devices.name()) {
        // The configured instances: those with a server.
        std::vector<std::string> ids;
        for (const auto& id : m_properties->instances())
            if (!m_properties->get(url.name(), {{device::id.name(), id}}).as<std::string>().empty())
                ids.push_back(id);
        // None: the core skips the device (with a warning saying this) rather than list a bare
        // "REMOTE" no server stands behind.
        if (ids.empty())
            throw_error<Unavailable>(kDeviceName,
                                     ": no server is configured (set REMOTE_URL on REMOTE.N, or "
                                     "VIREO_REMOTE_URLS=host:port,...)");
        return ids;
    }
    return m_properties->get(name, arguments);
}

std::string Plugin::full_name(const std::string& id) const {
    const std::string name = instance_name(id.empty() ? "0" : id);
    const Config config =
        Config::from(m_properties->resolve({{device::id.name(), id.empty() ? "0" : id}}));
    if (config.url.empty()) return "Vireo REMOTE device " + name + " (no REMOTE_URL)";
    try {
        Instance inst = instance(id.empty() ? "0" : id, config);
        inference::ServerMetadataResponse metadata;
        grpc::Status s = inst.client->server_metadata(&metadata, kNameTimeout);
        if (s.ok()) return metadata.name() + " " + metadata.version() + " at " + config.url;
        return "KServe v2 server at " + config.url +
               " (unreachable: " + kserve::status_code_name(s.error_code()) + ")";
    } catch (const std::exception& e) {
        return "KServe v2 server at " + config.url + " (" + e.what() + ")";
    }
}

}  // namespace vireo::remote

VIREO_DEFINE_PLUGIN(vireo::remote::Plugin, VIREO_PLUGIN_VERSION)
