// Fuzz target: any bytes parsed as a ModelInferRequest must convert into a job or be refused with
// a Status naming the field; never a crash or an allocation past the size limit.
#include <cstdint>

#include "grpc_conversion.hpp"

namespace {

const std::vector<vireo::server::TensorInfo> kInputs = {
    {"x", vireo::element::f32, {1, -1}},
    {"i", vireo::element::i8, {-1}},
    {"h", vireo::element::bf16, {2}},
};
const std::vector<vireo::server::TensorInfo> kOutputs = {{"y", vireo::element::f32, {1, -1}}};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    inference::ModelInferRequest request;
    if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;
    vireo::server::InferJob job;
    vireo::server::GrpcReplyForm form;
    const auto status =
        vireo::server::job_from_grpc(request, kInputs, kOutputs, 1 << 20, job, form);
    if (status.ok()) {
        std::vector<vireo::server::OutputData> outputs;
        for (const auto& [index, tensor] : job.inputs) {
            vireo::server::OutputData out{kInputs[index].name, tensor.get_element_type(), {}, {}};
            out.bytes.assign(static_cast<const char*>(tensor.data()), tensor.get_byte_size());
            outputs.push_back(std::move(out));
        }
        inference::ModelInferResponse response;
        vireo::server::fill_grpc_response(outputs, form, response);
    }
    return 0;
}
