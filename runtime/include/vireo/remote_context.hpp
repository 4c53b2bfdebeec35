// Declares RemoteContext, the application's handle to a device's memory space, which makes
// device (remote) tensors and host tensors suited to fast transfers.
#pragma once

#include <memory>
#include <string>

#include "vireo/any.hpp"
#include "vireo/element_type.hpp"
#include "vireo/plugin_object.hpp"
#include "vireo/shape.hpp"
#include "vireo/tensor.hpp"

namespace vireo {
namespace sdk {
class IRemoteContext;
}

/// A device's memory space, from Core::create_context() or Core::get_default_context().
///
///     RemoteContext ctx = core.get_default_context("MOCK_REMOTE.1");
///     Tensor on_device = ctx.create_tensor(element::f32, Shape{1, 3, 224, 224});
///     Tensor staging = ctx.create_host_tensor(element::f32, Shape{1, 3, 224, 224});
///
/// Ownership: a handle; copies share the context. It and every tensor it creates keep the
/// plugin library loaded, so they may outlive the Core.
/// Thread safety: every method may be called from several threads at once.
/// Errors: plugin errors are rethrown as vireo::Exception of the same kind, prefixed with the
/// device name (a foreign exception as the general kind, also naming the operation; see
/// PluginObject); a default-constructed handle throws InvalidArgument.
class RemoteContext {
  public:
    RemoteContext() = default;
    /// Used by the core: adopts a plugin's context; `so` keeps the plugin library loaded.
    RemoteContext(std::shared_ptr<sdk::IRemoteContext> impl, std::shared_ptr<void> so);
    ~RemoteContext();
    RemoteContext(const RemoteContext&) = default;
    RemoteContext(RemoteContext&&) noexcept = default;
    /// Assignments release the old implementation before the old library reference
    /// (PluginObject's assignment order).
    RemoteContext& operator=(const RemoteContext& other);
    RemoteContext& operator=(RemoteContext&& other) noexcept;

    /// The full device name, "MOCK_REMOTE.1".
    std::string get_device_name() const;
    /// The context's parameters (device specific).
    AnyMap get_params() const;
    /// A tensor in device memory (data() is nullptr; use copy_to). Throws InvalidArgument for
    /// types or shapes the device cannot hold.
    Tensor create_tensor(element::Type type, const Shape& shape, const AnyMap& params = {});
    /// A host tensor suited to fast transfers to this device.
    Tensor create_host_tensor(element::Type type, const Shape& shape);

    explicit operator bool() const { return static_cast<bool>(m_object); }
    const std::shared_ptr<sdk::IRemoteContext>& impl() const { return m_object.impl(); }
    const std::shared_ptr<void>& shared_object() const { return m_object.module(); }

  private:
    const PluginObject<sdk::IRemoteContext>& checked() const;

    PluginObject<sdk::IRemoteContext> m_object;  // named by its device name
};

}  // namespace vireo
