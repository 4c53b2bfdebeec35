// Declares HETERO's export format: a header naming the parts and their devices, the original
// model, then each part's own blob.
#pragma once

#include <istream>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "graph_splitter.hpp"

namespace hetero {

/// What export_model writes and import_model reads (integers little-endian, strings as u64
/// length + bytes):
///   magic "VIREOHET", format version u32 (1),
///   the original model as IR v11: xml, weights,
///   profiling u8, devices asked (string, "A,B"),
///   affinity: u32 count, then (op friendly name, device) pairs,
///   parts: u32 count, then per part: device, u32 inputs + (slot kind u8, index u64) each,
///   u32 outputs + slots, and the part's blob as CompiledModel::export_model wrote it (with the
///   core's header naming the part's plugin, so importing it checks plugin and version).
/// Cuts and pass-throughs are not stored: they follow from the parts' ports and the model.
struct HeteroBlob {
    std::string model_xml;
    std::string model_weights;
    bool profiling = false;
    std::string devices;
    std::map<std::string, std::string> affinity;
    struct Part {
        std::string device;
        std::vector<Slot> inputs;
        std::vector<Slot> outputs;
        std::string blob;
    };
    std::vector<Part> parts;
};

void write_hetero_blob(std::ostream& out, const HeteroBlob& blob);
/// Throws InvalidArgument for another format, a newer version, or a truncated or damaged blob.
HeteroBlob read_hetero_blob(std::istream& in);

}  // namespace hetero
