// A request written for plugin ABI 4 (infer() and cancel() of its own), compiled against this
// SDK by the vireo_conformance_abi4_source check: it must fail, and the compiler's messages must
// point at the migration note (CHANGELOG.md) rather than only at the missing overrides.
#include <memory>

#include "vireo/sdk/isync_infer_request.hpp"

class Abi4Request : public vireo::sdk::ISyncInferRequest {
  public:
    using ISyncInferRequest::ISyncInferRequest;
    void infer() override {}
    void cancel() override {}
};

std::shared_ptr<vireo::sdk::ISyncInferRequest> make_request(
    const std::shared_ptr<const vireo::sdk::ICompiledModel>& compiled_model) {
    return std::make_shared<Abi4Request>(compiled_model);
}
