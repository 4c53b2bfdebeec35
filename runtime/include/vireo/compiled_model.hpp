// Declares CompiledModel, the application's handle to a model compiled for one device.
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "vireo/any.hpp"
#include "vireo/infer_request.hpp"
#include "vireo/model.hpp"
#include "vireo/plugin_object.hpp"
#include "vireo/properties.hpp"

namespace vireo {
namespace sdk {
class ICompiledModel;
}

/// A model compiled for one device, from Core::compile_model() or Core::import_model().
///
///     CompiledModel compiled = core.compile_model(model, "TEMPLATE", {enable_profiling(true)});
///     InferRequest request = compiled.create_infer_request();
///     uint32_t n = compiled.get_property(optimal_number_of_infer_requests);
///     std::ofstream blob("model.blob", std::ios::binary);
///     compiled.export_model(blob);                  // Core::import_model reads it back
///
/// inputs()/outputs() are the compiled model's own copies of the ports: the model you compiled
/// may change or die afterwards. Ports of the original model are accepted wherever a port is.
///
/// Ownership: a handle; copies share the compiled model. It keeps the plugin library loaded, so
/// it may outlive the Core (and unload_plugin).
/// Thread safety: create_infer_request, export_model, get_runtime_model and get_property may be
/// called from several threads at once; set_property must not race with them.
/// Errors: plugin errors are rethrown as vireo::Exception of the same kind, prefixed with the
/// device name (a foreign exception as the general kind, also naming the operation: "TEMPLATE:
/// export_model: ..."; see PluginObject). A default-constructed handle throws InvalidArgument.
class CompiledModel {
  public:
    CompiledModel() = default;
    /// Used by the core: adopts a plugin's compiled model; `so` keeps the plugin library loaded.
    /// `loaded_from_cache` is what get_property(loaded_from_cache) reports.
    CompiledModel(std::shared_ptr<sdk::ICompiledModel> impl, std::shared_ptr<void> so,
                  bool loaded_from_cache = false);
    ~CompiledModel();
    CompiledModel(const CompiledModel&) = default;
    CompiledModel(CompiledModel&&) noexcept = default;
    /// Assignments release the old implementation before the old library reference
    /// (PluginObject's assignment order).
    CompiledModel& operator=(const CompiledModel& other);
    CompiledModel& operator=(CompiledModel&& other) noexcept;

    const OutputVector& inputs() const;
    const OutputVector& outputs() const;
    /// The only input; throws InvalidArgument if there are several.
    Output input() const;
    /// Throws InvalidArgument when out of range.
    Output input(size_t index) const;
    /// The input with tensor name `tensor_name`; throws NotFound listing the inputs' names.
    Output input(const std::string& tensor_name) const;
    Output output() const;
    Output output(size_t index) const;
    Output output(const std::string& tensor_name) const;

    InferRequest create_infer_request() const;
    /// Writes a blob Core::import_model reads back: a header naming the plugin, its version and
    /// the ABI version, then the plugin's own export (docs/plugins.md). Throws NotImplemented if
    /// the plugin cannot export.
    void export_model(std::ostream& blob) const;
    /// The graph that runs, with execution info in rt_info. Keeps the plugin library loaded.
    std::shared_ptr<const Model> get_runtime_model() const;

    void set_property(const AnyMap& properties);
    /// A property value; loaded_from_cache is answered here (true when the core imported the
    /// model from its cache). The returned Any keeps the plugin library loaded.
    Any get_property(const std::string& name) const;
    template <typename T, PropertyMutability M>
    T get_property(const Property<T, M>& property) const {
        return get_property(std::string(property.name())).template as<T>();
    }

    explicit operator bool() const { return static_cast<bool>(m_object); }
    bool operator==(const CompiledModel& other) const { return impl() == other.impl(); }
    const std::shared_ptr<sdk::ICompiledModel>& impl() const { return m_object.impl(); }
    const std::shared_ptr<void>& shared_object() const { return m_object.module(); }

  private:
    const PluginObject<sdk::ICompiledModel>& checked() const;

    PluginObject<sdk::ICompiledModel> m_object;  // named by its plugin's device name
    bool m_loaded_from_cache = false;
};

}  // namespace vireo
