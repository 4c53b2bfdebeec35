// Declares the thin layer over dlopen/dlsym/dladdr the runtime's module loaders use (plugins,
// extensions, frontend modules).
#pragma once

#include <memory>
#include <string>

namespace vireo::runtime {

/// A loaded library: the dlopen handle, dlclose'd when the last copy goes. Every object made
/// by a plugin holds one of these, declared before its implementation pointer.
using SharedLibrary = std::shared_ptr<void>;

/// dlopen(path, RTLD_NOW | RTLD_LOCAL). On failure returns null and sets `error` to dlerror().
SharedLibrary open_shared_library(const std::string& path, std::string& error);
/// dlsym; null if missing, with dlerror() in `error`.
void* find_symbol(const SharedLibrary& library, const char* name, std::string& error);
/// The directory libvireo itself was loaded from (found with dladdr); empty if unknown.
std::string runtime_library_directory();

}  // namespace vireo::runtime
