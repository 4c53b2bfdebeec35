// ModelInferRequest -> InferJob and outputs -> ModelInferResponse.
#include "grpc_conversion.hpp"

#include <cstring>
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
                     size_t max_bytes, InferJob& job, GrpcReplyForm& form) {
    return job_from_grpc(request, version.inputs(), version.outputs(), max_bytes, job, form);
}

Status job_from_grpc(const inference::ModelInferRequest& request,
                     const std::vector<TensorInfo>& inputs, const std::vector<TensorInfo>& outputs,
                     size_t max_bytes, InferJob& job, GrpcReplyForm& form) {
    const bool raw = request.raw_input_contents_size() > 0;
    if (raw && request.raw_input_contents_size() != request.inputs_size()) {
        return invalid("raw_input_contents has " +
                       std::to_string(request.raw_input_contents_size()) + " entries for " +
                       std::to_string(request.inputs_size()) +
                       " inputs; give one per input or none");
    }
    form.raw = raw || request.inputs_size() == 0;
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
        if (raw) {
            if (in.has_contents() && has_typed_contents(in.contents())) {
                return invalid(field + ": contents must be empty when raw_input_contents is used");
            }
            const std::string& bytes = request.raw_input_contents(i);
            s = fill_raw(
                "raw_input_contents[" + std::to_string(i) + "] (input '" + in.name() + "')", tensor,
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
        const auto& name = request.outputs(i).name();
        size_t index = outputs.size();
        for (size_t k = 0; k < outputs.size(); ++k) {
            if (outputs[k].name == name) index = k;
        }
        if (index == outputs.size()) {
            return invalid("outputs[" + std::to_string(i) + "]: unknown output '" + name + "'");
        }
        if (requested.insert(name).second) job.outputs.push_back(index);
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
        if (form.raw) {
            *response.add_raw_output_contents() = std::move(out.bytes);
        } else {
            fill_typed_output(out, *tensor->mutable_contents());
        }
    }
}

}  // namespace vireo::server
