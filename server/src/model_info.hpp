// Declares the contents of Triton's ModelConfig and ModelStatistics for a served model, shared by
// the gRPC RPCs and the REST endpoints (GET /v2/models/{m}/config and /stats).
#pragma once

#include <string>

#include "grpc_service.pb.h"
#include "model_manager.hpp"

namespace vireo::server {

/// Fills `config` for model `name` (the version `version_text`, or the highest ready one): inputs
/// and outputs (without the batch dimension when dynamic batching is on, as Triton's clients
/// expect), version policy, batching, instance group count = nireq, parameters (target device and
/// plugin config). kNotFound / kUnavailable as ModelManager::find.
Status describe_model_config(const ModelManager& models, const std::string& name,
                             const std::string& version_text, inference::ModelConfig& config);

/// Appends the statistics of every loaded version matching `name` and `version_text` (empty:
/// any). kNotFound when a name is given and nothing matches.
Status collect_statistics(const ModelManager& models, const std::string& name,
                          const std::string& version_text,
                          inference::ModelStatisticsResponse& response);

}  // namespace vireo::server
