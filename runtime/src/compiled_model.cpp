// Implements CompiledModel: the public handle over a plugin's ICompiledModel.
#include "vireo/compiled_model.hpp"

#include <algorithm>
#include <sstream>

#include "blob_format.hpp"
#include "guard.hpp"
#include "port_lookup.hpp"
#include "vireo/sdk/iasync_infer_request.hpp"
#include "vireo/sdk/icompiled_model.hpp"
#include "vireo/sdk/iplugin.hpp"

namespace vireo {
using runtime::guarded;

CompiledModel::CompiledModel(std::shared_ptr<sdk::ICompiledModel> impl, std::shared_ptr<void> so,
                             bool loaded_from_cache)
    : m_so(std::move(so)), m_impl(std::move(impl)), m_loaded_from_cache(loaded_from_cache) {}

CompiledModel::~CompiledModel() = default;

CompiledModel& CompiledModel::operator=(const CompiledModel& other) {
    m_impl = other.m_impl;
    m_so = other.m_so;
    m_loaded_from_cache = other.m_loaded_from_cache;
    return *this;
}

CompiledModel& CompiledModel::operator=(CompiledModel&& other) noexcept {
    m_impl = std::move(other.m_impl);
    m_so = std::move(other.m_so);
    m_loaded_from_cache = other.m_loaded_from_cache;
    return *this;
}

const std::shared_ptr<sdk::ICompiledModel>& CompiledModel::checked_impl() const {
    if (!m_impl)
        throw_error<InvalidArgument>("CompiledModel is empty (default-constructed or moved from)");
    return m_impl;
}

std::string CompiledModel::device_name() const {
    auto plugin = m_impl ? m_impl->get_plugin() : nullptr;
    return plugin ? plugin->get_device_name() : std::string("compiled model");
}

const OutputVector& CompiledModel::inputs() const {
    return checked_impl()->inputs();
}
const OutputVector& CompiledModel::outputs() const {
    return checked_impl()->outputs();
}

Output CompiledModel::input() const {
    return runtime::single_port(inputs(), "input");
}
Output CompiledModel::input(size_t index) const {
    return runtime::port_at(inputs(), index, "input");
}
Output CompiledModel::input(const std::string& tensor_name) const {
    return runtime::port_named(inputs(), tensor_name, "input");
}
Output CompiledModel::output() const {
    return runtime::single_port(outputs(), "output");
}
Output CompiledModel::output(size_t index) const {
    return runtime::port_at(outputs(), index, "output");
}
Output CompiledModel::output(const std::string& tensor_name) const {
    return runtime::port_named(outputs(), tensor_name, "output");
}

InferRequest CompiledModel::create_infer_request() const {
    const auto& impl = checked_impl();
    auto request =
        guarded([this] { return device_name(); }, [&] { return impl->create_infer_request(); });
    if (!request) throw_error<Exception>(device_name(), ": create_infer_request returned null");
    return InferRequest(std::move(request), m_so, impl, m_loaded_from_cache);
}

void CompiledModel::export_model(std::ostream& blob) const {
    const auto& impl = checked_impl();
    std::ostringstream payload(std::ios::binary);
    guarded([this] { return device_name(); }, [&] { impl->export_model(payload); });
    auto plugin = impl->get_plugin();
    if (!plugin) throw_error<Exception>("export_model: the compiled model has no plugin");
    runtime::write_blob(blob, runtime::blob_identity_of(plugin->get_version()), payload.str());
}

std::shared_ptr<const Model> CompiledModel::get_runtime_model() const {
    const auto& impl = checked_impl();
    auto model =
        guarded([this] { return device_name(); }, [&] { return impl->get_runtime_model(); });
    if (!model) return model;
    // The model may hold plugin types (rt_info values): pair it with the library, which an
    // aliasing shared_ptr keeps alive until after the model is released.
    struct Holder {
        std::shared_ptr<void> so;
        std::shared_ptr<const Model> model;
    };
    auto holder = std::make_shared<Holder>(Holder{m_so, model});
    return std::shared_ptr<const Model>(holder, holder->model.get());
}

void CompiledModel::set_property(const AnyMap& properties) {
    const auto& impl = checked_impl();
    guarded([this] { return device_name(); }, [&] { impl->set_property(properties); });
}

Any CompiledModel::get_property(const std::string& name) const {
    const auto& impl = checked_impl();
    if (name == loaded_from_cache.name()) return m_loaded_from_cache;
    Any value = guarded([this] { return device_name(); }, [&] { return impl->get_property(name); });
    if (name == supported_properties.name()) {
        // loaded_from_cache is answered here, so it is always supported.
        auto names = value.as<std::vector<PropertyName>>();
        if (std::find(names.begin(), names.end(), loaded_from_cache.name()) == names.end())
            names.emplace_back(loaded_from_cache.name(), PropertyMutability::RO);
        value = Any(std::move(names));
    }
    value.set_shared_object(m_so);
    return value;
}

}  // namespace vireo
