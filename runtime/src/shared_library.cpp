// Implements the dlopen/dlsym/dladdr layer of the runtime's module loaders.
#include "shared_library.hpp"

#include <dlfcn.h>

#include <filesystem>

namespace vireo::runtime {

SharedLibrary open_shared_library(const std::string& path, std::string& error) {
    dlerror();  // clear a stale error
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* text = dlerror();
        error = text ? text : "unknown dlopen error";
        return nullptr;
    }
    return SharedLibrary(handle, [](void* h) { dlclose(h); });
}

void* find_symbol(const SharedLibrary& library, const char* name, std::string& error) {
    dlerror();
    void* symbol = dlsym(library.get(), name);
    if (!symbol) {
        const char* text = dlerror();
        error = text ? text : "symbol is null";
    }
    return symbol;
}

namespace {

std::string find_runtime_library_directory() {
    // Any address inside libvireo names the library; this function's own is the simplest.
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&find_runtime_library_directory), &info) == 0 ||
        !info.dli_fname)
        return {};
    std::error_code ec;
    std::filesystem::path path = std::filesystem::canonical(info.dli_fname, ec);
    if (ec) path = std::filesystem::absolute(info.dli_fname, ec);
    return path.parent_path().string();
}

// Resolved once, when libvireo is loaded: dladdr gives the name the library was loaded under,
// which is relative when it was found through a relative LD_LIBRARY_PATH entry. Resolving it
// later would resolve it against whatever directory the application has changed to since, and
// load plugins.xml, plugins and the ONNX module from there (a library planted there would run).
const std::string g_runtime_library_directory = find_runtime_library_directory();

}  // namespace

std::string runtime_library_directory() {
    return g_runtime_library_directory;
}

}  // namespace vireo::runtime
