// vireo_compress: weight-only compression of a model's MatMul weights (vireo::compress_weights),
// the way NNCF's compress_weights is used on LLMs: the weights are stored as int8 or int4 with a
// scale per output channel or per group, and written as IR v11 (a quarter or an eighth of the f32
// bytes).
//
//   vireo_compress model.onnx|model.xml -o out.xml [--mode int8|int8_asym|int4_sym|int4_asym]
//                  [--group_size N]
#include <filesystem>
#include <iostream>
#include <string>

#include "vireo/core.hpp"
#include "vireo/ir.hpp"
#include "vireo/transformations.hpp"

namespace {

constexpr const char* kUsage =
    R"(usage: vireo_compress <model> -o <out.xml> [--mode int8|int8_asym|int4_sym|int4_asym]
                      [--group_size N] [--min_elements N]
Reads <model> (ONNX or IR) and writes IR v11 in which every MatMul with constant f32 weights of
at least --min_elements elements (default 4096) reads them as integers:
  --mode int8, int8_sym  i8, one scale per output channel or group (default)
         int8_asym       u8 with a zero point per output channel or group
         int4, int4_sym  i4 (two per byte), one scale per group
         int4_asym       u4 with a zero point per group
  --group_size N         elements of an output channel sharing a scale (default: the whole
                         channel for int8, 128 for int4; a size that does not divide the
                         channel length gives one group per channel)
The CPU device multiplies with the integers directly; every other device runs the decompression
as written.
)";

size_t parse_size(const std::string& flag, const std::string& text) {
    size_t used = 0;
    unsigned long long value = 0;
    try {
        value = std::stoull(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (text.empty() || used != text.size() || text[0] == '-')
        throw std::invalid_argument(flag + ": '" + text + "' is not a non-negative integer");
    return static_cast<size_t>(value);
}

}  // namespace

int main(int argc, char** argv) {
    std::string input, output;
    vireo::CompressWeightsOptions options;
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string arg = argv[i];
            if (arg == "-h" || arg == "--help") {
                std::cout << kUsage;
                return 0;
            } else if ((arg == "-o" || arg == "--output_model") && i + 1 < argc) {
                output = argv[++i];
            } else if (arg == "--mode" && i + 1 < argc) {
                options.mode = vireo::weight_compression_mode(argv[++i]);
            } else if (arg == "--group_size" && i + 1 < argc) {
                options.group_size = parse_size(arg, argv[++i]);
            } else if (arg == "--min_elements" && i + 1 < argc) {
                options.min_elements = parse_size(arg, argv[++i]);
            } else if (!arg.empty() && arg[0] != '-' && input.empty()) {
                input = arg;
            } else {
                std::cerr << "vireo_compress: unexpected argument '" << arg << "'\n" << kUsage;
                return 2;
            }
        }
        if (input.empty() || output.empty()) {
            std::cerr << "vireo_compress: " << (input.empty() ? "no model given" : "no -o given")
                      << "\n"
                      << kUsage;
            return 2;
        }
        vireo::Core core;
        auto model = core.read_model(input);
        const auto stats = vireo::compress_weights(model, options);
        vireo::serialize(*model, output);
        std::cout << "[ INFO ] " << stats.matmuls
                  << " MatMul weights compressed: " << stats.bytes_before / 1e6 << " MB of f32 -> "
                  << stats.bytes_after / 1e6 << " MB\n"
                  << "[ INFO ] wrote " << output << " and "
                  << std::filesystem::path(output).replace_extension(".bin").string() << "\n";
        if (stats.matmuls == 0)
            std::cout << "[ WARNING ] no MatMul has constant f32 weights of at least "
                      << options.min_elements << " elements: the model is written unchanged\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "[ ERROR ] " << e.what() << "\n";
        return 1;
    }
}
