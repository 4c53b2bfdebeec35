// Implements extension loading (Core::add_extension) and the ONNX custom-op mapping table.
#include "extension_loader.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include "shared_library.hpp"
#include "vireo/exception.hpp"
#include "vireo/extension.hpp"
#include "vireo/op_registry.hpp"

namespace vireo {
namespace runtime {
namespace {

struct Loaded {
    std::mutex mutex;
    std::set<std::string> paths;           // canonical paths registered
    std::vector<SharedLibrary> libraries;  // never unloaded: registries point into them
};

Loaded& loaded() {
    static Loaded* instance = new Loaded;  // outlives every static that may hold extension code
    return *instance;
}

}  // namespace

void load_extension(const std::string& path) {
    const std::string who = "extension '" + path + "'";
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (errno == ENOENT) throw_error<NotFound>(who, " does not exist");
        throw_error<InvalidArgument>(who, " cannot be read: ", std::strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) throw_error<InvalidArgument>(who, " is not a regular file");
    std::error_code ec;
    const std::string canonical = std::filesystem::canonical(path, ec).string();
    auto& state = loaded();
    std::lock_guard<std::mutex> lock(state.mutex);
    if (!ec && state.paths.count(canonical)) return;

    // A relative path without '/' would make dlopen search the library path: anchor it.
    const std::string open_path = path.find('/') == std::string::npos ? "./" + path : path;
    std::string error;
    SharedLibrary library = open_shared_library(open_path, error);
    if (!library) throw_error<InvalidArgument>(who, " cannot be loaded: ", error);
    void* symbol = find_symbol(library, VIREO_EXTENSION_ENTRY_SYMBOL, error);
    if (!symbol)
        throw_error<InvalidArgument>(
            who, ": no entry symbol '", VIREO_EXTENSION_ENTRY_SYMBOL,
            "' (not a Vireo extension, or built without VIREO_DEFINE_EXTENSION)");
    const extension::ExtensionEntry* entry = nullptr;
    try {
        entry = reinterpret_cast<extension::ExtensionEntryFunction>(symbol)();
    } catch (const std::exception& e) {
        throw_error<InvalidArgument>(who, ": the entry point '", VIREO_EXTENSION_ENTRY_SYMBOL,
                                     "' threw: ", e.what());
    } catch (...) {
        throw_error<InvalidArgument>(who, ": the entry point '", VIREO_EXTENSION_ENTRY_SYMBOL,
                                     "' threw a non-standard exception");
    }
    if (!entry) throw_error<InvalidArgument>(who, ": the entry point returned nothing");
    if (entry->abi_version != VIREO_EXTENSION_ABI_VERSION)
        throw_error<InvalidArgument>(who, ": built for extension ABI version ", entry->abi_version,
                                     ", this runtime implements version ",
                                     VIREO_EXTENSION_ABI_VERSION,
                                     "; rebuild it against this Vireo");
    const std::string tag = entry->toolchain_tag ? entry->toolchain_tag : "(none)";
    if (tag != VIREO_TOOLCHAIN_TAG)
        throw_error<InvalidArgument>(who, ": built with C++ library '", tag,
                                     "', this runtime with '", VIREO_TOOLCHAIN_TAG, "'");
    if (!entry->register_all)
        throw_error<InvalidArgument>(who, ": the entry has no register function");
    const std::string name = entry->name ? entry->name : "(unnamed)";
    // The library is kept before registering: whatever registered before a failure points into it.
    state.libraries.push_back(library);
    try {
        entry->register_all();
    } catch (const std::exception& e) {
        throw_error<InvalidArgument>(who, " (", name, "): registration failed: ", e.what());
    } catch (...) {
        throw_error<InvalidArgument>(who, " (", name,
                                     "): registration failed with a non-standard exception");
    }
    state.paths.insert(ec ? path : canonical);
}

}  // namespace runtime

namespace {

struct Mappings {
    std::mutex mutex;
    std::map<std::pair<std::string, std::string>, OnnxOpMapping> table;
};

Mappings& mappings() {
    static Mappings instance;
    return instance;
}

}  // namespace

void register_onnx_op_mapping(const OnnxOpMapping& mapping) {
    const std::string who = "ONNX op mapping " + mapping.onnx_domain + "::" + mapping.onnx_op_type;
    if (mapping.onnx_domain.empty() || mapping.onnx_domain == "ai.onnx" ||
        mapping.onnx_domain == "ai.onnx.ml")
        throw_error<InvalidArgument>(who,
                                     ": a custom op needs its own domain, not a standard ONNX one");
    if (mapping.onnx_op_type.empty())
        throw_error<InvalidArgument>(who, ": the ONNX op type is empty");
    if (!OpRegistry::instance().find(mapping.op_type, mapping.op_version, mapping.op_domain))
        throw_error<InvalidArgument>(who, ": the target op ", mapping.op_type, "-",
                                     mapping.op_version, " of domain '", mapping.op_domain,
                                     "' is not registered");
    auto& m = mappings();
    std::lock_guard<std::mutex> lock(m.mutex);
    if (!m.table.emplace(std::make_pair(mapping.onnx_domain, mapping.onnx_op_type), mapping).second)
        throw_error<InvalidArgument>(who, " is registered already");
}

std::optional<OnnxOpMapping> find_onnx_op_mapping(const std::string& onnx_domain,
                                                  const std::string& onnx_op_type) {
    auto& m = mappings();
    std::lock_guard<std::mutex> lock(m.mutex);
    auto it = m.table.find({onnx_domain, onnx_op_type});
    if (it == m.table.end()) return std::nullopt;
    return it->second;
}

}  // namespace vireo
