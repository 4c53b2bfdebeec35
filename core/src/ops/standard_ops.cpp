// Registers every standard op definition with the OpRegistry.
#include "ops/op_helpers.hpp"

namespace vireo {

void register_standard_ops(OpRegistry& registry) {
    ops_impl::register_io_ops(registry);
}

}  // namespace vireo
