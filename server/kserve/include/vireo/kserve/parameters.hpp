// Names of the ModelInferResponse parameters vireo_server adds to every successful gRPC inference
// (Vireo's own keys; the KServe v2 protocol lets a server add parameters, and other clients ignore
// them). The REMOTE device reads them to split its profile's network + server time.
#pragma once

namespace vireo::kserve {

/// int64_param: microseconds from the request's arrival in the model's queue to the start of its
/// run.
inline constexpr const char* kQueueTimeParameter = "vireo_queue_us";
/// int64_param: microseconds of the run on the server's device (of the whole batch, when the
/// server batched the request with others).
inline constexpr const char* kRunTimeParameter = "vireo_compute_us";

}  // namespace vireo::kserve
