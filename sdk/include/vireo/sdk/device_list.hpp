// Declares the device-list helpers of meta-plugins (HETERO, AUTO, MULTI, BATCH, and out-of-tree
// ones): the MULTI_DEVICE_PRIORITIES text "A,B,C" split and joined, and the list the core adds to
// get_property arguments for a name like "AUTO:A,B".
#pragma once

#include <string>
#include <vector>

#include "vireo/any.hpp"

namespace vireo::sdk {

/// The entries of a device list ("A, B,C" -> {"A", "B", "C"}), spaces around each trimmed, in
/// order. An empty list gives none. An empty entry, or one listed twice, is InvalidArgument
/// starting with `owner` and naming MULTI_DEVICE_PRIORITIES and the list.
std::vector<std::string> split_device_list(const std::string& owner, const std::string& list);

/// The entries joined with `separator` (a list for MULTI_DEVICE_PRIORITIES with ",", a message
/// with ", ").
std::string join_device_list(const std::vector<std::string>& devices,
                             const std::string& separator = ",");

/// For a meta-plugin's get_property: the core passes the list of a name like "HETERO:A,B" as
/// MULTI_DEVICE_PRIORITIES (and BATCH's size as AUTO_BATCH_SIZE) in `arguments`. Removes both
/// from `arguments`, which then holds only what a PropertyTable takes (DEVICE_ID), and returns the
/// list ("" when the name carried none).
std::string take_listed_devices(AnyMap& arguments);

}  // namespace vireo::sdk
