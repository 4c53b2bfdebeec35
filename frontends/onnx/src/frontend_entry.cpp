// Implements the ONNX frontend module's entry point: the format it declares (".onnx", a
// ModelProto's leading field tag), then parse a ModelProto (from a file or memory), check the
// opsets and that every op has a translator, and import the main graph.
#include "vireo/sdk/frontend_entry.hpp"

#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <limits>
#include <sstream>

#include "external_data.hpp"
#include "graph_importer.hpp"
#include "vireo/exception.hpp"
#include "vireo/version.hpp"

namespace vireo::onnx_import {
namespace {

// The newest default-domain opset the translators are written against (what libonnx 1.12 knows);
// a newer one is read with the newest translators and a warning in the model's rt_info.
constexpr int64_t kNewestOpset = 17;

// Protobuf's default message nesting limit (100) stops a valid model at about 33 levels of nested
// subgraphs (model > graph > node > attribute > graph ...: three levels each). 400 allows about
// 130, still far from what the importer's recursion and the stack can take.
constexpr int kRecursionLimit = 400;
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

constexpr const char* kNotAModel =
    ": not a valid ONNX ModelProto (truncated or corrupt protobuf, or messages nested deeper than "
    "400 levels: about 130 levels of subgraphs)";

std::shared_ptr<onnx::ModelProto> parse(const void* data, size_t size, const std::string& what) {
    if (size == 0) throw_error<InvalidArgument>(what, ": the file is empty");
    if (size > static_cast<size_t>(INT_MAX))
        throw_error<InvalidArgument>(
            what, ": ", size,
            " bytes is over protobuf's 2 GiB limit; store the weights as ONNX external data");
    auto model = std::make_shared<onnx::ModelProto>();
    google::protobuf::io::CodedInputStream stream(static_cast<const uint8_t*>(data),
                                                  static_cast<int>(size));
    stream.SetTotalBytesLimit(INT_MAX);
    stream.SetRecursionLimit(kRecursionLimit);
    if (!model->ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage())
        throw_error<InvalidArgument>(what, kNotAModel);
    return model;
}

std::shared_ptr<Model> import(const std::shared_ptr<onnx::ModelProto>& proto,
                              const std::string& what, const std::string& model_dir,
                              bool enable_mmap = true) {
    if (!proto->has_graph()) throw_error<InvalidArgument>(what, ": the model has no graph");
    if (proto->ir_version() < 3)
        throw_error<NotImplemented>(what, ": ONNX IR version ", proto->ir_version(),
                                    " is older than 3 (unsupported)");
    Opsets opsets;
    for (const auto& op : proto->opset_import()) {
        const std::string domain = canonical_domain(op.domain());
        // Versions are small counters; one past int32 is a corrupt file, not a future opset.
        if (op.version() < 1 || op.version() > std::numeric_limits<int32_t>::max())
            throw_error<InvalidArgument>(what, ": opset import of '", op.domain(), "' has version ",
                                         op.version(), ", expected 1 to ",
                                         std::numeric_limits<int32_t>::max());
        opsets[domain] = std::max(opsets[domain], op.version());
    }
    if (proto->opset_import_size() == 0) opsets[""] = 1;  // IR version 3 without imports: opset 1
    const auto& registry = TranslatorRegistry::builtin();

    auto missing = find_unsupported(proto->graph(), opsets, registry);
    if (!missing.empty()) {
        std::ostringstream text;
        text << what << ": " << missing.size() << " node(s) use operations Vireo does not support:";
        for (const auto& m : missing) {
            text << "\n  " << m.op << " (domain " << m.domain << ", opset ";
            if (m.version < 0)
                text << "not imported";
            else
                text << m.version;
            text << ") in node '" << m.node << "'";
        }
        throw NotImplemented(text.str());
    }

    ExternalData external(model_dir, enable_mmap);
    GraphImporter importer(proto->graph(), opsets, registry, proto, &external);
    std::shared_ptr<Model> model;
    try {
        model = importer.import_model();
    } catch (...) {
        rethrow_with_context(std::current_exception(), what);
    }
    auto& rt = model->get_rt_info();
    rt["source_format"] = std::string("onnx");
    if (!external.files().empty()) rt["__source_files"] = external.files();
    rt["onnx/ir_version"] = std::to_string(proto->ir_version());
    rt["onnx/opset"] = std::to_string(opsets[""]);
    if (!proto->producer_name().empty())
        rt["onnx/producer"] =
            proto->producer_name() +
            (proto->producer_version().empty() ? "" : " " + proto->producer_version());
    if (opsets[""] > kNewestOpset)
        rt["onnx/warning"] =
            "opset " + std::to_string(opsets[""]) + " is newer than 17; newest translators used";
    return model;
}

std::shared_ptr<Model> read_file(const std::string& path, bool enable_mmap) {
    const std::string what = "ONNX model '" + path + "'";
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) throw_error<NotFound>(what, " does not exist");
        throw_error<InvalidArgument>(what, " cannot be opened: ", std::strerror(errno));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw_error<InvalidArgument>(what, " is not a regular file");
    }
    const auto size = static_cast<size_t>(st.st_size);
    std::shared_ptr<onnx::ModelProto> proto;
    try {
        if (size == 0) throw_error<InvalidArgument>(what, ": the file is empty");
        if (size > static_cast<size_t>(INT_MAX))
            throw_error<InvalidArgument>(
                what, ": ", size,
                " bytes is over protobuf's 2 GiB limit; store the weights as ONNX external data");
        // Streamed from the file in blocks: the parsed message holds the only full copy of the
        // weights (a mapping of the whole file would double the peak while parsing).
        google::protobuf::io::FileInputStream file(fd, 1 << 20);
        google::protobuf::io::CodedInputStream stream(&file);
        stream.SetTotalBytesLimit(INT_MAX);
        stream.SetRecursionLimit(kRecursionLimit);
        proto = std::make_shared<onnx::ModelProto>();
        if (!proto->ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage())
            throw_error<InvalidArgument>(what, kNotAModel);
    } catch (...) {
        ::close(fd);
        throw;
    }
    ::close(fd);
    std::string dir = std::filesystem::path(path).parent_path().string();
    if (dir.empty()) dir = ".";
    auto model = import(proto, what, dir, enable_mmap);
    // The files the model was read from (this one first, then its external data): writers refuse
    // to overwrite them (vireo::serialize), so converting a model cannot destroy its source.
    std::error_code ec;
    const auto self = std::filesystem::weakly_canonical(path, ec);
    auto& rt = model->get_rt_info();
    std::vector<std::string> sources;
    if (!ec) sources.push_back(self.string());
    if (auto it = rt.find("__source_files"); it != rt.end())
        for (const auto& file : it->second.as<std::vector<std::string>>()) sources.push_back(file);
    rt["__source_files"] = std::move(sources);
    return model;
}

std::shared_ptr<Model> read_buffer(const void* data, size_t size) {
    const std::string what = "ONNX model in memory";
    auto proto = parse(data, size, what);
    return import(proto, what, "");
}

std::string supported_ops_markdown() {
    std::ostringstream out;
    for (const auto& e : TranslatorRegistry::builtin().list()) {
        out << "| " << e.op << " | " << (e.domain.empty() ? "ai.onnx" : e.domain) << " | ";
        for (size_t i = 0; i < e.versions.size(); ++i) out << (i ? ", " : "") << e.versions[i];
        out << " |\n";
    }
    return out.str();
}

}  // namespace
}  // namespace vireo::onnx_import

extern "C" __attribute__((visibility("default"))) const vireo::sdk::FrontendEntry*
vireo_frontend_entry() {
    static const char* const extensions[] = {".onnx", nullptr};
    static const vireo::sdk::FrontendFormat formats[] = {
        {"ONNX", extensions, &vireo::onnx_import::starts_like_model_proto}};
    static const vireo::sdk::FrontendEntry entry{VIREO_FRONTEND_ABI_VERSION,
                                                 VIREO_TOOLCHAIN_TAG,
                                                 formats,
                                                 1,
                                                 &vireo::onnx_import::read_file,
                                                 &vireo::onnx_import::read_buffer,
                                                 &vireo::onnx_import::supported_ops_markdown};
    return &entry;
}
