// ModelInferRequest -> InferJob and outputs -> ModelInferResponse.
#include "grpc_conversion.hpp"

#include <cstdint>
#include <cstring>
#include <optional>
#include <set>

#include "datatype.hpp"
#include "tensor_conversion.hpp"

namespace vireo::server {

namespace {

Status invalid(std::string message) {
    return {StatusCode::kInvalidArgument, std::move(message)};
}

bool has_typed_contents(const inference::InferTensorContents& c) {
    return c.bool_contents_size() || c.int_contents_size() || c.int64_contents_size() ||
           c.uint_contents_size() || c.uint64_contents_size() || c.fp32_contents_size() ||
           c.fp64_contents_size() || c.bytes_contents_size();
}

template <typename Repeated>
Status fill_from(const std::string& field, const Repeated& values, Tensor& tensor) {
    if (static_cast<size_t>(values.size()) != tensor.get_size()) {
        return invalid(field + " holds " + std::to_string(values.size()) +
                       " values, the shape needs " + std::to_string(tensor.get_size()));
    }
    for (int i = 0; i < values.size(); ++i) {
        using T = std::decay_t<decltype(values.Get(i))>;
        ScalarValue v;
        if constexpr (std::is_same_v<T, bool>)
            v = values.Get(i);
        else if constexpr (std::is_floating_point_v<T>)
            v = static_cast<double>(values.Get(i));
        else if constexpr (std::is_signed_v<T>)
            v = static_cast<int64_t>(values.Get(i));
        else
            v = static_cast<uint64_t>(values.Get(i));
        Status s = write_element(field, tensor, static_cast<size_t>(i), v);
        if (!s.ok()) return s;
    }
    return {};
}

Status fill_typed(const std::string& prefix, const inference::InferTensorContents& c,
                  Tensor& tensor) {
    switch (tensor.get_element_type().id()) {
        case element::TypeId::boolean:
            return fill_from(prefix + ".bool_contents", c.bool_contents(), tensor);
        case element::TypeId::i8:
        case element::TypeId::i16:
        case element::TypeId::i32:
            return fill_from(prefix + ".int_contents", c.int_contents(), tensor);
        case element::TypeId::i64:
            return fill_from(prefix + ".int64_contents", c.int64_contents(), tensor);
        case element::TypeId::u8:
        case element::TypeId::u16:
        case element::TypeId::u32:
            return fill_from(prefix + ".uint_contents", c.uint_contents(), tensor);
        case element::TypeId::u64:
            return fill_from(prefix + ".uint64_contents", c.uint64_contents(), tensor);
        case element::TypeId::f32:
            return fill_from(prefix + ".fp32_contents", c.fp32_contents(), tensor);
        case element::TypeId::f64:
            return fill_from(prefix + ".fp64_contents", c.fp64_contents(), tensor);
        default:
            return invalid(prefix + ": " + datatype_of(tensor.get_element_type()) +
                           " data must be sent in raw_input_contents");
    }
}

using ParameterMap = google::protobuf::Map<std::string, inference::InferParameter>;

constexpr const char* kShmRegion = "shared_memory_region";
constexpr const char* kShmByteSize = "shared_memory_byte_size";
constexpr const char* kShmOffset = "shared_memory_offset";

bool has_shm_parameters(const ParameterMap& p) {
    return p.count(kShmRegion) || p.count(kShmByteSize) || p.count(kShmOffset);
}

// tritonclient sends the sizes as int64_param; uint64_param is taken too when it fits.
Status read_size_parameter(const std::string& field, const ParameterMap& p, const char* key,
                           std::optional<int64_t>& out) {
    auto it = p.find(key);
    if (it == p.end()) return {};
    const auto& v = it->second;
    if (v.parameter_choice_case() == inference::InferParameter::kInt64Param) {
        out = v.int64_param();
    } else if (v.parameter_choice_case() == inference::InferParameter::kUint64Param &&
               v.uint64_param() <= static_cast<uint64_t>(INT64_MAX)) {
        out = static_cast<int64_t>(v.uint64_param());
    } else {
        return invalid(field + ".parameters." + key + " must be an int64_param");
    }
    return {};
}

Status shm_parameters_of(const std::string& field, const ParameterMap& p, SharedMemoryParams& out) {
    auto region = p.find(kShmRegion);
    if (region != p.end()) {
        if (region->second.parameter_choice_case() != inference::InferParameter::kStringParam) {
            return invalid(field + ".parameters." + kShmRegion + " must be a string_param");
        }
        out.region = region->second.string_param();
    }
    Status s = read_size_parameter(field, p, kShmByteSize, out.byte_size);
    if (!s.ok()) return s;
    return read_size_parameter(field, p, kShmOffset, out.offset);
}

Status resolve_shm(const std::string& field, const std::string& tensor, const ParameterMap& p,
                   const SharedMemory* shared_memory, SharedMemoryRef& ref) {
    if (!shared_memory) {
        return invalid(field + ": shared memory parameters are not accepted here");
    }
    SharedMemoryParams params;
    Status s = shm_parameters_of(field, p, params);
    if (!s.ok()) return s;
    return shared_memory->resolve(tensor, params, ref);
}

template <typename T, typename Add>
void append_values(const OutputData& out, Add add) {
    const size_t n = out.bytes.size() / sizeof(T);
    for (size_t i = 0; i < n; ++i) {
        T v;
        std::memcpy(&v, out.bytes.data() + i * sizeof(T), sizeof(T));
        add(v);
    }
}

void fill_typed_output(const OutputData& out, inference::InferTensorContents& c) {
    switch (out.type.id()) {
        case element::TypeId::boolean:
            append_values<uint8_t>(out, [&](uint8_t v) { c.add_bool_contents(v != 0); });
            break;
        case element::TypeId::i8:
            append_values<int8_t>(out, [&](int8_t v) { c.add_int_contents(v); });
            break;
        case element::TypeId::i16:
            append_values<int16_t>(out, [&](int16_t v) { c.add_int_contents(v); });
            break;
        case element::TypeId::i32:
            append_values<int32_t>(out, [&](int32_t v) { c.add_int_contents(v); });
            break;
        case element::TypeId::i64:
            append_values<int64_t>(out, [&](int64_t v) { c.add_int64_contents(v); });
            break;
        case element::TypeId::u8:
            append_values<uint8_t>(out, [&](uint8_t v) { c.add_uint_contents(v); });
            break;
        case element::TypeId::u16:
            append_values<uint16_t>(out, [&](uint16_t v) { c.add_uint_contents(v); });
            break;
        case element::TypeId::u32:
            append_values<uint32_t>(out, [&](uint32_t v) { c.add_uint_contents(v); });
            break;
        case element::TypeId::u64:
            append_values<uint64_t>(out, [&](uint64_t v) { c.add_uint64_contents(v); });
            break;
        case element::TypeId::f32:
            append_values<float>(out, [&](float v) { c.add_fp32_contents(v); });
            break;
        case element::TypeId::f64:
            append_values<double>(out, [&](double v) { c.add_fp64_contents(v); });
            break;
        default:
            break;
    }
}

}  // namespace

Status job_from_grpc(const inference::ModelInferRequest& request, const ModelVersion& version,
                     size_t max_bytes, InferJob& job, GrpcReplyForm& form,
                     const SharedMemory* shared_memory) {
    return job_from_grpc(request, version.inputs(), version.outputs(), max_bytes, job, form,
                         shared_memory);
}

Status job_from_grpc(const inference::ModelInferRequest& request,
                     const std::vector<TensorInfo>& inputs, const std::vector<TensorInfo>& outputs,
                     size_t max_bytes, InferJob& job, GrpcReplyForm& form,
                     const SharedMemory* shared_memory) {
    // Inputs in shared memory have no raw_input_contents entry: the entries go to the others.
    int in_band = 0;
    for (const auto& in : request.inputs()) {
        if (!has_shm_parameters(in.parameters())) ++in_band;
    }
    const bool raw = request.raw_input_contents_size() > 0;
    if (raw && request.raw_input_contents_size() != in_band) {
        return invalid("raw_input_contents has " +
                       std::to_string(request.raw_input_contents_size()) + " entries for " +
                       std::to_string(in_band) +
                       " inputs not in shared memory; give one per such input or none");
    }
    form.raw = raw || in_band == 0;
    int raw_index = 0;
    std::set<std::string> seen;
    for (int i = 0; i < request.inputs_size(); ++i) {
        const auto& in = request.inputs(i);
        const std::string field = "inputs[" + std::to_string(i) + "]";
        size_t index = inputs.size();
        for (size_t k = 0; k < inputs.size(); ++k) {
            if (inputs[k].name == in.name()) index = k;
        }
        if (index == inputs.size()) {
            std::string known;
            for (const auto& info : inputs) known += (known.empty() ? "" : ", ") + info.name;
            return invalid(field + ": unknown input '" + in.name() + "' (the model has: " + known +
                           ")");
        }
        if (!seen.insert(in.name()).second)
            return invalid(field + ": input '" + in.name() + "' given twice");
        std::vector<int64_t> shape(in.shape().begin(), in.shape().end());
        Tensor tensor;
        Status s = prepare_input(inputs[index], in.datatype(), shape, max_bytes, tensor);
        if (!s.ok()) return s;
        if (has_shm_parameters(in.parameters())) {
            if (in.has_contents() && has_typed_contents(in.contents())) {
                return invalid(field +
                               ": contents must be empty when the input is in shared memory");
            }
            SharedMemoryRef ref;
            s = resolve_shm(field, "input '" + in.name() + "'", in.parameters(), shared_memory,
                            ref);
            if (s.ok()) s = read_shared_memory_input(in.name(), ref, tensor);
        } else if (raw) {
            if (in.has_contents() && has_typed_contents(in.contents())) {
                return invalid(field + ": contents must be empty when raw_input_contents is used");
            }
            const int r = raw_index++;
            const std::string& bytes = request.raw_input_contents(r);
            s = fill_raw(
                "raw_input_contents[" + std::to_string(r) + "] (input '" + in.name() + "')", tensor,
                bytes.data(), bytes.size());
        } else {
            s = fill_typed(field + ".contents", in.contents(), tensor);
        }
        if (!s.ok()) return s;
        job.inputs.emplace_back(index, std::move(tensor));
    }
    if (seen.size() != inputs.size()) {
        std::string missing;
        for (const auto& info : inputs) {
            if (!seen.count(info.name))
                missing += (missing.empty() ? "'" : ", '") + info.name + "'";
        }
        return invalid("missing input(s) " + missing);
    }
    std::set<std::string> requested;
    for (int i = 0; i < request.outputs_size(); ++i) {
        const auto& out = request.outputs(i);
        const std::string& name = out.name();
        const std::string field = "outputs[" + std::to_string(i) + "]";
        size_t index = outputs.size();
        for (size_t k = 0; k < outputs.size(); ++k) {
            if (outputs[k].name == name) index = k;
        }
        if (index == outputs.size()) return invalid(field + ": unknown output '" + name + "'");
        if (requested.insert(name).second) job.outputs.push_back(index);
        if (has_shm_parameters(out.parameters())) {
            SharedMemoryRef ref;
            Status s =
                resolve_shm(field, "output '" + name + "'", out.parameters(), shared_memory, ref);
            if (!s.ok()) return s;
            form.shm_outputs[name] = std::move(ref);
        }
    }
    if (request.outputs_size() == 0) {
        for (size_t k = 0; k < outputs.size(); ++k) job.outputs.push_back(k);
    }
    for (size_t k : job.outputs) {
        const auto t = outputs[k].type;
        if (t == element::f16 || t == element::bf16) form.raw = true;
    }
    auto timeout = request.parameters().find("timeout");
    if (timeout != request.parameters().end()) {
        if (timeout->second.parameter_choice_case() != inference::InferParameter::kInt64Param ||
            timeout->second.int64_param() <= 0) {
            return invalid("parameters.timeout must be a positive int64 (microseconds)");
        }
        job.deadline = std::min(
            job.deadline, Clock::now() + std::chrono::microseconds(timeout->second.int64_param()));
    }
    return {};
}

void fill_grpc_response(std::vector<OutputData>& outputs, const GrpcReplyForm& form,
                        inference::ModelInferResponse& response) {
    for (auto& out : outputs) {
        auto* tensor = response.add_outputs();
        tensor->set_name(out.name);
        tensor->set_datatype(datatype_of(out.type));
        for (int64_t d : out.shape) tensor->add_shape(d);
        auto shm = form.shm_outputs.find(out.name);
        if (shm != form.shm_outputs.end()) {
            auto& p = *tensor->mutable_parameters();
            p[kShmRegion].set_string_param(shm->second.region->name());
            p[kShmOffset].set_int64_param(static_cast<int64_t>(shm->second.offset));
            p[kShmByteSize].set_int64_param(static_cast<int64_t>(out.bytes.size()));
            if (form.raw) response.add_raw_output_contents();
        } else if (form.raw) {
            *response.add_raw_output_contents() = std::move(out.bytes);
        } else {
            fill_typed_output(out, *tensor->mutable_contents());
        }
    }
}

}  // namespace vireo::server
