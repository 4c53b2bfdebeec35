// Guards a call into plugin code that has no PluginObject to go through (the core's remote tensor
// paths, the runtime's Plugin wrapper): an exception thrown by the plugin is rethrown as a
// vireo::Exception of the same kind with a context in front. Public handles use PluginObject.
#pragma once

#include <exception>
#include <string>
#include <utility>

#include "vireo/exception.hpp"

namespace vireo::detail {

/// Runs `call` (which calls into a plugin) and returns its result. Whatever it throws is
/// rethrown by rethrow_with_context: same ErrorKind (foreign exceptions become kGeneral), message
/// prefixed with `context()`. `context` is only evaluated on failure.
template <typename Context, typename Call>
decltype(auto) guarded(const Context& context, Call&& call) {
    try {
        return std::forward<Call>(call)();
    } catch (...) {
        rethrow_with_context(std::current_exception(), context());
    }
}

}  // namespace vireo::detail
