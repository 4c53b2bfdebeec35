// Implements run_steps() and PlanRunner: binding tensors, running steps (static and dynamic
// shapes) and copying outputs.
#include "vireo/reference/plan_runner.hpp"

#include <time.h>

#include <algorithm>
#include <cstring>
#include <new>

#include "vireo/op_registry.hpp"
#include "vireo/reference/memory_planner.hpp"

namespace vireo::reference {
namespace {

// Inputs this small are remembered by value in dynamic plans: they may drive output shapes
// (Reshape targets, Range bounds, StridedSlice begins, Interpolate scales, ...).
constexpr size_t kShapeDrivingElements = 64;
constexpr size_t kAlignment = 64;

std::shared_ptr<void> allocate_aligned(size_t bytes) {
    const size_t size = std::max(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
    void* p = ::operator new(size, std::align_val_t(kAlignment));
    std::memset(p, 0, size);
    return std::shared_ptr<void>(
        p, [](void* q) { ::operator delete(q, std::align_val_t(kAlignment)); });
}

std::chrono::microseconds thread_cpu_now() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return std::chrono::microseconds(static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000);
}

bool usable_in_place(const Tensor& t) {
    return t && !t.is_remote() && t.is_continuous() && t.data() != nullptr;
}

std::string output_label(const Output& port, size_t index) {
    std::string names;
    for (const auto& n : port.get_names()) names += (names.empty() ? "" : ", ") + n;
    return "output " + std::to_string(index) + (names.empty() ? "" : " ('" + names + "')");
}

// The default of the hooks, and run_steps() without a `special` callback.
[[noreturn]] void unsupported_step(const GraphPlan& plan, size_t step) {
    const Node& node = *plan.steps().at(step).node;
    throw_error<NotImplemented>(plan.options().device_name, ": ", node.describe(),
                                " is not supported by this device (", node.get_type_name(),
                                " needs the plugin to run it)");
}

void gather(const std::vector<size_t>& ids, const std::vector<Tensor>& values,
            std::vector<Tensor>& out) {
    out.resize(ids.size());
    for (size_t k = 0; k < ids.size(); ++k) out[k] = values[ids[k]];
}

}  // namespace

void run_steps(const GraphPlan& plan, std::vector<Tensor>& values, const StepCallbacks& callbacks,
               const std::function<bool()>& stop, std::vector<StepTiming>* timings,
               size_t* executed, StepScratch* scratch) {
    const auto& steps = plan.steps();
    if (executed) *executed = 0;
    if (timings) timings->assign(steps.size(), StepTiming{});
    StepScratch local;
    std::vector<Tensor>& ins = scratch ? scratch->inputs : local.inputs;
    std::vector<Tensor>& outs = scratch ? scratch->outputs : local.outputs;
    for (size_t s = 0; s < steps.size(); ++s) {
        const PlanStep& step = steps[s];
        if (stop && stop())
            throw_error<Cancelled>(plan.options().device_name, ": inference cancelled before op ",
                                   s + 1, " of ", steps.size(), " (", step.node->describe(), ")");
        std::chrono::steady_clock::time_point real0;
        std::chrono::microseconds cpu0{0};
        if (timings) {
            real0 = std::chrono::steady_clock::now();
            cpu0 = thread_cpu_now();
        }
        gather(step.inputs, values, ins);
        if (callbacks.prepare) callbacks.prepare(s, ins);
        gather(step.outputs, values, outs);
        if (step.kind == StepKind::kKernel) {
            step.kernel->execute(ins, outs);
        } else if (callbacks.special) {
            callbacks.special(s, ins, outs);
        } else {
            unsupported_step(plan, s);
        }
        if (timings) {
            auto& t = (*timings)[s];
            t.executed = true;
            t.real = std::chrono::duration_cast<std::chrono::microseconds>(
                std::chrono::steady_clock::now() - real0);
            t.cpu = thread_cpu_now() - cpu0;
        }
        if (executed) ++*executed;
    }
}

PlanRunner::PlanRunner(std::shared_ptr<const GraphPlan> plan, std::function<void()> on_allocation)
    : m_plan(std::move(plan)), m_on_allocation(std::move(on_allocation)) {
    const auto& values = m_plan->values();
    const auto& steps = m_plan->steps();
    m_values.resize(values.size());
    m_inputs.resize(m_plan->parameter_values().size());
    m_outputs.resize(m_plan->result_values().size());
    m_out_in_place.assign(m_outputs.size(), false);
    for (size_t id = 0; id < values.size(); ++id)
        if (values[id].kind == ValueKind::kConstant) m_values[id] = values[id].constant;
    if (m_plan->is_dynamic()) {
        m_slots.resize(m_plan->slot_count());
        m_slot_bytes.assign(m_plan->slot_count(), 0);
        m_staging.resize(m_inputs.size());
        m_seen_shapes.resize(steps.size());
        m_seen_values.resize(steps.size());
        m_out_shapes.resize(steps.size());
        m_shapes_known.assign(steps.size(), false);
        m_large_value_driven.assign(steps.size(), false);
        m_callbacks.prepare = [this](size_t s, const std::vector<Tensor>& ins) {
            prepare_step(s, ins);
        };
    } else {
        // The only allocation a static plan makes: every computed value is a view into it.
        m_arena = allocate_aligned(m_plan->arena_bytes());
        if (m_on_allocation) m_on_allocation();
        m_views.resize(values.size());
        char* base = static_cast<char*>(m_arena.get());
        for (size_t id = 0; id < values.size(); ++id) {
            const PlanValue& v = values[id];
            if (v.kind == ValueKind::kConstant) continue;
            m_views[id] = Tensor::wrap_shared(v.type, v.shape.to_shape(), base + v.offset, m_arena);
            m_values[id] = m_views[id];
        }
    }
    m_callbacks.special = [this](size_t s, const std::vector<Tensor>& ins,
                                 std::vector<Tensor>& outs) { special_step(s, ins, outs); };
}

PlanRunner::~PlanRunner() = default;

std::vector<Shape> PlanRunner::special_output_shapes(size_t step, const std::vector<Tensor>&) {
    unsupported_step(*m_plan, step);
}

void PlanRunner::run_special_step(size_t step, const std::vector<Tensor>&, std::vector<Tensor>&) {
    unsupported_step(*m_plan, step);
}

std::vector<Tensor> PlanRunner::run_subgraph(size_t step, const std::vector<Tensor>&,
                                             const std::function<bool()>&) {
    unsupported_step(*m_plan, step);
}

void PlanRunner::bind_input(size_t index, const Tensor& tensor, InputBinding binding) {
    m_inputs.at(index) = tensor;
    const size_t id = m_plan->parameter_values()[index];
    const PlanValue& value = m_plan->values()[id];
    if (!tensor || tensor.get_element_type() != value.type ||
        (!m_plan->is_dynamic() && tensor.get_shape() != m_views[id].get_shape()))
        throw_error<InvalidArgument>(
            m_plan->options().device_name, ": input ", index, " needs a tensor of ", value.type,
            " ", value.shape, ", got ",
            tensor ? detail::concat(tensor.get_element_type(), " ", tensor.get_shape())
                   : std::string("an empty tensor"));
    const bool empty_host = tensor && !tensor.is_remote() && tensor.get_byte_size() == 0;
    if (empty_host || (binding == InputBinding::kInPlace && usable_in_place(tensor))) {
        m_values[id] = tensor;
        return;
    }
    if (!m_plan->is_dynamic()) {
        tensor.copy_to(m_views[id]);
        m_values[id] = m_views[id];
        return;
    }
    Tensor& staging = m_staging[index];
    if (!staging || staging.get_byte_size() < tensor.get_byte_size()) {
        staging = Tensor(tensor.get_element_type(), tensor.get_shape());
        if (m_on_allocation) m_on_allocation();
    } else if (staging.get_shape() != tensor.get_shape()) {
        staging.set_shape(tensor.get_shape());  // shrinks in place
    }
    tensor.copy_to(staging);
    m_values[id] = staging;
}

void PlanRunner::bind_output(size_t index, const Tensor& tensor) {
    m_outputs.at(index) = tensor;
}

void record_step_rows(sdk::RunContext& run, std::shared_ptr<const GraphPlan> plan,
                      const std::vector<StepTiming>* timings, const char* exec_type) {
    run.op_rows([plan = std::move(plan), timings, exec_type](std::vector<ProfilingInfo>& rows) {
        const auto& steps = plan->steps();
        for (size_t s = 0; s < steps.size(); ++s) {
            ProfilingInfo row;
            row.node_name = steps[s].node->get_friendly_name();
            row.node_type = steps[s].node->get_type_name();
            row.exec_type = exec_type;
            if (s < timings->size() && (*timings)[s].executed) {
                row.status = ProfilingInfo::Status::EXECUTED;
                row.real_time = (*timings)[s].real;
                row.cpu_time = (*timings)[s].cpu;
            }
            rows.push_back(std::move(row));
        }
    });
}

void PlanRunner::run(const std::function<bool()>& stop, std::vector<StepTiming>* timings) {
    m_executed = 0;
    m_stop = &stop;
    const auto& values = m_plan->values();
    if (!m_plan->is_dynamic()) {
        // Outputs go straight into their tensors when those can take them.
        for (size_t j = 0; j < m_outputs.size(); ++j) {
            const size_t id = m_plan->result_values()[j];
            m_out_in_place[j] = false;
            if (!m_plan->result_in_place(j)) continue;
            const Tensor& t = m_outputs[j];
            if (usable_in_place(t) && t.get_element_type() == values[id].type &&
                t.get_shape() == m_views[id].get_shape()) {
                m_values[id] = t;
                m_out_in_place[j] = true;
            } else {
                m_values[id] = m_views[id];
            }
        }
    } else {
        std::fill(m_out_in_place.begin(), m_out_in_place.end(), false);
    }
    run_steps(*m_plan, m_values, m_callbacks, stop, timings, &m_executed, &m_scratch);
}

// Non-kernel steps. A sub-graph computes its outputs (their shapes known only now) into its
// bodies' memory; they are copied into this plan's storage, which may be the user's output.
void PlanRunner::special_step(size_t s, const std::vector<Tensor>& ins, std::vector<Tensor>& outs) {
    const PlanStep& step = m_plan->steps()[s];
    if (step.kind != StepKind::kSubgraph) {
        run_special_step(s, ins, outs);
        return;
    }
    static const std::function<bool()> kNever;
    const auto outputs = run_subgraph(s, ins, m_stop ? *m_stop : kNever);
    for (size_t k = 0; k < step.outputs.size(); ++k) {
        Tensor& dst = storage_for(step.outputs[k], outputs.at(k).get_shape());
        outputs[k].copy_to(dst);
    }
}

// Dynamic plans: gives the step's outputs storage of the shapes the actual inputs give.
void PlanRunner::prepare_step(size_t s, const std::vector<Tensor>& ins) {
    const PlanStep& step = m_plan->steps()[s];
    if (step.kind == StepKind::kSubgraph) return;  // storage made once the bodies ran
    const auto& values = m_plan->values();
    std::vector<Shape>& shapes = m_out_shapes[s];
    if (step.kind == StepKind::kReadValue || step.kind == StepKind::kAssign) {
        shapes = special_output_shapes(s, ins);
    } else if (step.static_outputs) {
        if (!m_shapes_known[s]) {
            shapes.clear();
            for (const size_t id : step.outputs) shapes.push_back(values[id].shape.to_shape());
            m_shapes_known[s] = true;
        }
    } else if (needs_shape_inference(s, ins)) {
        std::vector<InferInput> infer_inputs;
        infer_inputs.reserve(ins.size());
        for (const auto& t : ins)
            infer_inputs.push_back({t.get_element_type(), PartialShape(t.get_shape()), t});
        const auto inferred = step.node->get_op_def().infer(*step.node, infer_inputs);
        shapes.clear();
        for (size_t k = 0; k < step.outputs.size(); ++k) {
            if (k >= inferred.size() || !inferred[k].shape.is_static())
                throw_error<InvalidArgument>(
                    m_plan->options().device_name, ": ", step.node->describe(),
                    ": shape inference on the actual inputs did not give a static shape for"
                    " output ",
                    k);
            shapes.push_back(inferred[k].shape.to_shape());
        }
    }
    for (size_t k = 0; k < step.outputs.size(); ++k) storage_for(step.outputs[k], shapes.at(k));
}

bool PlanRunner::needs_shape_inference(size_t s, const std::vector<Tensor>& ins) {
    auto& seen_shapes = m_seen_shapes[s];
    auto& seen_values = m_seen_values[s];
    bool changed = !m_shapes_known[s];
    if (changed) {
        seen_shapes.assign(ins.size(), Shape{});
        seen_values.assign(ins.size(), {});
    }
    for (size_t k = 0; k < ins.size(); ++k) {
        const Tensor& t = ins[k];
        if (seen_shapes[k] != t.get_shape()) {
            seen_shapes[k] = t.get_shape();
            changed = true;
        }
        if (t.get_size() <= kShapeDrivingElements && !t.is_remote() && t.data()) {
            const auto* bytes = static_cast<const uint8_t*>(t.data());
            const size_t n = t.get_byte_size();
            // n == 0: no memcmp (an empty vector's data() may be null, which memcmp may not get).
            if (seen_values[k].size() != n ||
                (n != 0 && std::memcmp(seen_values[k].data(), bytes, n) != 0)) {
                seen_values[k].assign(bytes, bytes + n);
                changed = true;
            }
        }
    }
    m_shapes_known[s] = true;
    if (changed) {
        // New input shapes: find out once whether the outputs also depend on the values of a
        // large input, by inferring without those values.
        bool has_large = false;
        std::vector<InferInput> without_large;
        for (const Tensor& t : ins) {
            const bool large = t.get_size() > kShapeDrivingElements;
            has_large = has_large || large;
            without_large.push_back(
                {t.get_element_type(), PartialShape(t.get_shape()), large ? Tensor() : t});
        }
        bool driven = false;
        if (has_large) {
            const PlanStep& step = m_plan->steps()[s];
            try {
                for (const auto& out : step.node->get_op_def().infer(*step.node, without_large))
                    driven = driven || !out.shape.is_static();
            } catch (const Exception&) {
                driven = true;  // the full inference (with every value) reports any real error
            }
        }
        m_large_value_driven[s] = driven;
    }
    return changed || m_large_value_driven[s];
}

Tensor& PlanRunner::storage_for(size_t id, const Shape& shape) {
    const PlanValue& v = m_plan->values()[id];
    const auto& results = m_plan->result_values();
    for (size_t j = 0; j < results.size(); ++j) {
        if (results[j] != id || !m_plan->result_in_place(j)) continue;
        Tensor& t = m_outputs[j];
        if (t && !t.is_remote() && t.get_element_type() == v.type) {
            if (t.get_shape() != shape) {
                try {
                    t.set_shape(shape);
                } catch (const Exception&) {
                    // A wrapped user buffer too small: compute into a slot; finish() reports it.
                }
            }
            if (t.get_shape() == shape && t.is_continuous() &&
                (t.data() || t.get_byte_size() == 0)) {
                m_out_in_place[j] = true;
                m_values[id] = t;
                return m_values[id];
            }
        }
        m_out_in_place[j] = false;
    }
    const size_t bytes = v.type.bytes_for(shape_size(shape));
    if (bytes > physical_memory_bytes())
        throw_error<InvalidArgument>(m_plan->options().device_name, ": ", v.name, " of shape ",
                                     shape, " needs ", bytes, " bytes, more than the ",
                                     physical_memory_bytes(), " bytes of memory this machine has");
    void* ptr = grow_slot(v.slot, bytes);
    Tensor& current = m_values[id];
    if (!current || current.data() != ptr || current.get_shape() != shape)
        current = Tensor::wrap_shared(v.type, shape, ptr, m_slots[v.slot]);
    return current;
}

void* PlanRunner::grow_slot(size_t slot, size_t bytes) {
    if (!m_slots[slot] || bytes > m_slot_bytes[slot]) {
        m_slots[slot] = allocate_aligned(bytes);
        m_slot_bytes[slot] =
            std::max(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
        if (m_on_allocation) m_on_allocation();
    }
    return m_slots[slot].get();
}

void PlanRunner::finish() {
    const auto& results = m_plan->result_values();
    for (size_t j = 0; j < results.size(); ++j) {
        Tensor& dst = m_outputs[j];
        if (m_out_in_place[j] || !dst) continue;
        const Tensor& src = m_values[results[j]];
        if (dst.get_shape() != src.get_shape()) {
            try {
                dst.set_shape(src.get_shape());
            } catch (const Exception&) {
                throw_error<InvalidArgument>(m_plan->options().device_name, ": ",
                                             output_label(m_plan->model()->output(j), j),
                                             ": the tensor set for it has shape ", dst.get_shape(),
                                             " and cannot take the result's shape ",
                                             src.get_shape());
            }
        }
        src.copy_to(dst);
    }
}

}  // namespace vireo::reference
