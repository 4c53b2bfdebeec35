// A module that loads fine but whose every method throws, each with another kind of error
// (and one with a non-standard exception), to prove the core's guard keeps kinds and adds
// the device name.
#include <stdexcept>

#include "vireo/sdk/plugin_entry.hpp"

namespace {

class ThrowingPlugin : public vireo::sdk::IPlugin {
  public:
    std::shared_ptr<vireo::sdk::ICompiledModel> compile_model(
        const std::shared_ptr<const vireo::Model>&, const vireo::AnyMap&) const override {
        throw std::runtime_error("compile_model exploded");
    }
    std::shared_ptr<vireo::sdk::ICompiledModel> import_model(std::istream&,
                                                             const vireo::AnyMap&) const override {
        vireo::throw_error<vireo::NotImplemented>("import_model is not implemented here");
    }
    vireo::sdk::SupportedOpsMap query_model(const std::shared_ptr<const vireo::Model>&,
                                            const vireo::AnyMap&) const override {
        vireo::throw_error<vireo::InvalidArgument>("query_model refuses this model");
    }
    void set_property(const vireo::AnyMap&) override {
        vireo::throw_error<vireo::Busy>("set_property: busy");
    }
    vireo::Any get_property(const std::string& name, const vireo::AnyMap&) const override {
        vireo::throw_error<vireo::Unavailable>("get_property('", name, "'): device unreachable");
    }
    std::shared_ptr<vireo::sdk::IRemoteContext> create_context(
        const vireo::AnyMap&) const override {
        throw 42;  // not even a std::exception
    }
    std::shared_ptr<vireo::sdk::IRemoteContext> get_default_context(
        const vireo::AnyMap&) const override {
        vireo::throw_error<vireo::Cancelled>("get_default_context cancelled");
    }
};

}  // namespace

VIREO_DEFINE_PLUGIN(ThrowingPlugin, "6.6.6")
