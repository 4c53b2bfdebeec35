// Declares the HETERO split: subgraphs of one device without cycles between them, turned into
// submodels plus the slots (tensors) that connect them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "affinity.hpp"
#include "vireo/model.hpp"
#include "vireo/tensor.hpp"

namespace hetero {

/// Where a submodel's port finds its tensor: the HETERO request's input k, its output k, or
/// intermediate tensor c (a cut). A cut is one tensor: the producer writes it, consumers read it.
struct Slot {
    enum class Kind { kInput, kOutput, kCut };
    Kind kind = Kind::kCut;
    size_t index = 0;
    bool operator==(const Slot& o) const { return kind == o.kind && index == o.index; }
};

/// One part of the model, run by one device.
struct Submodel {
    std::string device;
    std::shared_ptr<vireo::Model> model;
    std::vector<Slot> inputs;   ///< one per Parameter of `model`, in order
    std::vector<Slot> outputs;  ///< one per Result of `model`, in order
};

/// An intermediate tensor between two submodels.
struct Cut {
    vireo::element::Type type;
    vireo::PartialShape shape;
    std::string name;  ///< "<producer friendly name>:<port>", for messages
};

/// A model output that no device computes: a copy of input `input`, or of `constant`.
struct Passthrough {
    size_t output = 0;
    std::optional<size_t> input;
    vireo::Tensor constant;
};

struct SplitPlan {
    std::vector<Submodel> submodels;  ///< in an order where producers come before consumers
    std::vector<Cut> cuts;
    std::vector<Passthrough> passthroughs;
};

/// Splits `model` by `affinity` (every op but Parameters, Constants and Results must have one):
/// - ops are grouped into subgraphs, visiting ops in topological order: an op joins the
///   subgraph of one of its producers on the same device unless that would make a cycle between
///   subgraphs (another producer's subgraph already depends on that one); then subgraphs of one
///   device are merged when no path leads from one to the other through a third. So subgraphs
///   can always be ordered, and a device gets as few submodels as the graph allows;
/// - each subgraph becomes a Model: its ops cloned (same friendly names, tensor names and
///   rt_info), a Parameter per distinct value it reads from outside (a copy of the model's
///   Parameter, same names, for a model input; a new one for a cut), Constants copied into every
///   submodel that uses them (data shared), a Result per model output it computes and one per
///   value read by later submodels (unless a model output already carries it: then the
///   consumers read the output's tensor), and its Assigns as sinks;
/// - a Parameter may feed several submodels (each binds the same input tensor), an unused
///   Parameter feeds none, and a Result fed by a Parameter or a Constant is a Passthrough.
/// Throws NotImplemented if a variable's ReadValue and Assign still land in different
/// submodels (only when other devices' ops sit between parts of the variable's subgraph).
SplitPlan split_model(const vireo::Model& model, const Affinity& affinity);

/// The model outputs fed directly by a Parameter or a Constant (what split_model puts in
/// SplitPlan::passthroughs), for rebuilding a compiled model from its export.
std::vector<Passthrough> passthroughs_of(const vireo::Model& model);

/// Slots as an export blob section holds them: 9 bytes each, the kind (u8) then the index (u64
/// little-endian).
std::string encode_slots(const std::vector<Slot>& slots);
/// Throws InvalidArgument naming `what` for a size that is not a multiple of 9 or a bad kind.
std::vector<Slot> decode_slots(const std::string& bytes, const std::string& what);

}  // namespace hetero
