// Implements RandomUniform-8 on Philox4x32-10 (philox.hpp). Element i of the output reads 32-bit
// word i of the stream (two words, 2i and 2i + 1, for f64 and i64); word w is lane w % 4 of block
// w / 4, computed with counter (w / 4 as 64 bits, op_seed as 64 bits) under key global_seed. The
// numbers are therefore a pure function of the seeds, the output type and the element's index:
// the same on every run, device and thread count. Seeds 0 and 0 mean "not seeded" (OpenVINO's
// rule): each execution then takes a fresh key from a process-wide counter started from
// std::random_device, so two runs (or two such ops) never repeat a stream.
//
// Reals: u = the top 24 (f16, bf16, f32) or 53 (f64) bits as a fraction in [0, 1), value
// min + u * (max - min) rounded to the type, and a result that rounds up to max is stepped down to
// the largest value below it, so every value is in [min, max). Integers: min + word % (max - min).
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>

#include "philox.hpp"
#include "tensor_common.hpp"

namespace vireo::reference::tensor {
namespace {

struct Stream {
    PhiloxKey key;
    uint64_t op_seed;
};

uint64_t mix64(uint64_t z) {  // SplitMix64's finaliser: spreads a counter over 64 bits
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Where the unseeded streams start: std::random_device, or the clock where it is unavailable.
uint64_t process_entropy() {
    try {
        std::random_device device;
        return (static_cast<uint64_t>(device()) << 32) ^ device();
    } catch (const std::exception&) {
        return static_cast<uint64_t>(
            std::chrono::high_resolution_clock::now().time_since_epoch().count());
    }
}

Stream seeded_stream(uint64_t global_seed, uint64_t op_seed) {
    return {{static_cast<uint32_t>(global_seed), static_cast<uint32_t>(global_seed >> 32)},
            op_seed};
}

// A stream nobody else gets: the unseeded case.
Stream fresh_stream() {
    static std::atomic<uint64_t> next{process_entropy()};
    const uint64_t n = next.fetch_add(1, std::memory_order_relaxed);
    return seeded_stream(mix64(n), mix64(n ^ 0x5851F42D4C957F2Dull));
}

// Calls f(i, word) for the first `words` 32-bit words of the stream.
template <typename F>
void for_each_word(const Stream& s, size_t words, F&& f) {
    const auto op_lo = static_cast<uint32_t>(s.op_seed),
               op_hi = static_cast<uint32_t>(s.op_seed >> 32);
    for (size_t block = 0; block * 4 < words; ++block) {
        const auto b = static_cast<uint64_t>(block);
        const PhiloxBlock r = philox4x32_10(
            {static_cast<uint32_t>(b), static_cast<uint32_t>(b >> 32), op_lo, op_hi}, s.key);
        for (size_t lane = 0; lane < 4 && block * 4 + lane < words; ++lane)
            f(block * 4 + lane, r[lane]);
    }
}

// The largest value of T below `v` (v finite): the next representable value towards -infinity.
template <typename T>
T next_below(T v) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        return std::nextafter(v, -std::numeric_limits<T>::infinity());
    } else {  // float16, bfloat16: sign-magnitude bit patterns
        const uint16_t bits = v.to_bits();
        if ((bits & 0x7FFF) == 0) return T::from_bits(0x8001);  // +-0 -> smallest negative
        return T::from_bits(static_cast<uint16_t>((bits & 0x8000) ? bits + 1 : bits - 1));
    }
}

template <typename T>
void fill_real(const Stream& s, double min, double max, T* out, size_t n) {
    const T top = static_cast<T>(max);  // exact: max is a value of T
    auto store = [&](size_t i, double u) {
        const double v = min + u * (max - min);
        T rounded;
        if constexpr (std::is_same_v<T, double>) {
            rounded = v;
        } else {
            rounded = static_cast<T>(static_cast<float>(v));  // f16/bf16 from float: one rounding
        }
        out[i] = static_cast<double>(rounded) < max ? rounded : next_below(top);
    };
    if constexpr (std::is_same_v<T, double>) {
        uint64_t high = 0;
        for_each_word(s, 2 * n, [&](size_t w, uint32_t word) {
            if (w % 2 == 0) {
                high = word;
                return;
            }
            const uint64_t bits = ((high << 32) | word) >> 11;
            store(w / 2, static_cast<double>(bits) * 0x1.0p-53);
        });
    } else {
        for_each_word(s, n, [&](size_t i, uint32_t word) {
            store(i, static_cast<double>(word >> 8) * 0x1.0p-24);
        });
    }
}

template <typename T>
void fill_integer(const Stream& s, int64_t min, int64_t max, T* out, size_t n) {
    const uint64_t range = static_cast<uint64_t>(max) - static_cast<uint64_t>(min);
    auto store = [&](size_t i, uint64_t bits) {
        out[i] = static_cast<T>(static_cast<uint64_t>(min) + bits % range);
    };
    if constexpr (sizeof(T) == 8) {
        uint64_t high = 0;
        for_each_word(s, 2 * n, [&](size_t w, uint32_t word) {
            if (w % 2 == 0) {
                high = word;
                return;
            }
            store(w / 2, (high << 32) | word);
        });
    } else {
        for_each_word(s, n, [&](size_t i, uint32_t word) { store(i, word); });
    }
}

std::unique_ptr<Kernel> make_random_uniform(const Node& node) {
    const auto global_seed = static_cast<uint64_t>(node.get_attribute<int64_t>("global_seed"));
    const auto op_seed = static_cast<uint64_t>(node.get_attribute<int64_t>("op_seed"));
    const element::Type type = node.get_attribute<element::Type>("output_type");
    using Types = TypeList<element::TypeId::f16, element::TypeId::bf16, element::TypeId::f32,
                           element::TypeId::f64, element::TypeId::i32, element::TypeId::i64>;
    // Refuse other types now, when the kernel is made, rather than at the first run.
    dispatch(Types{}, type, node.describe().c_str(), [](auto) {});
    return make_kernel([who = node.describe(), type, global_seed, op_seed](
                           const std::vector<Tensor>& in, std::vector<Tensor>& out) {
        check_arity(in, 3, out, 1, who);
        for (size_t i = 1; i < 3; ++i)
            if (in[i].get_size() != 1 || in[i].get_element_type() != type)
                throw_error<InvalidArgument>(who, ": input ", i, i == 1 ? " (min)" : " (max)",
                                             " must be one value of the output type ", type,
                                             ", got ", in[i].get_element_type(), " ",
                                             in[i].get_shape());
        const Stream s =
            global_seed == 0 && op_seed == 0 ? fresh_stream() : seeded_stream(global_seed, op_seed);
        const size_t n = out[0].get_size();
        dispatch(Types{}, type, who.c_str(), [&](auto tag) {
            using T = decltype(tag);
            const T min = tensor_data<T>(in[1])[0], max = tensor_data<T>(in[2])[0];
            if (!(min < max))
                throw_error<InvalidArgument>(who, ": min (", static_cast<double>(min),
                                             ") must be less than max (", static_cast<double>(max),
                                             ")");
            if constexpr (std::is_integral_v<T>) {
                fill_integer(s, static_cast<int64_t>(min), static_cast<int64_t>(max),
                             tensor_data<T>(out[0]), n);
            } else {
                if (!std::isfinite(static_cast<double>(min)) ||
                    !std::isfinite(static_cast<double>(max)))
                    throw_error<InvalidArgument>(who, ": min and max must be finite, got ",
                                                 static_cast<double>(min), " and ",
                                                 static_cast<double>(max));
                fill_real(s, static_cast<double>(min), static_cast<double>(max),
                          tensor_data<T>(out[0]), n);
            }
        });
    });
}

}  // namespace

void register_random_kernels(KernelRegistry& registry) {
    registry.add("RandomUniform", make_random_uniform);
}

}  // namespace vireo::reference::tensor
