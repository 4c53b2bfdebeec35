// Declares the conversion of a KServe v2 ModelInferRequest into an InferJob for a model version,
// and of the job's outputs into a ModelInferResponse. Independent of the transport so that tests
// and the fuzz target drive it without a server.
#pragma once

#include <memory>

#include "grpc_service.pb.h"
#include "infer_job.hpp"
#include "model_version.hpp"

namespace vireo::server {

/// How the response should carry the outputs: as the request carried its inputs (raw bytes when
/// the request used raw_input_contents or has no inputs; typed contents otherwise, except FP16/BF16
/// outputs, which are always raw, making the whole response raw).
struct GrpcReplyForm {
    bool raw = true;
};

/// Validates `request` against the model's inputs and outputs and fills `job` (inputs, outputs,
/// deadline from the "timeout" parameter in microseconds). Errors are kInvalidArgument naming the
/// field ("inputs[1].contents.fp32_contents", "raw_input_contents[0]", an unknown input or
/// output, a missing input, a wrong datatype or shape).
Status job_from_grpc(const inference::ModelInferRequest& request, const ModelVersion& version,
                     size_t max_bytes, InferJob& job, GrpcReplyForm& form);

/// Same, with the model's inputs and outputs given directly (for tests and fuzzing).
Status job_from_grpc(const inference::ModelInferRequest& request,
                     const std::vector<TensorInfo>& inputs, const std::vector<TensorInfo>& outputs,
                     size_t max_bytes, InferJob& job, GrpcReplyForm& form);

/// Writes `outputs` into `response` (name, datatype, shape, and raw_output_contents or typed
/// contents per `form`); takes the output bytes.
void fill_grpc_response(std::vector<OutputData>& outputs, const GrpcReplyForm& form,
                        inference::ModelInferResponse& response);

}  // namespace vireo::server
