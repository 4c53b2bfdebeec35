// Declares DeviceName, the parsed form of "NAME", "NAME.N" and the meta-device grammar
// "META:A,B" / "META:A(4)".
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "plugin_descriptor.hpp"  // MetaDeviceGrammar

namespace vireo::runtime {

/// "TEMPLATE" -> {TEMPLATE, ""}; "MOCK_REMOTE.1" -> {MOCK_REMOTE, "1"}. The split is at the
/// first '.', so "GPU.0.1" has id "0.1".
///
/// Meta-devices: "HETERO:A,B" -> {HETERO, "", devices {A, B}}; the core passes the list to the
/// plugin as device::priorities = "A,B". Each listed device is "NAME" or "NAME.N" (no nesting).
/// A device whose META_DEVICE is BATCH (its registration's, else its plugin's) takes exactly one
/// device and an optional "(N)":
/// "BATCH:A(4)" -> {BATCH, "", devices {A}, batch 4}; "BATCH:A" leaves the size to the device.
/// Every other name (declared LIST, or not declared) takes the list, so a meta-device of any name,
/// in-tree or not, gets the grammar it declares.
struct DeviceName {
    std::string name;                  ///< the registered plugin name
    std::string id;                    ///< the instance id, empty for the default instance
    std::vector<std::string> devices;  ///< "META:list": the listed devices, in order
    uint32_t batch_size = 0;           ///< a batch device's "NAME:A(N)": N; 0 when not given
    bool meta = false;                 ///< the name had a ':' list

    /// What a registered name declared; a null function declares nothing.
    using GrammarOf = std::function<MetaDeviceGrammar(const std::string& name)>;

    /// Throws InvalidArgument naming the text for an empty name, an empty part ("X.", ".1",
    /// "HETERO:", "HETERO:A,,B"), whitespace, a nested list, a "(N)" on a list device, or for a
    /// batch device a bad size ("BATCH:A(x)") or other than one device.
    static DeviceName parse(const std::string& device, const GrammarOf& grammar_of = {});
    /// "NAME.N", "NAME", or "META:A,B" / "META:A(4)" as given.
    std::string full() const;
    /// The listed devices as device::priorities' value: "A,B".
    std::string priorities() const;
};

/// Throws InvalidArgument unless `name` can be registered: not empty, no '.', ':', ',', '(' or
/// ')', no whitespace.
void check_registrable_name(const std::string& name);

}  // namespace vireo::runtime
