// Helpers shared by the IR tests: test data paths, temporary files, a custom test op set,
// whole-graph comparison and a node-by-node reference interpreter.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "vireo/ir.hpp"
#include "vireo/model.hpp"
#include "vireo/op_registry.hpp"

namespace vireo::ir_test {

/// `relative` under tests/data.
std::string data_path(const std::string& relative);
/// A fresh, empty directory for the running test (removed by the next run of the same test).
std::string temp_dir();
std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& bytes);
/// A u8 tensor holding a copy of `bytes` (weights for read_model_from_string).
Tensor bytes_tensor(const std::string& bytes);

/// Registers, once, ops in domain "ir_test":
/// - "AllAttrs"-1: 1 input -> same type/shape; one attribute of every AttrType, all optional,
///   plus required int "count";
/// - "Split2"-1: 1 input -> 2 outputs, both like the input.
void register_test_ops();
/// A node of op `type`-`version` in `domain` (make_node() knows the standard domain only).
NodePtr make_domain_node(const std::string& type, int version, const std::string& domain,
                         const OutputVector& inputs,
                         std::map<std::string, AttrValue> attributes = {});

/// Asserts that `b` is the same graph as `a`: ordered ops pairwise (type, version, domain,
/// friendly name, attributes, input wiring, output types/shapes/names, constant bytes),
/// parameter/result/sink order, model name, and rt_info as text (the "version" key excepted).
void expect_same_graph(const Model& a, const Model& b);

/// Serializes to memory and reads back with read_model_from_string.
std::shared_ptr<Model> round_trip(const Model& model, std::string* xml = nullptr,
                                  std::string* bin = nullptr);

/// Runs the model with the reference kernels, one node at a time (Parameters bound from
/// `inputs` in order); returns the Results' values in order.
std::vector<Tensor> run_reference(const Model& model, const std::vector<Tensor>& inputs);

/// A little-endian f32 .npy file as a tensor (the golden inputs and outputs).
Tensor read_npy_f32(const std::string& path);

}  // namespace vireo::ir_test
