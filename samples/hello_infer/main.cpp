// hello_infer: reads a model, fills its inputs from .npy files (or deterministic random data),
// runs one inference on a device and prints (and optionally saves) every output.
#include <gflags/gflags.h>
#include <glog/logging.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "npy.hpp"
#include "sample_utils.hpp"
#include "vireo/core.hpp"
#include "vireo/infer_request.hpp"

DEFINE_string(m, "", "Required. Path to the model (.xml IR or .onnx).");
DEFINE_string(d, "TEMPLATE", "Device to run on (see hello_query_device).");
DEFINE_string(i, "",
              "Inputs from .npy files: name=file.npy[,name2=file2.npy]; may be repeated "
              "(-i a=x.npy -i b=y.npy). Every input needs one unless -random_inputs is given.");
DEFINE_bool(random_inputs, false,
            "Fill the inputs not given with -i with deterministic random data (without it, a "
            "missing input is an error).");
DEFINE_string(o, "", "Directory to write every output as <tensor name>.npy.");
DEFINE_string(shape, "",
              "Input shapes for dynamic inputs: [1,3,224,224] or name[1,3,224,224],other[1,10].");
DEFINE_uint32(n, 8, "How many values of each output to print.");
DEFINE_string(plugins_xml, "", "plugins.xml to use instead of the default.");
DEFINE_string(
    extensions, "",
    "Extension libraries with custom ops to load first (comma-separated; Core::add_extension).");

namespace {

std::map<std::string, std::string> parse_inputs(const std::string& text) {
    std::map<std::string, std::string> out;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t comma = text.find(',', pos);
        if (comma == std::string::npos) comma = text.size();
        const std::string item = text.substr(pos, comma - pos);
        const size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
            vireo::throw_error<vireo::InvalidArgument>("bad -i entry '", item,
                                                       "' (expected name=file.npy)");
        if (!out.emplace(item.substr(0, eq), item.substr(eq + 1)).second)
            vireo::throw_error<vireo::InvalidArgument>("-i gives input '", item.substr(0, eq),
                                                       "' twice");
        pos = comma + 1;
    }
    return out;
}

std::string file_name_for(std::string name) {
    for (char& c : name)
        if (c == '/' || c == ':' || c == '\\') c = '_';
    return name + ".npy";
}

int run(int argc, char** argv) {
    gflags::SetUsageMessage(
        "hello_infer -m model.xml|model.onnx [-d DEVICE] [-i name=file.npy ...] [-random_inputs] "
        "[-o outdir] [-shape ...] [-plugins_xml file]");
    if (vireo::samples::show_help_if_asked(argc, argv, "samples/hello_infer/")) return 0;
    const std::string inputs_text = vireo::samples::repeated_flag_values(argc, argv, "i");
    gflags::ParseCommandLineFlags(&argc, &argv, true);
    FLAGS_i = inputs_text;  // every -i, not only the last
    google::InitGoogleLogging(argv[0]);
    FLAGS_logtostderr = true;
    if (FLAGS_m.empty())
        vireo::throw_error<vireo::InvalidArgument>("-m is required (path to the model .xml)");

    vireo::Core core(FLAGS_plugins_xml);
    for (size_t begin = 0; begin < FLAGS_extensions.size();) {
        const size_t comma = std::min(FLAGS_extensions.find(',', begin), FLAGS_extensions.size());
        if (comma > begin) core.add_extension(FLAGS_extensions.substr(begin, comma - begin));
        begin = comma + 1;
    }
    auto model = core.read_model(FLAGS_m);
    const auto files = parse_inputs(FLAGS_i);
    std::map<std::string, vireo::Tensor> given;
    std::map<std::string, vireo::PartialShape> shapes;
    for (const auto& [name, path] : files) {
        model->input(name);  // throws NotFound listing the inputs
        given[name] = vireo::npy::read_npy(path);
        shapes[name] = given[name].get_shape();
    }
    if (!FLAGS_shape.empty()) {
        for (const auto& [name, shape] : vireo::samples::parse_shape_argument(FLAGS_shape))
            shapes[name.empty() ? model->input().get_any_name() : name] = shape;
    }
    bool needs_reshape = false;
    for (const auto& [name, shape] : shapes)
        needs_reshape = needs_reshape || model->input(name).get_partial_shape() != shape;
    if (needs_reshape) model->reshape(shapes);

    auto compiled = core.compile_model(model, FLAGS_d);
    // A model run on data nobody gave it answers nothing: refuse unless asked for random data
    // (after compiling, so a device that cannot run the model says so first).
    std::string missing;
    for (size_t k = 0; k < model->inputs().size(); ++k) {
        const auto names = model->input(k).get_names();
        if (std::none_of(names.begin(), names.end(),
                         [&](const std::string& n) { return given.count(n) != 0; }))
            missing += std::string(missing.empty() ? "" : ", ") + "'" +
                       (names.empty() ? std::to_string(k) : model->input(k).get_any_name()) + "'";
    }
    if (!missing.empty() && !FLAGS_random_inputs)
        vireo::throw_error<vireo::InvalidArgument>("no data for input(s) ", missing,
                                                   ": give each with -i name=file.npy, or pass "
                                                   "-random_inputs to run on random data");
    auto request = compiled.create_infer_request();
    for (size_t k = 0; k < compiled.inputs().size(); ++k) {
        const auto& port = compiled.inputs()[k];
        const std::string name = port.get_names().empty() ? std::to_string(k) : port.get_any_name();
        auto it = given.end();
        for (const auto& n : port.get_names())
            if (given.count(n)) it = given.find(n);
        if (it != given.end()) {
            // numpy has no bfloat16: a uint16 .npy for a bf16 input holds the bits.
            if (port.get_element_type() == vireo::element::bf16 &&
                it->second.get_element_type() == vireo::element::u16) {
                vireo::Tensor bits(vireo::element::bf16, it->second.get_shape());
                std::memcpy(bits.data(), it->second.data(), bits.get_byte_size());
                it->second = bits;
            }
            request.set_input_tensor(k, it->second);
            std::printf("Input %s: %s from .npy\n", name.c_str(),
                        it->second.get_shape().to_string().c_str());
            continue;
        }
        if (port.get_partial_shape().is_dynamic())
            vireo::throw_error<vireo::InvalidArgument>("input '", name, "' has dynamic shape ",
                                                       port.get_partial_shape(),
                                                       "; give it with -shape or -i");
        vireo::Tensor t(port.get_element_type(), port.get_shape());
        vireo::samples::fill_random(t, k);
        request.set_input_tensor(k, t);
        std::printf("Input %s: %s random\n", name.c_str(), t.get_shape().to_string().c_str());
    }
    request.infer();
    if (!FLAGS_o.empty()) std::filesystem::create_directories(FLAGS_o);
    std::set<std::string>
        used_files;  // names that map to one file ("a/b", "a:b") must not overwrite
    for (size_t k = 0; k < compiled.outputs().size(); ++k) {
        const auto& port = compiled.outputs()[k];
        const std::string name =
            port.get_names().empty() ? "output" + std::to_string(k) : port.get_any_name();
        const vireo::Tensor out = request.get_output_tensor(k);
        std::printf("Output %s: %s %s\n  [%s]\n", name.c_str(),
                    std::string(out.get_element_type().name()).c_str(),
                    out.get_shape().to_string().c_str(),
                    vireo::samples::format_values(out, FLAGS_n).c_str());
        if (!FLAGS_o.empty()) {
            std::string file = file_name_for(name);
            if (!used_files.insert(file).second) {
                // Taken by an earlier output: add this output's index ("a_b.1.npy").
                file = file.substr(0, file.size() - 4) + "." + std::to_string(k) + ".npy";
                if (!used_files.insert(file).second)
                    vireo::throw_error<vireo::InvalidArgument>("output ", k, " '", name,
                                                               "': its file name '", file,
                                                               "' is taken by another output");
            }
            const auto path = (std::filesystem::path(FLAGS_o) / file).string();
            vireo::npy::write_npy(path, out);  // throws if the data did not reach the file
            std::printf("  written to %s\n", path.c_str());
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return vireo::samples::run_main(run, argc, argv);
}
