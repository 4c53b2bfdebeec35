// Declares PluginObject<T>: the one handle type behind every public handle to an object a plugin
// made (CompiledModel, InferRequest, RemoteContext, VariableState), and the guard on its calls.
#pragma once

#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "vireo/exception.hpp"

namespace vireo {

namespace detail {
/// Rethrows `error` (thrown by plugin code) as a vireo::Exception through rethrow_with_context:
/// a vireo::Exception keeps its kind and is prefixed with `name` (once: a plugin that already
/// wrote "NAME: " is not named twice); anything else becomes the general kind, prefixed with
/// `name` and `what` ("TEST: infer: vector::_M_range_check", "TEST: infer: unknown exception"),
/// because a foreign exception's text says nothing of what the plugin was asked to do.
[[noreturn]] void rethrow_plugin_error(std::exception_ptr error, const std::string& name,
                                       std::string_view what);
}  // namespace detail

/// An object a plugin made: its implementation, the handle of the module (shared library) whose
/// code implements it, and how to name it in an error. Every call into the implementation goes
/// through call(), which turns whatever the plugin throws into a vireo::Exception naming the
/// object.
///
/// Lifetime: the module handle outlives the implementation, on destruction and on copy or move
/// assignment (the implementation is released before the module reference that keeps its code
/// loaded). Copies share both. A default-constructed or moved-from object is empty.
///
/// Naming: either a fixed name (the device name, "TEMPLATE"), or a function reading it from the
/// implementation (e.g. IRemoteContext::get_device_name) with a fallback name used when that
/// function throws. name() lets nothing a plugin throws out, so an error being reported is never
/// replaced by a second one from the naming.
///
/// Thread safety: const members may be called from several threads at once (what the
/// implementation allows for the call itself is up to it); assignment must not race with use.
///
///     PluginObject<sdk::IRemoteContext> context(impl, module, read_device_name, "remote context");
///     Tensor t = context.call("create_tensor", [&](sdk::IRemoteContext& c) {
///         return c.create_tensor(type, shape, params);
///     });
template <typename T>
class PluginObject {
  public:
    /// Reads the name errors are prefixed with from the implementation. May throw.
    using NameReader = std::string (*)(const T& impl);

    PluginObject() = default;
    /// Adopts `impl`; `module` keeps its code loaded (may be null for objects of the core or of
    /// a test); errors are prefixed with `name`.
    PluginObject(std::shared_ptr<T> impl, std::shared_ptr<void> module, std::string name)
        : m_module(std::move(module)), m_impl(std::move(impl)), m_name(std::move(name)) {}
    /// As above, the name read by `read_name` when an error is reported; `fallback_name` if that
    /// throws too.
    PluginObject(std::shared_ptr<T> impl, std::shared_ptr<void> module, NameReader read_name,
                 std::string fallback_name)
        : m_module(std::move(module)),
          m_impl(std::move(impl)),
          m_name(std::move(fallback_name)),
          m_read_name(read_name) {}
    ~PluginObject() = default;
    PluginObject(const PluginObject&) = default;
    PluginObject(PluginObject&&) noexcept = default;
    // Not defaulted: a defaulted assignment assigns m_module first and could unload the code of
    // the implementation it is about to release.
    PluginObject& operator=(const PluginObject& other) {
        m_impl = other.m_impl;
        m_module = other.m_module;
        m_name = other.m_name;
        m_read_name = other.m_read_name;
        return *this;
    }
    PluginObject& operator=(PluginObject&& other) noexcept {
        m_impl = std::move(other.m_impl);
        m_module = std::move(other.m_module);
        m_name = std::move(other.m_name);
        m_read_name = other.m_read_name;
        return *this;
    }

    explicit operator bool() const noexcept { return m_impl != nullptr; }
    const std::shared_ptr<T>& impl() const noexcept { return m_impl; }
    /// The module handle (null when the object did not come from a loaded module).
    const std::shared_ptr<void>& module() const noexcept { return m_module; }

    /// The name errors are prefixed with. Never throws what the plugin throws: a NameReader that
    /// throws gives the fallback name.
    std::string name() const {
        if (m_read_name && m_impl) {
            try {
                return m_read_name(*m_impl);
            } catch (...) {
            }
        }
        return m_name;
    }

    /// Throws InvalidArgument "<handle> is empty (default-constructed or moved from)" when there
    /// is no implementation; `handle` names the public type ("CompiledModel").
    const PluginObject& checked(std::string_view handle) const {
        if (!m_impl)
            throw_error<InvalidArgument>(handle, " is empty (default-constructed or moved from)");
        return *this;
    }

    /// Runs f(implementation) and returns its result. What f throws is rethrown as described at
    /// detail::rethrow_plugin_error: same kind with name() in front, a foreign exception as the
    /// general kind with name() and `what` (the operation, "infer") in front. Throws
    /// InvalidArgument naming `what` when the object is empty (call checked() first to name the
    /// handle).
    template <typename F>
    decltype(auto) call(std::string_view what, F&& f) const {
        if (!m_impl) throw_error<InvalidArgument>(what, ": the plugin object is empty");
        try {
            return std::forward<F>(f)(*m_impl);
        } catch (...) {
            detail::rethrow_plugin_error(std::current_exception(), name(), what);
        }
    }

  private:
    // Members die in reverse order: m_module is declared first so that the module outlives
    // m_impl, whose code lives in it.
    std::shared_ptr<void> m_module;
    std::shared_ptr<T> m_impl;
    std::string m_name;  // the name, or the fallback when m_read_name is set
    NameReader m_read_name = nullptr;
};

}  // namespace vireo
