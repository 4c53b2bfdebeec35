// Implements GraphExecutor: binding a request's memory to a Graph and running its steps.
#include "graph_executor.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <set>

#include "config.hpp"
#include "fallback_kernel.hpp"
#include "strided_view.hpp"
#include "vireo/op_registry.hpp"

namespace vireo::cpu_plugin {
namespace {

using Clock = std::chrono::steady_clock;

std::shared_ptr<void> allocate(size_t bytes) {
    if (bytes == 0) return {};
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p)
        throw_error<Exception>(kDeviceName, ": cannot allocate ", bytes,
                               " bytes of request memory");
    return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

Tensor read_value_source(const Step& step, const std::vector<Tensor>& ins,
                         const std::vector<std::shared_ptr<sdk::HostVariableState>>& states) {
    const sdk::HostVariableState& state = *states.at(step.variable);
    return state.is_reset() && !ins.empty() ? ins[0] : state.stored();
}

// The integer at index i of a 1-D (or scalar) i32/i64 tensor.
int64_t index_at(const Tensor& t, size_t i) {
    return t.get_element_type() == element::i64 ? static_cast<const int64_t*>(t.data())[i]
                                                : static_cast<const int32_t*>(t.data())[i];
}

// A Gather along axis 0 (no batch dims) with indices 0, 1, ..., n-1 for data of n rows: its
// output is its input (a decoder's beam_idx outside beam search).
bool is_identity_gather(const Node& node, const std::vector<Tensor>& ins) {
    if (ins.size() != 3 || !ins[0] || ins[0].get_shape().empty()) return false;
    if (node.has_attribute("batch_dims") && node.get_attribute<int64_t>("batch_dims") != 0)
        return false;
    const Tensor& indices = ins[1];
    const Tensor& axis = ins[2];
    for (const Tensor* t : {&indices, &axis})
        if (t->get_element_type() != element::i64 && t->get_element_type() != element::i32)
            return false;
    if (axis.get_size() != 1 || index_at(axis, 0) != 0) return false;
    const size_t rows = ins[0].get_shape()[0];
    if (indices.get_shape().size() != 1 || indices.get_size() != rows) return false;
    for (size_t i = 0; i < rows; ++i)
        if (index_at(indices, i) != static_cast<int64_t>(i)) return false;
    return true;
}

// A Gather along axis 0 of strided data (a KV cache appended in place, reordered by beam search)
// as one copy per selected row into `out`, the contiguous output, instead of a contiguous copy
// of the whole data first. False (nothing written) for anything else, which the kernel takes.
bool gather_strided_rows(const Node& node, const std::vector<Tensor>& ins, Tensor& out) {
    if (ins.size() != 3 || !is_strided(ins[0]) || !out) return false;
    if (node.has_attribute("batch_dims") && node.get_attribute<int64_t>("batch_dims") != 0)
        return false;
    const Tensor& data = ins[0];
    const Tensor& indices = ins[1];
    const Tensor& axis = ins[2];
    for (const Tensor* t : {&indices, &axis})
        if (t->get_element_type() != element::i64 && t->get_element_type() != element::i32)
            return false;
    const Shape& shape = data.get_shape();
    if (shape.empty() || axis.get_size() != 1 || index_at(axis, 0) != 0 ||
        indices.get_shape().size() != 1)
        return false;
    const auto rows = static_cast<int64_t>(shape[0]);
    const size_t n = indices.get_size();
    Shape expected = shape;
    expected[0] = n;
    if (out.get_shape() != expected || out.get_element_type() != data.get_element_type())
        return false;
    for (size_t i = 0; i < n; ++i) {
        const int64_t at = index_at(indices, i);
        if (at < -rows || at >= rows) return false;  // the kernel names the bad index
    }
    Coordinate begin(shape.size(), 0), end(shape.begin(), shape.end());
    for (size_t i = 0; i < n; ++i) {
        int64_t at = index_at(indices, i);
        if (at < 0) at += rows;
        begin[0] = static_cast<size_t>(at);
        end[0] = begin[0] + 1;
        const Tensor row(data, begin, end);
        begin[0] = i;
        end[0] = i + 1;
        Tensor slot(out, begin, end);
        row.copy_to(slot);
    }
    return true;
}

}  // namespace

GraphExecutor::GraphExecutor(std::shared_ptr<const Graph> graph, int omp_threads,
                             std::shared_ptr<std::atomic<uint64_t>> cache_bytes)
    : m_graph(std::move(graph)),
      m_threads(omp_threads),
      m_stream(cpu_engine()),
      m_cache_bytes(std::move(cache_bytes)) {
    const Graph& g = *m_graph;
    m_values.resize(g.values.size());
    m_capacity.assign(g.values.size(), 0);
    m_appended.assign(g.values.size(), false);
    m_staging.resize(g.parameter_values.size());
    m_arena = allocate(g.arena_bytes);
    m_scratchpad = allocate(g.scratchpad_bytes);
    for (size_t id = 0; id < g.values.size(); ++id) {
        const Value& v = g.values[id];
        if (v.kind == ValueKind::kConstant) {
            m_values[id] = v.constant;
        } else if (v.kind == ValueKind::kComputed && !g.dynamic) {
            m_values[id] =
                Tensor(v.type, v.shape.to_shape(), static_cast<char*>(m_arena.get()) + v.offset);
        }
    }
    if (g.dynamic) {
        m_last_use.assign(g.values.size(), SIZE_MAX);
        std::vector<bool> kept(g.values.size(), false);
        for (size_t id : g.result_values) kept[id] = true;
        for (size_t s : g.assign_steps) kept[g.steps[s].inputs[0]] = true;
        for (size_t s = 0; s < g.steps.size(); ++s)
            for (size_t id : g.steps[s].inputs)
                if (!kept[id]) m_last_use[id] = s;
    }
    m_step_inputs.resize(g.steps.size());
    m_step_outputs.resize(g.steps.size());
    m_args.resize(g.steps.size());
    m_subgraphs.resize(g.steps.size());
    m_regions.resize(g.steps.size());
    m_growth.resize(g.steps.size());
    if (g.dynamic) {
        m_shape_memo.resize(g.steps.size());
        m_step_memo.resize(g.steps.size());
        m_memoisable.assign(g.steps.size(), 0);
        m_pinned.assign(g.values.size(), 0);
        std::vector<bool> assigned(g.values.size(), false);
        for (size_t s : g.assign_steps) assigned[g.steps[s].inputs[0]] = true;
        for (size_t s = 0; s < g.steps.size(); ++s) {
            const Step& step = g.steps[s];
            if (step.kind != StepKind::kReference || !step.node ||
                step.pass_through == Step::PassThrough::kAppend ||
                !step.node->get_op_def().domain.empty() || step.type.rfind("Random", 0) == 0 ||
                step.type == "Multinomial" || step.type == "Bernoulli")
                continue;
            bool to_variable = false;
            for (size_t id : step.outputs) to_variable |= assigned[id];
            m_memoisable[s] = !to_variable;
        }
    }
    for (const Step& step : g.steps) m_appends |= step.pass_through == Step::PassThrough::kAppend;
    for (size_t s = 0; s < g.steps.size(); ++s) {
        const Step& step = g.steps[s];
        m_step_inputs[s].resize(step.inputs.size());
        m_step_outputs[s].resize(step.outputs.size());
        if (!step.dnnl) continue;
        m_args[s] = bind(*step.dnnl, s, step.scratchpad_offset);
        if (step.wavefront) {
            auto& chunks = m_wavefront_args[s];
            for (size_t layer = 0; layer < 2; ++layer)
                for (const auto& op : step.wavefront->chunks[layer])
                    chunks[layer].push_back(
                        bind(*op, SIZE_MAX, step.wavefront->scratchpad_offset[layer]));
        }
    }
}

std::unordered_map<int, dnnl::memory> GraphExecutor::bind(const DnnlOp& op, size_t step,
                                                          size_t scratchpad_offset) {
    const Graph& g = *m_graph;
    std::unordered_map<int, dnnl::memory> args;
    for (const auto& a : op.args) {
        if (!a.is_value) {
            args[a.arg] = a.constant;
            continue;
        }
        const Value& v = g.values[a.value];
        if (v.kind == ValueKind::kParameter) {  // bound at each run (a wavefront's never are)
            if (step == SIZE_MAX)
                throw_error<Exception>(kDeviceName, ": a wavefront chunk reads model input '",
                                       v.name, "'");
            m_input_args.push_back({step, a.arg, a.value});
            args[a.arg] = dnnl::memory(a.desc, cpu_engine(), nullptr);
            continue;
        }
        args[a.arg] = dnnl::memory(a.desc, cpu_engine(),
                                   static_cast<char*>(m_values[a.value].data()) + a.offset);
    }
    if (op.scratchpad_bytes != 0)
        args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(
            dnnl::memory::desc(
                {static_cast<dnnl::memory::dim>(g.scratchpad_bytes - scratchpad_offset)},
                dnnl::memory::data_type::u8, dnnl::memory::format_tag::a),
            cpu_engine(), static_cast<char*>(m_scratchpad.get()) + scratchpad_offset);
    return args;
}

GraphExecutor::~GraphExecutor() = default;

void GraphExecutor::run(const std::vector<Tensor>& inputs, const std::function<bool()>& stop,
                        std::vector<StepTiming>* timings,
                        const std::vector<std::shared_ptr<sdk::HostVariableState>>& states) {
    const Graph& g = *m_graph;
    omp_set_num_threads(m_threads);
    // With OMP_DYNAMIC the runtime may give a region fewer threads than a primitive was made for,
    // which then leaves part of its work undone (Config::omp_threads_per_stream).
    omp_set_dynamic(0);
    for (size_t i = 0; i < g.parameter_values.size(); ++i) {
        const Tensor& t = inputs.at(i);
        if (t.is_remote() || !t.is_continuous()) {
            if (!m_staging[i] || m_staging[i].get_shape() != t.get_shape())
                m_staging[i] = Tensor(t.get_element_type(), t.get_shape());
            t.copy_to(m_staging[i]);
            m_values[g.parameter_values[i]] = m_staging[i];
        } else {
            m_values[g.parameter_values[i]] = t;
        }
    }
    for (const auto& a : m_input_args)
        m_args[a.step][a.arg].set_data_handle(m_values[a.value].data());
    if (timings) timings->assign(g.steps.size(), StepTiming{});
    m_stop = &stop;
    m_timings = timings;
    run_steps(stop, states);
}

void GraphExecutor::run_steps(const std::function<bool()>& stop,
                              const std::vector<std::shared_ptr<sdk::HostVariableState>>& states) {
    const Graph& g = *m_graph;
    auto* timings = m_timings;
    for (size_t s = 0; s < g.steps.size(); ++s) {
        if (stop && stop())
            throw_error<Cancelled>(kDeviceName, ": inference cancelled before step ", s + 1, " of ",
                                   g.steps.size(), " ('", g.steps[s].name, "')");
        if (!g.dynamic && g.steps[s].concurrent_with_next && m_threads > 1) {
            run_concurrent_pair(s);
            ++s;
            continue;
        }
        if (g.steps[s].deferred) continue;
        if (g.steps[s].wavefront) {
            run_wavefront(s, states);
            continue;
        }
        const auto start = timings ? Clock::now() : Clock::time_point{};
        if (g.dynamic) {
            if (!m_memoisable[s] || !reuse(s)) {
                // Forgotten first: a kernel that throws may have written part of its outputs.
                if (m_memoisable[s]) m_step_memo[s].valid = false;
                run_dynamic_step(s, states);
                if (m_memoisable[s]) remember(s);
            } else if (timings) {
                (*timings)[s].exec_type = "not run: inputs unchanged";
            }
            release_dead_inputs(s);
        } else {
            run_step(s, states);
        }
        if (timings) {
            (*timings)[s].executed = true;
            (*timings)[s].real =
                std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
        }
    }
}

void GraphExecutor::run_step(size_t s,
                             const std::vector<std::shared_ptr<sdk::HostVariableState>>& states) {
    const Step& step = m_graph->steps[s];
    if (step.kind == StepKind::kDnnl) {
        const bool fewer = step.max_threads > 0 && step.max_threads < m_threads;
        if (fewer) omp_set_num_threads(step.max_threads);
        step.dnnl->primitive.execute(m_stream, m_args[s]);
        m_stream.wait();
        if (fewer) omp_set_num_threads(m_threads);
        return;
    }
    auto& ins = m_step_inputs[s];
    auto& outs = m_step_outputs[s];
    // A dynamic graph's step has its inputs already (run_dynamic_step: contiguous copies of
    // strided ones).
    if (!m_graph->dynamic)
        for (size_t k = 0; k < ins.size(); ++k) ins[k] = m_values[step.inputs[k]];
    for (size_t k = 0; k < outs.size(); ++k) outs[k] = m_values[step.outputs[k]];
    switch (step.kind) {
        case StepKind::kReference:
            step.kernel->execute(ins, outs);
            if (m_timings)
                if (const auto* k = dynamic_cast<const FallbackKernel*>(step.kernel.get()))
                    (*m_timings)[s].exec_type = k->path(ins, outs);
            break;
        case StepKind::kReadValue: {
            const Tensor source = read_value_source(step, ins, states);
            if (source.get_shape() != outs[0].get_shape())
                throw_error<InvalidArgument>(kDeviceName, ": ", step.node->describe(),
                                             ": variable '", states.at(step.variable)->get_name(),
                                             "' holds shape ", source.get_shape(), ", expected ",
                                             outs[0].get_shape());
            source.copy_to(outs[0]);
            break;
        }
        case StepKind::kAssign:
            for (auto& out : outs) ins[0].copy_to(out);  // committed by finish()
            break;
        case StepKind::kDnnl:
        case StepKind::kSubgraph:  // run by run_dynamic_step()
        case StepKind::kRegion:
            break;
    }
}

void GraphExecutor::run_wavefront(
    size_t s, const std::vector<std::shared_ptr<sdk::HostVariableState>>& states) {
    const RnnWavefront& wave = *m_graph->steps[s].wavefront;
    auto timed = [&](size_t step, auto&& body) {
        const auto start = m_timings ? Clock::now() : Clock::time_point{};
        body();
        if (m_timings) {
            (*m_timings)[step].executed = true;
            (*m_timings)[step].real +=
                std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
        }
    };
    if (m_threads < 2) {  // each layer whole, one after the other
        for (size_t step : {wave.first_step, s}) timed(step, [&] { run_step(step, states); });
        return;
    }
    // Stage k: the first layer's chunk k on thread 0 and the second layer's chunk k - 1 (which
    // reads the first layer's chunk k - 1, written in stage k - 1) on thread 1, each with its own
    // stream and scratchpad; a barrier between stages.
    if (!m_pair_stream) m_pair_stream = dnnl::stream(cpu_engine());
    const auto& args = m_wavefront_args.at(s);
    const size_t chunks = args[0].size(), step_of[2] = {wave.first_step, s};
    std::exception_ptr failed[2];
#pragma omp parallel num_threads(2)
    {
        for (size_t stage = 0; stage <= chunks; ++stage) {
            // A team of one (the runtime's limits) runs both layers' chunks in turn.
            for (int t = omp_get_thread_num(); t < 2; t += omp_get_num_threads()) {
                const auto layer = static_cast<size_t>(t);
                if (stage < layer || stage - layer >= chunks || failed[layer]) continue;
                timed(step_of[layer], [&] {
                    try {
                        dnnl::stream& stream = layer == 0 ? m_stream : m_pair_stream;
                        wave.chunks[layer][stage - layer]->primitive.execute(
                            stream, args[layer][stage - layer]);
                        stream.wait();
                    } catch (...) {
                        failed[layer] = std::current_exception();
                    }
                });
            }
#pragma omp barrier
        }
    }
    for (const auto& e : failed)
        if (e) std::rethrow_exception(e);
}

void GraphExecutor::run_concurrent_pair(size_t s) {
    // Two threads, one primitive each; oneDNN sees it is inside a parallel region and runs each
    // primitive on its calling thread alone. Each thread has its own stream (a stream serves one
    // thread at a time) and reports its own step's time.
    if (!m_pair_stream) m_pair_stream = dnnl::stream(cpu_engine());
    std::exception_ptr failed[2];
#pragma omp parallel num_threads(2)
    {
        // A team of one (the runtime's limits) runs both, one after the other.
        for (int t = omp_get_thread_num(); t < 2; t += omp_get_num_threads()) {
            const size_t step = s + static_cast<size_t>(t);
            const auto start = m_timings ? Clock::now() : Clock::time_point{};
            try {
                dnnl::stream& stream = t == 0 ? m_stream : m_pair_stream;
                m_graph->steps[step].dnnl->primitive.execute(stream, m_args[step]);
                stream.wait();
            } catch (...) {
                failed[t] = std::current_exception();
            }
            if (m_timings) {
                (*m_timings)[step].executed = true;
                (*m_timings)[step].real =
                    std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
            }
        }
    }
    for (const auto& e : failed)
        if (e) std::rethrow_exception(e);
}

void GraphExecutor::run_dynamic_step(
    size_t s, const std::vector<std::shared_ptr<sdk::HostVariableState>>& states) {
    const Step& step = m_graph->steps[s];
    auto& ins = m_step_inputs[s];
    auto& outs = m_step_outputs[s];
    for (size_t k = 0; k < ins.size(); ++k) ins[k] = m_values[step.inputs[k]];
    // Kernels index their inputs row-major: a strided value (a view of a cache appended in place)
    // reaches a step that does not read strides as a contiguous copy.
    // Strided values exist only in graphs with an append step (m_appends).
    auto contiguous_inputs = [&] {
        if (!m_appends || step.reads_strided) return;
        for (auto& t : ins) t = contiguous(t);
    };
    if (step.kind == StepKind::kSubgraph || step.kind == StepKind::kRegion) contiguous_inputs();
    if (step.kind == StepKind::kSubgraph) {
        if (!m_subgraphs[s]) m_subgraphs[s] = std::make_unique<SubgraphRunner>(step, m_threads);
        m_subgraphs[s]->start_run();
        auto outputs = m_subgraphs[s]->run(ins, *m_stop);
        if (m_timings) (*m_timings)[s].exec_type = m_subgraphs[s]->last_run_bodies();
        for (size_t k = 0; k < outs.size(); ++k) {
            m_values[step.outputs[k]] = outputs.at(k);
            m_capacity[step.outputs[k]] = 0;
        }
        return;
    }
    if (step.kind == StepKind::kRegion) {
        // The region's results stay in its executor's arena (valid until its next run, which is
        // this request's next inference): the steps after it read them in place, and none writes
        // into a buffer it does not own (capacity 0).
        if (!m_regions[s])
            m_regions[s] = std::make_unique<GraphExecutor>(step.bodies[0], m_threads);
        m_regions[s]->run(ins, *m_stop, m_timings ? &(*m_timings)[s].inner : nullptr, {});
        for (size_t k = 0; k < outs.size(); ++k) {
            m_values[step.outputs[k]] = m_regions[s]->result(k);
            m_capacity[step.outputs[k]] = 0;
        }
        return;
    }
    // A variable's value is read where it lies, and an Assign's output is its input: no copy
    // of a whole KV cache for either (the state changes only when finish() commits).
    if (step.kind == StepKind::kReadValue || step.kind == StepKind::kAssign) {
        const Tensor value =
            step.kind == StepKind::kReadValue ? read_value_source(step, ins, states) : ins[0];
        for (size_t k = 0; k < outs.size(); ++k) {
            m_values[step.outputs[k]] = value;
            m_capacity[step.outputs[k]] = 0;  // not this executor's buffer
        }
        return;
    }
    using PassThrough = Step::PassThrough;
    if (step.pass_through == PassThrough::kAppend) {
        m_appended[step.outputs[0]] = false;
        if (append(s, states)) return;
    }
    if (step.pass_through == PassThrough::kGather && is_identity_gather(*step.node, ins)) {
        m_values[step.outputs[0]] = ins[0];  // beam_idx 0, 1, ..., B-1 keeps every cache row
        m_capacity[step.outputs[0]] = 0;
        return;
    }
    std::vector<Shape> computed;
    const std::vector<Shape>& shapes =
        step.output_shapes ? (computed = step.output_shapes(ins)) : inferred_shapes(s);
    // Ops that move no data give a view of their input's memory with the new shape, which keeps
    // that buffer alive (so it is not reused while the view is read): Reshape, Squeeze, Unsqueeze,
    // and a Broadcast that widens nothing (the grouped-query attention's K and V, whose repeat the
    // attention now broadcasts itself: fuse_scaled_dot_product_attention).
    const bool viewable =
        (step.pass_through == PassThrough::kView || step.pass_through == PassThrough::kBroadcast) &&
        shapes.size() == 1 && ins[0] && !ins[0].is_remote() &&
        ins[0].get_element_type() == m_graph->values[step.outputs[0]].type;
    if (viewable && shapes[0] == ins[0].get_shape()) {  // strided or not, the input as it is
        m_values[step.outputs[0]] = ins[0];
        m_capacity[step.outputs[0]] = 0;  // not this executor's buffer
        return;
    }
    if (viewable && step.pass_through == PassThrough::kView &&
        shape_size(shapes[0]) == ins[0].get_size()) {
        const Tensor& source = ins[0];
        if (source.is_continuous()) {
            m_values[step.outputs[0]] =
                Tensor::wrap_shared(source.get_element_type(), shapes[0], source.data(),
                                    std::shared_ptr<void>(source.impl()));
            m_capacity[step.outputs[0]] = 0;
            return;
        }
        // A strided source (a cache appended in place) stays a view when the new shape can
        // index it.
        if (auto strides = reshaped_strides(source.get_shape(), source.get_strides(), shapes[0],
                                            source.get_element_type().size())) {
            m_values[step.outputs[0]] = strided_view(source, shapes[0], *strides);
            m_capacity[step.outputs[0]] = 0;
            return;
        }
    }
    for (size_t k = 0; k < outs.size(); ++k) {
        const size_t id = step.outputs[k];
        Tensor& t = m_values[id];
        // Only a buffer of this executor's is written into: a value that last held a variable's
        // buffer or a step's input (a Gather by 0..B-1 passing through) gets its own.
        if (t && m_capacity[id] != 0 && t.get_shape() == shapes[k]) continue;
        const size_t need = shape_size(shapes[k]);
        if (t && m_capacity[id] != 0 && need <= m_capacity[id]) {
            t.set_shape(shapes[k]);  // within the buffer: no allocation
            continue;
        }
        // Growing: half as much again (a first allocation is exact), from a free buffer when
        // one fits.
        size_t capacity = m_capacity[id] == 0 ? need : std::max(need, need + need / 2);
        Tensor reused = take_free(m_graph->values[id].type, capacity, capacity);
        t = reused ? reused : Tensor(m_graph->values[id].type, Shape{capacity});
        t.set_shape(shapes[k]);
        m_capacity[id] = capacity;
    }
    if (m_appends && step.pass_through == PassThrough::kGather &&
        gather_strided_rows(*step.node, ins, m_values[step.outputs[0]]))
        return;
    contiguous_inputs();
    run_step(s, states);
}

namespace {

// A tensor whose bytes the memos compare (kSmallInput elements at most, in host memory, read in
// place).
bool small_host_value(const Tensor& t) {
    return t && !t.is_remote() && t.is_continuous() && t.get_size() <= GraphExecutor::kSmallInput;
}

}  // namespace

const std::vector<Shape>& GraphExecutor::inferred_shapes(size_t s) {
    const Step& step = m_graph->steps[s];
    const auto& ins = m_step_inputs[s];
    const size_t n = ins.size(), outputs = step.outputs.size();
    ShapeMemo& memo = m_shape_memo[s];
    const auto small = [](const Tensor& t) { return small_host_value(t); };
    if (memo.valid) {
        bool same = true;
        for (size_t k = 0; k < n && same; ++k) {
            const Tensor& t = ins[k];
            same = t.get_element_type() == memo.types[k] && t.get_shape() == memo.shapes[k] &&
                   small(t) == memo.is_small[k] &&
                   (memo.small[k].empty() ||
                    std::memcmp(t.data(), memo.small[k].data(), memo.small[k].size()) == 0);
        }
        if (same) return memo.outputs;
    }
    memo.valid = false;
    // First without the larger inputs' values: static shapes then depend only on what the memo
    // compares. Otherwise (NonZero, a shape read from a large tensor) with every value, unmemoised.
    auto infer = [&](bool every_value) {
        std::vector<InferInput> infer_inputs;
        infer_inputs.reserve(n);
        for (const auto& t : ins)
            infer_inputs.push_back({t.get_element_type(), PartialShape(t.get_shape()),
                                    every_value || small(t) ? t : Tensor()});
        return step.node->get_op_def().infer(*step.node, infer_inputs);
    };
    auto all_static = [&](const std::vector<InferOutput>& inferred) {
        if (inferred.size() < outputs) return false;
        for (size_t k = 0; k < outputs; ++k)
            if (!inferred[k].shape.is_static()) return false;
        return true;
    };
    auto inferred = infer(false);
    const bool memoised = all_static(inferred);
    if (!memoised) inferred = infer(true);
    std::vector<Shape>& shapes = memo.outputs;  // valid or not, the caller reads them here
    shapes.clear();
    for (size_t k = 0; k < outputs; ++k) {
        if (k >= inferred.size() || !inferred[k].shape.is_static())
            throw_error<InvalidArgument>(kDeviceName, ": ", step.node->describe(),
                                         ": shape inference on the actual inputs gave no static "
                                         "shape for output ",
                                         k);
        shapes.push_back(inferred[k].shape.to_shape());
    }
    if (memoised) {
        memo.types.resize(n);
        memo.shapes.resize(n);
        memo.is_small.resize(n);
        memo.small.resize(n);
        for (size_t k = 0; k < n; ++k) {
            const Tensor& t = ins[k];
            memo.types[k] = t.get_element_type();
            memo.shapes[k] = t.get_shape();
            memo.is_small[k] = small(t);
            if (memo.is_small[k] && t.get_byte_size() > 0) {
                const auto* bytes = static_cast<const char*>(t.data());
                memo.small[k].assign(bytes, bytes + t.get_byte_size());
            } else {
                memo.small[k].clear();
            }
        }
        memo.valid = true;
    }
    return shapes;
}

bool GraphExecutor::reuse(size_t s) const {
    const StepMemo& memo = m_step_memo[s];
    if (!memo.valid) return false;
    const Step& step = m_graph->steps[s];
    for (size_t k = 0; k < step.inputs.size(); ++k) {
        const Tensor& t = m_values[step.inputs[k]];
        if (!t || t.get_element_type() != memo.types[k] || t.get_shape() != memo.shapes[k])
            return false;
        const auto& bytes = memo.bytes[k];
        if (!bytes.empty() && std::memcmp(t.data(), bytes.data(), bytes.size()) != 0) return false;
    }
    for (size_t k = 0; k < step.outputs.size(); ++k) {
        const Tensor& t = m_values[step.outputs[k]];
        if (!t || t.data() != memo.outputs[k]) return false;
    }
    return true;
}

void GraphExecutor::remember(size_t s) {
    const Step& step = m_graph->steps[s];
    StepMemo& memo = m_step_memo[s];
    const bool shape_only = step.type == "ShapeOf";
    auto forget = [&] {
        memo.valid = false;
        for (size_t id : step.outputs) m_pinned[id] = 0;
    };
    const auto small = [](const Tensor& t) { return small_host_value(t); };
    // Whether it qualifies, before anything is copied (most runs of a step that does not qualify
    // stop here).
    for (size_t id : step.inputs) {
        const Tensor& t = m_values[id];
        if (!t || !(m_graph->values[id].kind == ValueKind::kConstant || shape_only || small(t)))
            return forget();
    }
    for (size_t id : step.outputs)
        if (!small(m_values[id])) return forget();
    const size_t n = step.inputs.size();
    memo.types.resize(n);
    memo.shapes.resize(n);
    memo.bytes.resize(n);
    for (size_t k = 0; k < n; ++k) {
        const size_t id = step.inputs[k];
        const Tensor& t = m_values[id];
        memo.types[k] = t.get_element_type();
        memo.shapes[k] = t.get_shape();
        memo.bytes[k].clear();
        if (m_graph->values[id].kind == ValueKind::kConstant || shape_only) continue;
        const auto* data = static_cast<const char*>(t.data());
        if (t.get_byte_size() > 0) memo.bytes[k].assign(data, data + t.get_byte_size());
    }
    memo.outputs.resize(step.outputs.size());
    for (size_t k = 0; k < step.outputs.size(); ++k)
        memo.outputs[k] = m_values[step.outputs[k]].data();
    memo.valid = true;
    for (size_t id : step.outputs) m_pinned[id] = 1;
}

Tensor GraphExecutor::cache_buffer(element::Type type, const Shape& shape) {
    // Not zero-filled: only rows an append wrote are ever inside a view of it.
    const size_t bytes = type.bytes_for(shape_size(shape));
    std::shared_ptr<void> memory = allocate(bytes);
    if (m_cache_bytes && memory) {
        m_cache_bytes->fetch_add(bytes, std::memory_order_relaxed);
        memory = std::shared_ptr<void>(memory.get(),
                                       [memory, counter = m_cache_bytes, bytes](void*) mutable {
                                           memory.reset();
                                           counter->fetch_sub(bytes, std::memory_order_relaxed);
                                       });
    }
    return Tensor::wrap_shared(type, shape, memory.get(), memory);
}

bool GraphExecutor::append(size_t s,
                           const std::vector<std::shared_ptr<sdk::HostVariableState>>& states) {
    const Step& step = m_graph->steps[s];
    const auto& ins = m_step_inputs[s];
    const size_t out = step.outputs[0];
    const element::Type type = m_graph->values[out].type;
    const Tensor& past = ins[0];
    if (!past || past.is_remote() || past.get_element_type() != type || type.is_sub_byte())
        return false;
    const size_t rank = past.get_shape().size();
    int64_t axis = step.node->get_attribute<int64_t>("axis");
    if (axis < 0) axis += static_cast<int64_t>(rank);
    if (rank == 0 || axis < 0 || axis >= static_cast<int64_t>(rank)) return false;
    const auto a = static_cast<size_t>(axis);
    // Anything Concat would refuse goes to its kernel, whose shape inference names the fault.
    Shape shape = past.get_shape();
    for (size_t k = 1; k < ins.size(); ++k) {
        const Tensor& part = ins[k];
        if (!part || part.get_element_type() != type || part.get_shape().size() != rank)
            return false;
        for (size_t d = 0; d < rank; ++d)
            if (d != a && part.get_shape()[d] != shape[d]) return false;
        shape[a] += part.get_shape()[a];
    }
    Growth& g = m_growth[s];
    const size_t had = past.get_shape()[a];
    // Whether `buffer` can hold the output (same type, the other dimensions equal, enough rows).
    auto fits = [&](const Tensor& buffer) {
        if (!buffer || buffer.get_element_type() != type || shape[a] > buffer.get_shape()[a])
            return false;
        for (size_t d = 0; d < rank; ++d)
            if (d != a && shape[d] != buffer.get_shape()[d]) return false;
        return true;
    };
    // Whether a variable holds a view of `buffer` (the executor's own views from the last run are
    // recomputed before they are read, and users only ever get copies).
    auto viewed = [&](const Tensor& buffer) {
        const char* first = static_cast<const char*>(buffer.data());
        const char* last = first + buffer.get_byte_size();
        for (const auto& state : states) {
            const auto* at = static_cast<const char*>(state->stored().data());
            if (at && at >= first && at < last) return true;
        }
        return false;
    };
    // In place when the past is this step's last output, i.e. the first `had` rows of the buffer
    // with nothing appended after them since (the buffer's readers so far see only rows they
    // had: appending never changes them), and the new rows fit.
    const bool in_place = fits(g.storage) && past.data() == g.storage.data() && had == g.filled &&
                          past.get_strides() == g.storage.get_strides();
    Coordinate begin(rank, 0), end(shape.begin(), shape.end());
    bool reused = false;
    if (!in_place) {
        // Else the whole output is written from the first row of a buffer no variable views:
        // the step's buffer after a reset or set_state (a new sequence: no fresh pages for each
        // prompt), or its spare, the buffer it used before, while a reordered past (beam search)
        // is written while the variable still views the current one: two buffers in turn.
        if (fits(g.storage) && !viewed(g.storage)) {
            reused = true;
        } else if (fits(g.spare) && !viewed(g.spare)) {
            std::swap(g.storage, g.spare);
            if (!fits(g.spare)) g.spare = Tensor();
            reused = true;
        } else {
            // A buffer with room for half as many rows again (at least 16): a cache gaining a
            // token per inference is copied a logarithmic number of times, not at every token.
            // The one it replaces stays as the spare while a variable views it and it fits.
            Shape room = shape;
            room[a] = shape[a] + std::max<size_t>(shape[a] / 2, 16);
            g.spare = fits(g.storage) ? std::move(g.storage) : Tensor();
            g.storage = cache_buffer(type, room);
        }
        end[a] = had;
        Tensor head(g.storage, begin, end);
        past.copy_to(head);
    }
    g.filled = had;
    for (size_t k = 1; k < ins.size(); ++k) {
        const size_t rows = ins[k].get_shape()[a];
        begin[a] = g.filled;
        end[a] = g.filled + rows;
        Tensor slot(g.storage, begin, end);
        ins[k].copy_to(slot);
        g.filled += rows;
    }
    begin[a] = 0;
    end[a] = g.filled;
    if (m_timings)
        (*m_timings)[s].exec_type = in_place ? "append in-place"
                                    : reused ? "append copy"
                                             : "append new buffer";
    m_values[out] = Tensor(g.storage, begin, end);
    m_capacity[out] = 0;  // a view: never lent, never exchanged
    m_appended[out] = true;
    return true;
}

void GraphExecutor::release_dead_inputs(size_t s) {
    // The step's own copies of its tensors would count as sharers.
    for (auto& t : m_step_inputs[s]) t = Tensor();
    for (auto& t : m_step_outputs[s]) t = Tensor();
    for (size_t id : m_graph->steps[s].inputs) {
        if (m_last_use[id] != s || m_pinned[id]) continue;
        if (m_capacity[id] == 0) {
            // Not this executor's buffer (a view, a variable's value): dropped, so that what it
            // shares (a cache buffer a reorder replaced) is freed now, not at the next run.
            if (m_graph->values[id].kind == ValueKind::kComputed) m_values[id] = Tensor();
            continue;
        }
        Tensor& t = m_values[id];
        // A view of it (a Reshape, a passed-through Gather, a region's or a runner's copy of its
        // inputs) still needs the memory: leave it with its value.
        if (!t || t.impl().use_count() != 1) continue;
        const element::Type type = t.get_element_type();
        m_free.push_back({std::move(t), m_capacity[id], type});
        t = Tensor();
        m_capacity[id] = 0;
    }
}

Tensor GraphExecutor::take_free(element::Type type, size_t need, size_t& capacity) {
    // Best fit, and never more than twice what is needed (plus a small slack): a large buffer
    // stays for a large value.
    const size_t limit = std::max(2 * need, need + 16384);
    size_t best = m_free.size();
    for (size_t i = 0; i < m_free.size(); ++i) {
        const FreeBuffer& f = m_free[i];
        if (f.type != type || f.capacity < need || f.capacity > limit) continue;
        if (best == m_free.size() || f.capacity < m_free[best].capacity) best = i;
    }
    if (best == m_free.size()) return Tensor();
    Tensor t = std::move(m_free[best].tensor);
    capacity = m_free[best].capacity;
    m_free[best] = std::move(m_free.back());
    m_free.pop_back();
    return t;
}

void GraphExecutor::finish(std::vector<Tensor>& outputs,
                           const std::vector<std::shared_ptr<sdk::HostVariableState>>& states) {
    const Graph& g = *m_graph;
    for (size_t j = 0; j < g.result_values.size(); ++j) {
        const Tensor& src = m_values[g.result_values[j]];
        Tensor& dst = outputs.at(j);
        if (dst.get_shape() != src.get_shape()) {
            try {
                dst.set_shape(src.get_shape());
            } catch (const Exception& e) {
                throw_error<InvalidArgument>(kDeviceName, ": output ", j, " of shape ",
                                             src.get_shape(), " does not fit its tensor of shape ",
                                             dst.get_shape(), ": ", e.what());
            }
        }
        src.copy_to(dst);
    }
    // ReadValue hands out the state's own buffer: a value to commit that is another variable's
    // state (B = old A) is copied first, so committing A cannot change what B receives.
    std::vector<Tensor> values;
    for (size_t s : g.assign_steps) {
        Tensor value = m_values[g.steps[s].inputs[0]];
        for (size_t v = 0; v < states.size(); ++v)
            if (v != g.steps[s].variable && value && value.data() != nullptr &&
                value.data() == states[v]->stored().data()) {
                Tensor copy(value.get_element_type(), value.get_shape());
                value.copy_to(copy);
                value = copy;
                break;
            }
        values.push_back(value);
    }
    // A value this executor allocated (a dynamic graph's Concat of past and new keys) becomes the
    // state as it is, and the state's previous buffer becomes that value's for the next
    // inference: no copy of the cache. Anything else (a static graph's arena, a value two
    // variables take) is copied.
    std::set<size_t> given;
    for (size_t i = 0; i < g.assign_steps.size(); ++i) {
        const Step& step = g.steps[g.assign_steps[i]];
        const size_t id = step.inputs[0];
        sdk::HostVariableState& state = *states.at(step.variable);
        if (m_appended[id] && values[i].data() == m_values[id].data()) {
            // A cache appended in place: the state views it, and this executor appends the
            // next token's rows after that view's end.
            state.share(m_values[id]);
            continue;
        }
        if (m_capacity[id] != 0 && values[i].data() == m_values[id].data() &&
            given.insert(id).second) {
            auto [buffer, capacity] = state.exchange(m_values[id], m_capacity[id]);
            m_values[id] = buffer;
            m_capacity[id] = buffer && buffer.get_element_type() == m_graph->values[id].type &&
                                     buffer.is_continuous() && !buffer.is_remote()
                                 ? capacity
                                 : 0;
        } else {
            state.commit(values[i]);
        }
    }
}

}  // namespace vireo::cpu_plugin
