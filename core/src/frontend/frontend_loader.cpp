// Implements vireo/frontend.hpp: format detection and the ONNX frontend module, loaded with dlopen
// on first use so that applications reading only IR never map protobuf.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "frontend/frontend_entry.hpp"
#include "shared_library.hpp"
#include "vireo/exception.hpp"
#include "vireo/frontend.hpp"
#include "vireo/version.hpp"

namespace vireo {
namespace {

constexpr const char* kOnnxModuleName = "libvireo_onnx_frontend.so";

// Field tags a serialized ModelProto can start with: ir_version (1, varint), producer_name (2),
// producer_version (3), domain (4), model_version (5, varint), doc_string (6), graph (7),
// opset_import (8), metadata_props (14); training_info (20) and functions (25) take two bytes.
bool starts_like_model_proto(const unsigned char* p, size_t n) {
    if (n == 0) return false;
    switch (p[0]) {
        case 0x08:
        case 0x12:
        case 0x1a:
        case 0x22:
        case 0x28:
        case 0x32:
        case 0x3a:
        case 0x42:
        case 0x72:
            return true;
        case 0xa2:
        case 0xca:
            return n > 1 && p[1] == 0x01;
        default:
            return false;
    }
}

enum class Sniffed { kIr, kOnnx, kUnknown };

Sniffed sniff(const void* data, size_t size) {
    const auto* p = static_cast<const unsigned char*>(data);
    size_t i = 0;
    if (size >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) i = 3;  // UTF-8 BOM
    size_t j = i;
    while (j < size && (p[j] == ' ' || p[j] == '\t' || p[j] == '\r' || p[j] == '\n')) ++j;
    if (j < size && p[j] == '<') return Sniffed::kIr;
    if (i == 0 && starts_like_model_proto(p, size)) return Sniffed::kOnnx;
    return Sniffed::kUnknown;
}

struct LoadedFrontend {
    runtime::SharedLibrary library;
    const frontend::FrontendEntry* entry = nullptr;
};

std::string module_path() {
    if (const char* path = std::getenv("VIREO_ONNX_FRONTEND"); path && *path) return path;
    const std::string dir = runtime::runtime_library_directory();
    return dir.empty() ? std::string(kOnnxModuleName) : dir + "/" + kOnnxModuleName;
}

// Loaded once and kept for the life of the process: Constants the module made may hold memory
// whose release runs its code (the parsed protobuf), so it must never be unloaded. A failed load
// is not remembered, so a later call (after the file is installed, say) tries again.
const frontend::FrontendEntry& onnx_frontend() {
    static std::mutex mutex;
    static LoadedFrontend loaded;
    std::lock_guard<std::mutex> lock(mutex);
    if (loaded.entry) return *loaded.entry;

    const std::string path = module_path();
    const std::string who = "ONNX frontend '" + path + "'";
    struct stat st {};
    if (path.find('/') != std::string::npos) {
        if (::stat(path.c_str(), &st) != 0)
            throw_error<Unavailable>(who, " is not installed (", std::strerror(errno),
                                     "); reading ONNX models needs it next to libvireo");
        if (!S_ISREG(st.st_mode)) throw_error<Unavailable>(who, " is not a regular file");
    }
    std::string error;
    runtime::SharedLibrary library = runtime::open_shared_library(path, error);
    if (!library) throw_error<Unavailable>(who, " cannot be loaded: ", error);
    void* symbol = runtime::find_symbol(library, VIREO_FRONTEND_ENTRY_SYMBOL, error);
    if (!symbol)
        throw_error<Unavailable>(who, ": no entry symbol '", VIREO_FRONTEND_ENTRY_SYMBOL,
                                 "': ", error);
    const auto* entry = reinterpret_cast<frontend::FrontendEntryFunction>(symbol)();
    if (!entry) throw_error<Unavailable>(who, ": the entry point returned nothing");
    if (entry->abi_version != VIREO_FRONTEND_ABI_VERSION)
        throw_error<Unavailable>(who, ": built for frontend ABI version ", entry->abi_version,
                                 ", this runtime implements version ", VIREO_FRONTEND_ABI_VERSION);
    const std::string tag = entry->toolchain_tag ? entry->toolchain_tag : "(none)";
    if (tag != VIREO_TOOLCHAIN_TAG)
        throw_error<Unavailable>(who, ": built with C++ library '", tag, "', this runtime with '",
                                 VIREO_TOOLCHAIN_TAG, "'");
    if (!entry->read_file || !entry->read_buffer || !entry->supported_ops_markdown)
        throw_error<Unavailable>(who, ": the entry has no reader functions");
    loaded.library = std::move(library);
    loaded.entry = entry;
    return *entry;
}

}  // namespace

const char* to_string(ModelFormat format) {
    return format == ModelFormat::kOnnx ? "ONNX" : "IR";
}

ModelFormat detect_model_format(const void* data, size_t size) {
    if (size == 0 || !data) throw_error<InvalidArgument>("model in memory: it is empty");
    switch (sniff(data, size)) {
        case Sniffed::kIr:
            return ModelFormat::kIr;
        case Sniffed::kOnnx:
            return ModelFormat::kOnnx;
        default:
            throw_error<InvalidArgument>(
                "model in memory: neither IR XML (which starts with '<') nor an ONNX ModelProto");
    }
}

ModelFormat detect_model_format(const std::string& path) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) throw_error<NotFound>("model '", path, "' does not exist");
        throw_error<InvalidArgument>("model '", path, "' cannot be opened: ", std::strerror(errno));
    }
    struct stat st {};
    unsigned char head[16];
    ssize_t got = -1;
    int error = 0;
    if (::fstat(fd, &st) != 0) {
        error = errno;
    } else if (S_ISREG(st.st_mode)) {
        got = ::pread(fd, head, sizeof head, 0);
        if (got < 0) error = errno;
    }
    ::close(fd);
    if (error)
        throw_error<InvalidArgument>("model '", path, "' cannot be read: ", std::strerror(error));
    if (!S_ISREG(st.st_mode))
        throw_error<InvalidArgument>("model '", path, "' is not a regular file");

    const std::string ext = std::filesystem::path(path).extension().string();
    const Sniffed found = sniff(head, static_cast<size_t>(got));
    if (found == Sniffed::kIr) return ModelFormat::kIr;
    if (found == Sniffed::kOnnx || ext == ".onnx") return ModelFormat::kOnnx;
    if (ext == ".xml" || got == 0) return ModelFormat::kIr;  // the IR reader names what is wrong
    throw_error<InvalidArgument>(
        "model '", path, "': neither IR XML (which starts with '<') nor an ONNX ModelProto");
}

std::shared_ptr<Model> read_onnx_model(const std::string& path, bool enable_mmap) {
    const auto& entry = onnx_frontend();
    return entry.read_file(path, enable_mmap);
}

std::shared_ptr<Model> read_onnx_model(const void* data, size_t size) {
    const auto& entry = onnx_frontend();
    return entry.read_buffer(data, size);
}

}  // namespace vireo

namespace vireo {
std::string onnx_supported_ops_markdown() {
    return onnx_frontend().supported_ops_markdown();
}
}  // namespace vireo
