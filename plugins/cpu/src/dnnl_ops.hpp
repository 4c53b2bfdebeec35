// Declares the oneDNN side of the CPU plugin: the engine every compiled model shares, and DnnlOp,
// one oneDNN primitive created at compile time with the arguments it reads and writes.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "oneapi/dnnl/dnnl.hpp"

namespace vireo::cpu_plugin {

/// Sets the calling thread's OpenMP team size for its lifetime, then restores it. oneDNN sizes a
/// primitive's thread partition when the primitive is created, from this setting, so primitives
/// are created under the team size their stream will run them with.
class OmpTeamScope {
  public:
    explicit OmpTeamScope(int threads);
    ~OmpTeamScope();
    OmpTeamScope(const OmpTeamScope&) = delete;
    OmpTeamScope& operator=(const OmpTeamScope&) = delete;

  private:
    int m_saved;
};

/// The process's CPU engine (made on first use; thread-safe).
const dnnl::engine& cpu_engine();

/// True when oneDNN runs bf16 MatMuls natively on this CPU (AVX-512 BF16 or AMX): a bf16 MatMul
/// primitive is created once and its implementation must not be a reference one.
bool bf16_supported();

/// One argument of a primitive: either a value of the graph, seen through `desc` (its layout and
/// the dims the primitive expects, e.g. a MatMul's [M, K] view of a [B, S, K] tensor), or a
/// constant memory the compiler made once (weights in the primitive's chosen layout, biases).
struct DnnlArg {
    int arg = 0;  ///< DNNL_ARG_*
    bool is_value = true;
    size_t value = 0;         ///< is_value: the value id
    dnnl::memory::desc desc;  ///< is_value: how the primitive sees the value's memory
    dnnl::memory constant;    ///< !is_value: shared by every request (read only)
    size_t offset = 0;        ///< is_value: bytes into the value where that memory starts
};

/// A primitive made at compile time and shared by every request of a compiled model. oneDNN
/// primitives are immutable and may execute concurrently on different memory; scratchpad is the
/// user's (each request has its own), so nothing here is written at run time.
struct DnnlOp {
    dnnl::primitive primitive;
    std::vector<DnnlArg> args;
    size_t scratchpad_bytes = 0;  ///< 0: the primitive needs none
    std::string impl;             ///< oneDNN's implementation name (impl_info_str)
};

/// What one post-op of a fused primitive does, in compile order.
struct PostOp {
    /// kSum: the destination's prior contents (the residual operand `value`, which the step's
    /// output overwrites in place) are added.
    enum class Kind { kEltwise, kBinary, kSum } kind = Kind::kEltwise;
    dnnl::algorithm algorithm = dnnl::algorithm::undef;
    float alpha = 0.f;
    float beta = 0.f;
    // kBinary: the second operand, a graph value (value >= 0) or a constant tensor's data.
    dnnl::memory::desc desc;
    long value = -1;
    dnnl::memory constant;
    /// kBinary: one of the pair (binary_mul by `alpha`, then binary_add of `alpha`) that stands
    /// for a linear step append_post_ops could not add as an eltwise one; later linear steps
    /// merge into the pair.
    bool scalar_linear = false;
};

/// Appends `post_ops` to `attr` and to `op->args` (binary operands), with user scratchpad mode.
dnnl::primitive_attr make_attr(const std::vector<PostOp>& post_ops, DnnlOp* op);

/// dnnl::memory::dims from any integer vector.
template <typename T>
dnnl::memory::dims to_dims(const std::vector<T>& v) {
    return dnnl::memory::dims(v.begin(), v.end());
}

/// A constant memory of `desc` filled from plain f32 data laid out as `plain` (same dims): one
/// reorder at compile time when the layouts differ.
dnnl::memory make_constant(const dnnl::memory::desc& plain, const void* data,
                           const dnnl::memory::desc& desc);

/// Runs a reorder now (compile time): `src` into a new memory of `dst_desc`.
dnnl::memory reorder_now(const dnnl::memory& src, const dnnl::memory::desc& dst_desc);

}  // namespace vireo::cpu_plugin
