// Declares Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as 1, 2,
// 3", SC 2011), the counter-based generator of the random ops: block n of a stream is a pure
// function of (key, counter n), so any element can be computed alone, on any thread or device.
#pragma once

#include <array>
#include <cstdint>

namespace vireo::reference::tensor {

using PhiloxBlock = std::array<uint32_t, 4>;
using PhiloxKey = std::array<uint32_t, 2>;

/// Ten Philox rounds of `counter` under `key`: four 32-bit words that pass BigCrush.
inline PhiloxBlock philox4x32_10(PhiloxBlock counter, PhiloxKey key) {
    constexpr uint64_t kMultiplier0 = 0xD2511F53u, kMultiplier1 = 0xCD9E8D57u;
    constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;  // golden ratio, sqrt(3) - 1
    for (int round = 0; round < 10; ++round) {
        if (round > 0) {
            key[0] += kWeyl0;
            key[1] += kWeyl1;
        }
        const uint64_t p0 = kMultiplier0 * counter[0];
        const uint64_t p1 = kMultiplier1 * counter[2];
        counter = {static_cast<uint32_t>(p1 >> 32) ^ counter[1] ^ key[0], static_cast<uint32_t>(p1),
                   static_cast<uint32_t>(p0 >> 32) ^ counter[3] ^ key[1],
                   static_cast<uint32_t>(p0)};
    }
    return counter;
}

}  // namespace vireo::reference::tensor
