// Tests sdk::HostVariableState, the host-memory variable state TEMPLATE and CPU share: reset to
// zeros of the declared shape, set_state checks, commits that grow by half, buffer exchange, and a
// shared view of a cache its owner appends to (never written by the state, copied by get_state).
#include "vireo/sdk/host_variable_state.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace vireo::sdk {
namespace {

VariableInfo kv_cache() {
    VariableInfo info;
    info.id = "past";
    info.shape = PartialShape{1, Dimension::dynamic(), 2};
    info.type = element::f32;
    return info;
}

Tensor filled(const Shape& shape, float value) {
    Tensor t(element::f32, shape);
    for (size_t i = 0; i < t.get_size(); ++i) t.data<float>()[i] = value + static_cast<float>(i);
    return t;
}

TEST(HostVariableState, StartsAsZerosOfTheDeclaredShapeAndResetsThere) {
    HostVariableState state(kv_cache());
    EXPECT_TRUE(state.is_reset());
    EXPECT_EQ(state.get_name(), "past");
    EXPECT_EQ(state.get_state().get_shape(), (Shape{1, 0, 2}));
    state.commit(filled(Shape{1, 3, 2}, 1.0f));
    EXPECT_FALSE(state.is_reset());
    EXPECT_EQ(state.get_state().get_shape(), (Shape{1, 3, 2}));
    EXPECT_EQ(state.get_state().data<float>()[5], 6.0f);
    state.reset();
    EXPECT_TRUE(state.is_reset());
    EXPECT_EQ(state.get_state().get_shape(), (Shape{1, 0, 2}));
}

TEST(HostVariableState, SetStateChecksTypeAndShapeNamingTheVariable) {
    HostVariableState state(kv_cache());
    auto message = [&](const Tensor& t) {
        try {
            state.set_state(t);
        } catch (const InvalidArgument& e) {
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    EXPECT_NE(message(Tensor(element::i32, Shape{1, 2, 2})).find("variable 'past'"),
              std::string::npos);
    EXPECT_NE(message(Tensor(element::f32, Shape{1, 2, 3})).find("fits [1,?,2]"), std::string::npos)
        << message(Tensor(element::f32, Shape{1, 2, 3}));
    EXPECT_NE(message(Tensor()).find("empty tensor"), std::string::npos);
    EXPECT_TRUE(state.is_reset());  // nothing was taken
    state.set_state(filled(Shape{1, 2, 2}, 10.0f));
    EXPECT_FALSE(state.is_reset());
    EXPECT_EQ(state.get_state().data<float>()[3], 13.0f);
}

TEST(HostVariableState, CommitsGrowByHalfAndExchangeSwapsBuffers) {
    HostVariableState state(kv_cache());
    // One token per inference: the buffer is reallocated only when the value outgrows it.
    std::vector<const void*> buffers;
    for (size_t tokens = 1; tokens <= 12; ++tokens) {
        state.commit(filled(Shape{1, tokens, 2}, static_cast<float>(tokens)));
        ASSERT_EQ(state.get_state().get_shape(), (Shape{1, tokens, 2}));
        ASSERT_EQ(state.get_state().data<float>()[2 * tokens - 1],
                  static_cast<float>(tokens) + static_cast<float>(2 * tokens - 1));
        if (buffers.empty() || buffers.back() != state.get_state().data())
            buffers.push_back(state.get_state().data());
    }
    // Needed elements 2, 4, 6, ... 24; a new buffer holds 1.5x the need: 3, 6, 12, 21, 33
    // elements, allocated at tokens 1, 2, 4, 7 and 11 (the new one exists before the old is
    // freed, so consecutive buffers differ): five buffers for twelve commits.
    EXPECT_EQ(buffers.size(), 5u);
    // Exchange: the new value is taken without a copy; the old buffer comes back.
    Tensor next = filled(Shape{1, 13, 2}, 0.5f);
    const void* next_data = next.data();
    const void* old_data = state.get_state().data();
    auto [previous, capacity] = state.exchange(next, 40);
    EXPECT_EQ(state.get_state().data(), next_data);
    EXPECT_EQ(previous.data(), old_data);
    EXPECT_EQ(capacity, 33u);  // the elements the old buffer holds
    EXPECT_FALSE(state.is_reset());
}

TEST(HostVariableState, ASharedViewIsNeverWrittenAndGetStateCopiesIt) {
    // The owner's buffer: room for 4 rows, 3 written; the state views the first 3.
    Tensor buffer = filled(Shape{1, 4, 2}, 10.0f);
    const Tensor view(buffer, Coordinate{0, 0, 0}, Coordinate{1, 3, 2});
    HostVariableState state(kv_cache());
    state.share(view);
    EXPECT_FALSE(state.is_reset());
    EXPECT_EQ(state.stored().data(), buffer.data());  // held as it is
    const Tensor copy = state.get_state();
    EXPECT_NE(copy.data(), buffer.data());  // a user gets a copy ...
    EXPECT_EQ(copy.get_shape(), (Shape{1, 3, 2}));
    EXPECT_EQ(copy.data<float>()[5], 15.0f);
    buffer.data<float>()[6] = -1.0f;  // ... that the owner appending a row does not change
    EXPECT_EQ(copy.data<float>()[5], 15.0f);
    // set_state, commit and reset give the state a buffer of its own; the owner's is untouched.
    state.set_state(filled(Shape{1, 2, 2}, 100.0f));
    EXPECT_NE(state.stored().data(), buffer.data());
    EXPECT_EQ(state.get_state().data<float>()[0], 100.0f);
    EXPECT_EQ(buffer.data<float>()[0], 10.0f);
    state.share(view);
    state.commit(filled(Shape{1, 3, 2}, 50.0f));
    EXPECT_NE(state.stored().data(), buffer.data());
    EXPECT_EQ(buffer.data<float>()[0], 10.0f);
    state.share(view);
    state.reset();
    EXPECT_TRUE(state.is_reset());
    EXPECT_EQ(state.get_state().get_shape(), (Shape{1, 0, 2}));
    EXPECT_EQ(buffer.data<float>()[0], 10.0f);
    for (size_t i = 0; i < 6; ++i) EXPECT_EQ(buffer.data<float>()[i], 10.0f + i) << i;
    // Exchanging a shared state gives nothing back: the view's memory is not the state's.
    state.share(view);
    auto [previous, capacity] = state.exchange(filled(Shape{1, 1, 2}, 0.0f), 2);
    EXPECT_FALSE(previous);
    EXPECT_EQ(capacity, 0u);
}

}  // namespace
}  // namespace vireo::sdk
