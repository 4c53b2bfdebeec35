// Fuzz target: a REST infer body (JSON, or JSON + binary tensor data) must parse into a job or be
// refused with a Status; never a crash, a hang or an allocation the limits did not allow. The
// first byte picks where the JSON header ends (0: no Inference-Header-Content-Length).
#include <cstdint>
#include <string_view>

#include "rest_conversion.hpp"

namespace {

const std::vector<vireo::server::TensorInfo> kInputs = {
    {"x", vireo::element::f32, {1, -1}},
    {"b", vireo::element::boolean, {-1}},
    {"h", vireo::element::f16, {2, 2}},
    {"u", vireo::element::u64, {-1}},
};
const std::vector<vireo::server::TensorInfo> kOutputs = {{"y", vireo::element::f32, {1, -1}}};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const size_t header_choice = data[0];
    std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
    size_t header_length = std::string_view::npos;
    if (header_choice != 0) header_length = body.size() * header_choice / 255;
    vireo::server::InferJob job;
    vireo::server::RestReplyForm form;
    vireo::server::RestLimits limits{1 << 20, 32};
    const auto status =
        vireo::server::job_from_rest(body, header_length, kInputs, kOutputs, limits, job, form);
    if (status.ok()) {
        std::vector<vireo::server::OutputData> outputs;
        for (const auto& [index, tensor] : job.inputs) {
            vireo::server::OutputData out{kInputs[index].name, tensor.get_element_type(), {}, {}};
            for (size_t d : tensor.get_shape()) out.shape.push_back(static_cast<int64_t>(d));
            out.bytes.assign(static_cast<const char*>(tensor.data()), tensor.get_byte_size());
            outputs.push_back(std::move(out));
        }
        size_t json_length = 0;
        volatile size_t n =
            vireo::server::render_rest_response("m", 1, form, outputs, json_length).size();
        (void)n;
    }
    return 0;
}
