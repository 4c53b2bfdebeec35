// Declares the OpenVINO IR (v10/v11 .xml + .bin) reader and the IR v11 writer.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>

#include "vireo/model.hpp"
#include "vireo/tensor.hpp"

namespace vireo {

/// Reads an OpenVINO IR model (`<net version="10">` or `"11"`) from `xml_path` and its weights
/// from `bin_path`.
///
/// - `bin_path` empty: the .xml path with its extension replaced by ".bin". That derived file
///   may be missing when no Const layer needs bytes from it; an explicit `bin_path` must exist.
/// - The .bin is memory-mapped read-only; each Constant wraps its bytes in the mapping with no
///   copy (Tensor::wrap_shared, the mapping as owner), so the file stays mapped while any
///   Constant, clone or tensor of it lives. A Constant whose offset is not a multiple of its
///   element size is copied instead, so kernels never see a misaligned pointer.
/// - Layer `<data>` attributes are parsed according to the op's AttrSpecs; an attribute the op
///   does not define is ignored with a glog warning naming the layer and attribute.
/// - Parameters and Results keep the order in which their layers appear in the XML; Assign
///   layers become the model's sinks. The model's rt_info gets "version" (int64_t, 10 or 11)
///   and the net-level `<rt_info>` entries as strings, nested elements flattened to "a/b" keys.
/// - IR v10: a Parameter output without tensor names gets the layer name; a Result whose input
///   has no tensor names gives it the Result's name and the producing layer's name.
///
/// Errors: NotFound if the .xml (or a needed .bin) does not exist; InvalidArgument for any
/// malformed content, with a message naming the file and the layer (id and name), edge or
/// attribute at fault. Never crashes or reads out of bounds on hostile input.
/// Thread safety: reentrant; concurrent reads are fine. Custom ops must be registered in the
/// OpRegistry before their IR is read.
///
///     auto model = vireo::read_model("model.xml");           // weights from model.bin
///     model->input("x").get_partial_shape();                 // [1,3,224,224]
std::shared_ptr<Model> read_model(const std::string& xml_path, const std::string& bin_path = "");

/// Reads IR text with the weights already in memory. `weights` may be empty (no Constants);
/// otherwise it must be a contiguous host tensor (any element type: its bytes are used).
/// Constants share `weights`' memory (they hold a copy of the handle), so memory the caller
/// wrapped must outlive the model. Errors as read_model (never NotFound).
std::shared_ptr<Model> read_model_from_string(const std::string& xml_text, const Tensor& weights);

/// Writes `model` as IR v11 that reads back to an identical graph (op types and versions,
/// attributes, friendly names, tensor names, shapes, constant bytes, rt_info as text) and so to
/// identical results. Layer ids follow Model::get_ordered_ops(); Constants are written as
/// type "Const" with 64-byte aligned offsets into the .bin, byte-identical Constants sharing
/// one copy. Custom-domain ops write their domain as `version`. The output is deterministic.
/// Dimension bounds survive only in Parameter shapes (port `<dim>`s write -1 for any dynamic
/// dimension, as OpenVINO does).
///
/// `bin_path` empty means the .xml path with extension ".bin". Throws InvalidArgument if a
/// file cannot be written (naming it and the reason) or the model holds something IR cannot
/// express (a remote Constant).
///
///     vireo::serialize(*model, "out.xml", "out.bin");
void serialize(const Model& model, const std::string& xml_path, const std::string& bin_path = "");
/// Same, into streams (opened in binary mode for `bin`). Throws InvalidArgument if a stream
/// fails.
void serialize(const Model& model, std::ostream& xml, std::ostream& bin);

}  // namespace vireo
