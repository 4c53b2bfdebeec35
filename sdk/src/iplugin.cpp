// Implements IPlugin's optional methods (each throws NotImplemented naming the device) and
// get_core().
#include "vireo/sdk/iplugin.hpp"

#include "vireo/exception.hpp"
#include "vireo/sdk/icore.hpp"

namespace vireo::sdk {

std::shared_ptr<ICore> IPlugin::get_core() const {
    std::shared_ptr<ICore> core = m_core.lock();
    if (!core)
        throw_error<Unavailable>("device '", get_device_name(),
                                 "': the Core that loaded this plugin is gone (or the plugin was "
                                 "not created by a Core), so it cannot call other devices");
    return core;
}

std::shared_ptr<ICompiledModel> IPlugin::compile_model(
    const std::shared_ptr<const Model>&, const AnyMap&,
    const std::shared_ptr<IRemoteContext>&) const {
    throw_error<NotImplemented>("device '", get_device_name(),
                                "' cannot compile a model for a remote context");
}

std::shared_ptr<IRemoteContext> IPlugin::create_context(const AnyMap&) const {
    throw_error<NotImplemented>("device '", get_device_name(),
                                "' has no remote contexts (create_context)");
}

std::shared_ptr<IRemoteContext> IPlugin::get_default_context(const AnyMap&) const {
    throw_error<NotImplemented>("device '", get_device_name(),
                                "' has no remote contexts (get_default_context)");
}

}  // namespace vireo::sdk
