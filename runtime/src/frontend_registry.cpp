// Implements FormatRegistry: format detection by content and extension, the IR format (the
// core's reader), and frontend modules loaded with dlopen on first need, so that applications
// reading only IR never map a frontend's dependencies (protobuf for ONNX).
#include "frontend_registry.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "ir/read_options.hpp"
#include "vireo/exception.hpp"
#include "vireo/ir.hpp"
#include "vireo/sdk/frontend_entry.hpp"
#include "vireo/version.hpp"

namespace vireo::runtime {
namespace {

constexpr const char* kModulesVariable = "VIREO_FRONTENDS";
constexpr const char* kOlderModuleVariable = "VIREO_ONNX_FRONTEND";  // one path; kept for scripts
constexpr const char* kModulePrefix = "libvireo_";
constexpr const char* kModuleSuffix = "_frontend.so";

// IR XML: '<' after an optional UTF-8 byte-order mark and white space.
bool looks_like_xml(const unsigned char* p, size_t n) {
    size_t i = n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF ? 3 : 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n')) ++i;
    return i < n && p[i] == '<';
}

ModelFormatReader ir_format() {
    ModelFormatReader f;
    f.name = "IR";
    f.extensions = {".xml"};
    f.probe = &looks_like_xml;
    f.read_file = [](const std::string& path, const std::string& bin_path, bool enable_mmap) {
        return ir::read_model_file(path, bin_path, ir::ReadOptions{enable_mmap});
    };
    f.read_memory = [](const void* data, size_t size, const Tensor& weights) {
        return vireo::read_model_from_string(std::string(static_cast<const char*>(data), size),
                                             weights);
    };
    f.origin = "built in";
    return f;
}

// A module's format, its readers wrapping the entry's functions.
ModelFormatReader module_format(const sdk::FrontendEntry& entry, const sdk::FrontendFormat& format,
                                const std::string& path) {
    ModelFormatReader f;
    f.name = format.name;
    for (auto* e = format.extensions; e && *e; ++e) f.extensions.emplace_back(*e);
    if (format.probe) f.probe = format.probe;
    const std::string name = f.name;
    auto* read_file = entry.read_file;
    auto* read_buffer = entry.read_buffer;
    f.read_file = [name, read_file](const std::string& model, const std::string& weights_path,
                                    bool enable_mmap) {
        if (!weights_path.empty())
            throw_error<InvalidArgument>("model '", model, "' is ", name, ": a weights path ('",
                                         weights_path, "') applies to IR only (a ", name,
                                         " model names its weights itself)");
        return read_file(model, enable_mmap);
    };
    f.read_memory = [name, read_buffer](const void* data, size_t size, const Tensor& weights) {
        if (weights)
            throw_error<InvalidArgument>("model in memory is ", name,
                                         ": a weights tensor applies to IR only");
        return read_buffer(data, size);
    };
    if (entry.supported_ops_markdown) f.supported_ops = entry.supported_ops_markdown;
    f.origin = "frontend module '" + path + "'";
    return f;
}

std::vector<std::string> split_paths(const std::string& text) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t colon = std::min(text.find(':', start), text.size());
        if (colon > start) out.push_back(text.substr(start, colon - start));
        start = colon + 1;
    }
    return out;
}

// The modules of the process registry, and a phrase saying where they came from.
std::pair<std::vector<std::string>, std::string> process_modules() {
    for (const char* variable : {kModulesVariable, kOlderModuleVariable})
        if (const char* value = std::getenv(variable); value && *value)
            return {split_paths(value), std::string("the environment variable ") + variable};
    const std::string dir = runtime_library_directory();
    const std::string searched = std::string(kModulePrefix) + "*" + kModuleSuffix + " in '" +
                                 (dir.empty() ? "(unknown)" : dir) + "'";
    std::vector<std::string> found;
    std::error_code ec;
    if (!dir.empty()) {
        for (const auto& item : std::filesystem::directory_iterator(dir, ec)) {
            const std::string file = item.path().filename().string();
            if (file.size() > std::strlen(kModulePrefix) + std::strlen(kModuleSuffix) &&
                file.rfind(kModulePrefix, 0) == 0 &&
                file.compare(file.size() - std::strlen(kModuleSuffix), std::string::npos,
                             kModuleSuffix) == 0)
                found.push_back(item.path().string());
        }
    }
    std::sort(found.begin(), found.end());
    return {found, searched};
}

std::string lower(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

}  // namespace

FormatRegistry::FormatRegistry(std::vector<ModelFormatReader> built_in,
                               std::vector<std::string> modules, std::string searched)
    : m_pending(std::move(modules)), m_searched(std::move(searched)) {
    for (auto& format : built_in) add(std::move(format));
}

FormatRegistry::~FormatRegistry() = default;

void FormatRegistry::add(ModelFormatReader format) {
    std::lock_guard<std::mutex> lock(m_mutex);
    for (const auto& f : m_formats)
        if (f->name == format.name)
            throw_error<InvalidArgument>("model format '", format.name, "' of ", format.origin,
                                         " is already read by ", f->origin);
    m_formats.push_back(std::make_shared<const ModelFormatReader>(std::move(format)));
}

std::string FormatRegistry::known_formats() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return list_formats_locked();
}

std::string FormatRegistry::list_formats_locked() const {
    std::string out;
    for (const auto& f : m_formats) {
        out += (out.empty() ? "" : ", ") + f->name;
        std::string extensions;
        for (const auto& e : f->extensions) extensions += (extensions.empty() ? "" : ", ") + e;
        if (!extensions.empty()) out += " (" + extensions + ")";
    }
    return out.empty() ? "none" : out;
}

void FormatRegistry::load_module_locked(const std::string& path) {
    const std::string who = "frontend module '" + path + "'";
    struct stat st {};
    if (path.find('/') != std::string::npos) {
        if (::stat(path.c_str(), &st) != 0)
            throw_error<Unavailable>(who, " is not installed (", std::strerror(errno), ")");
        if (!S_ISREG(st.st_mode)) throw_error<Unavailable>(who, " is not a regular file");
    }
    std::string error;
    SharedLibrary library = open_shared_library(path, error);
    if (!library) throw_error<Unavailable>(who, " cannot be loaded: ", error);
    void* symbol = find_symbol(library, VIREO_FRONTEND_ENTRY_SYMBOL, error);
    if (!symbol)
        throw_error<Unavailable>(who, ": no entry symbol '", VIREO_FRONTEND_ENTRY_SYMBOL,
                                 "': ", error);
    const auto* entry = reinterpret_cast<sdk::FrontendEntryFunction>(symbol)();
    if (!entry) throw_error<Unavailable>(who, ": the entry point returned nothing");
    if (entry->abi_version != VIREO_FRONTEND_ABI_VERSION)
        throw_error<Unavailable>(who, ": built for frontend ABI version ", entry->abi_version,
                                 ", this runtime implements version ", VIREO_FRONTEND_ABI_VERSION);
    const std::string tag = entry->toolchain_tag ? entry->toolchain_tag : "(none)";
    if (tag != VIREO_TOOLCHAIN_TAG)
        throw_error<Unavailable>(who, ": built with C++ library '", tag, "', this runtime with '",
                                 VIREO_TOOLCHAIN_TAG, "'");
    if (!entry->read_file || !entry->read_buffer)
        throw_error<Unavailable>(who, ": the entry has no reader functions");
    if (!entry->formats || entry->format_count == 0)
        throw_error<Unavailable>(who, ": the entry declares no format");
    std::vector<ModelFormatReader> formats;
    for (size_t i = 0; i < entry->format_count; ++i) {
        const sdk::FrontendFormat& format = entry->formats[i];
        if (!format.name || !*format.name)
            throw_error<Unavailable>(who, ": format #", i, " has no name");
        for (const auto& f : m_formats)
            if (f->name == format.name)
                throw_error<Unavailable>(who, ": format '", format.name, "' is already read by ",
                                         f->origin);
        formats.push_back(module_format(*entry, format, path));
    }
    m_modules.push_back(std::move(library));
    for (auto& f : formats) m_formats.push_back(std::make_shared<const ModelFormatReader>(f));
}

void FormatRegistry::load_pending_locked(std::vector<std::string>& failures) {
    std::vector<std::string> still_pending;
    for (const std::string& path : m_pending) {
        try {
            load_module_locked(path);
        } catch (const Exception& e) {
            failures.push_back(e.what());
            still_pending.push_back(path);
        }
    }
    m_pending = std::move(still_pending);
}

std::shared_ptr<const ModelFormatReader> FormatRegistry::probe_locked(const unsigned char* head,
                                                                      size_t size) const {
    for (const auto& f : m_formats)
        if (f->probe && f->probe(head, size)) return f;
    return nullptr;
}

void FormatRegistry::throw_unknown(const std::string& what,
                                   const std::vector<std::string>& failures) const {
    std::string text =
        what + ": not a model format Vireo reads; known formats: " + list_formats_locked();
    if (m_modules.empty() && failures.empty())
        text += "; no frontend module (looked for " + m_searched + ")";
    for (const auto& failure : failures) text += "; " + failure;
    if (!failures.empty()) throw Unavailable(text);
    throw InvalidArgument(text);
}

std::shared_ptr<const ModelFormatReader> FormatRegistry::detect(const void* data, size_t size) {
    if (size == 0 || !data) throw_error<InvalidArgument>("model in memory: it is empty");
    const auto* head = static_cast<const unsigned char*>(data);
    const size_t n = std::min(size, kProbeBytes);
    std::lock_guard<std::mutex> lock(m_mutex);
    if (auto f = probe_locked(head, n)) return f;
    std::vector<std::string> failures;
    load_pending_locked(failures);
    if (auto f = probe_locked(head, n)) return f;
    throw_unknown("model in memory", failures);
}

std::shared_ptr<const ModelFormatReader> FormatRegistry::detect(const std::string& path) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) throw_error<NotFound>("model '", path, "' does not exist");
        throw_error<InvalidArgument>("model '", path, "' cannot be opened: ", std::strerror(errno));
    }
    struct stat st {};
    unsigned char head[kProbeBytes];
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
    const auto size = static_cast<size_t>(got);

    std::lock_guard<std::mutex> lock(m_mutex);
    if (auto f = probe_locked(head, size)) return f;
    std::vector<std::string> failures;
    load_pending_locked(failures);
    if (auto f = probe_locked(head, size)) return f;
    const std::string extension = lower(std::filesystem::path(path).extension().string());
    for (const auto& f : m_formats)
        if (!extension.empty() &&
            std::find(f->extensions.begin(), f->extensions.end(), extension) != f->extensions.end())
            return f;
    if (size == 0 && !m_formats.empty()) return m_formats.front();
    throw_unknown("model '" + path + "'", failures);
}

std::shared_ptr<const ModelFormatReader> FormatRegistry::find(const std::string& name) {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto known = [&]() -> std::shared_ptr<const ModelFormatReader> {
        for (const auto& f : m_formats)
            if (f->name == name) return f;
        return nullptr;
    };
    if (auto f = known()) return f;
    std::vector<std::string> failures;
    load_pending_locked(failures);
    if (auto f = known()) return f;
    std::string text =
        "no frontend reads " + name + " models; known formats: " + list_formats_locked();
    if (m_modules.empty() && failures.empty())
        text += "; no frontend module (looked for " + m_searched + ")";
    for (const auto& failure : failures) text += "; " + failure;
    throw Unavailable(text);
}

FormatRegistry& FormatRegistry::process() {
    // Built once; destroyed at exit (unloading the modules), as static objects of libvireo are.
    static FormatRegistry registry = [] {
        auto [modules, searched] = process_modules();
        return FormatRegistry({ir_format()}, std::move(modules), std::move(searched));
    }();
    return registry;
}

}  // namespace vireo::runtime
