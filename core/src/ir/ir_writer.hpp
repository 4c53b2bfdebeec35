// Declares IrWriter, which writes a Model as IR v11 XML plus its .bin (internal; the public
// entry points are in vireo/ir.hpp).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "vireo/model.hpp"

namespace tinyxml2 {
class XMLPrinter;
}

namespace vireo::ir {

/// Writes one model. Single use: construct, call write() once.
class IrWriter {
  public:
    explicit IrWriter(const Model& model) : m_model(model) {}
    /// Throws InvalidArgument if a stream fails or a Constant cannot be written (remote data).
    void write(std::ostream& xml, std::ostream& bin);

  private:
    /// <layers> and <edges> of `model` (the net itself, or a sub-graph op's body).
    void write_graph(tinyxml2::XMLPrinter& out, const Model& model);
    void write_layer(tinyxml2::XMLPrinter& out, const Node& node, size_t id);
    /// If/Loop: the port maps, back edges and bodies (ir_writer_subgraph.cpp).
    void write_subgraph(tinyxml2::XMLPrinter& out, const Node& node);
    void write_constant_data(tinyxml2::XMLPrinter& out, const Node& node);
    void write_rt_info(tinyxml2::XMLPrinter& out) const;
    /// Offset of `value`'s bytes in the .bin, appending them (64-byte aligned) unless a
    /// byte-identical constant was written already.
    uint64_t place_constant(const Tensor& value);

    struct Placed {
        uint64_t offset;
        Tensor value;  // kept to compare bytes against later constants
    };

    const Model& m_model;
    std::ostream* m_bin = nullptr;
    uint64_t m_bin_size = 0;
    std::unordered_map<size_t, std::vector<Placed>> m_placed;  // by dedup_key() of the bytes
    std::unordered_map<const Node*, size_t> m_ids;  // layer id of every node of every graph written
};

}  // namespace vireo::ir
