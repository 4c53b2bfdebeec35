// Declares GrpcService: the KServe v2 gRPC service (inference.GRPCInferenceService) on gRPC's
// callback API, with Triton's streaming inference, repository, ModelConfig, ModelStatistics and
// system shared memory RPCs.
#pragma once

#include <condition_variable>
#include <mutex>

#include "grpc_service.grpc.pb.h"
#include "serving_context.hpp"

namespace vireo::server {

/// ModelInfer runs through a reactor: the RPC is parsed and queued on a gRPC thread, the model
/// version's completion callback finishes it, a client cancel (or an expired gRPC deadline)
/// cancels its job, so no gRPC thread waits for an inference. ModelStreamInfer (Triton's streaming
/// extension) is a bidirectional reactor: each request read from the stream is submitted at once
/// and answered by one ModelStreamInferResponse when it finishes (errors in error_message).
/// Repository loads, which compile models for seconds, run on a thread of their own per call.
///
/// Thread safety: gRPC calls the methods from its threads concurrently; the service holds no
/// state besides the shared ServingContext, which must outlive it.
class GrpcService final : public inference::GRPCInferenceService::CallbackService {
  public:
    explicit GrpcService(ServingContext& context) : m_context(context) {}
    /// Waits for repository loads still running on their threads.
    ~GrpcService() override;

    grpc::ServerUnaryReactor* ServerLive(grpc::CallbackServerContext* context,
                                         const inference::ServerLiveRequest* request,
                                         inference::ServerLiveResponse* response) override;
    grpc::ServerUnaryReactor* ServerReady(grpc::CallbackServerContext* context,
                                          const inference::ServerReadyRequest* request,
                                          inference::ServerReadyResponse* response) override;
    grpc::ServerUnaryReactor* ModelReady(grpc::CallbackServerContext* context,
                                         const inference::ModelReadyRequest* request,
                                         inference::ModelReadyResponse* response) override;
    grpc::ServerUnaryReactor* ServerMetadata(grpc::CallbackServerContext* context,
                                             const inference::ServerMetadataRequest* request,
                                             inference::ServerMetadataResponse* response) override;
    grpc::ServerUnaryReactor* ModelMetadata(grpc::CallbackServerContext* context,
                                            const inference::ModelMetadataRequest* request,
                                            inference::ModelMetadataResponse* response) override;
    grpc::ServerUnaryReactor* ModelInfer(grpc::CallbackServerContext* context,
                                         const inference::ModelInferRequest* request,
                                         inference::ModelInferResponse* response) override;
    grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse>*
    ModelStreamInfer(grpc::CallbackServerContext* context) override;
    grpc::ServerUnaryReactor* ModelConfig(grpc::CallbackServerContext* context,
                                          const inference::ModelConfigRequest* request,
                                          inference::ModelConfigResponse* response) override;
    grpc::ServerUnaryReactor* ModelStatistics(
        grpc::CallbackServerContext* context, const inference::ModelStatisticsRequest* request,
        inference::ModelStatisticsResponse* response) override;
    grpc::ServerUnaryReactor* RepositoryIndex(
        grpc::CallbackServerContext* context, const inference::RepositoryIndexRequest* request,
        inference::RepositoryIndexResponse* response) override;
    grpc::ServerUnaryReactor* RepositoryModelLoad(
        grpc::CallbackServerContext* context, const inference::RepositoryModelLoadRequest* request,
        inference::RepositoryModelLoadResponse* response) override;
    grpc::ServerUnaryReactor* RepositoryModelUnload(
        grpc::CallbackServerContext* context,
        const inference::RepositoryModelUnloadRequest* request,
        inference::RepositoryModelUnloadResponse* response) override;
    grpc::ServerUnaryReactor* SystemSharedMemoryStatus(
        grpc::CallbackServerContext* context,
        const inference::SystemSharedMemoryStatusRequest* request,
        inference::SystemSharedMemoryStatusResponse* response) override;
    grpc::ServerUnaryReactor* SystemSharedMemoryRegister(
        grpc::CallbackServerContext* context,
        const inference::SystemSharedMemoryRegisterRequest* request,
        inference::SystemSharedMemoryRegisterResponse* response) override;
    grpc::ServerUnaryReactor* SystemSharedMemoryUnregister(
        grpc::CallbackServerContext* context,
        const inference::SystemSharedMemoryUnregisterRequest* request,
        inference::SystemSharedMemoryUnregisterResponse* response) override;

  private:
    grpc::ServerUnaryReactor* finish(grpc::CallbackServerContext* context, const Status& status,
                                     const std::string& model, const char* method,
                                     Clock::time_point start);

    ServingContext& m_context;
    std::mutex m_loads_mutex;
    std::condition_variable m_loads_done;
    int m_loads = 0;  // RepositoryModelLoad threads running
};

/// The gRPC status of a server Status.
grpc::Status to_grpc(const Status& status);

}  // namespace vireo::server
