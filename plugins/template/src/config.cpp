// Implements the TEMPLATE plugin's property table.
#include "config.hpp"

namespace vireo::template_plugin {

std::unique_ptr<sdk::PropertyTable> make_property_table() {
    namespace cap = device::capability;
    return std::make_unique<sdk::PropertyTable>(
        kDeviceName,
        std::vector<sdk::PropertySpec>{
            sdk::common::full_name(
                [](const std::string&) { return "Vireo TEMPLATE reference interpreter"; }),
            sdk::common::device_type(device::Type::REFERENCE),
            sdk::common::capabilities({cap::kFP32, cap::kFP16, cap::kExportImport,
                                       cap::kDynamicShapes, cap::kStates, cap::kProfiling}),
            sdk::common::performance_hint(), sdk::common::num_streams(),
            sdk::common::inference_num_threads(), sdk::common::hint_num_requests(),
            sdk::common::profiling()});
}

}  // namespace vireo::template_plugin
