// The conformance suite's shared state (options, the test process's Core, capabilities) and the
// helpers of suite.hpp. The models and their plain-loop references are in suite_models.cpp.
#include "vireo/conformance/suite.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <sstream>

namespace vireo::conformance {
namespace {

SuiteOptions& mutable_options() {
    static SuiteOptions opts;
    return opts;
}

void setup_core(Core& core) {
    const SuiteOptions& opts = options();
    if (!opts.plugin_path.empty()) core.register_plugin(opts.plugin_path, device_base_name());
    if (!opts.properties.empty()) core.set_property(opts.device, opts.properties);
}

}  // namespace

void set_options(const SuiteOptions& opts) {
    mutable_options() = opts;
}
const SuiteOptions& options() {
    return mutable_options();
}

const std::string& device_name() {
    return options().device;
}

std::string device_base_name() {
    const std::string& name = device_name();
    return name.substr(0, std::min(name.find('.'), name.find(':')));
}

std::vector<std::string> listed_devices() {
    const std::string& name = device_name();
    const size_t colon = name.find(':');
    std::vector<std::string> out;
    if (colon == std::string::npos) return out;
    std::string list = name.substr(colon + 1);
    size_t start = 0;
    while (start <= list.size()) {
        const size_t comma = list.find(',', start);
        std::string item =
            list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        out.push_back(item.substr(0, item.find('(')));  // "BATCH:A(4)" lists A
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

Core& core() {
    static std::once_flag once;
    static Core* shared = nullptr;
    std::call_once(once, [] {
        auto* made = new Core();  // lives until exit: objects of other tests' threads may use it
        setup_core(*made);
        shared = made;
    });
    return *shared;
}

Core make_core() {
    Core made;
    setup_core(made);
    return made;
}

const std::vector<std::string>& device_capabilities() {
    static const std::vector<std::string> caps =
        core().get_property(device_name(), device::capabilities);
    return caps;
}

bool has_capability(const std::string& capability) {
    for (const auto& c : device_capabilities())
        if (c == capability) return true;
    return false;
}

CompiledModel compile(const std::shared_ptr<const Model>& model, const AnyMap& properties) {
    if (model) require_supported(model, "model '" + model->get_name() + "'");
    return core().compile_model(model, device_name(), properties);
}

std::vector<float> make_values(size_t count, uint32_t seed) {
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i) {
        const uint64_t k = (i * 31u + static_cast<uint64_t>(seed) * 17u + 5u) % 41u;
        values[i] = (static_cast<float>(k) - 20.f) / 16.f;
    }
    return values;
}

Tensor make_tensor(const Shape& shape, const std::vector<float>& values) {
    Tensor t(element::f32, shape);
    if (values.size() != t.get_size())
        throw_error<InvalidArgument>("make_tensor: ", values.size(), " values for shape ", shape);
    float* p = t.data<float>();
    for (size_t i = 0; i < values.size(); ++i) p[i] = values[i];
    return t;
}

std::vector<float> to_vector(const Tensor& tensor) {
    if (tensor.get_element_type() != element::f32)
        throw_error<InvalidArgument>("to_vector: expected an f32 tensor, found ",
                                     tensor.get_element_type().name());
    Tensor host = tensor;
    if (tensor.is_remote() || !tensor.is_continuous()) {
        host = Tensor(element::f32, tensor.get_shape());
        tensor.copy_to(host);
    }
    const float* p = host.data<float>();
    return std::vector<float>(p, p + host.get_size());
}

::testing::AssertionResult values_near(const std::vector<float>& actual,
                                       const std::vector<float>& expected, float abs_tol,
                                       float rel_tol) {
    if (actual.size() != expected.size())
        return ::testing::AssertionFailure()
               << "expected " << expected.size() << " values, found " << actual.size();
    size_t bad = 0;
    std::ostringstream first;
    for (size_t i = 0; i < actual.size(); ++i) {
        const float e = expected[i];
        const float a = actual[i];
        const bool ok = std::fabs(a - e) <= abs_tol + rel_tol * std::fabs(e);
        if (!ok) {
            if (bad == 0) first << "index " << i << ": expected " << e << ", found " << a;
            ++bad;
        }
    }
    if (bad == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << bad << " of " << actual.size() << " values differ; first at " << first.str();
}

std::vector<std::vector<float>> set_inputs(InferRequest& request, const CompiledModel& compiled,
                                           uint32_t seed) {
    std::vector<std::vector<float>> values;
    for (size_t i = 0; i < compiled.inputs().size(); ++i) {
        const Shape shape = compiled.inputs()[i].get_shape();
        values.push_back(make_values(shape_size(shape), seed + static_cast<uint32_t>(i)));
        request.set_input_tensor(i, make_tensor(shape, values.back()));
    }
    return values;
}

std::vector<std::vector<float>> get_outputs(const InferRequest& request,
                                            const CompiledModel& compiled) {
    std::vector<std::vector<float>> values;
    for (size_t i = 0; i < compiled.outputs().size(); ++i)
        values.push_back(to_vector(request.get_output_tensor(i)));
    return values;
}

::testing::AssertionResult outputs_match(const InferRequest& request, const CompiledModel& compiled,
                                         const ReferenceModel& m,
                                         const std::vector<std::vector<float>>& inputs) {
    const auto expected = m.reference(inputs);
    const auto actual = get_outputs(request, compiled);
    if (actual.size() != expected.size())
        return ::testing::AssertionFailure()
               << "expected " << expected.size() << " outputs, found " << actual.size();
    for (size_t i = 0; i < expected.size(); ++i) {
        auto r = values_near(actual[i], expected[i]);
        if (!r)
            return ::testing::AssertionFailure()
                   << "output " << i << " (" << m.output_names[i] << "): " << r.message();
    }
    return ::testing::AssertionSuccess();
}

}  // namespace vireo::conformance
