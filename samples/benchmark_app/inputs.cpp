// Implements benchmark_app's input handling (-i, -b, -layout, -data_shape).
#include "inputs.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "npy.hpp"
#include "sample_utils.hpp"
#include "vireo/exception.hpp"

namespace vireo::benchmark {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> items;
    std::string item;
    std::istringstream in(text);
    while (std::getline(in, item, sep)) {
        if (!item.empty()) items.push_back(item);
    }
    return items;
}

// The input a name refers to (any of its tensor names), or -1.
int find_input(const Model& model, const std::string& name) {
    const auto inputs = model.inputs();
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i].get_names().count(name)) return static_cast<int>(i);
    }
    return -1;
}

std::string file_stem_for(const std::string& tensor_name) {
    std::string stem = tensor_name;
    std::replace(stem.begin(), stem.end(), '/', '_');
    std::replace(stem.begin(), stem.end(), ':', '_');
    return stem;
}

std::vector<std::string> npy_files_in(const fs::path& folder) {
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(folder)) {
        if (entry.path().extension() == ".npy") files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    return files;
}

void check_against_input(const Tensor& tensor, const Output& input, const std::string& file) {
    const std::string name = input.get_any_name();
    if (tensor.get_element_type() != input.get_element_type())
        throw_error<InvalidArgument>("-i: '", file, "' holds ", tensor.get_element_type(),
                                     " data but input '", name, "' is ", input.get_element_type());
    if (!input.get_partial_shape().compatible(PartialShape(tensor.get_shape())))
        throw_error<InvalidArgument>("-i: '", file, "' has shape ", tensor.get_shape(),
                                     " but input '", name, "' has shape ",
                                     input.get_partial_shape());
}

}  // namespace

InputData load_input_data(const std::string& text, const Model& model, bool random_for_missing) {
    const auto inputs = model.inputs();
    std::vector<std::vector<std::string>> files(inputs.size());
    for (const auto& item : split(text, ',')) {
        // "name=path", "name:path" (only when the part before the last ':' names an input, so
        // paths and names containing ':' still work), or a bare path.
        int index = -1;
        std::string path = item;
        if (const size_t eq = item.find('='); eq != std::string::npos) {
            index = find_input(model, item.substr(0, eq));
            if (index < 0)
                throw_error<InvalidArgument>("-i: '", item, "': the model has no input named '",
                                             item.substr(0, eq), "'");
            path = item.substr(eq + 1);
        } else if (const size_t colon = item.rfind(':'); colon != std::string::npos) {
            index = find_input(model, item.substr(0, colon));
            if (index >= 0) path = item.substr(colon + 1);
        }
        std::error_code ec;
        if (!fs::exists(path, ec)) throw_error<NotFound>("-i: '", path, "' does not exist");
        if (fs::is_directory(path, ec)) {
            auto found = npy_files_in(path);
            if (found.empty())
                throw_error<InvalidArgument>("-i: folder '", path, "' has no .npy file");
            if (index < 0 && inputs.size() > 1) {  // one <input name>.npy per input
                for (size_t i = 0; i < inputs.size(); ++i) {
                    for (const auto& name : inputs[i].get_names()) {
                        const fs::path candidate = fs::path(path) / (file_stem_for(name) + ".npy");
                        if (fs::exists(candidate, ec)) {
                            files[i].push_back(candidate.string());
                            break;
                        }
                    }
                }
                continue;
            }
            if (index < 0) index = 0;
            files[index].insert(files[index].end(), found.begin(), found.end());
            continue;
        }
        if (index < 0) {
            if (inputs.size() != 1)
                throw_error<InvalidArgument>("-i: '", item, "' does not say which of the model's ",
                                             inputs.size(),
                                             " inputs it is for (write name:file.npy)");
            index = 0;
        }
        files[index].push_back(path);
    }
    InputData data(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (files[i].empty() && !random_for_missing)
            throw_error<InvalidArgument>("-i: no data for input '", inputs[i].get_any_name(),
                                         "' (give every input a file, or pass -random_inputs to "
                                         "fill the inputs without one with random data)");
        for (const auto& file : files[i]) {
            Tensor tensor = npy::read_npy(file);
            check_against_input(tensor, inputs[i], file);
            data[i].push_back(std::move(tensor));
        }
    }
    return data;
}

std::map<std::string, std::string> parse_layout_argument(const std::string& text) {
    std::map<std::string, std::string> layouts;
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t open = text.find('[', pos);
        const size_t close = open == std::string::npos ? std::string::npos : text.find(']', open);
        if (open == std::string::npos || close == std::string::npos)
            throw_error<InvalidArgument>("bad -layout '", text,
                                         "' (expected [NCHW] or name[NCHW],other[NC])");
        layouts[text.substr(pos, open - pos)] = text.substr(open + 1, close - open - 1);
        pos = close + 1;
        if (pos < text.size() && text[pos] == ',') ++pos;
    }
    return layouts;
}

void set_batch(Model& model, int64_t batch, const std::map<std::string, std::string>& layouts) {
    if (batch <= 0) throw_error<InvalidArgument>("-b must be positive, got ", batch);
    std::map<Output, PartialShape> shapes;
    for (const auto& input : model.inputs()) {
        PartialShape shape = input.get_partial_shape();
        const std::string name = input.get_any_name();
        if (!shape.rank_is_static() || shape.size() == 0)
            throw_error<InvalidArgument>("-b: input '", name, "' has shape ", shape,
                                         ", which has no batch dimension");
        size_t index = 0;
        auto it = layouts.find(name);
        if (it == layouts.end()) it = layouts.find("");
        if (it != layouts.end()) {
            const size_t n = it->second.find_first_of("Nn");
            if (n == std::string::npos)
                throw_error<InvalidArgument>("-b: the layout '", it->second, "' of input '", name,
                                             "' has no N");
            if (it->second.size() != shape.size())
                throw_error<InvalidArgument>("-b: the layout '", it->second, "' of input '", name,
                                             "' does not have its rank ", shape.size());
            index = n;
        }
        shape[index] = Dimension(batch);
        shapes[input] = shape;
    }
    model.reshape(shapes);
}

void fill_request_inputs(InferRequest& request, const CompiledModel& compiled,
                         const InputData& data,
                         const std::map<std::string, PartialShape>& data_shapes, size_t index) {
    const auto& inputs = compiled.inputs();
    for (size_t k = 0; k < inputs.size(); ++k) {
        if (k < data.size() && !data[k].empty()) {
            request.set_input_tensor(k, data[k][index % data[k].size()]);
            continue;
        }
        PartialShape shape = inputs[k].get_partial_shape();
        if (shape.is_dynamic()) {
            auto it = data_shapes.end();
            for (const auto& name : inputs[k].get_names()) {
                if ((it = data_shapes.find(name)) != data_shapes.end()) break;
            }
            if (it == data_shapes.end()) it = data_shapes.find("");
            if (it == data_shapes.end() || it->second.is_dynamic())
                throw_error<InvalidArgument>(
                    "input '", inputs[k].get_any_name(), "' has dynamic shape ", shape,
                    "; give its data with -i, a static shape with -shape, or the shape "
                    "of its tensors with -data_shape");
            if (!shape.compatible(it->second))
                throw_error<InvalidArgument>("-data_shape ", it->second, " does not fit input '",
                                             inputs[k].get_any_name(), "' of shape ", shape);
            shape = it->second;
        }
        Tensor tensor(inputs[k].get_element_type(), shape.to_shape());
        samples::fill_random(tensor, 1000 * index + k);
        request.set_input_tensor(k, tensor);
    }
}

}  // namespace vireo::benchmark
