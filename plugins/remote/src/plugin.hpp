// Declares the REMOTE plugin: a device whose instances are KServe v2 gRPC servers.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "config.hpp"
#include "vireo/kserve/client.hpp"
#include "vireo/sdk/iplugin.hpp"
#include "vireo/sdk/itask_executor.hpp"

namespace vireo::remote {

/// What one compiled model calls on the server: the model's name and version there, and the
/// KServe name and datatype of each input and output, in the compiled model's port order.
struct ServedModel {
    struct Port {
        std::string name;
        std::string datatype;
    };
    std::string name;
    std::string version;
    bool loaded_here = false;  ///< loaded by this plugin (RepositoryModelLoad), not preexisting
    std::string format;        ///< what was loaded: "ONNX" or "IR"; empty in repository mode
    /// The load request (model files inline), kept to load the model again on a server that lost
    /// it (restarted); null in repository mode.
    std::shared_ptr<const inference::RepositoryModelLoadRequest> load;
    std::vector<Port> inputs;
    std::vector<Port> outputs;
};

/// The plugin. Instances REMOTE.0 .. REMOTE.15: each has its own REMOTE_URL (and the other keys,
/// per instance, through the SDK property table), its own gRPC channel (kserve::Client, shared by
/// every compiled model of the instance) and its own wait executor. The instances served are
/// those configured: VIREO_REMOTE_URLS at load, or set_property on "REMOTE.N" (which adds
/// instance N); AVAILABLE_DEVICES lists the ids with a URL. Thread-safe.
class Plugin : public sdk::IPlugin {
  public:
    Plugin();
    ~Plugin() override;

    std::shared_ptr<sdk::ICompiledModel> compile_model(const std::shared_ptr<const Model>& model,
                                                       const AnyMap& properties) const override;
    std::shared_ptr<sdk::ICompiledModel> import_model(std::istream& blob,
                                                      const AnyMap& properties) const override;
    sdk::SupportedOpsMap query_model(const std::shared_ptr<const Model>& model,
                                     const AnyMap& properties) const override;
    void set_property(const AnyMap& properties) override;
    Any get_property(const std::string& name, const AnyMap& arguments) const override;

    /// "REMOTE.1" (the registered name, if the core renamed the plugin).
    std::string instance_name(const std::string& id) const;
    /// Called by a compiled model that loaded `name` when it is released: unloads it when no other
    /// compiled model of this plugin uses it and `unload` is set.
    void release_model(const std::shared_ptr<kserve::Client>& client, const std::string& name,
                       bool unload) const;

  private:
    struct Instance {
        std::string url;
        std::string tls_ca;
        std::string tls_cert;
        std::string tls_key;
        std::shared_ptr<kserve::Client> client;
        // The instance's own executors, made with it and shared by its compiled models (which
        // hold them, so they outlive this plugin object if the models do).
        std::shared_ptr<sdk::ITaskExecutor> host;
        std::shared_ptr<sdk::ITaskExecutor> wait;
    };
    /// The instance's client and executors, (re)made when its URL or one of its TLS files
    /// (REMOTE_TLS_CA, REMOTE_TLS_CERT, REMOTE_TLS_KEY) changed. Throws Unavailable when it has no
    /// URL, InvalidArgument for a bad URL, an unreadable TLS file or a certificate without its key.
    Instance instance(const std::string& id, const Config& config) const;
    /// Throws InvalidArgument when `properties` (a set_property map) would leave an instance with
    /// REMOTE_TLS_CERT but no REMOTE_TLS_KEY, or the other way round.
    void check_tls_set(const AnyMap& properties) const;
    ServedModel load_model(const Model& model, const Config& config, const std::string& where,
                           kserve::Client& client) const;
    ServedModel use_model(const Model& model, const Config& config, const std::string& where,
                          kserve::Client& client) const;
    std::string full_name(const std::string& id) const;

    std::unique_ptr<sdk::PropertyTable> m_properties;
    mutable std::mutex m_mutex;
    mutable std::map<std::string, Instance> m_instances;                  // by id
    mutable std::map<std::pair<std::string, std::string>, int> m_loaded;  // (url, name) -> users
    std::mutex m_set_mutex;
};

}  // namespace vireo::remote
