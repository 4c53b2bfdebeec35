// Implements detail::rethrow_plugin_error, the guard behind PluginObject::call.
#include "vireo/plugin_object.hpp"

namespace vireo::detail {

void rethrow_plugin_error(std::exception_ptr error, const std::string& name,
                          std::string_view what) {
    try {
        std::rethrow_exception(error);
    } catch (const Exception&) {
        // The plugin worded it for the user: keep the message, name the object once.
        rethrow_with_context(error, name);
    } catch (...) {
        rethrow_with_context(error, what.empty() ? name : name + ": " + std::string(what));
    }
}

}  // namespace vireo::detail
