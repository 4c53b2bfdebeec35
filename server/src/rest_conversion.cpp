// KServe v2 REST infer bodies (JSON and binary tensor data) <-> InferJob / outputs.
#include "rest_conversion.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <set>

#include "datatype.hpp"
#include "tensor_conversion.hpp"
#include "vireo/kserve/parameters.hpp"

namespace vireo::server {

namespace {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer, rapidjson::UTF8<>, rapidjson::UTF8<>,
                                     rapidjson::CrtAllocator, rapidjson::kWriteNanAndInfFlag>;

Status invalid(std::string message) {
    return {StatusCode::kInvalidArgument, std::move(message)};
}

bool get_bool_param(const rapidjson::Value& object, const char* key) {
    if (!object.IsObject() || !object.HasMember("parameters")) return false;
    const auto& p = object["parameters"];
    return p.IsObject() && p.HasMember(key) && p[key].IsBool() && p[key].GetBool();
}

constexpr const char* kShmRegion = "shared_memory_region";
constexpr const char* kShmByteSize = "shared_memory_byte_size";
constexpr const char* kShmOffset = "shared_memory_offset";

bool has_shm_parameters(const rapidjson::Value& tensor) {
    if (!tensor.HasMember("parameters") || !tensor["parameters"].IsObject()) return false;
    const auto& p = tensor["parameters"];
    return p.HasMember(kShmRegion) || p.HasMember(kShmByteSize) || p.HasMember(kShmOffset);
}

// Finds the region a tensor's shared_memory_* parameters name (has_shm_parameters was true).
Status resolve_shm(const std::string& field, const std::string& tensor,
                   const rapidjson::Value& parameters, const SharedMemory* shared_memory,
                   SharedMemoryRef& ref) {
    if (!shared_memory) {
        return invalid(field + ": shared memory parameters are not accepted here");
    }
    SharedMemoryParams params;
    if (parameters.HasMember(kShmRegion)) {
        if (!parameters[kShmRegion].IsString()) {
            return invalid(field + ".parameters." + kShmRegion + " must be a string");
        }
        params.region = parameters[kShmRegion].GetString();
    }
    for (auto [key, target] :
         {std::pair{kShmByteSize, &params.byte_size}, std::pair{kShmOffset, &params.offset}}) {
        if (!parameters.HasMember(key)) continue;
        if (!parameters[key].IsInt64()) {
            return invalid(field + ".parameters." + key + " must be an integer");
        }
        *target = parameters[key].GetInt64();
    }
    return shared_memory->resolve(tensor, params, ref);
}

// Writes the elements of `data` (flat or nested arrays) into `tensor` in row-major order.
// The depth was bounded before parsing; the walk uses an explicit stack all the same.
Status fill_json(const std::string& field, const rapidjson::Value& data, Tensor& tensor) {
    if (!data.IsArray()) return invalid(field + " must be an array");
    const size_t expected = tensor.get_size();
    size_t index = 0;
    std::vector<std::pair<const rapidjson::Value*, rapidjson::SizeType>> stack{{&data, 0}};
    while (!stack.empty()) {
        auto& [array, position] = stack.back();
        if (position == array->Size()) {
            stack.pop_back();
            continue;
        }
        const rapidjson::Value& v = (*array)[position++];
        if (v.IsArray()) {
            stack.emplace_back(&v, 0);
            continue;
        }
        if (index >= expected) {
            return invalid(field + " holds more than the " + std::to_string(expected) +
                           " values the shape needs");
        }
        ScalarValue value;
        if (v.IsBool())
            value = v.GetBool();
        else if (v.IsInt64())
            value = v.GetInt64();
        else if (v.IsUint64())
            value = v.GetUint64();
        else if (v.IsNumber())
            value = v.GetDouble();
        else
            return invalid(field + "[" + std::to_string(index) + "] is not a number or bool");
        Status s = write_element(field, tensor, index, value);
        if (!s.ok()) return s;
        ++index;
    }
    if (index != expected) {
        return invalid(field + " holds " + std::to_string(index) + " values, the shape needs " +
                       std::to_string(expected));
    }
    return {};
}

void write_value(JsonWriter& w, const ScalarValue& v) {
    if (const auto* b = std::get_if<bool>(&v))
        w.Bool(*b);
    else if (const auto* i = std::get_if<int64_t>(&v))
        w.Int64(*i);
    else if (const auto* u = std::get_if<uint64_t>(&v))
        w.Uint64(*u);
    else
        w.Double(std::get<double>(v));
}

}  // namespace

int json_depth(std::string_view json, int stop_at) {
    int depth = 0, deepest = 0;
    bool in_string = false;
    for (size_t i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (in_string) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"')
            in_string = true;
        else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
            if (deepest > stop_at) return deepest;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return deepest;
}

Status job_from_rest(std::string_view body, size_t header_length,
                     const std::vector<TensorInfo>& inputs, const std::vector<TensorInfo>& outputs,
                     const RestLimits& limits, InferJob& job, RestReplyForm& form,
                     const SharedMemory* shared_memory) {
    std::string_view json = body;
    std::string_view binary;
    if (header_length != std::string_view::npos) {
        if (header_length > body.size()) {
            return invalid("Inference-Header-Content-Length " + std::to_string(header_length) +
                           " is larger than the body (" + std::to_string(body.size()) + " bytes)");
        }
        json = body.substr(0, header_length);
        binary = body.substr(header_length);
    }
    if (json_depth(json, limits.max_depth) > limits.max_depth) {
        return invalid("request JSON is nested deeper than " + std::to_string(limits.max_depth) +
                       " levels");
    }
    rapidjson::Document doc;
    doc.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseStopWhenDoneFlag>(json.data(),
                                                                                  json.size());
    if (doc.HasParseError()) {
        return invalid("request body is not valid JSON (error at offset " +
                       std::to_string(doc.GetErrorOffset()) + ")");
    }
    if (!doc.IsObject()) return invalid("request body must be a JSON object");
    if (doc.HasMember("id")) {
        if (!doc["id"].IsString()) return invalid("id must be a string");
        form.id = doc["id"].GetString();
        form.id_given = true;
    }
    form.all_binary = get_bool_param(doc, "binary_data_output");
    if (doc.HasMember("parameters")) {
        const auto& p = doc["parameters"];
        if (!p.IsObject()) return invalid("parameters must be an object");
        if (p.HasMember("timeout")) {
            if (!p["timeout"].IsInt64() || p["timeout"].GetInt64() <= 0) {
                return invalid("parameters.timeout must be a positive integer (microseconds)");
            }
            job.deadline = Clock::now() + std::chrono::microseconds(p["timeout"].GetInt64());
        }
    }
    if (!doc.HasMember("inputs") || !doc["inputs"].IsArray()) {
        return invalid("inputs must be an array");
    }
    std::set<std::string> seen;
    size_t binary_offset = 0;
    const auto& list = doc["inputs"].GetArray();
    for (rapidjson::SizeType i = 0; i < list.Size(); ++i) {
        const auto& in = list[i];
        const std::string field = "inputs[" + std::to_string(i) + "]";
        if (!in.IsObject()) return invalid(field + " must be an object");
        if (!in.HasMember("name") || !in["name"].IsString())
            return invalid(field + ".name must be a string");
        if (!in.HasMember("datatype") || !in["datatype"].IsString()) {
            return invalid(field + ".datatype must be a string");
        }
        if (!in.HasMember("shape") || !in["shape"].IsArray())
            return invalid(field + ".shape must be an array");
        const std::string name = in["name"].GetString();
        size_t index = inputs.size();
        for (size_t k = 0; k < inputs.size(); ++k) {
            if (inputs[k].name == name) index = k;
        }
        if (index == inputs.size()) {
            std::string known;
            for (const auto& info : inputs) known += (known.empty() ? "" : ", ") + info.name;
            return invalid(field + ": unknown input '" + name + "' (the model has: " + known + ")");
        }
        if (!seen.insert(name).second) return invalid(field + ": input '" + name + "' given twice");
        std::vector<int64_t> shape;
        for (const auto& d : in["shape"].GetArray()) {
            if (!d.IsInt64()) return invalid(field + ".shape must hold integers");
            shape.push_back(d.GetInt64());
        }
        Tensor tensor;
        Status s = prepare_input(inputs[index], in["datatype"].GetString(), shape, limits.max_bytes,
                                 tensor);
        if (!s.ok()) return s;
        const bool has_binary = in.HasMember("parameters") && in["parameters"].IsObject() &&
                                in["parameters"].HasMember("binary_data_size");
        if (has_shm_parameters(in)) {
            if (in.HasMember("data") || has_binary) {
                return invalid(field +
                               ": an input in shared memory has no data or binary_data_size");
            }
            SharedMemoryRef ref;
            s = resolve_shm(field, "input '" + name + "'", in["parameters"], shared_memory, ref);
            if (s.ok()) s = read_shared_memory_input(name, ref, tensor);
        } else if (has_binary) {
            const auto& size = in["parameters"]["binary_data_size"];
            if (!size.IsUint64())
                return invalid(field + ".parameters.binary_data_size must be >= 0");
            const uint64_t n = size.GetUint64();
            if (n > binary.size() - binary_offset) {
                return invalid(field + ".parameters.binary_data_size " + std::to_string(n) +
                               " runs past the binary data (" +
                               std::to_string(binary.size() - binary_offset) + " bytes left)");
            }
            s = fill_raw(field + ".parameters.binary_data_size", tensor,
                         binary.data() + binary_offset, n);
            binary_offset += n;
        } else {
            if (!in.HasMember("data")) return invalid(field + ".data is missing");
            s = fill_json(field + ".data", in["data"], tensor);
        }
        if (!s.ok()) return s;
        job.inputs.emplace_back(index, std::move(tensor));
    }
    if (binary_offset != binary.size()) {
        return invalid("binary data holds " + std::to_string(binary.size()) +
                       " bytes, the inputs' binary_data_size add up to " +
                       std::to_string(binary_offset));
    }
    if (seen.size() != inputs.size()) {
        std::string missing;
        for (const auto& info : inputs) {
            if (!seen.count(info.name))
                missing += (missing.empty() ? "'" : ", '") + info.name + "'";
        }
        return invalid("missing input(s) " + missing);
    }
    if (doc.HasMember("outputs")) {
        if (!doc["outputs"].IsArray()) return invalid("outputs must be an array");
        std::set<std::string> requested;
        const auto& outs = doc["outputs"].GetArray();
        for (rapidjson::SizeType i = 0; i < outs.Size(); ++i) {
            const std::string field = "outputs[" + std::to_string(i) + "]";
            if (!outs[i].IsObject() || !outs[i].HasMember("name") || !outs[i]["name"].IsString()) {
                return invalid(field + ".name must be a string");
            }
            const std::string name = outs[i]["name"].GetString();
            size_t index = outputs.size();
            for (size_t k = 0; k < outputs.size(); ++k) {
                if (outputs[k].name == name) index = k;
            }
            if (index == outputs.size()) return invalid(field + ": unknown output '" + name + "'");
            if (requested.insert(name).second) job.outputs.push_back(index);
            if (get_bool_param(outs[i], "binary_data")) form.binary_outputs.insert(name);
            if (has_shm_parameters(outs[i])) {
                SharedMemoryRef ref;
                Status s = resolve_shm(field, "output '" + name + "'", outs[i]["parameters"],
                                       shared_memory, ref);
                if (!s.ok()) return s;
                form.shm_outputs[name] = std::move(ref);
            }
        }
    }
    if (job.outputs.empty()) {
        for (size_t k = 0; k < outputs.size(); ++k) job.outputs.push_back(k);
    }
    return {};
}

std::string render_rest_response(const std::string& model, int64_t version,
                                 const RestReplyForm& form, std::vector<OutputData>& outputs,
                                 size_t& header_length, const InferJob* timed) {
    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    std::string binary;
    w.StartObject();
    w.Key("model_name");
    w.String(model.c_str(), static_cast<rapidjson::SizeType>(model.size()));
    w.Key("model_version");
    w.String(std::to_string(version).c_str());
    if (form.id_given) {
        w.Key("id");
        w.String(form.id.c_str(), static_cast<rapidjson::SizeType>(form.id.size()));
    }
    if (timed) {
        w.Key("parameters");
        w.StartObject();
        w.Key(kserve::kQueueTimeParameter);
        w.Uint64(micros(timed->queued_for));
        w.Key(kserve::kRunTimeParameter);
        w.Uint64(micros(timed->ran_for));
        w.EndObject();
    }
    w.Key("outputs");
    w.StartArray();
    for (auto& out : outputs) {
        w.StartObject();
        w.Key("name");
        w.String(out.name.c_str(), static_cast<rapidjson::SizeType>(out.name.size()));
        w.Key("datatype");
        w.String(datatype_of(out.type).c_str());
        w.Key("shape");
        w.StartArray();
        for (int64_t d : out.shape) w.Int64(d);
        w.EndArray();
        auto shm = form.shm_outputs.find(out.name);
        if (shm != form.shm_outputs.end()) {
            w.Key("parameters");
            w.StartObject();
            w.Key(kShmRegion);
            w.String(shm->second.region->name().c_str(),
                     static_cast<rapidjson::SizeType>(shm->second.region->name().size()));
            w.Key(kShmOffset);
            w.Uint64(shm->second.offset);
            w.Key(kShmByteSize);
            w.Uint64(out.bytes.size());
            w.EndObject();
        } else if (form.all_binary || form.binary_outputs.count(out.name)) {
            w.Key("parameters");
            w.StartObject();
            w.Key("binary_data_size");
            w.Uint64(out.bytes.size());
            w.EndObject();
            binary += out.bytes;
        } else {
            w.Key("data");
            w.StartArray();
            const size_t n = output_element_count(out);
            for (size_t i = 0; i < n; ++i) write_value(w, read_element(out, i));
            w.EndArray();
        }
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    std::string body(buffer.GetString(), buffer.GetSize());
    header_length = binary.empty() ? std::string::npos : body.size();
    body += binary;
    return body;
}

std::string error_json(const std::string& message) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
    w.StartObject();
    w.Key("error");
    w.String(message.c_str(), static_cast<rapidjson::SizeType>(message.size()));
    w.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace vireo::server
