// Registers the built-in reference kernels with the KernelRegistry.
#include "vireo/reference/kernel.hpp"

namespace vireo::reference {

void register_builtin_kernels(KernelRegistry& registry) { (void)registry; }

}  // namespace vireo::reference
