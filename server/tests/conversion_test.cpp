// Tests of the protocol conversions: datatypes, request validation (gRPC and REST bodies), typed
// and raw contents, binary tensor data, response rendering and the metrics text.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <stdexcept>

#include "datatype.hpp"
#include "grpc_conversion.hpp"
#include "metrics.hpp"
#include "rest_conversion.hpp"
#include "tensor_conversion.hpp"
#include "vireo/float16.hpp"

namespace vireo::server {
namespace {

const std::vector<TensorInfo> kInputs = {{"x", element::f32, {1, 3}}, {"n", element::i8, {-1}}};
const std::vector<TensorInfo> kOutputs = {{"y", element::f32, {1, 3}}, {"z", element::f16, {2}}};

std::string bytes_of(const std::vector<float>& v) {
    return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

const Tensor& input_tensor(const InferJob& job, size_t index) {
    for (const auto& [i, t] : job.inputs) {
        if (i == index) return t;
    }
    throw std::runtime_error("no such input in the job");
}

TEST(Datatype, EveryKServeNameRoundTrips) {
    const char* names[] = {"BOOL",  "UINT8", "UINT16", "UINT32", "UINT64", "INT8", "INT16",
                           "INT32", "INT64", "FP16",   "BF16",   "FP32",   "FP64"};
    for (const char* name : names) {
        const auto type = element_type_of(name);
        ASSERT_TRUE(type.has_value()) << name;
        EXPECT_EQ(datatype_of(*type), name);
    }
    EXPECT_FALSE(element_type_of("BYTES").has_value());
    EXPECT_FALSE(element_type_of("fp32").has_value());
    EXPECT_EQ(datatype_of(element::u4), "");
}

TEST(Datatype, ElementCountRefusesNegativeAndOverflow) {
    EXPECT_EQ(element_count({2, 3, 4}).value(), 24u);
    EXPECT_EQ(element_count({}).value(), 1u);
    EXPECT_EQ(element_count({0, 5}).value(), 0u);
    EXPECT_FALSE(element_count({-1, 2}).has_value());
    EXPECT_FALSE(element_count({1ll << 40, 1ll << 40}).has_value());
    EXPECT_FALSE(element_count({1ll << 62}, 8).has_value());
}

TEST(PrepareInput, NamesTheInputAndBothSides) {
    Tensor t;
    Status s = prepare_input(kInputs[0], "INT32", {1, 3}, 1 << 20, t);
    EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
    EXPECT_NE(s.message.find("input 'x': datatype INT32 given, the model expects FP32"),
              std::string::npos)
        << s.message;
    s = prepare_input(kInputs[0], "BYTES", {1, 3}, 1 << 20, t);
    EXPECT_NE(s.message.find("BYTES is not supported"), std::string::npos) << s.message;
    s = prepare_input(kInputs[0], "FLOAT", {1, 3}, 1 << 20, t);
    EXPECT_NE(s.message.find("unknown datatype 'FLOAT'"), std::string::npos) << s.message;
    s = prepare_input(kInputs[0], "FP32", {1, 4}, 1 << 20, t);
    EXPECT_NE(s.message.find("shape [1,4] does not match the model's [1,3]"), std::string::npos)
        << s.message;
    s = prepare_input(kInputs[1], "INT8", {-2}, 1 << 20, t);
    EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
    s = prepare_input(kInputs[1], "INT8", {1 << 21}, 1 << 20, t);
    EXPECT_NE(s.message.find("larger than the request size limit"), std::string::npos) << s.message;
    ASSERT_TRUE(prepare_input(kInputs[1], "INT8", {5}, 1 << 20, t).ok());
    EXPECT_EQ(t.get_shape(), (Shape{5}));
    EXPECT_EQ(t.get_element_type(), element::i8);
}

inference::ModelInferRequest typed_request() {
    inference::ModelInferRequest request;
    auto* x = request.add_inputs();
    x->set_name("x");
    x->set_datatype("FP32");
    x->add_shape(1);
    x->add_shape(3);
    for (float v : {1.5f, -2.f, 3.25f}) x->mutable_contents()->add_fp32_contents(v);
    auto* n = request.add_inputs();
    n->set_name("n");
    n->set_datatype("INT8");
    n->add_shape(2);
    n->mutable_contents()->add_int_contents(-128);
    n->mutable_contents()->add_int_contents(127);
    return request;
}

TEST(GrpcRequest, TypedContentsBecomeTensors) {
    InferJob job;
    GrpcReplyForm form;
    ASSERT_TRUE(job_from_grpc(typed_request(), kInputs, kOutputs, 1 << 20, job, form).ok());
    ASSERT_EQ(job.inputs.size(), 2u);
    const float* x = input_tensor(job, 0).data<float>();
    EXPECT_EQ(x[0], 1.5f);
    EXPECT_EQ(x[1], -2.f);
    EXPECT_EQ(x[2], 3.25f);
    const int8_t* n = input_tensor(job, 1).data<int8_t>();
    EXPECT_EQ(n[0], -128);
    EXPECT_EQ(n[1], 127);
    EXPECT_EQ(job.outputs, (std::vector<size_t>{0, 1}));
    EXPECT_TRUE(form.raw) << "an FP16 output makes the reply raw";
    EXPECT_EQ(job.deadline, Clock::time_point::max());
}

TEST(GrpcRequest, RawContentsAndOutputSelection) {
    inference::ModelInferRequest request = typed_request();
    request.mutable_inputs(0)->clear_contents();
    request.mutable_inputs(1)->clear_contents();
    request.add_raw_input_contents(bytes_of({4.f, 5.f, 6.f}));
    request.add_raw_input_contents(std::string("\x01\xff", 2));
    request.add_outputs()->set_name("y");
    (*request.mutable_parameters())["timeout"].set_int64_param(5000000);
    InferJob job;
    GrpcReplyForm form;
    const auto before = Clock::now();
    ASSERT_TRUE(job_from_grpc(request, kInputs, kOutputs, 1 << 20, job, form).ok());
    EXPECT_EQ(input_tensor(job, 0).data<float>()[2], 6.f);
    EXPECT_EQ(input_tensor(job, 1).data<int8_t>()[1], -1);
    EXPECT_EQ(job.outputs, (std::vector<size_t>{0}));
    EXPECT_TRUE(form.raw);
    EXPECT_GT(job.deadline, before);
    EXPECT_LT(job.deadline, Clock::time_point::max());
}

TEST(GrpcRequest, ValidationErrorsNameTheField) {
    struct Case {
        std::function<void(inference::ModelInferRequest&)> edit;
        const char* expected;
    };
    const std::vector<Case> cases = {
        {[](auto& r) { r.mutable_inputs(0)->set_name("q"); },
         "inputs[0]: unknown input 'q' (the model has: x, n)"},
        {[](auto& r) { r.mutable_inputs()->RemoveLast(); }, "missing input(s) 'n'"},
        {[](auto& r) { r.mutable_inputs(1)->set_name("x"); }, "input 'x' given twice"},
        {[](auto& r) { r.mutable_inputs(0)->mutable_contents()->add_fp32_contents(1); },
         "inputs[0].contents.fp32_contents holds 4 values, the shape needs 3"},
        {[](auto& r) { r.mutable_inputs(1)->mutable_contents()->set_int_contents(0, 300); },
         "inputs[1].contents.int_contents[0] does not fit the input's type INT8"},
        {[](auto& r) { r.mutable_inputs(0)->set_datatype("FP64"); },
         "datatype FP64 given, the model expects FP32"},
        {[](auto& r) { r.add_raw_input_contents("abc"); },
         "raw_input_contents has 1 entries for 2 inputs"},
        {[](auto& r) {
             r.add_raw_input_contents("abc");
             r.add_raw_input_contents("de");
         },
         "contents must be empty when raw_input_contents is used"},
        {[](auto& r) {
             r.mutable_inputs(0)->clear_contents();
             r.mutable_inputs(1)->clear_contents();
             r.add_raw_input_contents("abc");
             r.add_raw_input_contents("de");
         },
         "raw_input_contents[0] (input 'x') holds 3 bytes, the shape and datatype need 12"},
        {[](auto& r) { r.add_outputs()->set_name("nope"); }, "outputs[0]: unknown output 'nope'"},
        {[](auto& r) { (*r.mutable_parameters())["timeout"].set_string_param("1s"); },
         "parameters.timeout"},
    };
    for (const auto& c : cases) {
        inference::ModelInferRequest request = typed_request();
        c.edit(request);
        InferJob job;
        GrpcReplyForm form;
        const Status s = job_from_grpc(request, kInputs, kOutputs, 1 << 20, job, form);
        EXPECT_EQ(s.code, StatusCode::kInvalidArgument) << c.expected;
        EXPECT_NE(s.message.find(c.expected), std::string::npos) << s.message;
    }
}

TEST(GrpcRequest, Fp16MustTravelRaw) {
    const std::vector<TensorInfo> inputs = {{"h", element::f16, {2}}};
    inference::ModelInferRequest request;
    auto* h = request.add_inputs();
    h->set_name("h");
    h->set_datatype("FP16");
    h->add_shape(2);
    h->mutable_contents()->add_fp32_contents(1.f);
    h->mutable_contents()->add_fp32_contents(2.f);
    InferJob job;
    GrpcReplyForm form;
    Status s = job_from_grpc(request, inputs, kOutputs, 1 << 20, job, form);
    EXPECT_NE(s.message.find("FP16 data must be sent in raw_input_contents"), std::string::npos)
        << s.message;
    h->clear_contents();
    const uint16_t halves[2] = {float16(1.f).to_bits(), float16(-0.5f).to_bits()};
    request.add_raw_input_contents(std::string(reinterpret_cast<const char*>(halves), 4));
    InferJob raw_job;
    ASSERT_TRUE(job_from_grpc(request, inputs, kOutputs, 1 << 20, raw_job, form).ok());
    EXPECT_EQ(static_cast<float>(input_tensor(raw_job, 0).data<float16>()[1]), -0.5f);
}

TEST(GrpcResponse, TypedWhenTheRequestWasTypedRawOtherwise) {
    std::vector<OutputData> outputs = {
        {"y", element::i16, {2}, std::string("\x01\x00\xff\xff", 4)}};
    inference::ModelInferResponse typed;
    fill_grpc_response(outputs, GrpcReplyForm{false, {}}, typed);
    ASSERT_EQ(typed.outputs_size(), 1);
    EXPECT_EQ(typed.outputs(0).datatype(), "INT16");
    EXPECT_EQ(typed.outputs(0).shape(0), 2);
    ASSERT_EQ(typed.outputs(0).contents().int_contents_size(), 2);
    EXPECT_EQ(typed.outputs(0).contents().int_contents(0), 1);
    EXPECT_EQ(typed.outputs(0).contents().int_contents(1), -1);
    EXPECT_EQ(typed.raw_output_contents_size(), 0);

    std::vector<OutputData> again = {{"y", element::i16, {2}, std::string("\x01\x00\xff\xff", 4)}};
    inference::ModelInferResponse raw;
    fill_grpc_response(again, GrpcReplyForm{true, {}}, raw);
    ASSERT_EQ(raw.raw_output_contents_size(), 1);
    EXPECT_EQ(raw.raw_output_contents(0), std::string("\x01\x00\xff\xff", 4));
    EXPECT_FALSE(raw.outputs(0).has_contents());
}

Status rest(const std::string& body, InferJob& job, RestReplyForm& form,
            size_t header_length = std::string::npos, int depth = 32) {
    return job_from_rest(body, header_length, kInputs, kOutputs, RestLimits{1 << 20, depth}, job,
                         form);
}

TEST(RestRequest, JsonDataFlatOrNested) {
    InferJob job;
    RestReplyForm form;
    const std::string body = R"({"id": "r1", "parameters": {"binary_data_output": true},
        "inputs": [{"name": "x", "shape": [1, 3], "datatype": "FP32", "data": [[1, 2.5, -3]]},
                   {"name": "n", "shape": [3], "datatype": "INT8", "data": [1, -2, 3.0]}],
        "outputs": [{"name": "z", "parameters": {"binary_data": true}}]})";
    ASSERT_TRUE(rest(body, job, form).ok());
    EXPECT_EQ(form.id, "r1");
    EXPECT_TRUE(form.all_binary);
    EXPECT_EQ(form.binary_outputs.count("z"), 1u);
    EXPECT_EQ(input_tensor(job, 0).data<float>()[1], 2.5f);
    EXPECT_EQ(input_tensor(job, 0).data<float>()[2], -3.f);
    EXPECT_EQ(input_tensor(job, 1).data<int8_t>()[1], -2);
    EXPECT_EQ(input_tensor(job, 1).data<int8_t>()[2], 3);
    EXPECT_EQ(job.outputs, (std::vector<size_t>{1}));
}

TEST(RestRequest, BinaryTensorData) {
    const std::string json = R"({"inputs": [
        {"name": "x", "shape": [1, 3], "datatype": "FP32", "parameters": {"binary_data_size": 12}},
        {"name": "n", "shape": [2], "datatype": "INT8", "data": [5, 6]}]})";
    InferJob job;
    RestReplyForm form;
    ASSERT_TRUE(rest(json + bytes_of({7.f, 8.f, 9.f}), job, form, json.size()).ok());
    EXPECT_EQ(input_tensor(job, 0).data<float>()[0], 7.f);
    EXPECT_EQ(input_tensor(job, 0).data<float>()[2], 9.f);

    InferJob short_job;
    Status s = rest(json + "12345678", short_job, form, json.size());
    EXPECT_NE(s.message.find("binary_data_size 12 runs past the binary data (8 bytes left)"),
              std::string::npos)
        << s.message;
    InferJob long_job;
    s = rest(json + bytes_of({1.f, 2.f, 3.f, 4.f}), long_job, form, json.size());
    EXPECT_NE(s.message.find("binary data holds 16 bytes"), std::string::npos) << s.message;
    InferJob bad_header;
    s = rest(json, bad_header, form, json.size() + 1);
    EXPECT_NE(s.message.find("Inference-Header-Content-Length"), std::string::npos) << s.message;
}

TEST(RestRequest, ErrorsNameTheField) {
    struct Case {
        std::string body;
        const char* expected;
    };
    const std::string n = R"({"name": "n", "shape": [1], "datatype": "INT8", "data": [1]})";
    const std::vector<Case> cases = {
        {"not json", "not valid JSON"},
        {"[]", "must be a JSON object"},
        {R"({"inputs": 3})", "inputs must be an array"},
        {R"({"inputs": [{"name": "x", "shape": [1, 3], "datatype": "FP32", "data": [1, 2]}, )" + n +
             "]}",
         "inputs[0].data holds 2 values, the shape needs 3"},
        {R"({"inputs": [{"name": "x", "shape": [1, 3], "datatype": "FP32", "data": [1, 2, 3, 4]}, )" +
             n + "]}",
         "inputs[0].data holds more than the 3 values"},
        {R"({"inputs": [{"name": "x", "shape": [1, 3], "datatype": "FP32", "data": [1, "a", 3]}, )" +
             n + "]}",
         "inputs[0].data[1] is not a number or bool"},
        {R"({"inputs": [{"name": "n", "shape": [1], "datatype": "INT8", "data": [1.5]}]})",
         "inputs[0].data[0] does not fit the input's type INT8"},
        {R"({"inputs": [)" + n + "]}", "missing input(s) 'x'"},
        {R"({"inputs": [{"name": "w", "shape": [1], "datatype": "INT8", "data": [1]}]})",
         "inputs[0]: unknown input 'w'"},
        {R"({"inputs": [{"name": "n", "shape": [1], "datatype": "BYTES", "data": ["a"]}]})",
         "BYTES is not supported"},
        {R"({"inputs": [{"name": "n", "shape": [1], "datatype": "INT8"}]})",
         "inputs[0].data is missing"},
        {R"({"inputs": [{"name": "n", "datatype": "INT8", "data": [1]}]})",
         "inputs[0].shape must be an array"},
        {R"({"parameters": {"timeout": -5}, "inputs": []})", "parameters.timeout"},
        {R"({"inputs": [], "outputs": [{"name": "q"}]})", "missing input(s)"},
    };
    for (const auto& c : cases) {
        InferJob job;
        RestReplyForm form;
        const Status s = rest(c.body, job, form);
        EXPECT_EQ(s.code, StatusCode::kInvalidArgument) << c.body;
        EXPECT_NE(s.message.find(c.expected), std::string::npos) << c.body << " -> " << s.message;
    }
}

TEST(RestRequest, DeepNestingIsRefusedBeforeParsing) {
    const std::string deep =
        R"({"inputs": )" + std::string(1000000, '[') + std::string(1000000, ']') + "}";
    InferJob job;
    RestReplyForm form;
    const Status s = rest(deep, job, form);
    EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
    EXPECT_NE(s.message.find("nested deeper than 32 levels"), std::string::npos) << s.message;
    EXPECT_EQ(json_depth(R"({"a": "[[[[[[", "b": [[1]]})", 100), 3);
    EXPECT_EQ(json_depth(R"(["\"[[[["])", 100), 1);
}

TEST(RestResponse, JsonValuesAndBinaryOutputs) {
    std::vector<OutputData> outputs = {
        {"y", element::f32, {1, 2}, bytes_of({0.5f, -1.f})},
        {"b", element::boolean, {2}, std::string("\x01\x00", 2)},
        {"z", element::f16, {1}, std::string("\x00\x3c", 2)},  // 1.0 in FP16
    };
    RestReplyForm form;
    form.id = "abc";
    form.id_given = true;
    form.binary_outputs = {"y"};
    size_t header_length = 0;
    const std::string body = render_rest_response("m", 3, form, outputs, header_length);
    ASSERT_NE(header_length, std::string::npos);
    const std::string json = body.substr(0, header_length);
    EXPECT_EQ(json,
              R"({"model_name":"m","model_version":"3","id":"abc","outputs":[)"
              R"({"name":"y","datatype":"FP32","shape":[1,2],"parameters":{"binary_data_size":8}},)"
              R"({"name":"b","datatype":"BOOL","shape":[2],"data":[true,false]},)"
              R"({"name":"z","datatype":"FP16","shape":[1],"data":[1.0]}]})");
    EXPECT_EQ(body.substr(header_length), bytes_of({0.5f, -1.f}));
    std::vector<OutputData> plain = {{"y", element::u64, {1}, std::string(8, '\xff')}};
    const std::string text = render_rest_response("m", 1, RestReplyForm{}, plain, header_length);
    EXPECT_EQ(header_length, std::string::npos);
    EXPECT_NE(text.find("[18446744073709551615]"), std::string::npos) << text;
    EXPECT_EQ(error_json("bad \"x\""), R"({"error":"bad \"x\""})");
}

TEST(MetricsText, CountsAndHistogramsAsRecorded) {
    Metrics metrics;
    metrics.record_request("m", 1, "gRPC", "ModelInfer", true, 40);
    metrics.record_request("m", 1, "gRPC", "ModelInfer", true, 400);
    metrics.record_request("m", 1, "REST", "ModelInfer", false, 4000);
    metrics.version("m", 1)->inference_us.observe(120);
    EXPECT_EQ(metrics.requests("m", 1, "gRPC", "ModelInfer", true), 2u);
    EXPECT_EQ(metrics.requests("m", 1, "REST", "ModelInfer", false), 1u);
    const std::string text = metrics.render();
    EXPECT_NE(
        text.find(
            R"(vireo_requests_success{api="KServe",interface="gRPC",method="ModelInfer",name="m",version="1"} 2)"),
        std::string::npos)
        << text;
    EXPECT_NE(
        text.find(
            R"(vireo_requests_fail{api="KServe",interface="REST",method="ModelInfer",name="m",version="1"} 1)"),
        std::string::npos);
    EXPECT_NE(
        text.find(
            R"(vireo_request_time_us_bucket{interface="gRPC",name="m",version="1",le="50"} 1)"),
        std::string::npos);
    EXPECT_NE(
        text.find(
            R"(vireo_request_time_us_bucket{interface="gRPC",name="m",version="1",le="500"} 2)"),
        std::string::npos);
    EXPECT_NE(text.find(R"(vireo_request_time_us_sum{interface="gRPC",name="m",version="1"} 440)"),
              std::string::npos);
    EXPECT_NE(text.find(R"(vireo_inference_time_us_count{name="m",version="1"} 1)"),
              std::string::npos);
    EXPECT_NE(text.find("# TYPE vireo_current_requests gauge"), std::string::npos);
}

}  // namespace
}  // namespace vireo::server
