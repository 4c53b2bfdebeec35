// The one place calls into plugin code are guarded: an exception thrown by a plugin is rethrown
// as a vireo::Exception of the same kind with the device name in front.
#pragma once

#include <exception>
#include <string>
#include <utility>

#include "vireo/exception.hpp"

namespace vireo::runtime {

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

}  // namespace vireo::runtime
