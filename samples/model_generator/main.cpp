// model_generator: builds the bundled sample models (mlp, cnn, dynamic, summator) with the Model
// API and writes them as OpenVINO IR with vireo::serialize. Weights come from a fixed-seed
// generator, so regenerating gives byte-identical files:  model_generator -o samples/models
#include <gflags/gflags.h>
#include <glog/logging.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>

#include "sample_utils.hpp"
#include "vireo/ir.hpp"
#include "vireo/model.hpp"
#include "vireo/ops.hpp"

DEFINE_string(o, "",
              "Required. Output directory; each model goes to <o>/<name>/<name>.xml + .bin.");
DEFINE_string(only, "",
              "Generate only this model (mlp, cnn, dynamic or summator); all when empty.");

namespace {

using vireo::Output;
using vireo::PartialShape;
using vireo::Shape;
namespace element = vireo::element;
namespace op = vireo::op;

/// Deterministic weights: a 64-bit LCG mapped to [-scale, scale). Same seed, same bytes on
/// every machine (no std::*_distribution, whose output is implementation-defined).
class Weights {
  public:
    explicit Weights(uint64_t seed)
        : m_state(seed * 6364136223846793005ull + 1442695040888963407ull) {}

    vireo::NodePtr make(const Shape& shape, float scale) {
        size_t count = 1;
        for (size_t d : shape) count *= d;
        std::vector<float> values(count);
        for (float& v : values) {
            m_state = m_state * 6364136223846793005ull + 1442695040888963407ull;
            const double unit =
                static_cast<double>(m_state >> 11) / static_cast<double>(1ull << 53);
            v = static_cast<float>((2.0 * unit - 1.0) * scale);
        }
        return op::constant(element::f32, shape, values);
    }

  private:
    uint64_t m_state;
};

/// x [.., in] -> MatMul(in x out) + bias (+ ReLU).
Output dense(Weights& w, const Output& x, size_t in, size_t out, bool relu) {
    const float scale = 1.0f / std::sqrt(static_cast<float>(in));
    Output y = op::add(op::matmul(x, w.make({in, out}, scale)), w.make({out}, 0.1f));
    return relu ? Output(op::relu(y)) : y;
}

/// x [1, c_in, h, w] -> 3x3 convolution (pad 1) + per-channel bias + ReLU.
Output conv3x3(Weights& w, const Output& x, size_t c_in, size_t c_out) {
    const float scale = 1.0f / std::sqrt(static_cast<float>(c_in * 9));
    Output y =
        op::convolution(x, w.make({c_out, c_in, 3, 3}, scale), {1, 1}, {1, 1}, {1, 1}, {1, 1});
    return op::relu(op::add(y, w.make({1, c_out, 1, 1}, 0.1f)));
}

std::shared_ptr<vireo::Model> finish(const Output& y, const std::shared_ptr<vireo::Node>& x,
                                     const std::string& name) {
    Output out = y;
    out.set_names({"y"});
    return std::make_shared<vireo::Model>(vireo::OutputVector{out}, vireo::ParameterVector{x},
                                          name);
}

/// mlp: x [1,256] -> 256 -> 256 -> 10, ReLU between layers, softmax at the end.
std::shared_ptr<vireo::Model> make_mlp() {
    Weights w(1);
    auto x = op::parameter(element::f32, PartialShape(Shape{1, 256}), "x");
    Output h = dense(w, x, 256, 256, true);
    h = dense(w, h, 256, 256, true);
    return finish(op::softmax(dense(w, h, 256, 10, false), 1), x, "mlp");
}

/// cnn: x [1,3,32,32] -> conv 8 -> pool -> conv 16 -> pool -> dense 10 -> softmax.
std::shared_ptr<vireo::Model> make_cnn() {
    Weights w(2);
    auto x = op::parameter(element::f32, PartialShape(Shape{1, 3, 32, 32}), "x");
    Output h = conv3x3(w, x, 3, 8);
    h = op::max_pool(h, {2, 2}, {0, 0}, {0, 0}, {2, 2});
    h = conv3x3(w, h, 8, 16);
    h = op::max_pool(h, {2, 2}, {0, 0}, {0, 0}, {2, 2});  // [1,16,8,8]
    h = op::reshape(h, op::int64_vector({1, 16 * 8 * 8}), false);
    return finish(op::softmax(dense(w, h, 16 * 8 * 8, 10, false), 1), x, "cnn");
}

/// dynamic: x [?,64] (any batch) -> 32 -> 8; the batch is chosen per inference.
std::shared_ptr<vireo::Model> make_dynamic() {
    Weights w(3);
    auto x = op::parameter(element::f32, PartialShape{vireo::Dimension::dynamic(), 64}, "x");
    Output h = dense(w, x, 64, 32, true);
    return finish(dense(w, h, 32, 8, false), x, "dynamic");
}

/// summator: x [1,8] -> acc += x (a variable: ReadValue/Assign) -> y = acc * 0.5. Stateful: the
/// sum carries over between inferences of one request. MOCK_REMOTE cannot run variables, so
/// `-d HETERO:MOCK_REMOTE.1,TEMPLATE` keeps them on TEMPLATE and runs the Multiply remotely.
std::shared_ptr<vireo::Model> make_summator() {
    auto x = op::parameter(element::f32, PartialShape{1, 8}, "x");
    auto read = op::read_value("acc", element::f32, PartialShape{1, 8});
    read->set_friendly_name("acc_read");
    auto sum = op::add(read, x);
    sum->set_friendly_name("acc_add");
    auto write = op::assign(sum, "acc");
    write->set_friendly_name("acc_write");
    // Every node named: generated names count nodes made before, so they would depend on
    // which models were generated first.
    auto factor = op::constant<float>(element::f32, {1}, {0.5f});
    factor->set_friendly_name("half_factor");
    Output out = op::multiply(sum, factor);
    out.get_node()->set_friendly_name("half");
    out.set_names({"y"});
    auto result = op::result(out);
    result->set_friendly_name("y_result");
    return vireo::Model::make({result}, {write}, {x}, "summator");
}

int run(int argc, char** argv) {
    gflags::SetUsageMessage("model_generator -o samples/models [-only mlp|cnn|dynamic|summator]");
    gflags::ParseCommandLineFlags(&argc, &argv, true);
    google::InitGoogleLogging(argv[0]);
    FLAGS_logtostderr = true;
    if (FLAGS_o.empty())
        vireo::throw_error<vireo::InvalidArgument>("-o is required (output directory)");

    const std::map<std::string, std::function<std::shared_ptr<vireo::Model>()>> makers = {
        {"mlp", make_mlp},
        {"cnn", make_cnn},
        {"dynamic", make_dynamic},
        {"summator", make_summator}};
    if (!FLAGS_only.empty() && !makers.count(FLAGS_only))
        vireo::throw_error<vireo::InvalidArgument>(
            "-only '", FLAGS_only, "' is not a model (mlp, cnn, dynamic, summator)");
    for (const auto& [name, make] : makers) {
        if (!FLAGS_only.empty() && name != FLAGS_only) continue;
        const auto dir = std::filesystem::path(FLAGS_o) / name;
        std::filesystem::create_directories(dir);
        const auto model = make();
        const auto xml = (dir / (name + ".xml")).string();
        vireo::serialize(*model, xml, (dir / (name + ".bin")).string());
        std::printf("%-8s %-16s -> %s\n", name.c_str(),
                    model->input().get_partial_shape().to_string().c_str(), xml.c_str());
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return vireo::samples::run_main(run, argc, argv);
}
