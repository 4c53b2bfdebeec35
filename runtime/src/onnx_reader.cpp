// Implements vireo/frontend.hpp's ONNX functions: the format registry's reader of the format the
// ONNX frontend module declares ("ONNX"), loaded on first use like any frontend.
#include "frontend_registry.hpp"
#include "vireo/exception.hpp"
#include "vireo/frontend.hpp"

namespace vireo {
namespace {

constexpr const char* kOnnxFormat = "ONNX";  // the name libvireo_onnx_frontend.so declares

}  // namespace

std::shared_ptr<Model> read_onnx_model(const std::string& path, bool enable_mmap) {
    return runtime::FormatRegistry::process().find(kOnnxFormat)->read_file(path, {}, enable_mmap);
}

std::shared_ptr<Model> read_onnx_model(const void* data, size_t size) {
    return runtime::FormatRegistry::process().find(kOnnxFormat)->read_memory(data, size, Tensor());
}

std::string onnx_supported_ops_markdown() {
    const auto format = runtime::FormatRegistry::process().find(kOnnxFormat);
    if (!format->supported_ops)
        throw_error<NotImplemented>("the ", kOnnxFormat, " frontend (", format->origin,
                                    ") does not list its operations");
    return format->supported_ops();
}

}  // namespace vireo
