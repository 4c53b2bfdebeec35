// Declares FallbackKernel: the base of the CPU plugin's own kernels for dynamic graphs, which take
// some shapes and leave the rest to the reference kernel.
#pragma once

#include <algorithm>
#include <memory>
#include <vector>

#include "strided_view.hpp"
#include "vireo/reference/kernel.hpp"

namespace vireo::cpu_plugin {

/// execute() runs run(), and `fallback` (the node's reference kernel) when run() returns false —
/// which it must do before writing anything. The work estimate and the memory held are the
/// fallback's.
class FallbackKernel : public reference::Kernel {
  public:
    explicit FallbackKernel(std::unique_ptr<reference::Kernel> fallback)
        : m_fallback(std::move(fallback)) {}

    /// The fallback reads its inputs row-major: strided ones (a step that takes a KV cache
    /// appended in place, Step::reads_strided) reach it as contiguous copies.
    void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const final {
        if (run(inputs, outputs)) return;
        if (std::none_of(inputs.begin(), inputs.end(), is_strided)) {
            m_fallback->execute(inputs, outputs);
            return;
        }
        std::vector<Tensor> copies;
        for (const auto& t : inputs) copies.push_back(contiguous(t));
        m_fallback->execute(copies, outputs);
    }

    double flops(const std::vector<Tensor>& inputs,
                 const std::vector<Tensor>& outputs) const final {
        return m_fallback->flops(inputs, outputs);
    }

    size_t owned_bytes() const final { return m_fallback->owned_bytes(); }

    /// The implementation a run on these operands takes, for the profile's exec_type ("ref"
    /// when it is the fallback's), or null to keep the step's own label.
    virtual const char* path(const std::vector<Tensor>& /*inputs*/,
                             const std::vector<Tensor>& /*outputs*/) const {
        return nullptr;
    }

  protected:
    /// False, with nothing written, for what this kernel does not take.
    virtual bool run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const = 0;

  private:
    std::unique_ptr<reference::Kernel> m_fallback;
};

}  // namespace vireo::cpu_plugin
