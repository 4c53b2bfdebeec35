// Implements compile_graph: walks the model in topological order, turning each op into a fused
// oneDNN step or a reference-kernel step, and inserts reorders where layouts change.
#include "graph_compiler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "config.hpp"
#include "patterns.hpp"
#include "subgraph_runner.hpp"

namespace vireo::cpu_plugin {
namespace {

using dnnl::algorithm;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;
using Dims = dnnl::memory::dims;

constexpr size_t kFoldBudgetBytes = 64u << 20;  // compile-time evaluation of constant subgraphs
constexpr size_t kMaxPostOps = 8;

tag plain_tag(size_t rank) {
    static const tag tags[] = {tag::a, tag::a, tag::ab, tag::abc, tag::abcd, tag::abcde, tag::abcdef};
    return rank < 7 ? tags[rank] : tag::undef;
}

tag channels_last_tag(size_t rank) {
    return rank == 3 ? tag::acb : rank == 4 ? tag::acdb : rank == 5 ? tag::acdeb : tag::undef;
}

const char* layout_name(Layout layout, size_t rank) {
    if (layout == Layout::kPlain) return rank == 4 ? "nchw" : "plain";
    return rank == 4 ? "nhwc" : rank == 5 ? "ndhwc" : "nwc";
}

Dims dims_of(const Shape& shape) {
    if (shape.empty()) return Dims{1};
    return Dims(shape.begin(), shape.end());
}

bool is_f32(const Output& port) {
    return port.get_element_type() == element::f32;
}

// Numbers of one constant: the scalar value when every element is equal.
bool constant_scalar(const Tensor& t, float* value) {
    if (t.get_element_type() != element::f32 || t.get_size() == 0) return false;
    const float* p = static_cast<const float*>(t.data());
    for (size_t i = 1; i < t.get_size(); ++i)
        if (p[i] != p[0]) return false;
    *value = p[0];
    return true;
}

// True when `shape`, right-aligned to `rank`, is 1 everywhere except maybe at `axis` (== size).
bool is_per_channel(const Shape& shape, size_t rank, size_t axis, size_t size) {
    if (shape.size() > rank) return false;
    const size_t lead = rank - shape.size();
    for (size_t i = 0; i < shape.size(); ++i) {
        const size_t d = shape[i];
        if (lead + i == axis ? (d != size && d != 1) : d != 1) return false;
    }
    return true;
}

// What a fused chain may attach to: the primitive's destination as the graph sees it.
struct FusionTarget {
    size_t rank = 0;          // logical rank of the anchor's output
    size_t channel_axis = 1;  // axis of per-channel operands (1 for conv, last for MatMul)
    size_t channels = 0;
    Layout layout = Layout::kPlain;
    dnnl::memory::desc dst;  // the primitive's dst desc (full-tensor operands use it)
    Dims channel_dims;       // dims of a per-channel operand as the primitive sees it
    bool allow_bias = true;
};

struct FusedChain {
    std::vector<NodePtr> nodes;  // absorbed consumers, in order
    std::vector<std::string> types;  // what each link is, for the step's type ("Add", "Gelu")
    std::vector<PostOp> post_ops;
    Tensor bias;    // per-channel f32 bias, when the first link was one
    Output output;  // the port whose value the fused step writes
};

class GraphCompiler {
  public:
    explicit GraphCompiler(std::shared_ptr<const Model> model) : m_model(std::move(model)) {
        m_graph = std::make_shared<Graph>();
        m_graph->model = m_model;
    }

    std::shared_ptr<const Graph> compile();

  private:
    size_t add_value(const Output& port, ValueKind kind, Layout layout = Layout::kPlain);
    size_t value_of(const Output& port) const { return m_value_of.at(port); }
    bool has_value(const Output& port) const { return m_value_of.count(port) != 0; }
    dnnl::memory::desc desc_of(size_t value) const;
    size_t in_layout(size_t value, Layout layout);
    bool fold_constant(const NodePtr& node);
    void add_reference_step(const NodePtr& node);
    void add_state_step(const NodePtr& node);
    void add_subgraph_step(const NodePtr& node);
    bool try_convolution(const NodePtr& node);
    bool try_matmul(const NodePtr& node);
    bool try_pooling(const NodePtr& node);
    bool try_softmax(const NodePtr& node);
    bool try_layer_norm(const NodePtr& node);
    FusedChain fuse_chain(const Output& start, const FusionTarget& target);
    bool fuse_link(Node& consumer, size_t input, const FusionTarget& target, FusedChain& chain);
    void add_dnnl_step(const NodePtr& anchor, const FusedChain& chain,
                       std::shared_ptr<DnnlOp> op, Layout out_layout);
    std::vector<Consumer> consumers(const Output& port) const {
        auto it = m_consumers.find(port);
        return it == m_consumers.end() ? std::vector<Consumer>{} : it->second;
    }

    std::shared_ptr<const Model> m_model;
    std::shared_ptr<Graph> m_graph;
    std::map<Output, size_t> m_value_of;
    ConsumerMap m_consumers;
    std::set<const Node*> m_absorbed;
    std::map<std::pair<size_t, Layout>, size_t> m_converted;
    std::map<std::string, size_t> m_variable_index;
    std::vector<std::string> m_unsupported;
};

size_t GraphCompiler::add_value(const Output& port, ValueKind kind, Layout layout) {
    Value v;
    v.kind = kind;
    v.type = port.get_element_type();
    v.shape = port.get_partial_shape();
    v.layout = layout;
    v.producer = m_graph->steps.size();
    v.name = "output " + std::to_string(port.get_index()) + " of " + port.get_node()->describe();
    m_graph->values.push_back(std::move(v));
    const size_t id = m_graph->values.size() - 1;
    m_value_of[port] = id;
    return id;
}

dnnl::memory::desc GraphCompiler::desc_of(size_t id) const {
    const Value& v = m_graph->values[id];
    const Shape shape = v.shape.to_shape();
    const tag t = v.layout == Layout::kPlain ? plain_tag(shape.size()) : channels_last_tag(shape.size());
    return dnnl::memory::desc(dims_of(shape), dt::f32, t);
}

// The value `id` in `layout`: itself, or the output of a reorder step (made once per value).
size_t GraphCompiler::in_layout(size_t id, Layout layout) {
    if (m_graph->values[id].layout == layout) return id;
    const auto key = std::make_pair(id, layout);
    if (auto it = m_converted.find(key); it != m_converted.end()) return it->second;
    Value converted = m_graph->values[id];
    converted.kind = ValueKind::kComputed;
    converted.layout = layout;
    converted.constant = Tensor();
    converted.producer = m_graph->steps.size();
    converted.name += " (" + std::string(layout_name(layout, converted.shape.size())) + ")";
    m_graph->values.push_back(converted);
    const size_t out = m_graph->values.size() - 1;

    auto op = std::make_shared<DnnlOp>();
    const auto src = desc_of(id);
    const auto dst = desc_of(out);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::reorder::primitive_desc pd(cpu_engine(), src, cpu_engine(), dst, attr);
    op->primitive = dnnl::reorder(pd);
    op->scratchpad_bytes = pd.scratchpad_desc().get_size();
    op->impl = pd.impl_info_str();
    op->args.push_back({DNNL_ARG_FROM, true, id, src, {}});
    op->args.push_back({DNNL_ARG_TO, true, out, dst, {}});

    Step step;
    step.kind = StepKind::kDnnl;
    const size_t rank = converted.shape.size();
    step.name = m_graph->values[id].name + " -> " + layout_name(layout, rank);
    step.type = "Reorder";
    step.exec_type = op->impl + " " + layout_name(m_graph->values[id].layout, rank) + "->" +
                     layout_name(layout, rank);
    step.dnnl = std::move(op);
    step.outputs = {out};
    m_graph->steps.push_back(std::move(step));
    m_converted[key] = out;
    return out;
}

// A node whose inputs are all constants is computed now, once, when its outputs are small enough.
bool GraphCompiler::fold_constant(const NodePtr& node) {
    const std::string& type = node->get_type_name();
    if (type == "ReadValue" || type == "Assign" || type == "Result" || type == "If" ||
        type == "Loop" || type.rfind("Random", 0) == 0 || node->get_output_size() == 0)
        return false;
    std::vector<Tensor> inputs;
    for (const auto& in : node->input_values()) {
        if (!has_value(in)) return false;
        const Value& v = m_graph->values[value_of(in)];
        if (v.kind != ValueKind::kConstant) return false;
        inputs.push_back(v.constant);
    }
    size_t bytes = 0;
    for (size_t i = 0; i < node->get_output_size(); ++i) {
        const auto& ps = node->get_output_partial_shape(i);
        if (!ps.is_static() || node->get_output_element_type(i).is_dynamic()) return false;
        bytes += shape_size(ps.to_shape()) * node->get_output_element_type(i).size();
    }
    if (bytes > kFoldBudgetBytes || !reference::KernelRegistry::instance().supports(*node))
        return false;
    std::vector<Tensor> outputs;
    try {
        outputs = reference::evaluate(*node, inputs);
    } catch (const Exception&) {
        return false;  // it runs at inference, where its error (if any) is reported
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
        const size_t id = add_value(node->output(i), ValueKind::kConstant);
        m_graph->values[id].constant = outputs[i];
    }
    return true;
}

void GraphCompiler::add_reference_step(const NodePtr& node) {
    Step step;
    step.kind = StepKind::kReference;
    step.node = node;
    step.fused = {node};
    step.name = node->get_friendly_name();
    step.type = node->get_type_name();
    step.exec_type = "ref";
    try {
        step.kernel = reference::KernelRegistry::instance().create(*node);
    } catch (const Exception& e) {
        m_unsupported.push_back(e.what());
        return;
    }
    for (const auto& in : node->input_values()) step.inputs.push_back(in_layout(value_of(in), Layout::kPlain));
    for (size_t i = 0; i < node->get_output_size(); ++i)
        step.outputs.push_back(add_value(node->output(i), ValueKind::kComputed));
    m_graph->steps.push_back(std::move(step));
}

void GraphCompiler::add_state_step(const NodePtr& node) {
    Step step;
    step.kind = node->get_type_name() == "ReadValue" ? StepKind::kReadValue : StepKind::kAssign;
    step.node = node;
    step.fused = {node};
    step.name = node->get_friendly_name();
    step.type = node->get_type_name();
    step.exec_type = "ref";
    const auto& id = node->get_attribute<std::string>("variable_id");
    auto it = m_variable_index.find(id);
    if (it == m_variable_index.end()) {
        m_unsupported.push_back(node->describe() + ": variable '" + id + "' is not a variable of the model");
        return;
    }
    step.variable = it->second;
    for (const auto& in : node->input_values()) step.inputs.push_back(in_layout(value_of(in), Layout::kPlain));
    for (size_t i = 0; i < node->get_output_size(); ++i)
        step.outputs.push_back(add_value(node->output(i), ValueKind::kComputed));
    if (step.kind == StepKind::kAssign) m_graph->assign_steps.push_back(m_graph->steps.size());
    m_graph->steps.push_back(std::move(step));
}

void GraphCompiler::add_subgraph_step(const NodePtr& node) {
    const std::string reason = SubgraphRunner::unsupported_reason(*node);
    if (!reason.empty()) {
        m_unsupported.push_back(node->describe() + ": " + reason);
        return;
    }
    Step step;
    step.kind = StepKind::kSubgraph;
    step.node = node;
    step.fused = {node};
    step.name = node->get_friendly_name();
    step.type = node->get_type_name();
    step.exec_type = "ref";
    for (const auto& body : node->get_bodies()) {
        try {
            step.bodies.push_back(compile_graph(body));
        } catch (const Exception& e) {
            m_unsupported.push_back(node->describe() + ": its body cannot run: " + e.what());
            return;
        }
    }
    for (const auto& in : node->input_values()) step.inputs.push_back(in_layout(value_of(in), Layout::kPlain));
    for (size_t i = 0; i < node->get_output_size(); ++i)
        step.outputs.push_back(add_value(node->output(i), ValueKind::kComputed));
    m_graph->steps.push_back(std::move(step));
}

// One more op after the chain's current output, when oneDNN can apply it as a post-op.
bool GraphCompiler::fuse_link(Node& c, size_t input, const FusionTarget& target, FusedChain& chain) {
    const std::string& type = c.get_type_name();
    if (c.get_output_size() != 1 || !is_f32(c.output(0))) return false;
    if (chain.post_ops.size() >= kMaxPostOps) return false;
    auto eltwise = [&](algorithm alg, float alpha, float beta) {
        // Two linear steps in a row are one: c * (a * x + b) + d. (oneDNN 2.6's brgemm MatMul also
        // gave wrong results for two consecutive eltwise_linear post-ops.)
        if (alg == algorithm::eltwise_linear && !chain.post_ops.empty() &&
            chain.post_ops.back().kind == PostOp::Kind::kEltwise &&
            chain.post_ops.back().algorithm == algorithm::eltwise_linear) {
            PostOp& last = chain.post_ops.back();
            last.beta = alpha * last.beta + beta;
            last.alpha *= alpha;
            return true;
        }
        PostOp p;
        p.algorithm = alg;
        p.alpha = alpha;
        p.beta = beta;
        chain.post_ops.push_back(p);
        return true;
    };
    if (c.get_input_size() == 1) {
        if (type == "Relu") return eltwise(algorithm::eltwise_relu, 0.f, 0.f);
        if (type == "Sigmoid") return eltwise(algorithm::eltwise_logistic, 0.f, 0.f);
        if (type == "Tanh") return eltwise(algorithm::eltwise_tanh, 0.f, 0.f);
        if (type == "HSwish") return eltwise(algorithm::eltwise_hardswish, 0.f, 0.f);
        if (type == "Swish") return eltwise(algorithm::eltwise_swish, 1.f, 0.f);
        if (type == "Elu")
            return eltwise(algorithm::eltwise_elu, static_cast<float>(c.get_attribute<double>("alpha")), 0.f);
        if (type == "Clamp")
            return eltwise(algorithm::eltwise_clip, static_cast<float>(c.get_attribute<double>("min")),
                           static_cast<float>(c.get_attribute<double>("max")));
        if (type == "Gelu") {
            const bool tanh = c.get_version() >= 7 && c.has_attribute("approximation_mode") &&
                              c.get_attribute<std::string>("approximation_mode") == "tanh";
            return eltwise(tanh ? algorithm::eltwise_gelu_tanh : algorithm::eltwise_gelu_erf, 0.f, 0.f);
        }
        return false;
    }
    if (c.get_input_size() != 2) return false;
    const Output& other_port = c.input_value(1 - input);
    if (!has_value(other_port) || !is_f32(other_port)) return false;
    // The op must keep the chain's shape (no broadcast that enlarges it).
    if (c.get_output_partial_shape(0) != c.input_value(input).get_partial_shape()) return false;
    if (c.has_attribute("auto_broadcast")) {
        const auto& ab = c.get_attribute<std::string>("auto_broadcast");
        if (ab != "numpy" && ab != "none") return false;
    }
    const size_t other = value_of(other_port);
    const Value& ov = m_graph->values[other];
    if (type == "Swish" && input == 0 && ov.kind == ValueKind::kConstant) {
        float beta = 0.f;
        return constant_scalar(ov.constant, &beta) && eltwise(algorithm::eltwise_swish, beta, 0.f);
    }
    if ((type == "Maximum" || type == "Minimum") && ov.kind == ValueKind::kConstant) {
        float c = 0.f;
        if (!constant_scalar(ov.constant, &c)) return false;
        float lo = type == "Maximum" ? c : -std::numeric_limits<float>::max();
        float hi = type == "Minimum" ? c : std::numeric_limits<float>::max();
        // Clip after clip is one clip (ONNX's Clip arrives as Maximum then Minimum).
        if (!chain.post_ops.empty() && chain.post_ops.back().kind == PostOp::Kind::kEltwise &&
            chain.post_ops.back().algorithm == algorithm::eltwise_clip) {
            PostOp& last = chain.post_ops.back();
            lo = std::max(lo, last.alpha);
            hi = std::min(hi, last.beta);
            if (lo > hi) return false;
            last.alpha = lo;
            last.beta = hi;
            return true;
        }
        return eltwise(algorithm::eltwise_clip, lo, hi);
    }
    const bool add = type == "Add", mul = type == "Multiply";
    const bool sub = type == "Subtract" && input == 0, div = type == "Divide" && input == 0;
    if (!add && !mul && !sub && !div) return false;
    if (ov.kind == ValueKind::kConstant) {
        float s = 0.f;
        if (constant_scalar(ov.constant, &s)) {
            if (add) return eltwise(algorithm::eltwise_linear, 1.f, s);
            if (sub) return eltwise(algorithm::eltwise_linear, 1.f, -s);
            if (mul) return eltwise(algorithm::eltwise_linear, s, 0.f);
            if (s == 0.f) return false;
            return eltwise(algorithm::eltwise_linear, 1.f / s, 0.f);
        }
        if (!(add || mul) || !is_per_channel(ov.constant.get_shape(), target.rank, target.channel_axis,
                                             target.channels))
            return false;
        // A per-channel operand: the bias when it is the first link, else a binary post-op.
        Tensor per_channel(element::f32, Shape{target.channels});
        const float* src = static_cast<const float*>(ov.constant.data());
        float* dst = static_cast<float*>(per_channel.data());
        const bool broadcast = ov.constant.get_size() == 1;
        for (size_t i = 0; i < target.channels; ++i) dst[i] = broadcast ? src[0] : src[i];
        if (add && target.allow_bias && chain.post_ops.empty() && !chain.bias) {
            chain.bias = per_channel;
            return true;
        }
        PostOp p;
        p.kind = PostOp::Kind::kBinary;
        p.algorithm = add ? algorithm::binary_add : algorithm::binary_mul;
        p.desc = dnnl::memory::desc(target.channel_dims, dt::f32, plain_tag(target.channel_dims.size()));
        p.constant = make_constant(p.desc, per_channel.data(), p.desc);
        chain.post_ops.push_back(p);
        return true;
    }
    // A tensor of the same shape (the residual add): read in the destination's layout.
    if (!(add || mul) || ov.shape != c.get_output_partial_shape(0)) return false;
    if (target.layout == Layout::kChannelsLast && ov.shape.size() != target.rank) return false;
    PostOp p;
    p.kind = PostOp::Kind::kBinary;
    p.algorithm = add ? algorithm::binary_add : algorithm::binary_mul;
    p.value = static_cast<long>(in_layout(other, target.layout));
    p.desc = target.dst;
    chain.post_ops.push_back(p);
    return true;
}

FusedChain GraphCompiler::fuse_chain(const Output& start, const FusionTarget& target) {
    FusedChain chain;
    chain.output = start;
    while (true) {
        const auto uses = consumers(chain.output);
        if (uses.size() == 2 && chain.post_ops.size() < kMaxPostOps && is_f32(chain.output)) {
            // Gelu as exporters spell it (x * 0.5 * (1 + erf(x / sqrt 2))): one post-op.
            if (auto gelu = match_gelu_erf(chain.output, m_consumers)) {
                PostOp p;
                p.algorithm = algorithm::eltwise_gelu_erf;
                chain.post_ops.push_back(p);
                for (const auto& n : gelu->nodes) {
                    chain.nodes.push_back(n);
                    m_absorbed.insert(n.get());
                }
                chain.types.push_back("Gelu");
                chain.output = gelu->output;
                continue;
            }
        }
        if (uses.size() != 1) break;
        Node& c = *uses[0].node;
        if (!fuse_link(c, uses[0].input, target, chain)) break;
        chain.nodes.push_back(c.shared_from_this());
        chain.types.push_back(c.get_type_name());
        m_absorbed.insert(&c);
        chain.output = c.output(0);
    }
    return chain;
}

void GraphCompiler::add_dnnl_step(const NodePtr& anchor, const FusedChain& chain,
                                  std::shared_ptr<DnnlOp> op, Layout out_layout) {
    Step step;
    step.kind = StepKind::kDnnl;
    step.node = anchor;
    step.fused.push_back(anchor);
    step.name = anchor->get_friendly_name();
    step.type = anchor->get_type_name();
    for (const auto& n : chain.nodes) {
        step.fused.push_back(n);
        step.name += "+" + n->get_friendly_name();
    }
    for (const auto& t : chain.types) step.type += "+" + t;
    const size_t out = add_value(chain.output, ValueKind::kComputed, out_layout);
    for (auto& a : op->args)
        if (a.is_value && a.value == SIZE_MAX) a.value = out;
    step.exec_type = op->impl + " " + layout_name(out_layout, m_graph->values[out].shape.size());
    step.outputs = {out};
    for (const auto& a : op->args)
        if (!a.is_value) m_graph->weights_bytes += a.constant.get_desc().get_size();
    step.dnnl = std::move(op);
    m_graph->steps.push_back(std::move(step));
}

// Window geometry of a convolution or pooling axis: oneDNN wants the right pad that makes
// (in + pl + pr - window) / stride + 1 equal the model's output size.
struct Window {
    Dims strides, dilations, pad_l, pad_r;
};

bool resolve_window(const Node& node, const Shape& in, const Shape& out, const std::vector<size_t>& kernel,
                    const std::vector<int64_t>& dilations, Window* w) {
    const size_t spatial = kernel.size();
    const auto strides = node.get_attribute<std::vector<int64_t>>("strides");
    auto pads_begin = node.get_attribute<std::vector<int64_t>>("pads_begin");
    auto pads_end = node.get_attribute<std::vector<int64_t>>("pads_end");
    const auto auto_pad = node.get_attribute<std::string>("auto_pad");
    pads_begin.resize(spatial, 0);
    pads_end.resize(spatial, 0);
    for (size_t i = 0; i < spatial; ++i) {
        const int64_t x = static_cast<int64_t>(in[2 + i]), y = static_cast<int64_t>(out[2 + i]);
        const int64_t d = dilations.empty() ? 1 : dilations[i];
        const int64_t extent = (static_cast<int64_t>(kernel[i]) - 1) * d + 1;
        int64_t pl = pads_begin[i], pr_declared = pads_end[i];
        if (auto_pad == "valid") {
            pl = pr_declared = 0;
        } else if (auto_pad == "same_upper" || auto_pad == "same_lower") {
            const int64_t total = std::max<int64_t>(0, (y - 1) * strides[i] + extent - x);
            pl = auto_pad == "same_upper" ? total / 2 : total - total / 2;
            pr_declared = total - pl;
        }
        // The declared pads when they give the model's size (floor rounding); else the right pad
        // that does (ceil rounding adds to it).
        int64_t pr = pr_declared;
        if ((x + pl + pr - extent) / strides[i] + 1 != y) pr = (y - 1) * strides[i] + extent - x - pl;
        if (pr < 0 || pl < 0 || (x + pl + pr - extent) / strides[i] + 1 != y) return false;
        if (pr > pr_declared && node.get_type_name() == "AvgPool" && !node.get_attribute<bool>("exclude-pad"))
            return false;  // ceil-mode overflow would count as padding in the average
        w->strides.push_back(strides[i]);
        w->dilations.push_back(d - 1);
        w->pad_l.push_back(pl);
        w->pad_r.push_back(pr);
    }
    return true;
}

bool GraphCompiler::try_convolution(const NodePtr& node) {
    const bool grouped = node->get_type_name() == "GroupConvolution";
    const Output& x = node->input_value(0);
    const Output& wport = node->input_value(1);
    if (!is_f32(x) || !is_f32(wport) || !is_f32(node->output(0))) return false;
    if (m_graph->values[value_of(wport)].kind != ValueKind::kConstant) return false;
    const Tensor weights = m_graph->values[value_of(wport)].constant;
    const Shape in = x.get_shape(), out = node->get_output_shape(0), wshape = wport.get_shape();
    const size_t rank = in.size();
    if (rank < 3 || rank > 5) return false;
    const size_t lead = grouped ? 3 : 2;
    std::vector<size_t> kernel(wshape.begin() + lead, wshape.end());
    Window w;
    if (!resolve_window(*node, in, out, kernel, node->get_attribute<std::vector<int64_t>>("dilations"), &w))
        return false;

    const size_t src = in_layout(value_of(x), Layout::kChannelsLast);
    const auto src_md = desc_of(src);
    const dnnl::memory::desc dst_md(dims_of(out), dt::f32, channels_last_tag(rank));
    const tag wtag = grouped ? (rank == 3 ? tag::abcd : rank == 4 ? tag::abcde : tag::abcdef)
                             : plain_tag(rank);
    const dnnl::memory::desc w_plain(dims_of(wshape), dt::f32, wtag);
    const dnnl::memory::desc w_any(dims_of(wshape), dt::f32, tag::any);

    FusionTarget target;
    target.rank = rank;
    target.channel_axis = 1;
    target.channels = out[1];
    target.layout = Layout::kChannelsLast;
    target.dst = dst_md;
    target.channel_dims = Dims(rank, 1);
    target.channel_dims[1] = static_cast<dnnl::memory::dim>(out[1]);
    FusedChain chain = fuse_chain(node->output(0), target);

    auto op = std::make_shared<DnnlOp>();
    const auto attr = make_attr(chain.post_ops, op.get());
    const dnnl::memory::desc bias_md =
        chain.bias ? dnnl::memory::desc({static_cast<dnnl::memory::dim>(out[1])}, dt::f32, tag::a)
                   : dnnl::memory::desc();
    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm::convolution_direct,
                                         src_md, w_any, bias_md, dst_md, w.strides, w.dilations, w.pad_l,
                                         w.pad_r);
    dnnl::convolution_forward::primitive_desc pd(desc, attr, cpu_engine());
    op->primitive = dnnl::convolution_forward(pd);
    op->scratchpad_bytes = pd.scratchpad_desc().get_size();
    op->impl = pd.impl_info_str();
    op->args.push_back({DNNL_ARG_SRC, true, src, src_md, {}});
    op->args.push_back({DNNL_ARG_WEIGHTS, false, 0, {}, make_constant(w_plain, weights.data(), pd.weights_desc())});
    if (chain.bias) op->args.push_back({DNNL_ARG_BIAS, false, 0, {}, make_constant(bias_md, chain.bias.data(), pd.bias_desc())});
    op->args.push_back({DNNL_ARG_DST, true, SIZE_MAX, dst_md, {}});
    add_dnnl_step(node, chain, std::move(op), Layout::kChannelsLast);
    return true;
}

// Row-major strides of `shape`, then the last two swapped when `transposed` (a view of the
// stored [..., b, a] matrix as [..., a, b]).
dnnl::memory::desc matrix_desc(const Shape& stored, bool transposed) {
    Dims dims = dims_of(stored);
    Dims strides(dims.size(), 1);
    for (size_t i = dims.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * dims[i + 1];
    if (transposed) {
        const size_t r = dims.size();
        std::swap(dims[r - 1], dims[r - 2]);
        std::swap(strides[r - 1], strides[r - 2]);
    }
    return dnnl::memory::desc(dims, dt::f32, strides);
}

bool GraphCompiler::try_matmul(const NodePtr& node) {
    const Output& a = node->input_value(0);
    const Output& b = node->input_value(1);
    if (!is_f32(a) || !is_f32(b) || !is_f32(node->output(0))) return false;
    const bool ta = node->get_attribute<bool>("transpose_a"), tb = node->get_attribute<bool>("transpose_b");
    const Shape as = a.get_shape(), bs = b.get_shape(), out = node->get_output_shape(0);
    if (as.size() < 2 || bs.size() < 2 || out.empty()) return false;
    const size_t bv = value_of(b);
    const bool weights = m_graph->values[bv].kind == ValueKind::kConstant && bs.size() == 2 && !ta;
    const size_t av = in_layout(value_of(a), Layout::kPlain);

    dnnl::memory::desc src_md, w_md, dst_md, w_plain;
    size_t N = out.back();
    if (weights) {
        // [..., K] x [K, N]: the leading axes of A fold into M, and the weights are reordered once.
        const size_t K = as.back(), M = shape_size(as) / std::max<size_t>(K, 1);
        src_md = dnnl::memory::desc({static_cast<long>(M), static_cast<long>(K)}, dt::f32, tag::ab);
        w_plain = matrix_desc(bs, tb);
        w_md = dnnl::memory::desc(w_plain.dims(), dt::f32, tag::any);
        dst_md = dnnl::memory::desc({static_cast<long>(M), static_cast<long>(N)}, dt::f32, tag::ab);
    } else {
        if (as.size() != bs.size() || as.size() > 5) return false;
        for (size_t i = 0; i + 2 < as.size(); ++i)
            if (as[i] != bs[i] && as[i] != 1 && bs[i] != 1) return false;
        src_md = matrix_desc(as, ta);
        w_md = matrix_desc(bs, tb);
        dst_md = dnnl::memory::desc(dims_of(out), dt::f32, plain_tag(out.size()));
    }
    FusionTarget target;
    target.rank = out.size();
    target.channel_axis = out.size() - 1;
    target.channels = N;
    target.layout = Layout::kPlain;
    target.dst = dst_md;
    target.channel_dims = Dims(dst_md.dims().size(), 1);
    target.channel_dims.back() = static_cast<dnnl::memory::dim>(N);
    target.allow_bias = weights;
    FusedChain chain = fuse_chain(node->output(0), target);

    auto op = std::make_shared<DnnlOp>();
    const auto attr = make_attr(chain.post_ops, op.get());
    const dnnl::memory::desc bias_md =
        chain.bias ? dnnl::memory::desc({1, static_cast<long>(N)}, dt::f32, tag::ab) : dnnl::memory::desc();
    dnnl::matmul::desc desc(src_md, w_md, bias_md, dst_md);
    dnnl::matmul::primitive_desc pd(desc, attr, cpu_engine());
    op->primitive = dnnl::matmul(pd);
    op->scratchpad_bytes = pd.scratchpad_desc().get_size();
    op->impl = pd.impl_info_str();
    op->args.push_back({DNNL_ARG_SRC, true, av, src_md, {}});
    if (weights) {
        const Tensor& wt = m_graph->values[bv].constant;
        op->args.push_back({DNNL_ARG_WEIGHTS, false, 0, {}, make_constant(w_plain, wt.data(), pd.weights_desc())});
    } else {
        op->args.push_back({DNNL_ARG_WEIGHTS, true, in_layout(bv, Layout::kPlain), w_md, {}});
    }
    if (chain.bias) op->args.push_back({DNNL_ARG_BIAS, false, 0, {}, make_constant(bias_md, chain.bias.data(), pd.bias_desc())});
    op->args.push_back({DNNL_ARG_DST, true, SIZE_MAX, dst_md, {}});
    add_dnnl_step(node, chain, std::move(op), Layout::kPlain);
    return true;
}

bool GraphCompiler::try_pooling(const NodePtr& node) {
    const std::string& type = node->get_type_name();
    const Output& x = node->input_value(0);
    if (!is_f32(x)) return false;
    const size_t xv = value_of(x);
    // Pooling pays only inside a channels-last region (after a convolution).
    if (m_graph->values[xv].layout != Layout::kChannelsLast) return false;
    std::vector<int64_t> dilations;
    if (type == "MaxPool" && node->get_version() >= 8) {
        if (!consumers(node->output(1)).empty()) return false;
        dilations = node->get_attribute<std::vector<int64_t>>("dilations");
        for (int64_t d : dilations)
            if (d != 1) return false;
    }
    const Shape in = x.get_shape(), out = node->get_output_shape(0);
    const auto k = node->get_attribute<std::vector<int64_t>>("kernel");
    Window w;
    if (!resolve_window(*node, in, out, std::vector<size_t>(k.begin(), k.end()), {}, &w)) return false;
    algorithm alg = algorithm::pooling_max;
    if (type == "AvgPool")
        alg = node->get_attribute<bool>("exclude-pad") ? algorithm::pooling_avg_exclude_padding
                                                       : algorithm::pooling_avg_include_padding;
    const auto src_md = desc_of(xv);
    const dnnl::memory::desc dst_md(dims_of(out), dt::f32, channels_last_tag(out.size()));
    auto op = std::make_shared<DnnlOp>();
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_inference, alg, src_md, dst_md, w.strides,
                                     to_dims(k), w.pad_l, w.pad_r);
    dnnl::pooling_forward::primitive_desc pd(desc, attr, cpu_engine());
    op->primitive = dnnl::pooling_forward(pd);
    op->scratchpad_bytes = pd.scratchpad_desc().get_size();
    op->impl = pd.impl_info_str();
    op->args.push_back({DNNL_ARG_SRC, true, xv, src_md, {}});
    op->args.push_back({DNNL_ARG_DST, true, SIZE_MAX, dst_md, {}});
    FusedChain chain;
    chain.output = node->output(0);
    add_dnnl_step(node, chain, std::move(op), Layout::kChannelsLast);
    return true;
}

bool GraphCompiler::try_softmax(const NodePtr& node) {
    const Output& x = node->input_value(0);
    if (!is_f32(x)) return false;
    const Shape shape = x.get_shape();
    int64_t axis = node->get_attribute<int64_t>("axis");
    if (axis < 0) axis += static_cast<int64_t>(shape.size());
    if (shape.empty() || axis < 0 || axis >= static_cast<int64_t>(shape.size())) return false;
    const size_t xv = in_layout(value_of(x), Layout::kPlain);
    const auto md = desc_of(xv);
    auto op = std::make_shared<DnnlOp>();
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::softmax_forward::desc desc(dnnl::prop_kind::forward_inference, md, static_cast<int>(axis));
    dnnl::softmax_forward::primitive_desc pd(desc, attr, cpu_engine());
    op->primitive = dnnl::softmax_forward(pd);
    op->scratchpad_bytes = pd.scratchpad_desc().get_size();
    op->impl = pd.impl_info_str();
    op->args.push_back({DNNL_ARG_SRC, true, xv, md, {}});
    op->args.push_back({DNNL_ARG_DST, true, SIZE_MAX, md, {}});
    FusedChain chain;
    chain.output = node->output(0);
    add_dnnl_step(node, chain, std::move(op), Layout::kPlain);
    return true;
}

bool GraphCompiler::try_layer_norm(const NodePtr& node) {
    const auto m = match_layer_norm(*node, m_consumers);
    if (!m || !has_value(m->input)) return false;
    const Shape shape = m->input.get_shape();
    const size_t d = shape.back();
    const size_t xv = in_layout(value_of(m->input), Layout::kPlain);
    const auto md = desc_of(xv);
    auto op = std::make_shared<DnnlOp>();
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    auto flags = dnnl::normalization_flags::none;
    if (m->gamma) flags |= dnnl::normalization_flags::use_scale;
    if (m->beta) flags |= dnnl::normalization_flags::use_shift;
    dnnl::layer_normalization_forward::desc desc(dnnl::prop_kind::forward_inference, md, m->epsilon, flags);
    dnnl::layer_normalization_forward::primitive_desc pd(desc, attr, cpu_engine());
    op->primitive = dnnl::layer_normalization_forward(pd);
    op->scratchpad_bytes = pd.scratchpad_desc().get_size();
    op->impl = pd.impl_info_str();
    op->args.push_back({DNNL_ARG_SRC, true, xv, md, {}});
    const dnnl::memory::desc vec({static_cast<dnnl::memory::dim>(d)}, dt::f32, tag::a);
    if (m->gamma) op->args.push_back({DNNL_ARG_SCALE, false, 0, {}, make_constant(vec, m->gamma->get_constant_value().data(), vec)});
    if (m->beta) op->args.push_back({DNNL_ARG_SHIFT, false, 0, {}, make_constant(vec, m->beta->get_constant_value().data(), vec)});
    op->args.push_back({DNNL_ARG_DST, true, SIZE_MAX, md, {}});
    FusedChain chain;
    chain.output = m->output;
    for (size_t i = 1; i < m->nodes.size(); ++i) {
        chain.nodes.push_back(m->nodes[i]);
        m_absorbed.insert(m->nodes[i].get());
    }
    add_dnnl_step(node, chain, std::move(op), Layout::kPlain);
    m_graph->steps.back().type = "LayerNorm";
    return true;
}

std::shared_ptr<const Graph> GraphCompiler::compile() {
    const NodeVector nodes = m_model->get_ordered_ops();
    m_graph->variables = m_model->get_variables();
    std::sort(m_graph->variables.begin(), m_graph->variables.end(),
              [](const VariableInfo& a, const VariableInfo& b) { return a.id < b.id; });
    for (size_t i = 0; i < m_graph->variables.size(); ++i) m_variable_index[m_graph->variables[i].id] = i;
    for (const auto& node : nodes) {
        for (size_t i = 0; i < node->get_input_size(); ++i)
            m_consumers[node->input_value(i)].push_back({node.get(), i});
        for (size_t i = 0; i < node->get_output_size(); ++i)
            if (!node->get_output_partial_shape(i).is_static()) m_graph->dynamic = true;
        if (node->get_type_name() == "If" || node->get_type_name() == "Loop") m_graph->dynamic = true;
    }
    const auto& params = m_model->get_parameters();
    for (size_t p = 0; p < params.size(); ++p) {
        const size_t id = add_value(params[p]->output(0), ValueKind::kParameter);
        m_graph->values[id].parameter = p;
        m_graph->parameter_values.push_back(id);
        if (!params[p]->get_output_partial_shape(0).is_static()) m_graph->dynamic = true;
    }
    // Constants first: a fused chain may read one that comes after its anchor in topological order.
    for (const auto& node : nodes) {
        if (node->get_type_name() != "Constant") continue;
        const size_t id = add_value(node->output(0), ValueKind::kConstant);
        m_graph->values[id].constant = node->get_constant_value();
    }
    for (const auto& node : nodes) {
        const std::string& type = node->get_type_name();
        if (type == "Parameter" || type == "Result" || type == "Constant" || m_absorbed.count(node.get()))
            continue;
        if (type == "If" || type == "Loop") {
            add_subgraph_step(node);
            continue;
        }
        bool missing_input = false;
        for (const auto& in : node->input_values()) missing_input |= !has_value(in);
        if (missing_input) continue;  // an input's op was unsupported (already reported)
        if (type == "ReadValue" || type == "Assign") {
            add_state_step(node);
            continue;
        }
        if (fold_constant(node)) continue;
        bool done = false;
        if (!m_graph->dynamic) {
            const auto absorbed = m_absorbed;
            try {
                if (type == "Convolution" || type == "GroupConvolution") done = try_convolution(node);
                else if (type == "MatMul") done = try_matmul(node);
                else if (type == "MaxPool" || type == "AvgPool") done = try_pooling(node);
                else if (type == "Softmax") done = try_softmax(node);
                else if (type == "ReduceMean") done = try_layer_norm(node);
            } catch (const dnnl::error&) {
                // oneDNN has no implementation for this case: the reference kernels run the anchor
                // and the ops its chain had absorbed.
                m_absorbed = absorbed;
                done = false;
            }
        }
        if (!done) add_reference_step(node);
    }
    if (!m_unsupported.empty()) {
        std::string message;
        for (const auto& m : m_unsupported) message += "\n  " + m;
        throw_error<NotImplemented>(kDeviceName, ": the model has ops the CPU plugin cannot run:", message);
    }
    for (const auto& result : m_model->get_results())
        m_graph->result_values.push_back(in_layout(value_of(result->input_value(0)), Layout::kPlain));
    m_graph->plan_memory();
    return m_graph;
}

}  // namespace

std::shared_ptr<const Graph> compile_graph(std::shared_ptr<const Model> model) {
    return GraphCompiler(std::move(model)).compile();
}

}  // namespace vireo::cpu_plugin
