// Defines the detection ops: NonMaxSuppression-9 (outputs padded to their upper bound, the count
// of valid rows in valid_outputs) and ROIAlign-9.
#include "ops/op_helpers.hpp"

namespace vireo::ops_impl {
namespace {

// NonMaxSuppression-9: boxes [B, N, 4], scores [B, C, N] [, max_output_boxes_per_class,
// iou_threshold, score_threshold, soft_nms_sigma]. Outputs selected_indices [M, 3] (output_type),
// selected_scores [M, 3] (the scores' type) and valid_outputs [1] (output_type), with
// M = B * C * min(N, max_output_boxes_per_class) (0 without that input).
Outputs infer_nms(const Node& node, const Inputs& in) {
    const auto out_type = node.get_attribute<element::Type>("output_type");
    if (out_type != element::i32 && out_type != element::i64)
        throw_error<InvalidArgument>(node.describe(), ": output_type must be i32 or i64, got ",
                                     out_type);
    const element::Type score_type = merge_types(node, in, 0, 1);
    check_type(node, in, 0, "boxes", is_real, "a floating-point type");
    check_rank(node, in, 0, "boxes", 3, 3);
    check_rank(node, in, 1, "scores", 3, 3);
    if (in.size() > 2)
        check_type(node, in, 2, "max_output_boxes_per_class", is_integral_number,
                   "an integer type");
    const char* names[] = {"boxes",         "scores",          "max_output_boxes_per_class",
                           "iou_threshold", "score_threshold", "soft_nms_sigma"};
    for (size_t i = 2; i < in.size(); ++i) check_scalar_input(node, in, i, names[i]);
    for (size_t i = 3; i < in.size(); ++i)
        check_type(node, in, i, names[i], is_real, "a floating-point type");
    const PartialShape& boxes = in[0].shape;
    const PartialShape& scores = in[1].shape;
    Dimension batches, num_boxes, classes;
    if (boxes.rank_is_static()) {
        batches = boxes[0];
        num_boxes = boxes[1];
        if (!boxes[2].compatible(4))
            throw_error<InvalidArgument>(node.describe(), ": boxes ", boxes,
                                         " must have 4 coordinates per box");
    }
    if (scores.rank_is_static()) {
        classes = scores[1];
        if (!Dimension::merge(batches, batches, scores[0]) ||
            !Dimension::merge(num_boxes, num_boxes, scores[2]))
            throw_error<InvalidArgument>(node.describe(), ": scores ", scores,
                                         " do not match boxes ", boxes,
                                         " (expected [batches, classes, boxes])");
    }
    Dimension rows;
    std::optional<int64_t> max_boxes = int64_t{0};
    if (in.size() > 2) max_boxes = scalar_value(node, in, 2, "max_output_boxes_per_class");
    if (max_boxes && batches.is_static() && classes.is_static() && num_boxes.is_static())
        rows = Dimension(batches.get_length() * classes.get_length() *
                         std::min(num_boxes.get_length(), std::max<int64_t>(*max_boxes, 0)));
    return {{out_type, PartialShape{rows, 3}},
            {score_type, PartialShape{rows, 3}},
            {out_type, PartialShape{1}}};
}

// ROIAlign-9: data [N, C, H, W], rois [R, 4], batch_indices [R] -> [R, C, pooled_h, pooled_w].
Outputs infer_roi_align(const Node& node, const Inputs& in) {
    const element::Type type = merge_types(node, in, 0, 1);
    check_type(node, in, 0, "data", is_real, "a floating-point type");
    check_type(node, in, 2, "batch_indices", is_integral_number, "an integer type");
    check_rank(node, in, 0, "data", 4, 4);
    check_rank(node, in, 1, "rois", 2, 2);
    check_rank(node, in, 2, "batch_indices", 1, 1);
    const int64_t ph = node.get_attribute<int64_t>("pooled_h"),
                  pw = node.get_attribute<int64_t>("pooled_w");
    if (ph < 1 || pw < 1)
        throw_error<InvalidArgument>(
            node.describe(), ": pooled_h and pooled_w must be positive, got ", ph, " and ", pw);
    if (node.get_attribute<int64_t>("sampling_ratio") < 0)
        throw_error<InvalidArgument>(node.describe(), ": sampling_ratio must be non-negative, got ",
                                     node.get_attribute<int64_t>("sampling_ratio"));
    if (!(node.get_attribute<double>("spatial_scale") > 0))
        throw_error<InvalidArgument>(node.describe(), ": spatial_scale must be positive, got ",
                                     node.get_attribute<double>("spatial_scale"));
    Dimension rois, channels;
    if (in[1].shape.rank_is_static()) {
        rois = in[1].shape[0];
        if (!in[1].shape[1].compatible(4))
            throw_error<InvalidArgument>(node.describe(), ": rois ", in[1].shape,
                                         " must be [NUM_ROIS, 4]");
    }
    if (in[2].shape.rank_is_static() && !Dimension::merge(rois, rois, in[2].shape[0]))
        throw_error<InvalidArgument>(node.describe(), ": batch_indices ", in[2].shape,
                                     " must have one entry per roi of ", in[1].shape);
    if (in[0].shape.rank_is_static()) channels = in[0].shape[1];
    return {{type, PartialShape{rois, channels, Dimension(ph), Dimension(pw)}}};
}

}  // namespace

void register_detection_ops(OpRegistry& r) {
    r.add(OpDef{"NonMaxSuppression",
                9,
                "",
                2,
                6,
                {optional_attr("box_encoding", AttrType::kString, std::string("corner"),
                               {"corner", "center"}),
                 optional_attr("sort_result_descending", AttrType::kBool, true),
                 optional_attr("output_type", AttrType::kElementType, element::i64)},
                infer_nms,
                {}});
    r.add(
        OpDef{"ROIAlign",
              9,
              "",
              3,
              3,
              {required_attr("pooled_h", AttrType::kInt), required_attr("pooled_w", AttrType::kInt),
               required_attr("sampling_ratio", AttrType::kInt),
               required_attr("spatial_scale", AttrType::kFloat),
               required_attr("mode", AttrType::kString, {"avg", "max"}),
               optional_attr("aligned_mode", AttrType::kString, std::string("asymmetric"),
                             {"asymmetric", "half_pixel_for_nn", "half_pixel"})},
              infer_roi_align,
              {}});
}

}  // namespace vireo::ops_impl
