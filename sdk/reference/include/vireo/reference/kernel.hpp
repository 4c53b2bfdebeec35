// Declares the reference kernel interface and registry: one prepared kernel per node, created at
// compile time and executed per inference, reusable by any plugin.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vireo/node.hpp"
#include "vireo/tensor.hpp"

namespace vireo::reference {

/// A kernel prepared for one node: attributes are read and constant inputs may be repacked when
/// it is created; execute() then does only arithmetic. Inputs and outputs are host tensors,
/// contiguous, of the node's element types; outputs are allocated by the caller with the shapes
/// shape inference gives for the inputs' actual shapes (and values). A kernel handles any input
/// shape its node accepts (dynamic models), and must not keep pointers into tensors between calls.
///
/// Thread safety: execute() may run concurrently on different tensors (one kernel serves every
/// request of a compiled model), so per-call scratch memory lives on the stack or in
/// thread-local storage, never in the kernel.
class Kernel {
  public:
    virtual ~Kernel() = default;
    virtual void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const = 0;
    /// Rough work estimate for modelled devices and profiling: floating-point operations of one
    /// execution with these shapes (default: one per output element).
    virtual double flops(const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& outputs) const;
    /// Bytes of memory the kernel itself holds for its life (constant inputs repacked at
    /// creation, tables), not counting the node's tensors: what compiling it added. Default 0.
    virtual size_t owned_bytes() const { return 0; }
};

/// Makes a kernel for `node`; throws NotImplemented naming the op and element type when the
/// node's configuration is not supported.
using KernelFactory = std::function<std::unique_ptr<Kernel>(const Node& node)>;

/// Tells, without building the kernel, whether the factory of the same op accepts `node`: returns
/// false or throws a vireo::Exception when it does not. Must accept exactly what the factory
/// accepts; it exists so that support queries do not pay for what factories do up front (packing
/// constant weights).
using SupportCheck = std::function<bool(const Node& node)>;

/// Kernels by op domain and type. Thread-safe; built-in kernels are registered on first use.
/// A node finds the kernel of its op's domain and type; a node of a custom domain with none
/// there uses a kernel registered without a domain for its type, if that kernel is not a
/// built-in one (so an extension's "Relu" never runs, or replaces, the standard Relu kernel).
class KernelRegistry {
  public:
    static KernelRegistry& instance();
    /// Registers (or replaces) the factory for op `type` (canonical name, e.g. "Convolution")
    /// of the standard domain. Without a support check, supports() builds a kernel and throws it
    /// away. Replacing a built-in kernel is refused (InvalidArgument): register a custom op's
    /// kernel under its domain (below).
    void add(const std::string& type, KernelFactory factory);
    /// Registers (or replaces) the factory for op `type` with a cheap support check.
    void add(const std::string& type, KernelFactory factory, SupportCheck check);
    /// Registers (or replaces) the factory for op `type` of `domain` (the OpDef's domain, e.g. an
    /// extension's); `domain` "" is the standard one, as above.
    void add(const std::string& domain, const std::string& type, KernelFactory factory,
             SupportCheck check = SupportCheck());
    /// True if a factory exists for the node's type and it accepts the node (element types,
    /// attributes): asks the op's support check when it has one, else builds the kernel.
    /// Parameter, Result, Constant, ReadValue and Assign are handled by executors and are
    /// reported as supported.
    bool supports(const Node& node) const;
    /// Creates the kernel; throws NotImplemented naming the op type and the reason.
    std::unique_ptr<Kernel> create(const Node& node) const;
    std::vector<std::string> types() const;

  private:
    KernelRegistry();
    struct Entry {
        KernelFactory factory;
        SupportCheck check;  // empty: supports() builds the kernel
        bool builtin = false;
    };
    /// The entry for `node`'s domain and type, or null. Called with m_mutex held.
    const Entry* find_locked(const Node& node) const;
    mutable std::mutex m_mutex;
    bool m_registering_builtins = false;
    std::map<std::pair<std::string, std::string>, Entry> m_factories;  // (domain, type)
};

/// Runs `node` once on `inputs`: infers output shapes from the inputs' shapes and values,
/// allocates outputs, executes. For constant folding, tests and simple interpreters.
std::vector<Tensor> evaluate(const Node& node, const std::vector<Tensor>& inputs);

/// Converts `src` into `dst` element by element, as the Convert op's kernel does. Both must be
/// contiguous host tensors with the same element count, of any static type except the sub-byte
/// ones (u1/u4/i4); shapes may differ. Rules (Convert-1 leaves out-of-range results undefined;
/// ours are defined):
/// - integer -> integer wraps modulo 2^N (e.g. i32 -1 -> u8 255, i32 129 -> i8 -127);
/// - real -> integer truncates toward zero and saturates at the target's range; NaN gives 0;
/// - to a real type rounds to nearest, ties to even (f64 and 64-bit integers reach f16/bf16
///   through f32); NaN and infinities are kept;
/// - anything -> boolean is x != 0 (NaN -> true); boolean -> anything is 0 or 1.
/// Throws InvalidArgument on a count mismatch or a non-contiguous or remote tensor,
/// NotImplemented on an unsupported element type. Thread-safe for distinct destinations.
///
///     Tensor src(element::f32, Shape{4}), dst(element::u8, Shape{2, 2});
///     convert_elements(src, dst);
void convert_elements(const Tensor& src, Tensor& dst);

}  // namespace vireo::reference
