// Declares FormatRegistry: the model formats the runtime reads (its own IR, and what frontend
// modules declare), how a model's format is detected, and the loading of frontend modules.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "shared_library.hpp"
#include "vireo/model.hpp"
#include "vireo/tensor.hpp"

namespace vireo::runtime {

/// A format the registry reads: what detects it and what reads it.
struct ModelFormatReader {
    std::string name;                     ///< "IR", "ONNX": what messages and find() use
    std::vector<std::string> extensions;  ///< ".xml": chosen by extension when no probe claims
    /// True when a model's first bytes (at most kProbeBytes) are this format's; null: extension
    /// only.
    std::function<bool(const unsigned char* head, size_t size)> probe;
    /// Reads a file. `weights_path` is IR's .bin (empty: the reader's default); a format with no
    /// separate weights refuses a non-empty one (InvalidArgument).
    std::function<std::shared_ptr<Model>(const std::string& path, const std::string& weights_path,
                                         bool enable_mmap)>
        read_file;
    /// Reads a model held in memory (`size` bytes at `data`); `weights` as for read_file (an
    /// empty Tensor: none).
    std::function<std::shared_ptr<Model>(const void* data, size_t size, const Tensor& weights)>
        read_memory;
    /// The supported operations as Markdown table rows; null when the frontend does not list them.
    std::function<std::string()> supported_ops;
    std::string origin;  ///< "built in" or "frontend module '<path>'", for messages
};

/// Thread-safe. Formats are asked in the order they were added; a module's formats follow the
/// built-in ones. Modules are loaded on first need and never unloaded while the registry lives
/// (a Model a module made may hold memory whose release runs the module's code).
class FormatRegistry {
  public:
    /// How many leading bytes the probes see.
    static constexpr size_t kProbeBytes = 64;

    /// `built_in`: formats libvireo reads itself, asked first. `modules`: frontend module files,
    /// loaded when a model is not of a format known so far (in order). `searched`: where that
    /// list came from, said when no module was found.
    FormatRegistry(std::vector<ModelFormatReader> built_in, std::vector<std::string> modules,
                   std::string searched);
    ~FormatRegistry();

    /// Adds a format read by libvireo itself (after the known ones). Throws InvalidArgument if
    /// its name is taken.
    void add(ModelFormatReader format);

    /// The format of the file at `path`: the first format whose probe claims its first bytes
    /// (loading the pending modules when no known one does), else the format listing its
    /// extension, else for an empty file the first format added (whose reader says what is
    /// wrong). Reads at most kProbeBytes, without blocking on a FIFO. Throws NotFound if `path`
    /// does not exist; InvalidArgument if it is not a regular file or cannot be read, or if no
    /// format claims it (the message names the path and lists the known formats); Unavailable in
    /// that last case when a frontend module could not be loaded (the message names the module
    /// and why).
    std::shared_ptr<const ModelFormatReader> detect(const std::string& path);
    /// The same for a model in memory (probes only); `size` 0 is InvalidArgument.
    std::shared_ptr<const ModelFormatReader> detect(const void* data, size_t size);
    /// The format called `name`, loading the pending modules if no known one is. Throws
    /// Unavailable naming the format, the known formats and each module that failed to load.
    std::shared_ptr<const ModelFormatReader> find(const std::string& name);
    /// The formats known so far, as messages list them: "IR (.xml), ONNX (.onnx)".
    std::string known_formats() const;

    /// The process's registry: the IR reader (the core's own format), then the frontend modules
    /// named by the environment variable VIREO_FRONTENDS (':'-separated paths; VIREO_ONNX_FRONTEND,
    /// its older name, for one path) or else every libvireo_*_frontend.so beside libvireo, in name
    /// order.
    static FormatRegistry& process();

  private:
    std::string list_formats_locked() const;
    std::shared_ptr<const ModelFormatReader> probe_locked(const unsigned char* head,
                                                          size_t size) const;
    /// Loads every pending module; a failed one stays pending (a later call tries again) and its
    /// message is added to `failures`.
    void load_pending_locked(std::vector<std::string>& failures);
    void load_module_locked(const std::string& path);
    [[noreturn]] void throw_unknown(const std::string& what,
                                    const std::vector<std::string>& failures) const;

    mutable std::mutex m_mutex;  // guards everything below
    std::vector<std::shared_ptr<const ModelFormatReader>> m_formats;
    std::vector<std::string> m_pending;    // module paths not loaded yet
    std::string m_searched;                // where m_pending came from
    std::vector<SharedLibrary> m_modules;  // loaded modules, kept until the registry goes
};

}  // namespace vireo::runtime
