// Tests that the model cache key covers the weights (hashed as they are serialized, not kept):
// models that differ only in one weight byte get different entries, equal ones share one.
#include "runtime_test_utils.hpp"

namespace vireo::runtime_test {
namespace {

// y = x + w with w a [1, n] f32 Constant of values 0, 1, ..., n-1 except w[changed] = -1.
std::shared_ptr<Model> model_with_weights(size_t n, size_t changed = SIZE_MAX) {
    Tensor w(element::f32, Shape{1, n});
    for (size_t i = 0; i < n; ++i) w.data<float>()[i] = i == changed ? -1.f : static_cast<float>(i);
    auto x = op::parameter(element::f32, PartialShape{1, static_cast<int64_t>(n)}, "x");
    auto weights = op::constant(w);
    weights->set_friendly_name("w");  // generated names differ between builds (and so keys)
    auto add = op::add(x, weights);
    add->set_friendly_name("add");
    add->output(0).set_names({"y"});
    auto model =
        std::make_shared<Model>(OutputVector{add->output(0)}, ParameterVector{x}, "weights");
    model->get_results().at(0)->set_friendly_name("y_result");
    return model;
}

class CacheKey : public ::testing::Test {
  protected:
    void SetUp() override {
        core = empty_core(dir);
        core.register_plugin(test_plugin_path(), "TEST");
        cache = dir.path() / "cache";
        core.set_property({cache_dir(cache.string())});
    }
    size_t entries() const {
        size_t count = 0;
        if (fs::exists(cache))
            for ([[maybe_unused]] const auto& e : fs::directory_iterator(cache)) ++count;
        return count;
    }
    uint64_t compiles() { return core.get_property("TEST", tp::compile_count); }

    ScratchDir dir;
    Core core;
    fs::path cache;
};

TEST_F(CacheKey, OneChangedWeightIsADifferentEntry) {
    constexpr size_t n = 256 * 1024;  // 1 MiB of weights, written to the key hash in one piece
    core.compile_model(model_with_weights(n), "TEST");
    core.compile_model(model_with_weights(n, n - 1), "TEST");  // last value differs
    core.compile_model(model_with_weights(n, 0), "TEST");      // first value differs
    EXPECT_EQ(compiles(), 3u);
    EXPECT_EQ(entries(), 3u);
}

TEST_F(CacheKey, WeightsShorterThanAWordCount) {
    // 12 bytes: one 8-byte word and a 4-byte tail; a change in either is a new entry.
    core.compile_model(model_with_weights(3), "TEST");
    core.compile_model(model_with_weights(3, 2), "TEST");  // in the tail
    core.compile_model(model_with_weights(3, 1), "TEST");  // in the word
    core.compile_model(model_with_weights(3, 1), "TEST");  // the same again: a hit
    EXPECT_EQ(compiles(), 3u);
    EXPECT_EQ(entries(), 3u);
}

TEST_F(CacheKey, EqualWeightsHitTheSameEntry) {
    constexpr size_t n = 1000;
    EXPECT_FALSE(
        core.compile_model(model_with_weights(n, 7), "TEST").get_property(loaded_from_cache));
    EXPECT_TRUE(
        core.compile_model(model_with_weights(n, 7), "TEST").get_property(loaded_from_cache));
    EXPECT_EQ(compiles(), 1u);
    EXPECT_EQ(entries(), 1u);
}

}  // namespace
}  // namespace vireo::runtime_test
