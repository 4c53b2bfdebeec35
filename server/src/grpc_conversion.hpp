// Declares the conversion of a KServe v2 ModelInferRequest into an InferJob for a model version,
// and of the job's outputs into a ModelInferResponse. Independent of the transport so that tests
// and the fuzz target drive it without a server.
#pragma once

#include <memory>

#include "grpc_service.pb.h"
#include "infer_job.hpp"
#include "model_version.hpp"
#include "shared_memory.hpp"

namespace vireo::server {

/// How the response should carry the outputs: as the request carried its inputs (raw bytes when
/// the request used raw_input_contents or sent every input through shared memory; typed contents
/// otherwise, except FP16/BF16 outputs, which are always raw, making the whole response raw).
/// Outputs requested in shared memory are written there (write_shared_memory_outputs) and carry
/// only their shared_memory_* parameters in the response; the form holds their regions until the
/// response is sent.
struct GrpcReplyForm {
    bool raw = true;
    SharedMemoryOutputs shm_outputs;
};

/// Validates `request` against the model's inputs and outputs and fills `job` (inputs, outputs,
/// deadline from the "timeout" parameter in microseconds). Errors are kInvalidArgument naming the
/// field ("inputs[1].contents.fp32_contents", "raw_input_contents[0]", an unknown input or
/// output, a missing input, a wrong datatype or shape). An input or requested output with
/// shared_memory_* parameters is read from / bound to a region of `shared_memory` (errors as
/// SharedMemory::resolve); raw_input_contents then has one entry per input not in shared memory,
/// as tritonclient sends it. Without `shared_memory` such parameters are refused.
Status job_from_grpc(const inference::ModelInferRequest& request, const ModelVersion& version,
                     size_t max_bytes, InferJob& job, GrpcReplyForm& form,
                     const SharedMemory* shared_memory = nullptr);

/// Same, with the model's inputs and outputs given directly (for tests and fuzzing).
Status job_from_grpc(const inference::ModelInferRequest& request,
                     const std::vector<TensorInfo>& inputs, const std::vector<TensorInfo>& outputs,
                     size_t max_bytes, InferJob& job, GrpcReplyForm& form,
                     const SharedMemory* shared_memory = nullptr);

/// Writes `outputs` into `response` (name, datatype, shape, and raw_output_contents or typed
/// contents per `form`); takes the output bytes. An output in `form.shm_outputs` gets the
/// parameters shared_memory_region, shared_memory_offset and shared_memory_byte_size (the bytes
/// written) and no contents; in a raw response its raw_output_contents entry is empty, so that
/// entries stay one per output.
void fill_grpc_response(std::vector<OutputData>& outputs, const GrpcReplyForm& form,
                        inference::ModelInferResponse& response);

}  // namespace vireo::server
