// Fuzz target: the ONNX reader must reject any bytes with vireo::Exception, never crash, hang or
// read out of bounds. Input layout: a plain ModelProto is read from memory; an input starting with
// 'E' is [E][u32 model length][model][external data], written as model.onnx + w.bin in a folder so
// external-data offsets and lengths are exercised against a real file.
// Protobuf's FATAL checks (in the fuzz build also its debug checks, e.g. a repeated field indexed
// out of range) abort here: protobuf would otherwise throw, the reader would report an error, and
// an out-of-range access that release builds do not check would go unseen.
#include <google/protobuf/stubs/logging.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "vireo/frontend.hpp"
#include "vireo/model.hpp"

namespace {

const std::filesystem::path& work_dir() {
    static const std::filesystem::path dir = [] {
        auto d = std::filesystem::temp_directory_path() /
                 ("vireo_fuzz_onnx_" + std::to_string(::getpid()));
        std::filesystem::create_directories(d);
        return d;
    }();
    return dir;
}

void abort_on_fatal(google::protobuf::LogLevel level, const char* file, int line,
                    const std::string& message) {
    std::fprintf(stderr, "[protobuf %s:%d] %s\n", file, line, message.c_str());
    if (level == google::protobuf::LOGLEVEL_FATAL) std::abort();
}
const auto g_previous_handler = google::protobuf::SetLogHandler(&abort_on_fatal);

void touch_model(const std::shared_ptr<vireo::Model>& model) {
    volatile size_t n = model->get_ordered_ops().size();
    (void)n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        if (size >= 5 && data[0] == 'E') {
            uint32_t length = 0;
            std::memcpy(&length, data + 1, 4);
            const size_t model_size = std::min<size_t>(length, size - 5);
            const auto dir = work_dir();
            std::ofstream(dir / "model.onnx", std::ios::binary | std::ios::trunc)
                .write(reinterpret_cast<const char*>(data + 5),
                       static_cast<std::streamsize>(model_size));
            std::ofstream(dir / "w.bin", std::ios::binary | std::ios::trunc)
                .write(reinterpret_cast<const char*>(data + 5 + model_size),
                       static_cast<std::streamsize>(size - 5 - model_size));
            touch_model(vireo::read_onnx_model((dir / "model.onnx").string()));
        } else {
            touch_model(vireo::read_onnx_model(data, size));
        }
    } catch (const vireo::Exception&) {
    }
    return 0;
}
