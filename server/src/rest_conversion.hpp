// Declares the KServe v2 REST body handling: parsing an infer request (JSON, or JSON followed by
// binary tensor data per Triton's binary tensor extension) into an InferJob, and writing the
// response. Independent of the HTTP library so that tests and the fuzz target drive it directly.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "infer_job.hpp"
#include "shared_memory.hpp"
#include "status.hpp"

namespace vireo::server {

/// What the response must look like, from the request.
struct RestReplyForm {
    std::string id;
    bool id_given = false;
    bool all_binary = false;               // parameters.binary_data_output
    std::set<std::string> binary_outputs;  // outputs[].parameters.binary_data
    SharedMemoryOutputs shm_outputs;       // outputs[].parameters.shared_memory_*; held until sent
};

/// Limits applied to a request body.
struct RestLimits {
    size_t max_bytes = 256u << 20;  // tensor bytes
    int max_depth = 32;             // JSON nesting
};

/// Deepest nesting of objects and arrays in `json` (strings skipped), stopping early once past
/// `stop_at`. Linear time and constant memory: run before the parser so that a body nested a
/// million deep is refused without being parsed.
int json_depth(std::string_view json, int stop_at);

/// Parses an infer request body. `header_length` is the Inference-Header-Content-Length value, or
/// npos when the body is all JSON. Fills `job` (inputs, outputs, deadline from the "timeout"
/// parameter in microseconds) and `form`. Errors are kInvalidArgument naming the field. An input
/// or requested output with shared_memory_* parameters is read from / bound to a region of
/// `shared_memory` (errors as SharedMemory::resolve; such an input has neither `data` nor
/// `binary_data_size`). Without `shared_memory` such parameters are refused.
Status job_from_rest(std::string_view body, size_t header_length,
                     const std::vector<TensorInfo>& inputs, const std::vector<TensorInfo>& outputs,
                     const RestLimits& limits, InferJob& job, RestReplyForm& form,
                     const SharedMemory* shared_memory = nullptr);

/// The response body for `outputs`. `header_length` is set to the JSON part's length when binary
/// output data follows it, else npos. Takes the outputs' bytes. An output in `form.shm_outputs`
/// (already written there) has parameters shared_memory_region, shared_memory_offset and
/// shared_memory_byte_size (the bytes written) and no data. With `timed` (the finished job), the
/// response's parameters carry its vireo_queue_us and vireo_compute_us (as gRPC replies do).
std::string render_rest_response(const std::string& model, int64_t version,
                                 const RestReplyForm& form, std::vector<OutputData>& outputs,
                                 size_t& header_length, const InferJob* timed = nullptr);

/// {"error": message} as JSON.
std::string error_json(const std::string& message);

}  // namespace vireo::server
