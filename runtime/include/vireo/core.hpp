// Declares Core, the application's entry point: it finds and loads device plugins, reads
// models, compiles them for a device (through the model cache) and manages properties.
#pragma once

#include <istream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "vireo/any.hpp"
#include "vireo/compiled_model.hpp"
#include "vireo/model.hpp"
#include "vireo/properties.hpp"
#include "vireo/remote_context.hpp"
#include "vireo/tensor.hpp"
#include "vireo/version.hpp"

namespace vireo {

class CoreImpl;

/// The runtime's entry point.
///
///     Core core;                                           // reads plugins.xml (see below)
///     auto model = core.read_model("model.xml");
///     CompiledModel compiled = core.compile_model(model, "TEMPLATE", {enable_profiling(true)});
///     core.set_property({cache_dir("/tmp/vireo_cache")}); // later compiles go through the cache
///
/// Devices are named "NAME" or "NAME.N" (instance N of plugin NAME; the core passes
/// device::id = "N" to the plugin). Each NAME is a plugin registered from a plugins.xml or with
/// register_plugin(); its library is loaded on first use, once, and stays loaded until
/// unload_plugin() and until every object it made is gone.
///
/// Where plugins.xml comes from, first match wins: the constructor argument (a path, relative
/// to the current directory) if not empty; else the environment variable VIREO_PLUGINS_XML if
/// set and not empty; else `plugins.xml` in the directory of libvireo itself. The first two
/// must exist (NotFound otherwise); a missing default file just means no plugins are registered.
///
/// Properties: the plugin owns device and instance values (set_property("NAME.N", ...) reaches it
/// with device::id = N); a call's arguments win over them for that call, and plugins.xml
/// defaults are set on the plugin when it is loaded.
/// Core-level keys: cache_dir (global or per device), enable_mmap (global: whether read_model maps
/// the .bin, default true; see docs/ir.md) and log::level (global).
///
/// Model cache: with cache_dir set, compile_model looks up a blob keyed by the serialized
/// model, the device, the properties passed to the plugin and the plugin's version; a hit
/// imports it (loaded_from_cache is then true), a miss compiles and stores it. Damaged entries
/// are recompiled and replaced. docs/plugins.md describes the key and the blob format.
///
/// Ownership: copies of a Core share one registry. Every object a Core returns may outlive it.
/// Thread safety: every method may be called from several threads at once; a plugin is loaded
/// once even when many threads ask for it at the same time.
/// Errors: NotFound for unknown devices, files, tensor names and property keys (the message
/// lists the known ones); InvalidArgument for malformed names, values and plugin libraries
/// (ABI or toolchain mismatch, missing entry symbol, not a library); Unavailable when a
/// plugin's factory fails. Errors from plugin calls keep their kind and are prefixed with the
/// device name. The Core stays usable after any error.
class Core {
  public:
    /// Registers the plugins of plugins.xml (see the class comment for where it is found).
    explicit Core(const std::string& plugins_xml_path = "");
    ~Core();
    Core(const Core&) = default;
    Core(Core&&) noexcept = default;
    Core& operator=(const Core&) = default;
    Core& operator=(Core&&) noexcept = default;

    /// Every device instance of every registered plugin: a plugin reporting several ids in
    /// available_devices gives "NAME.id" each, one or none gives "NAME". Plugins that fail to
    /// load are skipped (the failure is logged).
    std::vector<std::string> get_available_devices() const;
    /// {NAME: version} for `device_name` ("NAME" or "NAME.N"); loads the plugin.
    std::map<std::string, Version> get_versions(const std::string& device_name) const;

    /// Reads a model file, IR or a format a frontend module reads (ONNX), chosen by content, then
    /// by file extension when no format claims the content. IR: `bin_path` empty means the .xml
    /// path with a .bin extension. ONNX: `bin_path` must be empty (external data is named inside
    /// the model); the ONNX reader module is loaded on first use (see read_onnx_model for what it
    /// accepts and throws). A file of no known format is InvalidArgument naming it and listing the
    /// known formats (Unavailable, with the module's path and why, when a frontend module could
    /// not be loaded).
    std::shared_ptr<Model> read_model(const std::string& model_path,
                                      const std::string& bin_path = "") const;
    /// Reads an IR model from its XML text and its weights (may be empty when there are none).
    std::shared_ptr<Model> read_model_from_string(const std::string& xml_text,
                                                  const Tensor& weights) const;
    /// A model in memory, IR or ONNX by content (the OpenVINO spelling): IR XML text with its
    /// weights (as read_model_from_string), or the bytes of an ONNX ModelProto, in which case
    /// `weights` must be empty.
    std::shared_ptr<Model> read_model(const std::string& model, const Tensor& weights) const;

    /// Compiles `model` for `device_name` with `properties` (see the precedence above).
    CompiledModel compile_model(const std::shared_ptr<const Model>& model,
                                const std::string& device_name, const AnyMap& properties = {});
    /// Reads the model file at `xml_path` (IR or ONNX, as read_model), then compiles it.
    CompiledModel compile_model(const std::string& xml_path, const std::string& device_name,
                                const AnyMap& properties = {});
    /// Compiles for a remote context; the device is the context's.
    CompiledModel compile_model(const std::shared_ptr<const Model>& model,
                                const RemoteContext& context, const AnyMap& properties = {});
    /// Reads a blob written by CompiledModel::export_model. Throws InvalidArgument if it was
    /// made by another plugin or version, or is damaged or truncated.
    CompiledModel import_model(std::istream& blob, const std::string& device_name,
                               const AnyMap& properties = {});
    /// Which ops of `model` the device runs: op friendly name -> device name.
    std::map<std::string, std::string> query_model(const std::shared_ptr<const Model>& model,
                                                   const std::string& device_name,
                                                   const AnyMap& properties = {}) const;

    /// Core-level properties: cache_dir, enable_mmap, log::level. Other keys throw NotFound.
    void set_property(const AnyMap& properties);
    /// Properties of one device ("NAME" or "NAME.N"); loads the plugin. Keys must be listed as
    /// RW in the plugin's supported_properties (or be cache_dir): NotFound otherwise, listing
    /// the supported ones; InvalidArgument for a read-only key or a bad value. Values for
    /// "NAME.N" go to the plugin at once with device::id = N: the plugin owns them (see
    /// docs/plugins.md).
    void set_property(const std::string& device_name, const AnyMap& properties);
    /// A core-level property: cache_dir, enable_mmap, log::level, supported_properties,
    /// available_devices.
    Any get_property(const std::string& name) const;
    /// A device property. supported_properties (the plugin's plus cache_dir), available_devices
    /// (the plugin's ids) and cache_dir are answered by the core; the rest by the plugin.
    /// The returned Any keeps the plugin library loaded.
    Any get_property(const std::string& device_name, const std::string& name,
                     const AnyMap& arguments = {}) const;
    template <typename T, PropertyMutability M>
    T get_property(const std::string& device_name, const Property<T, M>& property) const {
        return get_property(device_name, std::string(property.name())).template as<T>();
    }
    template <typename T, PropertyMutability M>
    T get_property(const Property<T, M>& property) const {
        return get_property(std::string(property.name())).template as<T>();
    }

    /// Registers the plugin library at `library_path` as `device_name`. A path with a '/' is
    /// taken relative to the current directory; a bare file name is looked for in the current
    /// directory, then next to libvireo, then by the system's library search; a bare name without
    /// ".so" also tries "lib<name>.so". `properties` are its defaults (as plugins.xml's).
    /// Throws InvalidArgument if the name is empty, has a '.', or is already registered.
    void register_plugin(const std::string& library_path, const std::string& device_name,
                         const AnyMap& properties = {});
    /// Registers every plugin of a plugins.xml file (same rules as the default one).
    void register_plugins(const std::string& plugins_xml_path);
    /// Loads the extension library at `library_path` (vireo/extension.hpp): its ops, their
    /// reference kernels and its ONNX mappings become available process-wide, to every Core and
    /// plugin, and the library stays loaded for the life of the process. Loading the same file
    /// again is a no-op. Throws NotFound when the file does not exist; InvalidArgument naming the
    /// path when it is not a loadable extension (no entry symbol, another extension ABI version
    /// or C++ library) or its registration fails (with the extension's message).
    void add_extension(const std::string& library_path);
    /// Drops the core's reference to the device's plugin (objects it made keep working); the
    /// next use loads it again and re-applies the device's properties. Throws NotFound for an
    /// unregistered name; a registered but not loaded plugin is a no-op.
    void unload_plugin(const std::string& device_name);

    /// A new remote context of the device with device-specific `params`.
    RemoteContext create_context(const std::string& device_name, const AnyMap& params);
    /// The device's default context.
    RemoteContext get_default_context(const std::string& device_name);

  private:
    std::shared_ptr<CoreImpl> m_impl;
};

}  // namespace vireo
