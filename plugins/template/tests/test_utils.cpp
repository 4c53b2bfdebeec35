// Implements the TEMPLATE test helpers: .npy reading, comparisons, the probe op, model builders.
#include "test_utils.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "vireo/op_registry.hpp"
#include "vireo/ops.hpp"
#include "vireo/reference/kernel.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"

namespace vireo::template_test {

std::string data_dir() {
    return VIREO_TEST_DATA_DIR;
}

Core make_core() {
    const std::string xml = std::string(VIREO_BUILD_LIB_DIR) + "/plugins.xml";
    Core core(std::filesystem::exists(xml) ? xml : "");
    bool listed = false;
    try {
        core.get_versions("TEMPLATE");
        listed = true;
    } catch (const Exception&) {
    }
    if (!listed) core.register_plugin(VIREO_TEMPLATE_PLUGIN_PATH, "TEMPLATE");
    return core;
}

Tensor read_npy(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    char magic[6];
    in.read(magic, 6);
    if (std::memcmp(magic, "\x93NUMPY", 6) != 0)
        throw std::runtime_error(path + ": not a .npy file");
    unsigned char version[2];
    in.read(reinterpret_cast<char*>(version), 2);
    size_t header_len = 0;
    if (version[0] == 1) {
        unsigned char b[2];
        in.read(reinterpret_cast<char*>(b), 2);
        header_len = b[0] | (b[1] << 8);
    } else {
        unsigned char b[4];
        in.read(reinterpret_cast<char*>(b), 4);
        header_len = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<size_t>(b[3]) << 24);
    }
    std::string header(header_len, '\0');
    in.read(header.data(), static_cast<std::streamsize>(header_len));
    auto field = [&](const std::string& key) {
        const size_t k = header.find("'" + key + "'");
        if (k == std::string::npos) throw std::runtime_error(path + ": no " + key);
        return header.substr(header.find(':', k) + 1);
    };
    const std::string descr = field("descr");
    const size_t q = descr.find('\'');
    const std::string dtype = descr.substr(q + 1, descr.find('\'', q + 1) - q - 1);
    if (field("fortran_order").find("True") < field("fortran_order").find(','))
        throw std::runtime_error(path + ": Fortran order is not supported");
    const std::string shape_text = field("shape");
    const std::string dims = shape_text.substr(shape_text.find('(') + 1,
                                               shape_text.find(')') - shape_text.find('(') - 1);
    Shape shape;
    std::stringstream ss(dims);
    for (std::string d; std::getline(ss, d, ',');)
        if (d.find_first_not_of(' ') != std::string::npos) shape.push_back(std::stoul(d));
    element::Type type;
    if (dtype == "<f4")
        type = element::f32;
    else if (dtype == "<f8")
        type = element::f64;
    else if (dtype == "<i4")
        type = element::i32;
    else if (dtype == "<i8")
        type = element::i64;
    else if (dtype == "|u1")
        type = element::u8;
    else
        throw std::runtime_error(path + ": unsupported dtype " + dtype);
    Tensor t(type, shape);
    in.read(static_cast<char*>(t.data()), static_cast<std::streamsize>(t.get_byte_size()));
    if (in.gcount() != static_cast<std::streamsize>(t.get_byte_size()))
        throw std::runtime_error(path + ": truncated");
    return t;
}

void fill_pattern(Tensor& t, int seed) {
    float* p = t.data<float>();
    for (size_t i = 0; i < t.get_size(); ++i)
        p[i] =
            static_cast<float>(((i * 7919 + static_cast<size_t>(seed) * 104729) % 2001)) / 1000.0f -
            1.0f;
}

::testing::AssertionResult all_close(const Tensor& actual, const Tensor& expected, double rel,
                                     double abs) {
    if (actual.get_shape() != expected.get_shape())
        return ::testing::AssertionFailure()
               << "shape " << actual.get_shape() << " vs expected " << expected.get_shape();
    const float* a = actual.data<float>();
    const float* e = expected.data<float>();
    for (size_t i = 0; i < actual.get_size(); ++i) {
        const double diff = std::fabs(static_cast<double>(a[i]) - e[i]);
        if (!(diff <= abs + rel * std::fabs(static_cast<double>(e[i]))))
            return ::testing::AssertionFailure()
                   << "element " << i << ": " << a[i] << " vs expected " << e[i] << " (diff "
                   << diff << ")";
    }
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult identical(const Tensor& actual, const Tensor& expected) {
    if (actual.get_element_type() != expected.get_element_type() ||
        actual.get_shape() != expected.get_shape())
        return ::testing::AssertionFailure()
               << "type/shape " << actual.get_element_type() << actual.get_shape() << " vs "
               << expected.get_element_type() << expected.get_shape();
    if (std::memcmp(actual.data(), expected.data(), actual.get_byte_size()) != 0)
        return ::testing::AssertionFailure() << "bytes differ";
    return ::testing::AssertionSuccess();
}

// ---- probe op ----

void ProbeLog::reset() {
    std::lock_guard<std::mutex> lock(mutex);
    executions = 0;
    last_input = nullptr;
    last_output = nullptr;
    block_at = 0;
    blocked = false;
    released = false;
}

void ProbeLog::wait_blocked() {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return blocked; });
}

void ProbeLog::release() {
    std::lock_guard<std::mutex> lock(mutex);
    released = true;
    changed.notify_all();
}

ProbeLog& probe_log() {
    static ProbeLog log;
    return log;
}

namespace {

class ProbeKernel : public reference::Kernel {
  public:
    void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        std::memcpy(outputs[0].data(), inputs[0].data(), inputs[0].get_byte_size());
        ProbeLog& log = probe_log();
        std::unique_lock<std::mutex> lock(log.mutex);
        ++log.executions;
        log.last_input = inputs[0].data();
        log.last_output = outputs[0].data();
        log.last_on_stream = sdk::CPUStreamsExecutor::current_stream_id() >= 0;
        if (log.block_at != 0 && log.executions == log.block_at) {
            log.blocked = true;
            log.changed.notify_all();
            log.changed.wait(lock, [&] { return log.released; });
        }
    }
};

std::vector<InferOutput> same_as_input(const Node&, const std::vector<InferInput>& in) {
    return {{in[0].type, in[0].shape}};
}

void register_test_ops() {
    static std::once_flag once;
    std::call_once(once, [] {
        OpRegistry::instance().add(OpDef{"TemplateTestProbe", 1, "", 1, 1, {}, same_as_input, {}});
        OpRegistry::instance().add(
            OpDef{"TemplateTestNoKernel", 1, "", 1, 1, {}, same_as_input, {}});
        reference::KernelRegistry::instance().add(
            "TemplateTestProbe", [](const Node&) { return std::make_unique<ProbeKernel>(); });
    });
}

}  // namespace

NodePtr probe(const Output& x) {
    register_test_ops();
    return make_node("TemplateTestProbe", {x});
}

NodePtr no_kernel_op(const Output& x) {
    register_test_ops();
    return make_node("TemplateTestNoKernel", {x});
}

// ---- dense model ----

std::shared_ptr<Model> make_dense_model(size_t batch, size_t n, const std::string& name) {
    auto x = op::parameter(element::f32, PartialShape(Shape{batch, n}), "x");
    Tensor w(element::f32, Shape{n, n});
    fill_pattern(w, 1);
    Tensor b(element::f32, Shape{1, n});
    fill_pattern(b, 2);
    auto mm = op::matmul(x, op::constant(w));
    auto add = op::add(mm, op::constant(b));
    auto y = op::relu(add);
    y->set_friendly_name("y");
    y->output(0).set_names({"y"});
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, name);
}

std::vector<float> dense_reference(const Model&, const std::vector<float>& x, size_t batch,
                                   size_t n) {
    Tensor w(element::f32, Shape{n, n});
    fill_pattern(w, 1);
    Tensor b(element::f32, Shape{1, n});
    fill_pattern(b, 2);
    std::vector<float> y(batch * n);
    for (size_t r = 0; r < batch; ++r)
        for (size_t c = 0; c < n; ++c) {
            double acc = b.data<float>()[c];
            for (size_t k = 0; k < n; ++k)
                acc += static_cast<double>(x[r * n + k]) * w.data<float>()[k * n + c];
            y[r * n + c] = acc > 0 ? static_cast<float>(acc) : 0.0f;
        }
    return y;
}

}  // namespace vireo::template_test
