// A cache that grows every inference (a decoder's KV cache: ReadValue -> Concat with the new rows
// -> Assign) on the dynamic graph, where the state's buffer and the Concat's are swapped instead
// of copied and a Gather by 0..B-1 passes its input through: the values across many inferences,
// a reorder that is not the identity, reset, set_state between inferences, and a variable that
// takes another's previous value; buffers of dead values reused by later steps. Each against the
// same model on TEMPLATE.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::cpu_test {
namespace {

using ModelPtr = std::shared_ptr<Model>;

// x [B, 2, T, 4] new rows; order [B] i32. cache_k = concat(gather(read(k), order), x) along 2;
// cache_v = concat(gather(read(v), order), 2x); output: cache_k + cache_v and the old v.
// Variable "lag" takes the old value of "k" (B = old A).
ModelPtr growing_cache_model() {
    const PartialShape cache{Dimension::dynamic(), 2, Dimension::dynamic(), 4};
    auto x = op::parameter(element::f32, cache, "x");
    auto order = op::parameter(element::i32, PartialShape{Dimension::dynamic()}, "order");
    auto axis0 = op::int64_scalar(0);
    auto read_k = op::read_value("k", element::f32, cache);
    auto read_v = op::read_value("v", element::f32, cache);
    auto read_lag = op::read_value("lag", element::f32, cache);
    auto k = op::concat({op::gather(read_k, order, axis0), x}, 2);
    auto two = op::constant(element::f32, Shape{}, std::vector<float>{2.f});
    auto v = op::concat({op::gather(read_v, order, axis0), op::multiply(x, two)}, 2);
    auto sum = op::add(k, v);
    auto lag_out = op::add(read_lag, op::constant(element::f32, Shape{}, std::vector<float>{0.f}));
    auto model = std::make_shared<Model>(
        ResultVector{op::result(sum), op::result(lag_out)},
        SinkVector{op::assign(k, "k"), op::assign(v, "v"), op::assign(read_k, "lag")},
        ParameterVector{x, order}, "growing_cache");
    return model;
}

Tensor order_tensor(const std::vector<int32_t>& values) {
    Tensor t(element::i32, Shape{values.size()});
    std::copy(values.begin(), values.end(), t.data<int32_t>());
    return t;
}

Tensor state_of(InferRequest& request, const std::string& name) {
    for (auto& state : request.query_state())
        if (state.get_name() == name) {
            const Tensor s = state.get_state();
            Tensor copy(s.get_element_type(), s.get_shape());
            s.copy_to(copy);
            return copy;
        }
    ADD_FAILURE() << "no state " << name;
    return {};
}

// Runs `x` (the only input) on both requests, then checks each of CPU's outputs against
// TEMPLATE's: the same shape, values within `tolerance`.
::testing::AssertionResult infer_matches_template(InferRequest& cpu, InferRequest& ref,
                                                  const Tensor& x, double tolerance) {
    for (auto* request : {&cpu, &ref}) {
        request->set_input_tensor(x);
        request->infer();
    }
    for (size_t o = 0; o < cpu.get_compiled_model().outputs().size(); ++o) {
        const Tensor a = cpu.get_output_tensor(o), b = ref.get_output_tensor(o);
        if (a.get_shape() != b.get_shape())
            return ::testing::AssertionFailure() << "output " << o << ": shape " << a.get_shape()
                                                 << ", TEMPLATE " << b.get_shape();
        if (auto close = all_close(a, b, tolerance, tolerance); !close)
            return close << ", output " << o;
    }
    return ::testing::AssertionSuccess();
}

TEST(GrowingState, ManyInferencesReordersResetsAndSetStateMatchTemplate) {
    auto model = growing_cache_model();
    Core core = make_core();
    auto cpu = core.compile_model(model, "CPU").create_infer_request();
    auto ref = core.compile_model(model, "TEMPLATE").create_infer_request();
    const size_t batch = 3;
    std::vector<int32_t> identity(batch);
    std::iota(identity.begin(), identity.end(), 0);
    for (int step = 0; step < 24; ++step) {
        if (step == 15) {  // start a new sequence
            cpu.reset_state();
            ref.reset_state();
        }
        if (step == 11) {
            // The caches set back to the length they had before step 10, which reorders nothing,
            // and then reordered: the reorder's output has the shape the pass-through had.
            const Shape shape = state_of(cpu, "k").get_shape();
            ASSERT_GT(shape[2], 1u);
            const Shape back{shape[0], shape[1], shape[2] - 1, shape[3]};
            const Tensor k = random_tensor(back, 97);
            const Tensor v = random_tensor(back, 96);
            for (auto* request : {&cpu, &ref})
                for (auto& state : request->query_state())
                    if (state.get_name() != "lag") state.set_state(state.get_name() == "k" ? k : v);
        }
        if (step == 19) {  // user-written caches between inferences
            const Tensor k = random_tensor(Shape{batch, 2, 5, 4}, 99);
            const Tensor v = random_tensor(Shape{batch, 2, 5, 4}, 98);
            for (auto* request : {&cpu, &ref})
                for (auto& state : request->query_state())
                    if (state.get_name() != "lag") state.set_state(state.get_name() == "k" ? k : v);
        }
        const size_t rows = step % 4 == 0 ? 3 : 1;  // a prompt now and then, else one token
        const Tensor x = random_tensor(Shape{batch, 2, rows, 4}, static_cast<unsigned>(step));
        // Beam-search-like reorders on some steps, the identity on the others.
        const bool reorder = step % 5 == 2 || step == 11;
        const Tensor order = order_tensor(reorder ? std::vector<int32_t>{2, 0, 0} : identity);
        for (auto* request : {&cpu, &ref}) {
            request->set_input_tensor(0, x);
            request->set_input_tensor(1, order);
            request->infer();
        }
        for (size_t o = 0; o < 2; ++o)
            ASSERT_TRUE(all_close(cpu.get_output_tensor(o), ref.get_output_tensor(o), 1e-6, 1e-6))
                << "step " << step << ", output " << o;
        for (const char* name : {"k", "v", "lag"}) {
            const Tensor a = state_of(cpu, name);
            const Tensor b = state_of(ref, name);
            ASSERT_EQ(a.get_shape(), b.get_shape()) << "step " << step << ", state " << name;
            ASSERT_TRUE(all_close(a, b, 0, 0)) << "step " << step << ", state " << name;
        }
    }
}

// A prompt-like chain on the dynamic graph (a variable keeps the model there): values die after
// their last reader and their buffers serve later steps' outputs and the next inference's, across
// sizes that grow and shrink between inferences and two element types. `a` is read first and
// again at the end, the attention-like product reads a transposed operand (folded into the
// MatMul), and the result and the committed value must survive every later step: the outputs and
// the state match TEMPLATE at every inference.
ModelPtr prompt_chain_model() {
    const PartialShape rows{1, Dimension::dynamic(), 16};
    auto x = op::parameter(element::f32, rows, "x");
    auto read = op::read_value("memory", element::f32, rows);
    auto a = op::relu(x);
    auto b = op::multiply(a, op::constant(element::f32, Shape{}, std::vector<float>{2.f}));
    auto order = op::constant(element::i64, Shape{3}, std::vector<int64_t>{0, 2, 1});
    auto scores = op::matmul(b, op::transpose(a, order));  // [1, T, T]
    auto weights = op::softmax(scores, 2);
    auto mixed = op::matmul(weights, x);  // [1, T, 16]
    auto e = op::sigmoid(mixed);
    auto f = op::add(e, a);
    auto count = op::convert(op::reduce_sum(op::shape_of(f), op::int64_scalar(0)), element::f32);
    auto g = op::add(f, count);
    auto memory = op::concat({read, g}, 1);
    return std::make_shared<Model>(ResultVector{op::result(e), op::result(memory)},
                                   SinkVector{op::assign(memory, "memory")}, ParameterVector{x},
                                   "prompt_chain");
}

TEST(GrowingState, DeadValuesLendTheirBuffersWithoutChangingAnyValue) {
    auto model = prompt_chain_model();
    Core core = make_core();
    auto cpu = core.compile_model(model, "CPU").create_infer_request();
    auto ref = core.compile_model(model, "TEMPLATE").create_infer_request();
    const size_t lengths[] = {5, 300, 2, 700, 1, 64, 1, 1};
    for (size_t i = 0; i < std::size(lengths); ++i) {
        if (i == 5) {
            cpu.reset_state();
            ref.reset_state();
        }
        const Tensor x = random_tensor(Shape{1, lengths[i], 16}, static_cast<unsigned>(40 + i));
        for (auto* request : {&cpu, &ref}) {
            request->set_input_tensor(x);
            request->infer();
        }
        for (size_t o = 0; o < 2; ++o)
            ASSERT_TRUE(all_close(cpu.get_output_tensor(o), ref.get_output_tensor(o), 1e-5, 1e-5))
                << "inference " << i << " (" << lengths[i] << " rows), output " << o;
        const Tensor a = state_of(cpu, "memory");
        const Tensor b = state_of(ref, "memory");
        ASSERT_EQ(a.get_shape(), b.get_shape()) << "inference " << i;
        ASSERT_TRUE(all_close(a, b, 1e-5, 1e-5)) << "inference " << i;
    }
}

// Reshape, Squeeze and Unsqueeze give views of their input in the dynamic graph: a view must keep
// its source's buffer from being lent to a later value (here sigmoid(x), allocated after relu(x)'s
// last reader), also through a view of a view, a view taken into a state, and a view that is a
// result.
ModelPtr view_chain_model() {
    const PartialShape rows{1, Dimension::dynamic(), 16};
    auto x = op::parameter(element::f32, rows, "x");
    auto read = op::read_value("views", element::f32, rows);
    auto a = op::relu(x);
    auto v = op::reshape(a, op::int64_vector({1, -1, 4, 4}), false);  // a's last reader
    auto b = op::sigmoid(x);
    auto w = op::squeeze(
        op::unsqueeze(op::reshape(v, op::int64_vector({1, -1, 16}), false), op::int64_vector({0})),
        op::int64_vector({0}));
    auto c = op::add(w, b);
    auto memory = op::concat({read, w}, 1);
    return std::make_shared<Model>(ResultVector{op::result(c), op::result(memory), op::result(v)},
                                   SinkVector{op::assign(memory, "views")}, ParameterVector{x},
                                   "view_chain");
}

TEST(GrowingState, ReshapeViewsKeepTheirSourceAlive) {
    auto model = view_chain_model();
    Core core = make_core();
    auto cpu = core.compile_model(model, "CPU").create_infer_request();
    auto ref = core.compile_model(model, "TEMPLATE").create_infer_request();
    const size_t lengths[] = {3, 40, 1, 90, 7};
    for (size_t i = 0; i < std::size(lengths); ++i) {
        const Tensor x =
            random_tensor(Shape{1, lengths[i], 16}, static_cast<unsigned>(70 + i), -1.f, 1.f);
        ASSERT_TRUE(infer_matches_template(cpu, ref, x, 1e-6))
            << "inference " << i << " (" << lengths[i] << " rows)";
        ASSERT_TRUE(all_close(state_of(cpu, "views"), state_of(ref, "views"), 1e-6, 1e-6))
            << "inference " << i;
    }
}

// A decoder's caches appended in place (GraphExecutor::append): k and v [B, 2, T, 4] grow by the
// token's rows, read by a grouped attention through an Unsqueeze (a strided view of the cache)
// and by an element-wise sum (a contiguous copy). Over 44 inferences with reorders, set_state and
// a reset: the outputs and states match TEMPLATE, a state handle taken earlier never changes, and
// each run's profile says whether the Concat appended in place, copied the whole cache into its
// buffer, or into a new one — counted against the documented policy (only the buffer's last
// output is appended to; the buffer is rewritten from its first row when the cache fits and no
// variable views it, as after a reset or set_state, and a reorder (beam search) writes into the
// spare buffer, the one used before; a new buffer has room for half as many rows again, at least
// 16), and CPU_KV_CACHE_BYTES equals the bytes of the buffers held.
ModelPtr appended_cache_model() {
    const PartialShape cache{Dimension::dynamic(), 2, Dimension::dynamic(), 4};
    auto x = op::parameter(element::f32, cache, "x");
    auto q = op::parameter(element::f32, PartialShape{Dimension::dynamic(), 2, 3, 2, 4}, "q");
    auto order = op::parameter(element::i32, PartialShape{Dimension::dynamic()}, "order");
    auto axis0 = op::int64_scalar(0);
    auto k = op::concat({op::gather(op::read_value("k", element::f32, cache), order, axis0), x}, 2);
    auto two = op::constant(element::f32, Shape{}, std::vector<float>{2.f});
    auto v = op::concat(
        {op::gather(op::read_value("v", element::f32, cache), order, axis0), op::multiply(x, two)},
        2);
    // [B, 2, 1, T, 4]: each KV head broadcast over a group of 3 queries.
    auto attention = op::scaled_dot_product_attention(q, op::unsqueeze(k, op::int64_vector({2})),
                                                      op::unsqueeze(v, op::int64_vector({2})));
    auto sum = op::add(k, v);
    return std::make_shared<Model>(ResultVector{op::result(attention), op::result(sum)},
                                   SinkVector{op::assign(k, "k"), op::assign(v, "v")},
                                   ParameterVector{x, q, order}, "appended_cache");
}

TEST(GrowingState, ACacheIsAppendedInPlaceAndCopiedOnlyWhenItOutgrowsItsBuffer) {
    auto model = appended_cache_model();
    Core core = make_core();
    CompiledModel compiled = core.compile_model(model, "CPU", {{"PERF_COUNT", true}});
    auto cpu = compiled.create_infer_request();
    auto ref = core.compile_model(model, "TEMPLATE").create_infer_request();
    const size_t batch = 2;
    auto cache_bytes = [&] { return compiled.get_property("CPU_KV_CACHE_BYTES").as<uint64_t>(); };
    EXPECT_EQ(cache_bytes(), 0u);
    // The policy, for the expected counts: rows the buffer has room for, rows in its last output.
    // `spare`: rows of the buffer kept for the next reorder (0: none); `viewed`: whether the
    // variable views the step's buffer (after an inference, until a reset or set_state).
    size_t room = 0, spare = 0, filled = 0;
    bool viewed = false;
    size_t copies = 0, in_place = 0, fresh_buffers = 0;
    size_t expected_copies = 0, expected_in_place = 0, expected_fresh = 0;
    Tensor held, held_copy;  // a state handle taken at inference 7, compared at every later one
    for (int step = 0; step < 44; ++step) {
        bool fresh = false;  // the past is not the buffer's last output
        if (step == 30) {
            cpu.reset_state();
            ref.reset_state();
            fresh = true;
            viewed = false;
        }
        if (step == 20) {  // user-written caches
            const Tensor k = random_tensor(Shape{batch, 2, 9, 4}, 91);
            const Tensor v = random_tensor(Shape{batch, 2, 9, 4}, 92);
            for (auto* request : {&cpu, &ref})
                for (auto& state : request->query_state())
                    state.set_state(state.get_name() == "k" ? k : v);
            filled = 9;
            fresh = true;
            viewed = false;
        }
        const size_t rows = step == 0 || step == 30 ? 5 : 1;  // a prompt, then single tokens
        const bool reorder = step >= 12 && step <= 14;        // as beam search reorders every token
        if (reorder) fresh = true;
        std::vector<int32_t> order(batch);
        std::iota(order.begin(), order.end(), 0);
        if (reorder) std::reverse(order.begin(), order.end());
        if (step == 30) filled = 0;
        const Tensor x = random_tensor(Shape{batch, 2, rows, 4}, static_cast<unsigned>(step));
        const Tensor q = random_tensor(Shape{batch, 2, 3, 2, 4}, static_cast<unsigned>(100 + step));
        for (auto* request : {&cpu, &ref}) {
            request->set_input_tensor(0, x);
            request->set_input_tensor(1, q);
            request->set_input_tensor(2, order_tensor(order));
            request->infer();
        }
        const size_t total = filled + rows;
        // A reorder's past is a new tensor while the variable still views the buffer: the spare
        // buffer takes it, and the two alternate.
        if (!fresh && total <= room) {
            expected_in_place += 2;
        } else if (total <= room && !viewed) {
            expected_copies += 2;
        } else if (total <= spare) {
            expected_copies += 2;
            std::swap(room, spare);
            if (spare < total) spare = 0;
        } else {
            spare = total <= room ? room : 0;
            room = total + std::max<size_t>(total / 2, 16);
            expected_fresh += 2;
        }
        filled = total;
        viewed = true;
        for (const auto& row : cpu.get_profiling_info()) {
            copies += row.exec_type == "append copy";
            in_place += row.exec_type == "append in-place";
            fresh_buffers += row.exec_type == "append new buffer";
        }
        ASSERT_EQ(fresh_buffers, expected_fresh) << "inference " << step;
        // Two caches of [batch, 2, room, 4] f32, the buffers replaced already freed.
        ASSERT_EQ(cache_bytes(), 2 * batch * 2 * (room + spare) * 4 * sizeof(float))
            << "inference " << step;
        ASSERT_EQ(copies, expected_copies) << "inference " << step;
        ASSERT_EQ(in_place, expected_in_place) << "inference " << step;
        for (size_t o = 0; o < 2; ++o)
            ASSERT_TRUE(all_close(cpu.get_output_tensor(o), ref.get_output_tensor(o), 1e-5, 1e-5))
                << "inference " << step << ", output " << o;
        for (const char* name : {"k", "v"}) {
            const Tensor a = state_of(cpu, name);
            ASSERT_EQ(a.get_shape(), (Shape{batch, 2, filled, 4})) << "inference " << step;
            ASSERT_TRUE(all_close(a, state_of(ref, name), 0, 0)) << "inference " << step;
        }
        if (step == 7) {
            for (auto& state : cpu.query_state())
                if (state.get_name() == "k") held = state.get_state();
            held_copy = held.clone();
        }
        if (held) {
            ASSERT_TRUE(all_close(held, held_copy, 0, 0)) << "inference " << step;
        }
    }
    EXPECT_GT(in_place, 3 * (copies + fresh_buffers));  // most tokens copy nothing of the cache
    EXPECT_GT(copies, 0u);                              // a reset and set_state reuse the buffer
    cpu = InferRequest();  // the states' views and the executor's buffers go with the request
    EXPECT_EQ(cache_bytes(), 0u);
}

// Reshapes of a cache appended in place: [B, 2, T, 4] viewed as [B * 2, T, 4] (batch and heads
// merge: each head's rows are `room` rows apart, a stride the view keeps), as [B, 2, T * 4] (rows
// and columns merge: contiguous within a head) and as [B, 2 * T, 4] (heads and rows cannot merge
// over the spare rows: the Reshape copies), each read by a reduction, against TEMPLATE over
// growing lengths.
TEST(GrowingState, ReshapesOfAnAppendedCacheReadTheRightRows) {
    const PartialShape cache{3, 2, Dimension::dynamic(), 4};  // starts as [3, 2, 0, 4]
    auto x = op::parameter(element::f32, cache, "x");
    auto k = op::concat({op::read_value("k", element::f32, cache), x}, 2);
    auto weights = op::constant(element::f32, Shape{4}, std::vector<float>{1.f, -2.f, 3.f, 0.5f});
    auto heads =
        op::reduce_sum(op::multiply(op::reshape(k, op::int64_vector({-1, 0, 4}), true), weights),
                       op::int64_vector({2}));  // [B * 2, T]
    auto rows = op::reduce_sum(op::reshape(k, op::int64_vector({0, 2, -1}), true),
                               op::int64_vector({1}));  // [B, T * 4]
    auto merged =
        op::reduce_sum(op::multiply(op::reshape(k, op::int64_vector({0, -1, 4}), true), weights),
                       op::int64_vector({2}));  // [B, 2 * T]
    auto model = std::make_shared<Model>(
        ResultVector{op::result(heads), op::result(rows), op::result(merged)},
        SinkVector{op::assign(k, "k")}, ParameterVector{x}, "cache_reshapes");
    Core core = make_core();
    auto cpu = core.compile_model(model, "CPU").create_infer_request();
    auto ref = core.compile_model(model, "TEMPLATE").create_infer_request();
    for (int step = 0; step < 12; ++step) {
        const size_t rows_now = step == 0 ? 6 : 1;
        const Tensor t = random_tensor(Shape{3, 2, rows_now, 4}, static_cast<unsigned>(200 + step));
        ASSERT_TRUE(infer_matches_template(cpu, ref, t, 1e-5)) << "inference " << step;
    }
}

}  // namespace
}  // namespace vireo::cpu_test
