// Implements IPlugin's optional methods: each throws NotImplemented naming the device.
#include "vireo/sdk/iplugin.hpp"

#include "vireo/exception.hpp"

namespace vireo::sdk {

std::shared_ptr<ICompiledModel> IPlugin::compile_model(const std::shared_ptr<const Model>&, const AnyMap&,
                                                       const std::shared_ptr<IRemoteContext>&) const {
    throw_error<NotImplemented>("device '", get_device_name(), "' cannot compile a model for a remote context");
}

std::shared_ptr<IRemoteContext> IPlugin::create_context(const AnyMap&) const {
    throw_error<NotImplemented>("device '", get_device_name(), "' has no remote contexts (create_context)");
}

std::shared_ptr<IRemoteContext> IPlugin::get_default_context(const AnyMap&) const {
    throw_error<NotImplemented>("device '", get_device_name(), "' has no remote contexts (get_default_context)");
}

}  // namespace vireo::sdk
