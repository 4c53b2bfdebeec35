// hello_query_device: lists every available device with its version, capabilities and the
// current value of every property it supports.
#include <gflags/gflags.h>
#include <glog/logging.h>

#include <cstdio>

#include "sample_utils.hpp"
#include "vireo/core.hpp"

DEFINE_string(plugins_xml, "", "plugins.xml to use instead of the default.");

namespace {

int run(int argc, char** argv) {
    gflags::SetUsageMessage(
        "hello_query_device [--plugins_xml FILE]: prints every device and its properties");
    if (vireo::samples::show_help_if_asked(argc, argv, "samples/hello_query_device/")) return 0;
    gflags::ParseCommandLineFlags(&argc, &argv, true);
    google::InitGoogleLogging(argv[0]);
    FLAGS_logtostderr = true;
    if (argc > 1)
        vireo::throw_error<vireo::InvalidArgument>("unexpected argument '", argv[1],
                                                   "' (see --help)");

    vireo::Core core(FLAGS_plugins_xml);
    const auto& runtime = vireo::get_version();
    std::printf("Vireo runtime %s\n\nAvailable devices:\n", runtime.build_number.c_str());
    const auto devices = core.get_available_devices();
    if (devices.empty()) std::printf("  (none)\n");
    for (const auto& device : devices) {
        std::printf("%s\n", device.c_str());
        for (const auto& [name, version] : core.get_versions(device))
            std::printf("  Version: %s %s\n", version.description.c_str(),
                        version.build_number.c_str());
        std::printf("  SUPPORTED_PROPERTIES:\n");
        for (const auto& key : core.get_property(device, vireo::supported_properties)) {
            if (key == vireo::supported_properties.name()) continue;
            std::string value;
            try {
                value = core.get_property(device, key).as<std::string>();
            } catch (const std::exception& e) {
                value = std::string("<error: ") + e.what() + ">";
            }
            if (value.empty()) value = "\"\"";
            std::printf("    %s: %s : %s\n", key.is_mutable() ? "Mutable" : "Immutable",
                        key.c_str(), value.c_str());
        }
        std::printf("\n");
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return vireo::samples::run_main(run, argc, argv);
}
