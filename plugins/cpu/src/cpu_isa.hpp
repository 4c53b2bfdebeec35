// Declares has_avx512: whether the plugin's own AVX-512 kernels (attention, compressed MatMul) may
// run on this CPU.
#pragma once

#include <cstdlib>
#include <string>

namespace vireo::cpu_plugin {

/// AVX-512F with FMA, read once. VIREO_GEMM_ISA other than avx512 (as the reference GEMM reads
/// it) forces the portable loops, so tests cover them on an AVX-512 machine.
inline bool has_avx512() {
    static const bool yes = [] {
        __builtin_cpu_init();
        const char* forced = std::getenv("VIREO_GEMM_ISA");
        if (forced && std::string(forced) != "avx512") return false;
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
    }();
    return yes;
}

}  // namespace vireo::cpu_plugin
