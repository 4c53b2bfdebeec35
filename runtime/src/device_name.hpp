// Declares DeviceName, the parsed form of "NAME", "NAME.N" and the meta-device grammar
// "META:A,B" / "BATCH:A(4)".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vireo::runtime {

/// "TEMPLATE" -> {TEMPLATE, ""}; "MOCK_REMOTE.1" -> {MOCK_REMOTE, "1"}. The split is at the
/// first '.', so "GPU.0.1" has id "0.1".
///
/// Meta-devices: "HETERO:A,B" -> {HETERO, "", devices {A, B}}; the core passes the list to the
/// plugin as device::priorities = "A,B". Each listed device is "NAME" or "NAME.N" (no nesting).
/// "BATCH:A(4)" -> {BATCH, "", devices {A}, batch 4}; "BATCH:A" leaves the size to the device.
/// The grammar is the same for every name, so out-of-tree meta-devices get it too; only BATCH
/// takes a "(N)" suffix and exactly one device.
struct DeviceName {
    std::string name;                  ///< the registered plugin name
    std::string id;                    ///< the instance id, empty for the default instance
    std::vector<std::string> devices;  ///< "META:list": the listed devices, in order
    uint32_t batch_size = 0;           ///< "BATCH:A(N)": N; 0 when not given
    bool meta = false;                 ///< the name had a ':' list

    /// Throws InvalidArgument naming the text for an empty name, an empty part ("X.", ".1",
    /// "HETERO:", "HETERO:A,,B"), whitespace, a nested list, or a bad batch ("BATCH:A(x)").
    static DeviceName parse(const std::string& device);
    /// "NAME.N", "NAME", or "META:A,B" / "BATCH:A(4)" as given.
    std::string full() const;
    /// The listed devices as device::priorities' value: "A,B".
    std::string priorities() const;
};

/// Throws InvalidArgument unless `name` can be registered: not empty, no '.', ':', ',', '(' or
/// ')', no whitespace.
void check_registrable_name(const std::string& name);

}  // namespace vireo::runtime
