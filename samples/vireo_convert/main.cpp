// vireo_convert: reads a model in any format Vireo reads (ONNX, IR) and writes it as IR v11, the
// way OpenVINO users run `ovc`, so a model is converted once and then read without protobuf.
//
//   vireo_convert model.onnx -o model.xml [--compress_to_fp16] [--input_shape x=[1,3,224,224]]
//   vireo_convert --list-onnx-ops
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>

#include "vireo/core.hpp"
#include "vireo/frontend.hpp"
#include "vireo/ir.hpp"
#include "vireo/ops.hpp"

namespace {

constexpr const char* kUsage =
    R"(usage: vireo_convert <model> [-o <out.xml>] [--compress_to_fp16] [--input_shape name=[d,...]]
       vireo_convert --list-onnx-ops
Reads <model> (ONNX or IR, chosen by content) and writes IR v11: <out.xml> and <out.bin>
(default: the model's file name with .xml, in the current folder).
  -o, --output_model FILE  the .xml to write (the .bin goes beside it)
  --compress_to_fp16       store f32 constants as f16 with a Convert back to f32 after each
                           (halves the weights; values beyond f16's range stay f32)
  --input_shape N=[..]     reshape input N first (repeatable; '?' for a dynamic dimension)
  --list-onnx-ops          print the ONNX operations the reader supports and their opset versions
  -h, --help               this text
)";

// Replaces each f32 Constant feeding a node by an f16 Constant and a Convert back to f32.
size_t compress_to_fp16(vireo::Model& model) {
    using namespace vireo;
    std::map<Node*, Output> replaced;
    size_t count = 0;
    for (const auto& node : model.get_ordered_ops()) {
        for (size_t i = 0; i < node->get_input_size(); ++i) {
            const Output& source = node->input_value(i);
            Node* producer = source.get_node();
            if (producer->get_type_name() != "Constant" ||
                source.get_element_type() != element::f32)
                continue;
            auto it = replaced.find(producer);
            if (it == replaced.end()) {
                const Tensor& value = producer->get_constant_value();
                const size_t n = shape_size(value.get_shape());
                const float* data = value.data<float>();
                bool fits = true;
                for (size_t k = 0; k < n && fits; ++k)
                    fits = std::isfinite(data[k]) && std::fabs(data[k]) <= 65504.0f;
                if (!fits || n == 0) {
                    it = replaced.emplace(producer, Output()).first;
                } else {
                    Tensor half(element::f16, value.get_shape());
                    auto* out = half.data<float16>();
                    for (size_t k = 0; k < n; ++k) out[k] = float16(data[k]);
                    auto constant = op::constant(half);
                    constant->set_friendly_name(producer->get_friendly_name());
                    auto back = op::convert(constant, element::f32);
                    back->set_friendly_name(producer->get_friendly_name() + "/decompress");
                    back->output(0).set_names(source.get_names());
                    it = replaced.emplace(producer, back->output(0)).first;
                    ++count;
                }
            }
            if (it->second) node->set_argument(i, it->second);
        }
    }
    model.validate();
    return count;
}

vireo::PartialShape parse_shape(const std::string& text) {
    std::string body = text;
    if (body.size() >= 2 && body.front() == '[' && body.back() == ']')
        body = body.substr(1, body.size() - 2);
    std::vector<vireo::Dimension> dims;
    size_t start = 0;
    while (start <= body.size() && !body.empty()) {
        const size_t comma = body.find(',', start);
        const std::string d =
            body.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (d == "?" || d == "-1") {
            dims.emplace_back(vireo::Dimension::dynamic());
        } else {
            size_t used = 0;
            long long value = -1;
            try {
                value = std::stoll(d, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (d.empty() || used != d.size() || value < 0)
                throw std::invalid_argument("--input_shape: dimension '" + d + "' of '" + text +
                                            "' is not a non-negative integer, ? or -1");
            dims.emplace_back(value);
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return vireo::PartialShape(dims);
}

}  // namespace

int main(int argc, char** argv) {
    std::string input, output;
    bool fp16 = false;
    std::map<std::string, vireo::PartialShape> shapes;
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string arg = argv[i];
            if (arg == "-h" || arg == "--help") {
                std::cout << kUsage;
                return 0;
            } else if (arg == "--list-onnx-ops") {
                std::cout
                    << "| ONNX op | domain | opset versions with a translator |\n|---|---|---|\n"
                    << vireo::onnx_supported_ops_markdown();
                return 0;
            } else if ((arg == "-o" || arg == "--output_model") && i + 1 < argc) {
                output = argv[++i];
            } else if (arg == "--compress_to_fp16" || arg == "--compress_to_fp16=True") {
                fp16 = true;
            } else if (arg == "--input_shape" && i + 1 < argc) {
                const std::string spec = argv[++i];
                const size_t eq = spec.find('=');
                if (eq == std::string::npos)
                    throw std::invalid_argument("--input_shape needs name=[dims], got '" + spec +
                                                "'");
                shapes[spec.substr(0, eq)] = parse_shape(spec.substr(eq + 1));
            } else if (!arg.empty() && arg[0] != '-' && input.empty()) {
                input = arg;
            } else {
                std::cerr << "vireo_convert: unexpected argument '" << arg << "'\n" << kUsage;
                return 2;
            }
        }
        if (input.empty()) {
            std::cerr << "vireo_convert: no model given\n" << kUsage;
            return 2;
        }
        if (output.empty())
            output = std::filesystem::path(input).filename().replace_extension(".xml").string();
        vireo::Core core;
        auto model = core.read_model(input);
        if (!shapes.empty()) model->reshape(shapes);
        const size_t compressed = fp16 ? compress_to_fp16(*model) : 0;
        vireo::serialize(*model, output);
        std::cout << "[ INFO ] read " << input << " (" << model->get_ordered_ops().size()
                  << " ops)\n"
                  << "[ INFO ] wrote " << output << " and "
                  << std::filesystem::path(output).replace_extension(".bin").string() << " (IR v11";
        if (fp16) std::cout << ", " << compressed << " constants compressed to f16";
        std::cout << ")\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "[ ERROR ] " << e.what() << "\n";
        return 1;
    }
}
