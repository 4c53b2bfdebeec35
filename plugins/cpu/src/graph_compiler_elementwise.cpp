// Implements the graph compiler's element-wise, concatenation and reduction steps on oneDNN:
// unary ops and ops with a scalar constant operand as `eltwise_forward`, binary ops with numpy
// broadcasting as `binary`, Concat as `concat`, the Reduce ops as `reduction`. Each keeps its
// input's layout, so a channels-last region stays channels-last through them.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "concat_affine_kernel.hpp"
#include "graph_compiler_impl.hpp"

namespace vireo::cpu_plugin::detail {
namespace {

PostOp eltwise_op(algorithm alg, float alpha = 0.f, float beta = 0.f) {
    PostOp p;
    p.algorithm = alg;
    p.alpha = alpha;
    p.beta = beta;
    return p;
}

// A double attribute as a post-op's float, saturating (Clamp bounds may be +-DBL_MAX).
float saturated(double v) {
    const double limit = std::numeric_limits<float>::max();
    return static_cast<float>(std::isnan(v) ? v : std::min(limit, std::max(-limit, v)));
}

bool is_channel_layout_rank(size_t rank) {
    return rank >= 3 && rank <= 5;
}

// `shape` right-aligned to `rank` with leading ones.
Dims padded_dims(const Shape& shape, size_t rank) {
    Dims dims(rank, 1);
    for (size_t i = 0; i < shape.size(); ++i) dims[rank - shape.size() + i] = shape[i];
    return dims;
}

}  // namespace

bool append_eltwise(std::vector<PostOp>& ops, const PostOp& p) {
    if (!ops.empty() && ops.back().kind == PostOp::Kind::kEltwise) {
        PostOp& last = ops.back();
        // Two linear steps in a row are one: c * (a * x + b) + d.
        if (p.algorithm == algorithm::eltwise_linear &&
            last.algorithm == algorithm::eltwise_linear) {
            last.beta = p.alpha * last.beta + p.beta;
            last.alpha *= p.alpha;
            return true;
        }
        // Clip after clip is one clip (ONNX's Clip arrives as Maximum then Minimum).
        if (p.algorithm == algorithm::eltwise_clip && last.algorithm == algorithm::eltwise_clip &&
            std::max(p.alpha, last.alpha) <= std::min(p.beta, last.beta)) {
            last.alpha = std::max(p.alpha, last.alpha);
            last.beta = std::min(p.beta, last.beta);
            return true;
        }
    }
    // oneDNN 2.6's jit post-op kernels give every eltwise post-op of one algorithm the constants
    // of the first (linear(0.5), abs, linear(1, 0.6) computed 0.5 * |0.5 x|): one per algorithm.
    for (const auto& q : ops)
        if (q.kind == PostOp::Kind::kEltwise && q.algorithm == p.algorithm) return false;
    ops.push_back(p);
    return true;
}

bool append_eltwise(std::vector<PostOp>& ops, const std::vector<PostOp>& more) {
    std::vector<PostOp> joined = ops;
    for (const auto& p : more) {
        if (p.kind != PostOp::Kind::kEltwise)
            joined.push_back(p);
        else if (!append_eltwise(joined, p))
            return false;
    }
    ops = std::move(joined);
    return true;
}

namespace {

// The binary_mul / binary_add post-op by the scalar `v` over a destination of rank `rank`.
PostOp scalar_binary(algorithm alg, float v, size_t rank) {
    PostOp p;
    p.kind = PostOp::Kind::kBinary;
    p.algorithm = alg;
    p.alpha = v;
    p.scalar_linear = true;
    const Dims ones(std::max<size_t>(rank, 1), 1);
    p.desc = dnnl::memory::desc(ones, dt::f32, plain_tag(ones.size()));
    p.constant = make_constant(p.desc, &v, p.desc);
    return p;
}

}  // namespace

bool append_post_ops(std::vector<PostOp>& ops, const std::vector<PostOp>& more, size_t rank) {
    std::vector<PostOp> joined = ops;
    for (const auto& p : more) {
        if (p.kind != PostOp::Kind::kEltwise || append_eltwise(joined, p)) {
            if (p.kind != PostOp::Kind::kEltwise) joined.push_back(p);
            continue;
        }
        if (p.algorithm != algorithm::eltwise_linear) return false;
        // y = alpha x + beta after the pair's a x + b: (alpha a) x + (alpha b + beta).
        const size_t n = joined.size();
        if (n >= 2 && joined[n - 2].scalar_linear && joined[n - 1].scalar_linear) {
            const float a = joined[n - 2].alpha, b = joined[n - 1].alpha;
            joined[n - 2] = scalar_binary(algorithm::binary_mul, p.alpha * a, rank);
            joined[n - 1] = scalar_binary(algorithm::binary_add, p.alpha * b + p.beta, rank);
        } else {
            joined.push_back(scalar_binary(algorithm::binary_mul, p.alpha, rank));
            joined.push_back(scalar_binary(algorithm::binary_add, p.beta, rank));
        }
    }
    ops = std::move(joined);
    return true;
}

bool eltwise_form(const Node& c, size_t input, const Value* other, std::vector<PostOp>* out,
                  bool inexact_reciprocal) {
    const std::string& type = c.get_type_name();
    if (c.get_output_size() != 1 || c.get_output_element_type(0) != element::f32) return false;
    auto one = [&](algorithm alg, float alpha = 0.f, float beta = 0.f) {
        out->push_back(eltwise_op(alg, alpha, beta));
        return true;
    };
    if (c.get_input_size() == 1) {
        if (type == "Relu") return one(algorithm::eltwise_relu);
        if (type == "Sigmoid") return one(algorithm::eltwise_logistic);
        if (type == "Tanh") return one(algorithm::eltwise_tanh);
        if (type == "HSwish") return one(algorithm::eltwise_hardswish);
        if (type == "Swish") return one(algorithm::eltwise_swish, 1.f);
        if (type == "Mish") return one(algorithm::eltwise_mish);
        if (type == "SoftPlus") return one(algorithm::eltwise_soft_relu);
        if (type == "Exp") return one(algorithm::eltwise_exp);
        // Not Log: oneDNN's is off by ~1e-6 absolute near 1 (log(1) = -1.4e-6), where ONNX's
        // tests and ORT give 0; it stays on its reference kernel.
        if (type == "Sqrt") return one(algorithm::eltwise_sqrt);
        if (type == "Abs") return one(algorithm::eltwise_abs);
        if (type == "Negative") return one(algorithm::eltwise_linear, -1.f, 0.f);
        if (type == "Round" && c.get_attribute<std::string>("mode") == "half_to_even")
            return one(algorithm::eltwise_round);
        if (type == "Elu")
            return one(algorithm::eltwise_elu, saturated(c.get_attribute<double>("alpha")));
        if (type == "Clamp")
            return one(algorithm::eltwise_clip, saturated(c.get_attribute<double>("min")),
                       saturated(c.get_attribute<double>("max")));
        if (type == "HSigmoid") {  // min(max(x + 3, 0), 6) / 6
            out->push_back(eltwise_op(algorithm::eltwise_linear, 1.f / 6.f, 0.5f));
            return one(algorithm::eltwise_clip, 0.f, 1.f);
        }
        if (type == "Gelu") {
            const bool tanh = c.get_version() >= 7 && c.has_attribute("approximation_mode") &&
                              c.get_attribute<std::string>("approximation_mode") == "tanh";
            return one(tanh ? algorithm::eltwise_gelu_tanh : algorithm::eltwise_gelu_erf);
        }
        return false;
    }
    // Two inputs, the other a scalar constant.
    if (c.get_input_size() != 2 || !other || other->kind != ValueKind::kConstant) return false;
    if (c.get_output_partial_shape(0) != c.input_value(input).get_partial_shape()) return false;
    float s = 0.f;
    if (!constant_scalar(other->constant, &s)) return false;
    const bool first = input == 0;
    if (type == "Swish" && first) return one(algorithm::eltwise_swish, s);
    // PRelu with one slope is LeakyRelu (ONNX's LeakyRelu imports as it): relu with alpha.
    if (type == "PRelu" && first) return one(algorithm::eltwise_relu, s);
    if (type == "Add") return one(algorithm::eltwise_linear, 1.f, s);
    if (type == "Subtract")
        return first ? one(algorithm::eltwise_linear, 1.f, -s)
                     : one(algorithm::eltwise_linear, -1.f, s);
    if (type == "Multiply") return one(algorithm::eltwise_linear, s, 0.f);
    if (type == "Divide") {
        // x / s as x * (1 / s) where that is exact (or after a convolution or MatMul); else a
        // binary division (a binary post-op in a chain).
        if (first)
            return (exact_reciprocal(s) || (inexact_reciprocal && s != 0.f)) &&
                   one(algorithm::eltwise_linear, 1.f / s, 0.f);
        return one(algorithm::eltwise_pow, s, -1.f);  // s / x = s * x^-1
    }
    if (type == "Power" && first) return one(algorithm::eltwise_pow, 1.f, s);
    const float lowest = -std::numeric_limits<float>::max();
    const float highest = std::numeric_limits<float>::max();
    if (type == "Maximum") return one(algorithm::eltwise_clip, s, highest);
    if (type == "Minimum") return one(algorithm::eltwise_clip, lowest, s);
    return false;
}

namespace {

// What an element-wise op of the standard set computes from its inputs' values (the reference
// semantics, in double): the ops activations are spelt with. nullopt for any other op.
std::optional<double> scalar_op(const Node& n, const std::vector<double>& in) {
    const std::string& t = n.get_type_name();
    const double a = in.at(0);
    const auto softplus = [](double v) { return v > 30 ? v : std::log1p(std::exp(v)); };
    if (in.size() == 1) {
        if (t == "Relu") return a > 0 ? a : 0.0;
        if (t == "Sigmoid") return 1 / (1 + std::exp(-a));
        if (t == "Tanh") return std::tanh(a);
        if (t == "Exp") return std::exp(a);
        if (t == "Log") return std::log(a);
        if (t == "Sqrt") return std::sqrt(a);
        if (t == "Abs") return std::fabs(a);
        if (t == "Negative") return -a;
        if (t == "Erf") return std::erf(a);
        if (t == "SoftPlus") return softplus(a);
        if (t == "HSigmoid") return std::min(std::max(a + 3, 0.0), 6.0) / 6;
        if (t == "HSwish") return a * std::min(std::max(a + 3, 0.0), 6.0) / 6;
        if (t == "Mish") return a * std::tanh(softplus(a));
        if (t == "Swish") return a / (1 + std::exp(-a));
        if (t == "Clamp")
            return std::min(std::max(a, n.get_attribute<double>("min")),
                            n.get_attribute<double>("max"));
        return std::nullopt;
    }
    if (in.size() != 2) return std::nullopt;
    const double b = in[1];
    if (t == "Add") return a + b;
    if (t == "Subtract") return a - b;
    if (t == "Multiply") return a * b;
    if (t == "Divide") return a / b;
    if (t == "Power") return std::pow(a, b);
    if (t == "Maximum") return std::max(a, b);
    if (t == "Minimum") return std::min(a, b);
    if (t == "Swish") return a / (1 + std::exp(-b * a));
    return std::nullopt;
}

// The activations oneDNN has as one post-op, as functions of t.
double gelu_erf(double t) {
    return 0.5 * t * (1 + std::erf(t / std::sqrt(2.0)));
}
double gelu_tanh(double t) {
    return 0.5 * t *
           (1 + std::tanh(std::sqrt(2 / 3.14159265358979323846) * (t + 0.044715 * t * t * t)));
}
double hard_swish(double t) {
    return t * std::min(std::max(t / 6 + 0.5, 0.0), 1.0);
}
double mish(double t) {
    return t * std::tanh(t > 30 ? t : std::log1p(std::exp(t)));
}

// Points that cover the activations' shapes: both saturations, the knees of HardSwish, and
// where the Gelu forms differ (by up to 2e-4 around |t| = 2).
constexpr double kPoints[] = {-9,  -6,  -4, -3,  -2.5, -2, -1.5, -1,  -0.7, -0.3, 0, 0.25,
                              0.5, 0.7, 1,  1.3, 1.5,  2,  2.5,  2.9, 3,    4,    6, 9};

// True when f(t) == c * g(t) at every point, to float precision of the larger side.
template <typename F, typename G>
bool same_function(const F& f, const G& g, double c) {
    for (double t : kPoints) {
        const double want = c * g(t), got = f(t);
        if (!(std::fabs(got - want) <= 2e-6 * (1 + std::fabs(want)))) return false;
    }
    return true;
}

}  // namespace

// Grows a region of element-wise ops from x, in the model's order, each op reading only x,
// ops of the region and scalar constants, until exactly one value of the region is read outside
// it; each time that happens the region is a function f of x alone, evaluated at kPoints and
// compared with the activations oneDNN has (times a constant c: f = c * act(t)).
bool GraphCompiler::fuse_activation_region(FusedChain& chain, const FusionTarget& target) {
    const Output x = chain.output;
    if (!is_f32(x) || !x.get_partial_shape().is_static() || chain.post_ops.size() + 2 > kMaxPostOps)
        return false;
    const PartialShape& shape = x.get_partial_shape();
    std::vector<Node*> region;
    std::set<Output> inside{x};
    std::map<Output, size_t> live{{x, consumers(x).size()}};  // value -> consumers not in region
    constexpr size_t kMaxRegion = 16;
    const auto scalar_constant_of = [&](const Output& o, double* v) {
        if (o.get_node()->get_type_name() != "Constant" || !has_value(o)) return false;
        float f = 0.f;
        const Value& value = m_graph->values[value_of(o)];
        if (value.constant.get_size() != 1 || !constant_scalar(value.constant, &f)) return false;
        *v = f;
        return true;
    };
    const auto evaluate = [&](double t) {
        std::map<Output, double> at{{x, t}};
        for (Node* n : region) {
            std::vector<double> in;
            for (const auto& o : n->input_values()) {
                double c = 0;
                in.push_back(inside.count(o) ? at.at(o) : (scalar_constant_of(o, &c), c));
            }
            at[n->output(0)] = scalar_op(*n, in).value_or(std::nan(""));
        }
        return at.at(region.back()->output(0));
    };
    while (region.size() < kMaxRegion) {
        // The next op: the earliest in the model's order that reads a live value.
        Node* next = nullptr;
        for (const auto& [value, pending] : live)
            for (const auto& use : consumers(value)) {
                Node* n = use.node;
                if (std::find(region.begin(), region.end(), n) != region.end()) continue;
                if (!next || m_order.at(n) < m_order.at(next)) next = n;
            }
        if (!next || m_absorbed.count(next) || next->get_output_size() != 1 ||
            next->get_output_element_type(0) != element::f32 ||
            next->get_output_partial_shape(0) != shape)
            return false;
        std::vector<double> probe;
        for (const auto& o : next->input_values()) {
            double c = 0;
            if (!inside.count(o) && !scalar_constant_of(o, &c)) return false;
            probe.push_back(c);
        }
        if (!scalar_op(*next, probe)) return false;
        region.push_back(next);
        for (const auto& o : next->input_values())
            if (auto it = live.find(o); it != live.end() && --it->second == 0) live.erase(it);
        const Output out = next->output(0);
        inside.insert(out);
        live[out] = consumers(out).size();
        if (live.size() != 1 || live.begin()->first != out) continue;
        // One value leaves the region: which activation is it?
        std::vector<PostOp> found;
        const double c20 = evaluate(20.0) / 20.0;  // the factor of an activation ~ t for t >> 0
        const double s1 = evaluate(1.0) / c20;     // sigmoid(beta) for the Swish form
        const double beta = s1 > 0 && s1 < 1 ? std::log(s1 / (1 - s1)) : 0;
        const auto swish = [beta](double t) { return t / (1 + std::exp(-beta * t)); };
        const auto sigmoid = [](double t) { return 1 / (1 + std::exp(-t)); };
        const double c_sig = evaluate(20.0);
        std::string name;
        double c = c20;
        if (std::isfinite(c20) && c20 != 0 && same_function(evaluate, gelu_erf, c20)) {
            found.push_back(eltwise_op(algorithm::eltwise_gelu_erf));
            name = "Gelu";
        } else if (std::isfinite(c20) && c20 != 0 && same_function(evaluate, gelu_tanh, c20)) {
            found.push_back(eltwise_op(algorithm::eltwise_gelu_tanh));
            name = "Gelu";
        } else if (std::isfinite(c20) && c20 != 0 && same_function(evaluate, hard_swish, c20)) {
            found.push_back(eltwise_op(algorithm::eltwise_hardswish));
            name = "HSwish";
        } else if (std::isfinite(c20) && c20 != 0 && same_function(evaluate, mish, c20)) {
            found.push_back(eltwise_op(algorithm::eltwise_mish));
            name = "Mish";
        } else if (beta > 0 && std::isfinite(c20) && c20 != 0 &&
                   same_function(evaluate, swish, c20)) {
            found.push_back(eltwise_op(algorithm::eltwise_swish, static_cast<float>(beta)));
            name = "Swish";
        } else if (std::isfinite(c_sig) && c_sig != 0 && same_function(evaluate, sigmoid, c_sig)) {
            found.push_back(eltwise_op(algorithm::eltwise_logistic));
            name = "Sigmoid";
            c = c_sig;
        } else {
            continue;  // not (yet) an activation: the region may grow into one
        }
        if (std::fabs(c - 1) > 1e-6)
            found.push_back(eltwise_op(algorithm::eltwise_linear, static_cast<float>(c), 0.f));
        std::vector<PostOp> post_ops = chain.post_ops;
        if (!append_post_ops(post_ops, found, target.channel_dims.size()) ||
            post_ops.size() > kMaxPostOps)
            return false;
        chain.post_ops = std::move(post_ops);
        for (Node* n : region) {
            chain.nodes.push_back(n->shared_from_this());
            m_absorbed.insert(n);
        }
        chain.types.push_back(name);
        chain.output = out;
        return true;
    }
    return false;
}

FusionTarget GraphCompiler::elementwise_target(const dnnl::memory::desc& dst, Layout layout,
                                               const Shape& shape) const {
    FusionTarget target;
    target.rank = shape.size();
    // Per-channel operands: axis 1 of an image-like tensor, else the last axis.
    target.channel_axis =
        layout == Layout::kChannelsLast || shape.size() >= 4 ? 1 : shape.size() - 1;
    target.channels = shape.empty() ? 1 : shape[target.channel_axis];
    target.layout = layout;
    target.dst = dst;
    target.channel_dims = Dims(std::max<size_t>(shape.size(), 1), 1);
    if (!shape.empty())
        target.channel_dims[target.channel_axis] = static_cast<dnnl::memory::dim>(target.channels);
    target.allow_bias = false;
    return target;
}

// Adds a primitive made by `make(post_ops)` with the chain fused after `node`'s output. When
// oneDNN refuses the post-ops, or has only its reference implementation for them (slow, and in
// oneDNN 2.6 its eltwise one writes nothing for 1-D tensors), the chain is given back and the
// primitive is made with `leading` alone.
template <typename Make>
bool GraphCompiler::add_with_chain(const NodePtr& node, const FusionTarget& target,
                                   std::vector<PostOp> leading, Make make, Layout layout,
                                   dt dst_type) {
    const auto absorbed = m_absorbed;
    const std::vector<PostOp> own = leading;
    FusedChain chain = fuse_chain(node->output(0), target);
    std::shared_ptr<DnnlOp> op;
    if (append_eltwise(leading, chain.post_ops) && leading.size() <= kMaxPostOps) {
        try {
            op = make(leading);
            if (!chain.nodes.empty() && op->impl.rfind("ref", 0) == 0) op = nullptr;
        } catch (const dnnl::error&) {
            op = nullptr;
        }
    }
    if (!op) {
        m_absorbed = absorbed;
        chain = FusedChain();
        chain.output = node->output(0);
        op = make(own);  // throws again when oneDNN refuses the op itself: the caller falls back
    }
    // oneDNN's reference implementations (a binary broadcasting along a middle axis: Swin's
    // shifted-window mask, 63 ms where the reference kernel takes a fraction) are slower than
    // the reference kernel: the caller runs that instead.
    if (op->impl.rfind("ref", 0) == 0) {
        m_absorbed = absorbed;
        throw dnnl::error(dnnl_unimplemented, "only a reference implementation");
    }
    add_dnnl_step_as(node, chain, std::move(op), layout, dst_type);
    return true;
}

bool GraphCompiler::try_eltwise(const NodePtr& node) {
    // The data input: the one that is not a scalar constant.
    size_t input = 0;
    const Value* other = nullptr;
    if (node->get_input_size() == 2) {
        for (size_t i = 0; i < 2; ++i) {
            if (bf16_source(node->input_value(i)) != SIZE_MAX) continue;  // computed, not scalar
            const Value& v = m_graph->values[value_of(node->input_value(i))];
            float s = 0.f;
            if (v.kind == ValueKind::kConstant && constant_scalar(v.constant, &s)) {
                input = 1 - i;
                other = &v;
            }
        }
        if (!other) return false;
    }
    const Output& x = node->input_value(input);
    if (!is_f32(x) || shape_size(x.get_shape()) == 0) return false;  // empty: nothing to run
    std::vector<PostOp> steps;
    if (!eltwise_form(*node, input, other, &steps)) return false;
    // bf16 in and out when a bf16 step wrote the input (bf16_elementwise).
    const size_t xv = elementwise_source(*node, input);
    const Value& xval = m_graph->values[xv];
    if (xval.kind == ValueKind::kConstant) return false;
    const Layout layout = xval.layout;
    const dt value_type = xval.type == element::bf16 ? dt::bf16 : dt::f32;
    const auto md = desc_of(xv);
    const FusionTarget target = elementwise_target(retyped(md, dt::f32), layout, x.get_shape());
    return add_with_chain(
        node, target, steps,
        [&](const std::vector<PostOp>& post_ops) {
            auto op = std::make_shared<DnnlOp>();
            if (post_ops.size() == 1) {  // one op: oneDNN's eltwise kernel
                const PostOp& main = post_ops.front();
                dnnl::primitive_attr attr;
                attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
                dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, main.algorithm,
                                                 md, main.alpha, main.beta);
                dnnl::eltwise_forward::primitive_desc pd(desc, attr, cpu_engine());
                op->primitive = dnnl::eltwise_forward(pd);
                op->scratchpad_bytes = pd.scratchpad_desc().get_size();
                op->impl = pd.impl_info_str();
                op->args.push_back({DNNL_ARG_SRC, true, xv, md, {}});
                op->args.push_back({DNNL_ARG_DST, true, SIZE_MAX, md, {}});
                return op;
            }
            // A chain: x + 0 with every op as a post-op, one pass of oneDNN's jit binary kernel
            // (its eltwise kernel takes post-ops only in a reference implementation).
            const auto attr = make_attr(post_ops, op.get());
            const dnnl::memory::desc zero_md(Dims(md.dims().size(), 1), dt::f32,
                                             plain_tag(md.dims().size()));
            const float zero = 0.f;
            dnnl::binary::desc desc(algorithm::binary_add, md, zero_md, md);
            dnnl::binary::primitive_desc pd(desc, attr, cpu_engine());
            op->primitive = dnnl::binary(pd);
            op->scratchpad_bytes = pd.scratchpad_desc().get_size();
            op->impl = pd.impl_info_str();
            op->args.push_back({DNNL_ARG_SRC_0, true, xv, md, {}});
            DnnlArg src1;
            src1.arg = DNNL_ARG_SRC_1;
            src1.is_value = false;
            src1.constant = make_constant(zero_md, &zero, zero_md);
            op->args.push_back(src1);
            op->args.push_back({DNNL_ARG_DST, true, SIZE_MAX, md, {}});
            return op;
        },
        layout, value_type);
}

std::optional<algorithm> binary_algorithm(const Node& node) {
    static const std::map<std::string, algorithm> algorithms = {
        {"Add", algorithm::binary_add},      {"Subtract", algorithm::binary_sub},
        {"Multiply", algorithm::binary_mul}, {"Divide", algorithm::binary_div},
        {"Maximum", algorithm::binary_max},  {"Minimum", algorithm::binary_min}};
    const auto it = algorithms.find(node.get_type_name());
    if (it == algorithms.end() || node.get_input_size() != 2) return std::nullopt;
    if (node.has_attribute("auto_broadcast")) {
        const auto& ab = node.get_attribute<std::string>("auto_broadcast");
        if (ab != "numpy" && ab != "none") return std::nullopt;
    }
    return it->second;
}

bool GraphCompiler::try_binary(const NodePtr& node) {
    const std::string& type = node->get_type_name();
    const auto binary = binary_algorithm(*node);
    if (!binary) return false;
    const algorithm alg = *binary;
    if (!is_f32(node->input_value(0)) || !is_f32(node->input_value(1)) || !is_f32(node->output(0)))
        return false;
    const Shape out = node->get_output_shape(0);
    if (shape_size(out) == 0) return false;
    // oneDNN broadcasts only its second source: the full-shaped input goes first. A - B and A / B
    // with A broadcast become -(B - A) and (B / A)^-1. A first source a bf16 step wrote is read
    // in bf16, and the destination is bf16 too (oneDNN 2.6's jit kernel wants them alike).
    const size_t first = node->input_value(0).get_shape() == out ? 0 : 1;
    if (node->input_value(first).get_shape() != out) return false;
    size_t a = elementwise_source(*node, first), b = value_of(node->input_value(1 - first));
    const dt dst_type = m_graph->values[a].type == element::bf16 ? dt::bf16 : dt::f32;
    std::vector<PostOp> leading;
    if (first == 1) {
        if (type == "Subtract") leading.push_back(eltwise_op(algorithm::eltwise_linear, -1.f));
        if (type == "Divide") leading.push_back(eltwise_op(algorithm::eltwise_pow, 1.f, -1.f));
    }
    if (m_graph->values[a].kind == ValueKind::kConstant) return false;  // both constant: folded
    const size_t rank = std::max<size_t>(out.size(), 1);
    const Layout layout = m_graph->values[a].layout;
    const auto src0_md = desc_of(a);
    // The second source: the same layout when full-shaped, else its dims right-aligned with ones
    // (a broadcast operand's strides along its size-1 axes do not matter).
    const Shape bshape = m_graph->values[b].shape.to_shape();
    const bool b_constant = m_graph->values[b].kind == ValueKind::kConstant;
    dnnl::memory::desc src1_md;
    DnnlArg src1;
    src1.arg = DNNL_ARG_SRC_1;
    if (bshape == out) {
        if (!b_constant) b = in_layout(b, layout);
        src1_md = b_constant
                      ? dnnl::memory::desc(
                            src0_md.dims(), dt::f32,
                            layout == Layout::kPlain ? plain_tag(rank) : channels_last_tag(rank))
                      : desc_of(b);
    } else {
        if (m_graph->values[b].layout == Layout::kChannelsLast && bshape.size() != out.size())
            b = in_layout(b, Layout::kPlain);
        const Value& bv = m_graph->values[b];
        const tag t =
            bv.layout == Layout::kChannelsLast ? channels_last_tag(rank) : plain_tag(rank);
        src1_md = dnnl::memory::desc(padded_dims(bshape, rank), dt::f32, t);
    }
    if (b_constant) {
        const Tensor& c = m_graph->values[b].constant;
        src1.is_value = false;
        const dnnl::memory::desc plain(src1_md.dims(), dt::f32, plain_tag(rank));
        src1.constant = make_constant(plain, c.data(), src1_md);
    } else {
        src1.value = b;
        src1.desc = src1_md;
    }
    // Post-op operands are f32 whatever the destination's type.
    const FusionTarget target = elementwise_target(retyped(src0_md, dt::f32), layout, out);
    return add_with_chain(
        node, target, leading,
        [&](const std::vector<PostOp>& post_ops) {
            auto op = std::make_shared<DnnlOp>();
            const auto attr = make_attr(post_ops, op.get());
            dnnl::binary::desc desc(alg, src0_md, src1_md, src0_md);
            dnnl::binary::primitive_desc pd(desc, attr, cpu_engine());
            op->primitive = dnnl::binary(pd);
            op->scratchpad_bytes = pd.scratchpad_desc().get_size();
            op->impl = pd.impl_info_str();
            op->args.insert(op->args.begin(), src1);
            op->args.insert(op->args.begin(), {DNNL_ARG_SRC_0, true, a, src0_md, {}});
            op->args.push_back({DNNL_ARG_DST, true, SIZE_MAX, src0_md, {}});
            return op;
        },
        layout, dst_type);
}

bool GraphCompiler::batch_norm_affine(Node& node, std::vector<float>* scale,
                                      std::vector<float>* shift) {
    const size_t data = node.get_version() >= 5 ? 0 : 2;
    const size_t gamma = data == 0 ? 1 : 0, beta = gamma + 1;
    const size_t mean = 3, variance = 4;
    const Output& x = node.input_value(data);
    if (!is_f32(x) || !is_f32(node.output(0)) || !x.get_partial_shape().is_static()) return false;
    const Shape shape = x.get_shape();
    if (shape.size() < 2 || shape_size(shape) == 0) return false;
    const size_t channels = shape[1];
    std::vector<const float*> params;
    for (size_t i : {gamma, beta, mean, variance}) {
        const Output& port = node.input_value(i);
        if (!has_value(port)) return false;
        const Value& v = m_graph->values[value_of(port)];
        if (v.kind != ValueKind::kConstant || v.constant.get_element_type() != element::f32 ||
            v.constant.get_size() != channels)
            return false;
        params.push_back(static_cast<const float*>(v.constant.data()));
    }
    const double eps = node.get_attribute<double>("epsilon");
    scale->resize(channels);
    shift->resize(channels);
    for (size_t c = 0; c < channels; ++c) {
        (*scale)[c] = static_cast<float>(params[0][c] / std::sqrt(double(params[3][c]) + eps));
        (*shift)[c] = params[1][c] - params[2][c] * (*scale)[c];
    }
    return true;
}

bool GraphCompiler::try_batch_norm(const NodePtr& node) {
    // BatchNormInference with constant statistics not fused into the step before it (DenseNet's
    // pre-activation blocks): x * scale + shift per channel, scale = gamma / sqrt(var + eps),
    // shift = beta - mean * scale, as a binary multiply with a per-channel add post-op and the
    // chain after it.
    const size_t data = node->get_version() >= 5 ? 0 : 2;
    std::vector<float> scale, shift;
    if (!batch_norm_affine(*node, &scale, &shift)) return false;
    const Shape shape = node->input_value(data).get_shape();
    const size_t channels = shape[1];
    // bf16 in and out when a bf16 step wrote the input (bf16_elementwise); the scale and shift
    // stay f32.
    const size_t xv = elementwise_source(*node, data);
    const Layout layout = m_graph->values[xv].layout;
    const dt value_type = m_graph->values[xv].type == element::bf16 ? dt::bf16 : dt::f32;
    const auto md = desc_of(xv);
    Dims per_channel(shape.size(), 1);
    per_channel[1] = static_cast<dnnl::memory::dim>(channels);
    const dnnl::memory::desc channel_md(per_channel, dt::f32, plain_tag(shape.size()));
    PostOp add;
    add.kind = PostOp::Kind::kBinary;
    add.algorithm = algorithm::binary_add;
    add.desc = channel_md;
    add.constant = make_constant(channel_md, shift.data(), channel_md);
    FusionTarget target = elementwise_target(retyped(md, dt::f32), layout, shape);
    target.channel_axis = 1;
    target.channels = channels;
    target.channel_dims = per_channel;
    const dnnl::memory scale_memory = make_constant(channel_md, scale.data(), channel_md);
    return add_with_chain(
        node, target, {add},
        [&](const std::vector<PostOp>& post_ops) {
            auto op = std::make_shared<DnnlOp>();
            const auto attr = make_attr(post_ops, op.get());
            dnnl::binary::desc desc(algorithm::binary_mul, md, channel_md, md);
            dnnl::binary::primitive_desc pd(desc, attr, cpu_engine());
            op->primitive = dnnl::binary(pd);
            op->scratchpad_bytes = pd.scratchpad_desc().get_size();
            op->impl = pd.impl_info_str();
            op->args.push_back({DNNL_ARG_SRC_0, true, xv, md, {}});
            DnnlArg src1;
            src1.arg = DNNL_ARG_SRC_1;
            src1.is_value = false;
            src1.constant = scale_memory;
            op->args.push_back(src1);
            op->args.push_back({DNNL_ARG_DST, true, SIZE_MAX, md, {}});
            return op;
        },
        layout, value_type);
}

bool GraphCompiler::try_concat(const NodePtr& node) {
    const Shape out = node->get_output_shape(0);
    if (!is_f32(node->output(0)) || out.empty() || shape_size(out) == 0) return false;
    int64_t axis = node->get_attribute<int64_t>("axis");
    if (axis < 0) axis += static_cast<int64_t>(out.size());
    // Channels-last when an input already is (a CNN's branches), else plain.
    Layout layout = Layout::kPlain;
    for (const auto& in : node->input_values()) {
        const size_t written = bf16_source(in);  // looked at, not converted back to f32
        if (m_graph->values[written != SIZE_MAX ? written : value_of(in)].layout ==
            Layout::kChannelsLast)
            layout = Layout::kChannelsLast;
    }
    if (!is_channel_layout_rank(out.size())) layout = Layout::kPlain;
    if (try_concat_affine(node, layout, axis) || try_concat_shuffle(node, layout, axis))
        return true;
    // bf16 when every reader reads bf16 (bf16_elementwise): inputs a bf16 step wrote are read as
    // they are, the others converted.
    const bool bf16 = bf16_elementwise(*node, 0) && read_only_in_bf16(node->output(0));
    const dt value_type = bf16 ? dt::bf16 : dt::f32;
    auto op = std::make_shared<DnnlOp>();
    std::vector<dnnl::memory::desc> srcs;
    for (size_t i = 0; i < node->get_input_size(); ++i) {
        const Output& in = node->input_value(i);
        if (!is_f32(in)) return false;
        if (shape_size(in.get_shape()) == 0) continue;  // oneDNN refuses empty sources
        const size_t written = bf16 ? bf16_source(in) : SIZE_MAX;
        size_t v = written != SIZE_MAX ? written : value_of(in);
        const Value& val = m_graph->values[v];
        if (val.kind == ValueKind::kConstant) {
            const auto md = dnnl::memory::desc(
                dims_of(in.get_shape()), value_type,
                layout == Layout::kPlain ? plain_tag(out.size()) : channels_last_tag(out.size()));
            const dnnl::memory::desc plain(md.dims(), dt::f32, plain_tag(out.size()));
            DnnlArg arg;
            arg.arg = DNNL_ARG_MULTIPLE_SRC + static_cast<int>(srcs.size());
            arg.is_value = false;
            arg.constant = make_constant(plain, val.constant.data(), md);
            op->args.push_back(arg);
            srcs.push_back(md);
            continue;
        }
        v = in_layout(v, layout);
        if (bf16 && written == SIZE_MAX) v = in_bf16(v);
        srcs.push_back(desc_of(v));
        op->args.push_back(
            {DNNL_ARG_MULTIPLE_SRC + static_cast<int>(srcs.size() - 1), true, v, srcs.back(), {}});
    }
    if (srcs.empty()) return false;
    const dnnl::memory::desc dst_md(
        dims_of(out), value_type,
        layout == Layout::kPlain ? plain_tag(out.size()) : channels_last_tag(out.size()));
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::concat::primitive_desc pd(dst_md, static_cast<int>(axis), srcs, cpu_engine(), attr);
    op->primitive = dnnl::concat(pd);
    op->scratchpad_bytes = pd.scratchpad_desc().get_size();
    op->impl = pd.impl_info_str();
    op->args.push_back({DNNL_ARG_DST, true, SIZE_MAX, dst_md, {}});
    FusedChain chain;
    chain.output = node->output(0);
    add_dnnl_step_as(node, chain, std::move(op), layout, value_type);
    return true;
}

bool GraphCompiler::try_concat_affine(const NodePtr& node, Layout layout, int64_t axis) {
    // f32 only: in bf16 mode the Concat and the BatchNorm run in bf16 on the convolutions'
    // bf16 outputs (bf16_elementwise), which this kernel does not read.
    if (m_bf16 || layout != Layout::kChannelsLast || axis != 1) return false;
    const auto uses = consumers(node->output(0));
    if (uses.size() != 1) return false;
    Node& bn = *uses[0].node;
    if (bn.get_type_name() != "BatchNormInference" || m_absorbed.count(&bn) ||
        uses[0].input != (bn.get_version() >= 5 ? 0u : 2u) || !is_f32(bn.output(0)))
        return false;
    ConcatAffineSpec spec;
    if (!batch_norm_affine(bn, &spec.scale, &spec.shift)) return false;
    std::vector<NodePtr> fused = {node, bn.shared_from_this()};
    Output out = bn.output(0);
    if (const auto after = consumers(out);
        after.size() == 1 && after[0].node->get_type_name() == "Relu" &&
        !m_absorbed.count(after[0].node) && is_f32(after[0].node->output(0))) {
        spec.relu = true;
        fused.push_back(after[0].node->shared_from_this());
        out = after[0].node->output(0);
    }
    Step step;
    step.kind = StepKind::kReference;
    for (const auto& in : node->input_values()) {
        const Shape shape = in.get_shape();
        if (shape.size() < 2 || shape[1] == 0) continue;  // an empty input adds nothing
        const size_t v = value_of(in);
        if (!is_f32(in) || m_graph->values[v].kind == ValueKind::kConstant) return false;
        spec.channels.push_back(shape[1]);
        step.inputs.push_back(v);
    }
    if (step.inputs.empty()) return false;
    // Every input channels-last (a reorder for one that is not: a model input, a Winograd
    // convolution's output).
    for (size_t& v : step.inputs) v = in_layout(v, Layout::kChannelsLast);
    step.node = node;
    step.fused = fused;
    for (const auto& n : fused) {
        step.name += (step.name.empty() ? "" : "+") + n->get_friendly_name();
        step.type += (step.type.empty() ? "" : "+") + n->get_type_name();
        if (n != node) m_absorbed.insert(n.get());
    }
    spec.what = step.type + " '" + step.name + "'";
    step.exec_type = "concat_affine";
    step.kernel = concat_affine_kernel(std::move(spec));
    step.outputs.push_back(add_value(out, ValueKind::kComputed, Layout::kChannelsLast));
    m_graph->steps.push_back(std::move(step));
    return true;
}

bool GraphCompiler::try_reduce(const NodePtr& node) {
    const std::string& type = node->get_type_name();
    algorithm alg;
    if (type == "ReduceMean")
        alg = algorithm::reduction_mean;
    else if (type == "ReduceSum")
        alg = algorithm::reduction_sum;
    else if (type == "ReduceMax")
        alg = algorithm::reduction_max;
    else if (type == "ReduceMin")
        alg = algorithm::reduction_min;
    else if (type == "ReduceProd")
        alg = algorithm::reduction_mul;
    else if (type == "ReduceL1")
        alg = algorithm::reduction_norm_lp_power_p_sum;
    else if (type == "ReduceL2")
        alg = algorithm::reduction_norm_lp_sum;
    else
        return false;
    const Output& x = node->input_value(0);
    if (!is_f32(x) || !is_f32(node->output(0)) || node->get_input_size() != 2) return false;
    const Value& axes_value = m_graph->values[value_of(node->input_value(1))];
    if (axes_value.kind != ValueKind::kConstant) return false;
    const Shape in = x.get_shape();
    if (in.empty() || in.size() > 5 || shape_size(in) == 0) return false;
    // A global pooling (below) reads and writes bf16 when a bf16 step wrote its input.
    const size_t xv = elementwise_source(*node, 0);
    const dt value_type = m_graph->values[xv].type == element::bf16 ? dt::bf16 : dt::f32;
    Shape kept = in;
    const Tensor& axes = axes_value.constant;
    if (axes.get_size() == 0 ||
        (axes.get_element_type() != element::i32 && axes.get_element_type() != element::i64))
        return false;
    for (size_t i = 0; i < axes.get_size(); ++i) {
        int64_t a = axes.get_element_type() == element::i32
                        ? static_cast<const int32_t*>(axes.data())[i]
                        : static_cast<const int64_t*>(axes.data())[i];
        if (a < 0) a += static_cast<int64_t>(in.size());
        if (a < 0 || a >= static_cast<int64_t>(in.size())) return false;
        kept[static_cast<size_t>(a)] = 1;
    }
    // The output keeps the input's layout when it keeps its rank; dropping axes of size one
    // does not move a plain tensor's bytes, so a plain destination serves keep_dims false.
    const bool keep = node->get_output_shape(0).size() == in.size();
    const Layout layout = keep ? m_graph->values[xv].layout : Layout::kPlain;
    const auto src_md = desc_of(xv);
    dnnl::memory::desc dst_md(
        dims_of(kept), dt::f32,
        layout == Layout::kPlain ? plain_tag(in.size()) : channels_last_tag(in.size()));
    auto op = std::make_shared<DnnlOp>();
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    // Mean or max over every spatial axis (global pooling, squeeze-excitation): oneDNN's pooling
    // kernels, which are jit; its reduction kernels are, in 2.6, a reference implementation for
    // most layouts, slower than the reference kernel here, which then runs instead.
    bool spatial = in.size() >= 3 && in.size() <= 5 && kept[0] == in[0] && kept[1] == in[1];
    for (size_t i = 2; i < in.size() && spatial; ++i) spatial = kept[i] == 1;
    if (spatial && (alg == algorithm::reduction_mean || alg == algorithm::reduction_max)) {
        // With every spatial axis 1, [N, C, 1, 1] has the same bytes in either layout: the
        // destination takes the source's, as oneDNN's jit pooling wants, whatever `layout` says.
        dst_md = dnnl::memory::desc(dims_of(kept), value_type,
                                    m_graph->values[xv].layout == Layout::kPlain
                                        ? plain_tag(in.size())
                                        : channels_last_tag(in.size()));
        const Dims kernel(in.begin() + 2, in.end());
        const Dims ones(kernel.size(), 1), zeros(kernel.size(), 0);
        dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_inference,
                                         alg == algorithm::reduction_max
                                             ? algorithm::pooling_max
                                             : algorithm::pooling_avg_exclude_padding,
                                         src_md, dst_md, ones, kernel, zeros, zeros);
        dnnl::pooling_forward::primitive_desc pd(desc, attr, cpu_engine());
        op->primitive = dnnl::pooling_forward(pd);
        op->scratchpad_bytes = pd.scratchpad_desc().get_size();
        op->impl = pd.impl_info_str();
    } else {
        if (value_type != dt::f32) return false;  // not a global pooling: f32 elsewhere
        const float p = type == "ReduceL1" ? 1.f : 2.f;
        dnnl::reduction::desc desc(alg, src_md, dst_md, p, 0.f);
        dnnl::reduction::primitive_desc pd(desc, attr, cpu_engine());
        op->impl = pd.impl_info_str();
        if (op->impl.rfind("ref", 0) == 0) return false;
        op->primitive = dnnl::reduction(pd);
        op->scratchpad_bytes = pd.scratchpad_desc().get_size();
    }
    op->args.push_back({DNNL_ARG_SRC, true, xv, src_md, {}});
    op->args.push_back({DNNL_ARG_DST, true, SIZE_MAX, dst_md, {}});
    FusedChain chain;
    chain.output = node->output(0);
    add_dnnl_step_as(node, chain, std::move(op), layout, value_type);
    return true;
}

}  // namespace vireo::cpu_plugin::detail
