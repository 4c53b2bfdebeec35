// The conformance suite's models, built with the vireo::op builders, and the plain loops that
// compute their expected outputs (independently of any plugin or reference kernel); each model
// has variants, and the one built is chosen from what the device's query_model supports.
#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include "vireo/conformance/suite.hpp"

namespace vireo::conformance {
namespace {

using Values = std::vector<std::vector<float>>;

/// Deterministic weights: multiples of 1/16 in [-0.6875, 0.6875], exact in f32.
std::vector<float> weights(size_t count, uint32_t salt) {
    std::vector<float> w(count);
    for (size_t i = 0; i < count; ++i)
        w[i] = (static_cast<float>((i * 7u + salt * 13u) % 23u) - 11.f) / 16.f;
    return w;
}

NodePtr f32_constant(const Shape& shape, const std::vector<float>& values) {
    return op::constant<float>(element::f32, shape, values);
}

Output named(const NodePtr& node, const std::string& name, size_t index = 0) {
    Output out(node, index);
    out.set_names({name});
    return out;
}

/// out[r][c] = sum_k a[r][k] * b[k][c] + bias[c]
std::vector<float> dense(const std::vector<float>& a, size_t rows, size_t inner,
                         const std::vector<float>& b, size_t cols, const std::vector<float>& bias) {
    std::vector<float> out(rows * cols, 0.f);
    for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < cols; ++c) {
            double sum = bias.empty() ? 0.0 : bias[c];
            for (size_t k = 0; k < inner; ++k)
                sum += static_cast<double>(a[r * inner + k]) * b[k * cols + c];
            out[r * cols + c] = static_cast<float>(sum);
        }
    return out;
}

ReferenceModel elementwise_full() {
    auto x = op::parameter(element::f32, Shape{2, 3, 4}, "x");
    auto y = op::parameter(element::f32, Shape{2, 3, 4}, "y");
    auto xy = op::multiply(x, y);
    auto sum = op::add(xy, x);
    auto relu = op::relu(sum);
    auto z = op::subtract(relu, f32_constant(Shape{1}, {0.25f}));
    auto model = std::make_shared<Model>(OutputVector{named(z, "z")}, ParameterVector{x, y},
                                         "conformance_elementwise");
    ReferenceFunction ref = [](const Values& in) {
        std::vector<float> z(in[0].size());
        for (size_t i = 0; i < z.size(); ++i)
            z[i] = std::max(in[0][i] * in[1][i] + in[0][i], 0.f) - 0.25f;
        return Values{z};
    };
    return {model, ref, {"x", "y"}, {"z"}};
}

ReferenceModel mlp_full() {
    const auto w1 = weights(8 * 16, 1), b1 = weights(16, 2), w2 = weights(16 * 4, 3),
               b2 = weights(4, 4);
    auto x = op::parameter(element::f32, Shape{2, 8}, "x");
    auto h = op::relu(
        op::add(op::matmul(x, f32_constant(Shape{8, 16}, w1)), f32_constant(Shape{16}, b1)));
    auto logits =
        op::add(op::matmul(h, f32_constant(Shape{16, 4}, w2)), f32_constant(Shape{4}, b2));
    auto probs = op::softmax(logits, 1);
    auto model = std::make_shared<Model>(OutputVector{named(probs, "probs")}, ParameterVector{x},
                                         "conformance_mlp");
    ReferenceFunction ref = [=](const Values& in) {
        auto hidden = dense(in[0], 2, 8, w1, 16, b1);
        for (auto& v : hidden) v = std::max(v, 0.f);
        auto out = dense(hidden, 2, 16, w2, 4, b2);
        for (size_t r = 0; r < 2; ++r) {
            float top = out[r * 4];
            for (size_t c = 1; c < 4; ++c) top = std::max(top, out[r * 4 + c]);
            double total = 0;
            for (size_t c = 0; c < 4; ++c)
                total += std::exp(static_cast<double>(out[r * 4 + c] - top));
            for (size_t c = 0; c < 4; ++c)
                out[r * 4 + c] =
                    static_cast<float>(std::exp(static_cast<double>(out[r * 4 + c] - top)) / total);
        }
        return Values{out};
    };
    return {model, ref, {"x"}, {"probs"}};
}

ReferenceModel cnn_full() {
    constexpr size_t kIn = 2, kOut = 3, kSize = 6, kPooled = 3, kClasses = 5;
    const auto w = weights(kOut * kIn * 9, 5), bias = weights(kOut, 6),
               fc = weights(kOut * kPooled * kPooled * kClasses, 7);
    auto image = op::parameter(element::f32, Shape{1, kIn, kSize, kSize}, "image");
    auto conv = op::convolution(image, f32_constant(Shape{kOut, kIn, 3, 3}, w), {1, 1}, {1, 1},
                                {1, 1}, {1, 1});
    auto act = op::relu(op::add(conv, f32_constant(Shape{1, kOut, 1, 1}, bias)));
    auto pool = op::max_pool(act, {2, 2}, {0, 0}, {0, 0}, {2, 2});
    auto flat = op::reshape(
        pool, op::int64_vector({1, static_cast<int64_t>(kOut * kPooled * kPooled)}), false);
    auto logits = op::matmul(flat, f32_constant(Shape{kOut * kPooled * kPooled, kClasses}, fc));
    auto model = std::make_shared<Model>(OutputVector{named(logits, "logits")},
                                         ParameterVector{image}, "conformance_cnn");
    ReferenceFunction ref = [=](const Values& in) {
        const auto& x = in[0];
        std::vector<float> conv_out(kOut * kSize * kSize);
        for (size_t o = 0; o < kOut; ++o)
            for (size_t r = 0; r < kSize; ++r)
                for (size_t c = 0; c < kSize; ++c) {
                    double sum = bias[o];
                    for (size_t i = 0; i < kIn; ++i)
                        for (size_t kr = 0; kr < 3; ++kr)
                            for (size_t kc = 0; kc < 3; ++kc) {
                                const long sr = static_cast<long>(r + kr) - 1,
                                           sc = static_cast<long>(c + kc) - 1;
                                if (sr < 0 || sc < 0 || sr >= static_cast<long>(kSize) ||
                                    sc >= static_cast<long>(kSize))
                                    continue;
                                sum += static_cast<double>(x[(i * kSize + sr) * kSize + sc]) *
                                       w[((o * kIn + i) * 3 + kr) * 3 + kc];
                            }
                    conv_out[(o * kSize + r) * kSize + c] = std::max(static_cast<float>(sum), 0.f);
                }
        std::vector<float> pooled(kOut * kPooled * kPooled);
        for (size_t o = 0; o < kOut; ++o)
            for (size_t r = 0; r < kPooled; ++r)
                for (size_t c = 0; c < kPooled; ++c) {
                    float m = conv_out[(o * kSize + 2 * r) * kSize + 2 * c];
                    for (size_t dr = 0; dr < 2; ++dr)
                        for (size_t dc = 0; dc < 2; ++dc)
                            m = std::max(m,
                                         conv_out[(o * kSize + 2 * r + dr) * kSize + 2 * c + dc]);
                    pooled[(o * kPooled + r) * kPooled + c] = m;
                }
        return Values{dense(pooled, 1, kOut * kPooled * kPooled, fc, kClasses, {})};
    };
    return {model, ref, {"image"}, {"logits"}};
}

ReferenceModel multi_output_full() {
    auto x = op::parameter(element::f32, Shape{2, 4}, "x");
    auto plus_one = op::add(x, f32_constant(Shape{1}, {1.f}));
    auto relu = op::relu(x);
    auto row_sum = op::reduce_sum(x, op::int64_vector({1}), false);
    auto model = std::make_shared<Model>(
        OutputVector{named(plus_one, "plus_one"), named(relu, "relu"), named(row_sum, "row_sum")},
        ParameterVector{x}, "conformance_multi_output");
    ReferenceFunction ref = [](const Values& in) {
        std::vector<float> a(8), b(8), s(2, 0.f);
        for (size_t i = 0; i < 8; ++i) {
            a[i] = in[0][i] + 1.f;
            b[i] = std::max(in[0][i], 0.f);
            s[i / 4] += in[0][i];
        }
        return Values{a, b, s};
    };
    return {model, ref, {"x"}, {"plus_one", "relu", "row_sum"}};
}

ReferenceModel scalar_full() {
    auto s = op::parameter(element::f32, Shape{}, "s");
    auto out = op::add(op::multiply(s, s), f32_constant(Shape{}, {1.f}));
    auto model = std::make_shared<Model>(OutputVector{named(out, "square_plus_one")},
                                         ParameterVector{s}, "conformance_scalar");
    ReferenceFunction ref = [](const Values& in) { return Values{{in[0][0] * in[0][0] + 1.f}}; };
    return {model, ref, {"s"}, {"square_plus_one"}};
}

ReferenceModel dynamic_full() {
    auto x = op::parameter(element::f32, PartialShape{Dimension::dynamic(), 4}, "x");
    auto y = op::relu(op::subtract(op::multiply(x, f32_constant(Shape{1}, {3.f})),
                                   f32_constant(Shape{1}, {1.f})));
    auto model = std::make_shared<Model>(OutputVector{named(y, "y")}, ParameterVector{x},
                                         "conformance_dynamic");
    ReferenceFunction ref = [](const Values& in) {
        std::vector<float> y(in[0].size());
        for (size_t i = 0; i < y.size(); ++i) y[i] = std::max(3.f * in[0][i] - 1.f, 0.f);
        return Values{y};
    };
    return {model, ref, {"x"}, {"y"}};
}

ReferenceModel stateful_full() {
    auto x = op::parameter(element::f32, Shape{1, 3}, "x");
    auto state = op::read_value("acc", element::f32, Shape{1, 3});
    auto sum = op::add(state, x);
    Output(sum).set_names({"acc_out"});
    auto assign = op::assign(sum, "acc");
    auto model = Model::make({op::result(sum)}, {assign}, {x}, "conformance_stateful");
    ReferenceFunction ref = [](const Values& in) { return Values{in[0]}; };
    return {model, ref, {"x"}, {"acc_out"}};
}

// ---- Variants from Add, Multiply, Relu, MatMul and Convolution only ----

ReferenceModel elementwise_basic() {
    ReferenceModel m = elementwise_full();
    auto x = op::parameter(element::f32, Shape{2, 3, 4}, "x");
    auto y = op::parameter(element::f32, Shape{2, 3, 4}, "y");
    auto relu = op::relu(op::add(op::multiply(x, y), x));
    auto z = op::add(relu, f32_constant(Shape{1}, {-0.25f}));
    m.model = std::make_shared<Model>(OutputVector{named(z, "z")}, ParameterVector{x, y},
                                      "conformance_elementwise_basic");
    return m;
}

ReferenceModel mlp_basic() {
    const auto w1 = weights(8 * 16, 1), b1 = weights(16, 2), w2 = weights(16 * 4, 3),
               b2 = weights(4, 4);
    auto x = op::parameter(element::f32, Shape{2, 8}, "x");
    auto h = op::relu(
        op::add(op::matmul(x, f32_constant(Shape{8, 16}, w1)), f32_constant(Shape{16}, b1)));
    auto logits =
        op::add(op::matmul(h, f32_constant(Shape{16, 4}, w2)), f32_constant(Shape{4}, b2));
    auto model = std::make_shared<Model>(OutputVector{named(logits, "probs")}, ParameterVector{x},
                                         "conformance_mlp_basic");
    ReferenceFunction ref = [=](const Values& in) {
        auto hidden = dense(in[0], 2, 8, w1, 16, b1);
        for (auto& v : hidden) v = std::max(v, 0.f);
        return Values{dense(hidden, 2, 16, w2, 4, b2)};
    };
    return {model, ref, {"x"}, {"probs"}};
}

ReferenceModel cnn_basic() {
    constexpr size_t kIn = 2, kMid = 3, kSize = 6, kClasses = 5;
    const auto w = weights(kMid * kIn * 9, 5), bias = weights(kMid, 6),
               w2 = weights(kClasses * kMid * kSize * kSize, 7);
    auto image = op::parameter(element::f32, Shape{1, kIn, kSize, kSize}, "image");
    auto conv = op::convolution(image, f32_constant(Shape{kMid, kIn, 3, 3}, w), {1, 1}, {1, 1},
                                {1, 1}, {1, 1});
    auto act = op::relu(op::add(conv, f32_constant(Shape{1, kMid, 1, 1}, bias)));
    auto logits = op::convolution(act, f32_constant(Shape{kClasses, kMid, kSize, kSize}, w2),
                                  {1, 1}, {0, 0}, {0, 0}, {1, 1});
    auto model = std::make_shared<Model>(OutputVector{named(logits, "logits")},
                                         ParameterVector{image}, "conformance_cnn_basic");
    ReferenceFunction ref = [=](const Values& in) {
        const auto& x = in[0];
        std::vector<float> mid(kMid * kSize * kSize);
        for (size_t o = 0; o < kMid; ++o)
            for (size_t r = 0; r < kSize; ++r)
                for (size_t c = 0; c < kSize; ++c) {
                    double sum = bias[o];
                    for (size_t i = 0; i < kIn; ++i)
                        for (size_t kr = 0; kr < 3; ++kr)
                            for (size_t kc = 0; kc < 3; ++kc) {
                                const long sr = static_cast<long>(r + kr) - 1,
                                           sc = static_cast<long>(c + kc) - 1;
                                if (sr < 0 || sc < 0 || sr >= static_cast<long>(kSize) ||
                                    sc >= static_cast<long>(kSize))
                                    continue;
                                sum += static_cast<double>(x[(i * kSize + sr) * kSize + sc]) *
                                       w[((o * kIn + i) * 3 + kr) * 3 + kc];
                            }
                    mid[(o * kSize + r) * kSize + c] = std::max(static_cast<float>(sum), 0.f);
                }
        // A 6x6 kernel over the 6x6 map: one dot product per class over all of it.
        return Values{dense(mid, 1, kMid * kSize * kSize,
                            [&] {
                                std::vector<float> t(kMid * kSize * kSize * kClasses);
                                for (size_t k = 0; k < kClasses; ++k)
                                    for (size_t j = 0; j < kMid * kSize * kSize; ++j)
                                        t[j * kClasses + k] = w2[k * kMid * kSize * kSize + j];
                                return t;
                            }(),
                            kClasses, {})};
    };
    return {model, ref, {"image"}, {"logits"}};
}

ReferenceModel multi_output_basic() {
    ReferenceModel m = multi_output_full();
    auto x = op::parameter(element::f32, Shape{2, 4}, "x");
    auto plus_one = op::add(x, f32_constant(Shape{1}, {1.f}));
    auto relu = op::relu(x);
    auto row_sum = op::matmul(x, f32_constant(Shape{4}, {1.f, 1.f, 1.f, 1.f}));
    m.model = std::make_shared<Model>(
        OutputVector{named(plus_one, "plus_one"), named(relu, "relu"), named(row_sum, "row_sum")},
        ParameterVector{x}, "conformance_multi_output_basic");
    return m;
}

ReferenceModel dynamic_basic() {
    ReferenceModel m = dynamic_full();
    auto x = op::parameter(element::f32, PartialShape{Dimension::dynamic(), 4}, "x");
    auto y = op::relu(
        op::add(op::multiply(x, f32_constant(Shape{1}, {3.f})), f32_constant(Shape{1}, {-1.f})));
    m.model = std::make_shared<Model>(OutputVector{named(y, "y")}, ParameterVector{x},
                                      "conformance_dynamic_basic");
    return m;
}

using Builder = ReferenceModel (*)();

struct ModelFamily {
    const char* name;
    std::vector<Builder> variants;  // richest first
};

const std::vector<ModelFamily>& families() {
    static const std::vector<ModelFamily> all{
        {"elementwise", {elementwise_full, elementwise_basic}},
        {"mlp", {mlp_full, mlp_basic}},
        {"cnn", {cnn_full, cnn_basic}},
        {"multi_output", {multi_output_full, multi_output_basic}},
        {"scalar", {scalar_full}},
        {"dynamic", {dynamic_full, dynamic_basic}},
        {"stateful", {stateful_full}}};
    return all;
}

bool is_computation(const Node& node) {
    const std::string& type = node.get_type_name();
    return type != "Parameter" && type != "Result" && type != "Constant";
}

// The computation ops of `model` that query_model (on `c`) leaves out, as "Type 'name', ...":
// empty when all are supported or when query_model itself fails.
std::string missing_ops(Core& c, const std::shared_ptr<const Model>& model) {
    std::map<std::string, std::string> supported;
    try {
        supported = c.query_model(model, device_name());
    } catch (const Exception&) {
        return "";
    }
    std::string missing;
    for (const auto& node : model->get_ordered_ops())
        if (is_computation(*node) && !supported.count(node->get_friendly_name()))
            missing += (missing.empty() ? "" : ", ") + node->get_type_name() + " '" +
                       node->get_friendly_name() + "'";
    return missing;
}

// The first variant of `family` the device supports (chosen once per process).
ReferenceModel choose(const char* family) {
    static std::mutex mutex;
    static std::map<std::string, size_t> chosen;
    const ModelFamily* f = nullptr;
    for (const auto& candidate : families())
        if (std::string(candidate.name) == family) f = &candidate;
    {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = chosen.find(family);
        if (it != chosen.end()) return f->variants[it->second]();
    }
    // A Core of its own, gone when the choice is made: asking the shared core() would keep the
    // plugin loaded, which tests of loading and unloading must not see.
    Core asked = make_core();
    std::string reasons;
    for (size_t i = 0; i < f->variants.size(); ++i) {
        ReferenceModel m = f->variants[i]();
        const std::string missing = missing_ops(asked, m.model);
        if (missing.empty()) {
            std::lock_guard<std::mutex> lock(mutex);
            chosen[family] = i;
            return m;
        }
        reasons += std::string(reasons.empty() ? "" : "; ") + "variant " + m.model->get_name() +
                   " needs " + missing;
    }
    throw ModelUnavailable(std::string("no variant of the ") + family + " model runs on " +
                           device_name() + " (query_model leaves ops out): " + reasons);
}

}  // namespace

ReferenceModel elementwise_model() {
    return choose("elementwise");
}
ReferenceModel mlp_model() {
    return choose("mlp");
}
ReferenceModel cnn_model() {
    return choose("cnn");
}
ReferenceModel multi_output_model() {
    return choose("multi_output");
}
ReferenceModel scalar_model() {
    return choose("scalar");
}
ReferenceModel dynamic_model() {
    return choose("dynamic");
}
ReferenceModel stateful_model() {
    return choose("stateful");
}

std::vector<ReferenceModel> all_model_variants() {
    std::vector<ReferenceModel> out;
    for (const auto& family : families())
        for (Builder build : family.variants) out.push_back(build());
    return out;
}

void require_supported(const std::shared_ptr<const Model>& model, const std::string& what) {
    const std::string missing = missing_ops(core(), model);
    if (!missing.empty())
        throw ModelUnavailable(what + " has ops " + device_name() +
                               " does not support (query_model leaves them out): " + missing);
}

}  // namespace vireo::conformance
