// Implements GraphCompiler::try_rnn: LSTMSequence, GRUSequence and RNNSequence on oneDNN's RNN
// primitives (lstm_forward, gru_forward / lbr_gru_forward, vanilla_rnn_forward). The layer's
// states arrive as [batch, directions, hidden] and oneDNN wants [layers, directions, batch,
// hidden]; its output [seq, batch, directions * hidden] becomes the op's [batch, directions, seq,
// hidden]: small reorders around one primitive. Configurations oneDNN does not compute (other
// activations, clip, peepholes, input_forget, per-entry sequence lengths) stay on the reference
// kernel.
#include <algorithm>
#include <array>
#include <cstring>

#include "graph_compiler_impl.hpp"

namespace vireo::cpu_plugin::detail {
namespace {

// The f32 data of a constant value, or null.
const float* constant_f32(const Value& v) {
    if (v.kind != ValueKind::kConstant || v.constant.get_element_type() != element::f32)
        return nullptr;
    return static_cast<const float*>(v.constant.data());
}

// Row-major strides of `dims` permuted: the stored tensor has dims `stored`; `order[k]` is the
// stored axis that view axis k reads.
dnnl::memory::desc permuted_view(const Dims& stored, const std::vector<size_t>& order) {
    Dims strides(stored.size(), 1);
    for (size_t i = stored.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * stored[i + 1];
    Dims dims, view_strides;
    for (size_t axis : order) {
        dims.push_back(stored[axis]);
        view_strides.push_back(strides[axis]);
    }
    return dnnl::memory::desc(dims, dt::f32, view_strides);
}

dnnl::memory::dim dim(size_t v) {
    return static_cast<dnnl::memory::dim>(v);
}

// The primitive computing `c` in direction `dir`, with a user scratchpad. The weights are given
// plain (ldigo), not `any`: with `any` oneDNN 2.6 picks its brgemm kernels, which multiply the
// layer input one time step at a time; a 2-layer bidirectional LSTM (input 512, hidden 256, 64
// steps, batch 1) took 15.7 ms a layer there against 2.5 ms in the GEMM-based implementation
// plain weights select, which does the input GEMM for all steps at once.
RnnPrimitive make_rnn_primitive(const RnnConfig& c, dnnl::rnn_direction dir) {
    RnnPrimitive p;
    p.src_layer = dnnl::memory::desc({dim(c.T), dim(c.N), dim(c.I)}, dt::f32, tag::tnc);
    p.iter = dnnl::memory::desc({1, dim(c.Dp), dim(c.N), dim(c.H)}, dt::f32, tag::ldnc);
    p.w_layer_plain =
        dnnl::memory::desc({1, dim(c.Dp), dim(c.I), dim(c.G), dim(c.H)}, dt::f32, tag::ldigo);
    p.w_iter_plain =
        dnnl::memory::desc({1, dim(c.Dp), dim(c.H), dim(c.G), dim(c.H)}, dt::f32, tag::ldigo);
    p.bias = dnnl::memory::desc({1, dim(c.Dp), dim(c.bias_gates), dim(c.H)}, dt::f32, tag::ldgo);
    p.dst_layer = dnnl::memory::desc({dim(c.T), dim(c.N), dim(c.Dp * c.H)}, dt::f32, tag::tnc);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    auto take = [&](auto pd, auto primitive) {
        p.op->primitive = primitive;
        p.op->scratchpad_bytes = pd.scratchpad_desc().get_size();
        p.op->impl = pd.impl_info_str();
        p.w_layer_md = pd.weights_layer_desc();
        p.w_iter_md = pd.weights_iter_desc();
    };
    const auto prop = dnnl::prop_kind::forward_inference;
    using Cell = RnnConfig::Cell;
    if (c.cell == Cell::kLstm) {
        dnnl::lstm_forward::desc desc(prop, dir, p.src_layer, p.iter, p.iter, p.w_layer_plain,
                                      p.w_iter_plain, p.bias, p.dst_layer, p.iter, p.iter);
        dnnl::lstm_forward::primitive_desc pd(desc, attr, cpu_engine());
        take(pd, dnnl::lstm_forward(pd));
    } else if (c.cell == Cell::kLbrGru) {
        dnnl::lbr_gru_forward::desc desc(prop, dir, p.src_layer, p.iter, p.w_layer_plain,
                                         p.w_iter_plain, p.bias, p.dst_layer, p.iter);
        dnnl::lbr_gru_forward::primitive_desc pd(desc, attr, cpu_engine());
        take(pd, dnnl::lbr_gru_forward(pd));
    } else if (c.cell == Cell::kGru) {
        dnnl::gru_forward::desc desc(prop, dir, p.src_layer, p.iter, p.w_layer_plain,
                                     p.w_iter_plain, p.bias, p.dst_layer, p.iter);
        dnnl::gru_forward::primitive_desc pd(desc, attr, cpu_engine());
        take(pd, dnnl::gru_forward(pd));
    } else {
        dnnl::vanilla_rnn_forward::desc desc(prop, algorithm::eltwise_tanh, dir, p.src_layer,
                                             p.iter, p.w_layer_plain, p.w_iter_plain, p.bias,
                                             p.dst_layer, p.iter);
        dnnl::vanilla_rnn_forward::primitive_desc pd(desc, attr, cpu_engine());
        take(pd, dnnl::vanilla_rnn_forward(pd));
    }
    return p;
}

// Time steps per chunk of a wavefront over a sequence of `steps`: about twelve chunks, each of
// at least four steps (a chunk's primitive call and the barrier after it cost a few
// microseconds, a GRU step of hidden size 256 about nine).
size_t wavefront_chunk(size_t steps) {
    return std::max<size_t>(4, (steps + 11) / 12);
}

}  // namespace

size_t GraphCompiler::add_internal_value(const Dims& dims, const std::string& name,
                                         element::Type type) {
    Value v;
    v.kind = ValueKind::kComputed;
    v.type = type;
    v.shape = PartialShape(Shape(dims.begin(), dims.end()));
    v.layout = Layout::kPlain;
    v.producer = m_graph->steps.size();
    v.name = name;
    m_graph->values.push_back(std::move(v));
    return m_graph->values.size() - 1;
}

void GraphCompiler::add_internal_reorder(const dnnl::memory::desc& from, size_t from_value,
                                         size_t to_value, const NodePtr& node,
                                         const std::string& what,
                                         const dnnl::memory::desc* to_view) {
    const Value& to = m_graph->values[to_value];
    const dnnl::memory::desc dst =
        to_view
            ? *to_view
            : dnnl::memory::desc(dims_of(to.shape.to_shape()), dt::f32, plain_tag(to.shape.size()));
    Step step;
    step.kind = StepKind::kDnnl;
    step.node = node;
    step.fused = {node};
    step.name = node->get_friendly_name() + ":" + what;
    step.type = "Reorder";
    step.dnnl = make_reorder(from, dst, from_value, to_value);
    step.exec_type = step.dnnl->impl + " " + what;
    step.outputs = {to_value};
    // A write through a view may be one of several (the value's producer is the first of them,
    // set where the value was made).
    if (!to_view) m_graph->values[to_value].producer = m_graph->steps.size();
    m_graph->steps.push_back(std::move(step));
}

bool GraphCompiler::try_rnn(const NodePtr& node) {
    const std::string& type = node->get_type_name();
    const bool lstm = type == "LSTMSequence", gru = type == "GRUSequence";
    if (!lstm && !gru && type != "RNNSequence") return false;
    const size_t states = lstm ? 2 : 1;  // H0 (and C0) after X
    const size_t lens_in = 1 + states, w_in = lens_in + 1, r_in = w_in + 1, b_in = r_in + 1;
    if (lstm && node->get_input_size() > 7) return false;  // peepholes
    for (size_t i = 0; i < node->get_input_size(); ++i)
        if (node->input_value(i).get_element_type() != element::f32 && i != lens_in) return false;
    if (node->get_attribute<double>("clip") != 0.0) return false;
    if (lstm && node->get_version() == 1 && node->get_attribute<bool>("input_forget")) return false;
    // oneDNN's cells use the default activations only.
    const auto acts = node->get_attribute<std::vector<std::string>>("activations");
    const std::vector<std::string> expected =
        lstm  ? std::vector<std::string>{"sigmoid", "tanh", "tanh"}
        : gru ? std::vector<std::string>{"sigmoid", "tanh"}
              : std::vector<std::string>{"tanh"};
    for (size_t i = 0; i < acts.size(); ++i)
        if (acts[i] != expected[i % expected.size()]) return false;
    if (!node->get_attribute<std::vector<double>>("activations_alpha").empty() ||
        !node->get_attribute<std::vector<double>>("activations_beta").empty())
        return false;
    const Shape xs = node->input_value(0).get_shape();
    const size_t N = xs[0], T = xs[1], I = xs[2];
    const auto H = static_cast<size_t>(node->get_attribute<int64_t>("hidden_size"));
    const auto direction = node->get_attribute<std::string>("direction");
    const size_t D = direction == "bidirectional" ? 2 : 1;
    if (N == 0 || T == 0) return false;
    // Every entry must run the whole sequence: per-entry lengths stay on the reference kernel.
    {
        const Value& lens = m_graph->values[value_of(node->input_value(lens_in))];
        if (lens.kind != ValueKind::kConstant) return false;
        const Tensor& t = lens.constant;
        for (size_t i = 0; i < t.get_size(); ++i) {
            const int64_t len =
                t.get_element_type() == element::i32   ? static_cast<const int32_t*>(t.data())[i]
                : t.get_element_type() == element::i64 ? static_cast<const int64_t*>(t.data())[i]
                                                       : -1;
            if (len != static_cast<int64_t>(T)) return false;
        }
    }
    const float* W = constant_f32(m_graph->values[value_of(node->input_value(w_in))]);
    const float* R = constant_f32(m_graph->values[value_of(node->input_value(r_in))]);
    const float* B = constant_f32(m_graph->values[value_of(node->input_value(b_in))]);
    if (!W || !R || !B) return false;
    const bool lbr = gru && node->get_attribute<bool>("linear_before_reset");
    const size_t G = lstm ? 4 : gru ? 3 : 1;
    // Where oneDNN's gate g (LSTM: i, f, c, o; GRU: u, r, o) sits in the op's weights.
    std::vector<size_t> gate(G);
    for (size_t g = 0; g < G; ++g) gate[g] = g;
    if (lstm) {
        const std::string format =
            node->get_version() == 1 ? node->get_attribute<std::string>("weights_format") : "fico";
        const char* onednn = "ifco";
        for (size_t g = 0; g < 4; ++g) gate[g] = format.find(onednn[g]);
    }
    // Each time step waits for the one before, so oneDNN splits one step's recurrent GEMM and
    // gates over the threads and meets them at a barrier T times: below about 512K
    // multiply-adds per thread and step (batch x gates x hidden^2) the barrier costs more than
    // the thread gives. Measured at 2 threads (docs/performance.md): GRU batch 1 hidden 256 in
    // the corpus 1.89 -> 1.04 ms on one thread; batch 4 hidden 64 0.57 -> 0.21 ms; batch 16
    // hidden 256 (3.1M) 3.61 ms on two against 4.46 on one.
    constexpr size_t kRecurrentMacsPerThread = size_t{1} << 19;
    const size_t useful_threads =
        std::clamp<size_t>(N * G * H * H / kRecurrentMacsPerThread, 1, 1024);
    // A bidirectional layer too small for two threads a step runs as two unidirectional
    // primitives, one per direction, side by side on their own threads (Step::concurrent_with_next)
    // — what ORT does — instead of one primitive that runs the directions one after the other.
    const bool split = D == 2 && useful_threads == 1;
    const size_t parts = split ? 2 : 1, Dp = D / parts;  // primitives, directions in each

    // Weights [1, Dp, in, G, H] (ldigo) and bias [1, Dp, G (+1), H] (ldgo) of the directions
    // first..first+Dp-1 from W [D, G*H, in], R [D, G*H, H] and B [D, G*H] (lbr GRU: [D, 4*H], the
    // last H the candidate's recurrent bias).
    auto pack_weights = [&](const float* src, size_t in, size_t first) {
        std::vector<float> out(Dp * in * G * H);
        for (size_t d = 0; d < Dp; ++d)
            for (size_t i = 0; i < in; ++i)
                for (size_t g = 0; g < G; ++g)
                    for (size_t h = 0; h < H; ++h)
                        out[((d * in + i) * G + g) * H + h] =
                            src[((first + d) * G * H + gate[g] * H + h) * in + i];
        return out;
    };
    const size_t bias_gates = lbr ? 4 : G;
    auto pack_bias = [&](size_t first) {
        std::vector<float> out(Dp * bias_gates * H);
        for (size_t d = 0; d < Dp; ++d)
            for (size_t g = 0; g < bias_gates; ++g)
                for (size_t h = 0; h < H; ++h)
                    out[(d * bias_gates + g) * H + h] =
                        B[(first + d) * bias_gates * H + (g < G ? gate[g] : g) * H + h];
        return out;
    };

    using Cell = RnnConfig::Cell;
    RnnConfig config;
    config.cell = lstm ? Cell::kLstm : lbr ? Cell::kLbrGru : gru ? Cell::kGru : Cell::kVanilla;
    config.T = T;
    config.N = N;
    config.I = I;
    config.H = H;
    config.Dp = Dp;
    config.G = G;
    config.bias_gates = bias_gates;
    using Part = RnnPrimitive;
    auto make_part = [&](dnnl::rnn_direction dir) { return make_rnn_primitive(config, dir); };
    std::vector<Part> made;
    if (split) {
        made.push_back(make_part(dnnl::rnn_direction::unidirectional_left2right));
        made.push_back(make_part(dnnl::rnn_direction::unidirectional_right2left));
    } else {
        made.push_back(
            make_part(direction == "forward"   ? dnnl::rnn_direction::unidirectional_left2right
                      : direction == "reverse" ? dnnl::rnn_direction::unidirectional_right2left
                                               : dnnl::rnn_direction::bidirectional_concat));
    }
    // A forward layer too small for a second thread that reads another such layer's output runs
    // in a wavefront with it (RnnWavefront): the chunks' primitives, per layer, made here.
    const bool single_forward = !split && D == 1 && direction == "forward" && useful_threads == 1;
    const RnnLayer* source = single_forward ? wavefront_source(node, config) : nullptr;
    std::vector<RnnPrimitive> chunks[2];
    if (source) {
        const size_t length = wavefront_chunk(T);
        try {
            for (size_t layer = 0; layer < 2 && source; ++layer) {
                for (size_t start = 0; start < T; start += length) {
                    RnnConfig c = layer == 0 ? source->config : config;
                    c.T = std::min(length, T - start);
                    chunks[layer].push_back(
                        make_rnn_primitive(c, dnnl::rnn_direction::unidirectional_left2right));
                    // The chunks share the whole layer's weights: the same layouts, or no
                    // wavefront.
                    const RnnPrimitive& chunk = chunks[layer].back();
                    const dnnl::memory::desc w_layer =
                        layer == 0 ? source->constants[0].constant.get_desc() : made[0].w_layer_md;
                    const dnnl::memory::desc w_iter =
                        layer == 0 ? source->constants[1].constant.get_desc() : made[0].w_iter_md;
                    if (chunk.w_layer_md != w_layer || chunk.w_iter_md != w_iter) source = nullptr;
                }
            }
        } catch (const dnnl::error&) {
            source = nullptr;
        }
    }
    // The primitives are made: from here on nothing throws a dnnl::error the caller would catch
    // with steps half added.
    const std::string base = node->get_friendly_name();
    // X [N, T, I] read as [T, N, I] (one copy both parts read; in a wavefront the first layer's
    // output, which is X's bytes); states [N, D, H] read as [1, Dp, N, H] from direction `first`
    // on: a strided view starting `first * H` in.
    size_t x_tnc = 0;
    if (source) {
        x_tnc = source->y;
    } else {
        const size_t x = in_layout(value_of(node->input_value(0)), Layout::kPlain);
        const dnnl::memory::desc x_view = permuted_view(dims_of(xs), {1, 0, 2});  // [T, N, I]
        x_tnc = add_internal_value({dim(T), dim(N), dim(I)}, base + " input (tnc)");
        add_internal_reorder(x_view, x, x_tnc, node, "x->tnc");
    }
    auto state_view = [&](size_t first) {  // [1, Dp, N, H] of a stored [N, D, H]
        dnnl::memory::desc view = permuted_view({1, dim(N), dim(D), dim(H)}, {0, 2, 1, 3});
        view = view.submemory_desc({1, dim(Dp), dim(N), dim(H)}, {0, dim(first), 0, 0});
        return view;
    };
    const std::vector<std::string> part_names =
        split ? std::vector<std::string>{"forward", "reverse"} : std::vector<std::string>{""};
    struct PartValues {
        std::vector<size_t> iter_in, iter_out;
        size_t y = 0;
    };
    std::vector<PartValues> values(parts);
    size_t main_step = 0;  // the (last) primitive's step
    for (size_t p = 0; p < parts; ++p) {
        const std::string suffix = split ? " " + part_names[p] : "";
        for (size_t s = 0; s < states; ++s) {
            const size_t v = in_layout(value_of(node->input_value(1 + s)), Layout::kPlain);
            const size_t to =
                add_internal_value({1, dim(Dp), dim(N), dim(H)},
                                   base + suffix + " state " + std::to_string(s) + " (ldnc)");
            add_internal_reorder(state_view(p * Dp), v, to, node, "state->ldnc");
            values[p].iter_in.push_back(to);
        }
    }
    for (size_t p = 0; p < parts; ++p) {
        const std::string suffix = split ? " " + part_names[p] : "";
        values[p].y =
            add_internal_value({dim(T), dim(N), dim(Dp * H)}, base + suffix + " output (tnc)");
        for (size_t s = 0; s < states; ++s)
            values[p].iter_out.push_back(add_internal_value(
                {1, dim(Dp), dim(N), dim(H)}, base + suffix + " final state " + std::to_string(s)));
    }
    for (size_t p = 0; p < parts; ++p) {
        const std::shared_ptr<DnnlOp>& op = made[p].op;
        const PartValues& pv = values[p];
        const RnnPrimitive& made_p = made[p];
        op->args.push_back({DNNL_ARG_SRC_LAYER, true, x_tnc, made_p.src_layer, {}});
        op->args.push_back({DNNL_ARG_SRC_ITER, true, pv.iter_in[0], made_p.iter, {}});
        if (lstm) op->args.push_back({DNNL_ARG_SRC_ITER_C, true, pv.iter_in[1], made_p.iter, {}});
        const std::vector<float> w_layer = pack_weights(W, I, p * Dp),
                                 w_iter = pack_weights(R, H, p * Dp), bias = pack_bias(p * Dp);
        DnnlArg arg;
        arg.is_value = false;
        arg.arg = DNNL_ARG_WEIGHTS_LAYER;
        arg.constant = make_constant(made_p.w_layer_plain, w_layer.data(), made_p.w_layer_md);
        op->args.push_back(arg);
        arg.arg = DNNL_ARG_WEIGHTS_ITER;
        arg.constant = make_constant(made_p.w_iter_plain, w_iter.data(), made_p.w_iter_md);
        op->args.push_back(arg);
        arg.arg = DNNL_ARG_BIAS;
        arg.constant = make_constant(made_p.bias, bias.data(), made_p.bias);
        op->args.push_back(arg);
        op->args.push_back({DNNL_ARG_DST_LAYER, true, pv.y, made_p.dst_layer, {}});
        op->args.push_back({DNNL_ARG_DST_ITER, true, pv.iter_out[0], made_p.iter, {}});
        if (lstm) op->args.push_back({DNNL_ARG_DST_ITER_C, true, pv.iter_out[1], made_p.iter, {}});
        for (const auto& a : op->args)
            if (!a.is_value) m_graph->weights_bytes += a.constant.get_desc().get_size();
        Step step;
        step.kind = StepKind::kDnnl;
        step.node = node;
        step.fused = {node};
        step.name = split ? base + ":" + part_names[p] : base;
        step.type = type;
        // oneDNN names its RNN driver "ref" even where the cells run on its jit GEMMs: keep it
        // apart from the reference kernels ("ref").
        step.exec_type = "dnnl_rnn:" + op->impl + " tnc";
        step.max_threads = static_cast<int>(split ? 1 : useful_threads);
        step.concurrent_with_next = split && p == 0;
        step.outputs = {pv.y};
        step.outputs.insert(step.outputs.end(), pv.iter_out.begin(), pv.iter_out.end());
        for (size_t v : step.outputs) m_graph->values[v].producer = m_graph->steps.size();
        step.dnnl = op;
        main_step = m_graph->steps.size();
        m_graph->steps.push_back(std::move(step));
    }
    // Y [N, D, T, H] from each part's [T, N, Dp * H] = [T, N, Dp, H]; final states [N, D, H] from
    // [1, Dp, N, H]. A split layer's parts each write their direction's slice of the outputs.
    const size_t y = add_value(node->output(0), ValueKind::kComputed);
    std::vector<size_t> state_out;
    for (size_t s = 0; s < states; ++s)
        state_out.push_back(add_value(node->output(1 + s), ValueKind::kComputed));
    for (size_t p = 0; p < parts; ++p) {
        const dnnl::memory::desc y_slice =  // Y's [T, N, Dp, H] from direction p * Dp on
            permuted_view({dim(N), dim(D), dim(T), dim(H)}, {2, 0, 1, 3})
                .submemory_desc({dim(T), dim(N), dim(Dp), dim(H)}, {0, 0, dim(p * Dp), 0});
        add_internal_reorder(
            dnnl::memory::desc({dim(T), dim(N), dim(Dp), dim(H)}, dt::f32, tag::abcd), values[p].y,
            y, node, "tnc->y", &y_slice);
        for (size_t s = 0; s < states; ++s) {
            const dnnl::memory::desc state_slice = state_view(p * Dp);
            add_internal_reorder(
                dnnl::memory::desc({1, dim(Dp), dim(N), dim(H)}, dt::f32, tag::abcd),
                values[p].iter_out[s], state_out[s], node, "ldnc->state", &state_slice);
        }
    }
    if (!single_forward) return true;
    RnnLayer layer;
    layer.node = node;
    layer.config = config;
    layer.step = main_step;
    for (size_t s = main_step + 1; s < m_graph->steps.size(); ++s) layer.after.push_back(s);
    layer.x = x_tnc;
    layer.y = values[0].y;
    layer.y_port_value = y;
    layer.iter_in = values[0].iter_in;
    layer.iter_out = values[0].iter_out;
    for (const auto& a : made[0].op->args)
        if (!a.is_value) layer.constants.push_back(a);  // weights layer, weights iter, bias
    if (source) {
        add_wavefront(*source, layer, chunks);
    } else {
        m_rnn_layers[node.get()] = std::move(layer);  // a layer after it may pair with it
    }
    return true;
}

const RnnLayer* GraphCompiler::wavefront_source(const NodePtr& node,
                                                const RnnConfig& config) const {
    if (m_graph->dynamic || config.T < 8) return nullptr;
    const auto x = m_value_of.find(node->input_value(0));
    if (x == m_value_of.end()) return nullptr;
    const Value& xv = m_graph->values[x->second];
    const size_t root = xv.alias == SIZE_MAX ? x->second : xv.alias;
    for (const auto& [op, layer] : m_rnn_layers) {
        if (layer.y_port_value != root) continue;
        const RnnConfig& c = layer.config;
        if (c.T != config.T || c.N != config.N || c.H != config.I) return nullptr;
        // The first layer runs at the second's step: nothing else may read what it writes. Its
        // Y is read by `node` alone, through views (of the same bytes); its final states by
        // nothing.
        for (size_t k = 1; k < op->get_output_size(); ++k)
            if (!consumers(layer.node->output(k)).empty()) return nullptr;
        for (const auto& [port, value] : m_value_of) {
            if (value != root && m_graph->values[value].alias != root) continue;
            for (const auto& use : consumers(port)) {
                if (use.node == node.get()) continue;
                if (use.node->get_output_size() == 0) return nullptr;  // a model output
                const auto v = m_value_of.find(use.node->output(0));
                if (v == m_value_of.end() || m_graph->values[v->second].alias != root)
                    return nullptr;
            }
        }
        return &layer;
    }
    return nullptr;
}

void GraphCompiler::add_wavefront(const RnnLayer& first, const RnnLayer& second,
                                  std::vector<RnnPrimitive> (&chunks)[2]) {
    auto wave = std::make_shared<RnnWavefront>();
    wave->first_step = first.step;
    const size_t length = wavefront_chunk(first.config.T);
    for (size_t index = 0; index < 2; ++index) {
        const RnnLayer& layer = index == 0 ? first : second;
        const RnnConfig& c = layer.config;
        // Each state passes from chunk to chunk through two buffers in turn (a primitive's source
        // and destination states must not overlap).
        std::vector<std::array<size_t, 2>> passed;
        for (size_t s = 0; s < layer.iter_in.size(); ++s) {
            std::array<size_t, 2> buffers{};
            for (size_t b = 0; b < 2; ++b) {
                buffers[b] = add_internal_value({1, 1, dim(c.N), dim(c.H)},
                                                m_graph->values[layer.iter_in[s]].name +
                                                    " (wavefront " + std::to_string(b) + ")");
                m_graph->values[buffers[b]].producer = second.step;
            }
            passed.push_back(buffers);
        }
        const size_t count = chunks[index].size();
        for (size_t k = 0; k < count; ++k) {
            RnnPrimitive& chunk = chunks[index][k];
            auto& args = chunk.op->args;
            const int src_iter[2] = {DNNL_ARG_SRC_ITER, DNNL_ARG_SRC_ITER_C};
            const int dst_iter[2] = {DNNL_ARG_DST_ITER, DNNL_ARG_DST_ITER_C};
            args.push_back({DNNL_ARG_SRC_LAYER,
                            true,
                            layer.x,
                            chunk.src_layer,
                            {},
                            k * length * c.N * c.I * sizeof(float)});
            for (size_t s = 0; s < passed.size(); ++s)
                args.push_back({src_iter[s],
                                true,
                                k == 0 ? layer.iter_in[s] : passed[s][(k - 1) % 2],
                                chunk.iter,
                                {}});
            for (const DnnlArg& weights : layer.constants) args.push_back(weights);
            args.push_back({DNNL_ARG_DST_LAYER,
                            true,
                            layer.y,
                            chunk.dst_layer,
                            {},
                            k * length * c.N * c.H * sizeof(float)});
            for (size_t s = 0; s < passed.size(); ++s)
                args.push_back({dst_iter[s],
                                true,
                                k + 1 == count ? layer.iter_out[s] : passed[s][k % 2],
                                chunk.iter,
                                {}});
            wave->chunks[index].push_back(chunk.op);
        }
    }
    m_graph->steps[first.step].deferred = true;
    // The reorders of the first layer's outputs write values nothing reads (wavefront_source).
    for (size_t s : first.after) m_graph->steps[s].deferred = true;
    for (size_t s : {first.step, second.step}) m_graph->steps[s].exec_type += " wavefront";
    m_graph->steps[second.step].wavefront = std::move(wave);
}

}  // namespace vireo::cpu_plugin::detail
