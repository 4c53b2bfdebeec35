// Defines the graph-boundary ops: Parameter, Constant and Result.
#include "ops/op_helpers.hpp"

namespace vireo::ops_impl {

void register_io_ops(OpRegistry& r) {
    r.add(OpDef{"Parameter",
                1,
                "",
                0,
                0,
                {{"element_type", AttrType::kElementType, std::nullopt, {}},
                 {"shape", AttrType::kShape, std::nullopt, {}}},
                [](const Node& node, const std::vector<InferInput>&) {
                    return std::vector<InferOutput>{
                        {node.get_attribute<element::Type>("element_type"),
                         node.get_attribute<PartialShape>("shape")}};
                },
                {}});
    // Constant's value lives in the node (Node::get_constant_value), not in attributes; the IR
    // reader maps element_type/shape/offset/size onto it.
    r.add(
        OpDef{"Constant",
              1,
              "",
              0,
              0,
              {},
              [](const Node& node, const std::vector<InferInput>&) {
                  const Tensor& value = node.get_constant_value();
                  if (!value)
                      return std::vector<InferOutput>{{element::dynamic, PartialShape::dynamic()}};
                  return std::vector<InferOutput>{
                      {value.get_element_type(), PartialShape(value.get_shape())}};
              },
              {"Const"}});
    r.add(OpDef{"Result",
                1,
                "",
                1,
                1,
                {},
                [](const Node&, const std::vector<InferInput>& in) {
                    return std::vector<InferOutput>{{in[0].type, in[0].shape}};
                },
                {}});
}

}  // namespace vireo::ops_impl
