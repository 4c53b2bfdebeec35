// make_stateful on a small hand-built decoder-like graph (no PyTorch needed): the cache is
// concat(past, this step's keys) along axis 2 and the "logits" are the sum of each row's cache, so
// every value says which tokens a row's cache holds. Checked on TEMPLATE and CPU: cache shapes,
// beam_idx reorder, reset_state, saving as IR and reading back, and the errors.
#include <gtest/gtest.h>

#include <filesystem>

#include "vireo/core.hpp"
#include "vireo/exception.hpp"
#include "vireo/ir.hpp"
#include "vireo/ops.hpp"
#include "vireo/transformations.hpp"

namespace {

using namespace vireo;

// input_ids [B,S] i64, past [B,2,P,3] f32 -> present [B,2,P+S,3] (each new position holds its
// token id in every element), logits [B] = sum of present over axes 1..3.
std::shared_ptr<Model> tiny_decoder() {
    auto ids = op::parameter(element::i64, PartialShape{Dimension::dynamic(), Dimension::dynamic()},
                             "input_ids");
    auto past =
        op::parameter(element::f32, PartialShape{Dimension::dynamic(), 2, Dimension::dynamic(), 3},
                      "past_key_values.0.key");
    auto x = op::convert(ids, element::f32);
    auto x4 = op::unsqueeze(op::unsqueeze(x, op::int64_vector({1})), op::int64_vector({3}));
    auto ones = op::constant<float>(element::f32, Shape{1, 2, 1, 3}, {1.f});
    auto kv = op::multiply(x4, ones);
    auto present = op::concat({past, kv}, 2);
    present->output(0).set_names({"present.0.key"});
    auto logits = op::reduce_sum(present, op::int64_vector({1, 2, 3}));
    logits->output(0).set_names({"logits"});
    return std::make_shared<Model>(OutputVector{logits, present}, ParameterVector{ids, past},
                                   "tiny_decoder");
}

MakeStatefulOptions options() {
    MakeStatefulOptions o;
    o.pairs = {{"past_key_values.0.key", "present.0.key"}};
    return o;
}

struct Step {
    std::vector<int64_t> ids;  // batch rows of one token each (or one row of several)
    size_t batch;
    std::vector<int32_t> beam_idx;
};

std::vector<float> run(InferRequest& r, const Step& s) {
    Tensor ids(element::i64, Shape{s.batch, s.ids.size() / s.batch});
    std::copy(s.ids.begin(), s.ids.end(), ids.data<int64_t>());
    Tensor beam(element::i32, Shape{s.beam_idx.size()});
    std::copy(s.beam_idx.begin(), s.beam_idx.end(), beam.data<int32_t>());
    r.set_tensor("input_ids", ids);
    r.set_tensor("beam_idx", beam);
    r.infer();
    Tensor out = r.get_tensor("logits");
    return std::vector<float>(out.data<float>(), out.data<float>() + out.get_size());
}

Shape cache_shape(const InferRequest& r) {
    auto states = r.query_state();
    EXPECT_EQ(states.size(), 1u);
    return states.at(0).get_state().get_shape();
}

void check_sequence(CompiledModel& compiled) {
    InferRequest r = compiled.create_infer_request();
    // Prompt of two tokens, batch 1: the cache holds 1 and 2 (6 elements each).
    EXPECT_EQ(run(r, {{1, 2}, 1, {0}}), (std::vector<float>{18.f}));
    EXPECT_EQ(cache_shape(r), (Shape{1, 2, 2, 3}));
    // Two beams from the one row (beam_idx 0, 0), tokens 10 and 20.
    EXPECT_EQ(run(r, {{10, 20}, 2, {0, 0}}), (std::vector<float>{78.f, 138.f}));
    EXPECT_EQ(cache_shape(r), (Shape{2, 2, 3, 3}));
    // Swap the beams: row 0 continues old row 1 (138), row 1 old row 0 (78); both add token 1.
    EXPECT_EQ(run(r, {{1, 1}, 2, {1, 0}}), (std::vector<float>{144.f, 84.f}));
    // Keep row 1 twice.
    EXPECT_EQ(run(r, {{0, 3}, 2, {1, 1}}), (std::vector<float>{84.f, 102.f}));
    EXPECT_EQ(cache_shape(r), (Shape{2, 2, 5, 3}));
    // A new sequence: empty cache again, and a batch of 3 from the start.
    r.reset_state();
    EXPECT_EQ(run(r, {{5, 6, 7}, 3, {0, 1, 2}}), (std::vector<float>{30.f, 36.f, 42.f}));
    EXPECT_EQ(cache_shape(r), (Shape{3, 2, 1, 3}));
    // A second request on the same compiled model has its own cache.
    InferRequest other = compiled.create_infer_request();
    EXPECT_EQ(run(other, {{4}, 1, {0}}), (std::vector<float>{24.f}));
    EXPECT_EQ(run(r, {{1, 1, 1}, 3, {2, 2, 0}}), (std::vector<float>{48.f, 48.f, 36.f}));
}

class MakeStateful : public ::testing::TestWithParam<std::string> {};

TEST_P(MakeStateful, CacheShapesBeamReorderReset) {
    auto model = tiny_decoder();
    make_stateful(model, options());
    ASSERT_EQ(model->get_parameters().size(), 2u);
    EXPECT_NO_THROW(model->input("beam_idx"));
    EXPECT_THROW(model->input("past_key_values.0.key"), NotFound);
    ASSERT_EQ(model->get_results().size(), 1u);
    EXPECT_EQ(model->get_sinks().size(), 1u);
    const auto vars = model->get_variables();
    ASSERT_EQ(vars.size(), 1u);
    EXPECT_EQ(vars[0].id, "past_key_values.0.key");
    Core core;
    CompiledModel compiled = core.compile_model(model, GetParam());
    check_sequence(compiled);
}

TEST_P(MakeStateful, SavedAsIrAndReadBack) {
    auto model = tiny_decoder();
    make_stateful(model, options());
    const auto dir = std::filesystem::temp_directory_path() /
                     ("vireo_make_stateful_" + GetParam() + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    serialize(*model, (dir / "m.xml").string(), (dir / "m.bin").string());
    Core core;
    auto back = core.read_model((dir / "m.xml").string());
    EXPECT_EQ(back->get_variables().size(), 1u);
    CompiledModel compiled = core.compile_model(back, GetParam());
    check_sequence(compiled);
    std::filesystem::remove_all(dir);
}

TEST_P(MakeStateful, IrReadExplicitModelMadeStateful) {
    // The explicit-past model saved as IR, read back, then transformed.
    const auto dir = std::filesystem::temp_directory_path() /
                     ("vireo_make_stateful_ir_" + GetParam() + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    serialize(*tiny_decoder(), (dir / "m.xml").string(), (dir / "m.bin").string());
    Core core;
    auto model = core.read_model((dir / "m.xml").string());
    make_stateful(model, options());
    CompiledModel compiled = core.compile_model(model, GetParam());
    check_sequence(compiled);
    std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Devices, MakeStateful, ::testing::Values("TEMPLATE", "CPU"));

template <typename E>
std::string message_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    return "(no exception)";
}

TEST(MakeStatefulErrors, NameTheFault) {
    auto o = options();
    o.pairs = {{"past_key_values.7.key", "present.0.key"}};
    EXPECT_NE(message_of<NotFound>([&] {
                  make_stateful(tiny_decoder(), o);
              }).find("'past_key_values.7.key'"),
              std::string::npos);
    o.pairs = {{"past_key_values.0.key", "present.9.key"}};
    EXPECT_NE(
        message_of<NotFound>([&] { make_stateful(tiny_decoder(), o); }).find("'present.9.key'"),
        std::string::npos);
    o = options();
    o.batch_source = "tokens";
    EXPECT_NE(message_of<NotFound>([&] { make_stateful(tiny_decoder(), o); }).find("'tokens'"),
              std::string::npos);
    o = options();
    o.beam_idx_name = "input_ids";
    EXPECT_NE(message_of<InvalidArgument>([&] {
                  make_stateful(tiny_decoder(), o);
              }).find("already has an input 'input_ids'"),
              std::string::npos);
    // A failed call leaves the model unchanged.
    auto model = tiny_decoder();
    o = options();
    o.pairs.push_back({"nope", "present.0.key"});
    EXPECT_THROW(make_stateful(model, o), NotFound);
    EXPECT_EQ(model->get_parameters().size(), 2u);
    EXPECT_EQ(model->get_results().size(), 2u);
    EXPECT_TRUE(model->get_sinks().empty());
}

}  // namespace
