// Runs the sample programs as a user would and checks what they produce: hello_infer's saved
// outputs against an in-process compile+infer, benchmark_app's JSON report and Chrome trace,
// async_pipeline on every bundled model, and that the committed sample models are up to date.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "json.hpp"
#include "npy.hpp"
#include "vireo/core.hpp"
#include "vireo/infer_request.hpp"
#include "vireo/ir.hpp"
#include "vireo/ops.hpp"

namespace vireo::sample_test {
namespace {

namespace fs = std::filesystem;
using samples::JsonValue;
using samples::parse_json;

struct RunResult {
    int exit_code = -1;
    std::string output;  // stdout and stderr together
};

std::string quote(const std::string& arg) {
    std::string out = "'";
    for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

RunResult run_sample(const std::string& program, const std::vector<std::string>& args) {
    std::string command = quote(std::string(VIREO_BUILD_BIN_DIR) + "/" + program);
    for (const auto& a : args) command += " " + quote(a);
    command += " 2>&1";
    RunResult result;
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) throw std::runtime_error("cannot run " + command);
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
        result.output.append(buffer, n);
    const int status = pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

fs::path scratch_root() {
    return fs::temp_directory_path() / ("vireo_samples_test_" + std::to_string(::getpid()));
}

/// Removes this process's scratch files when the test program ends.
class ScratchCleanup : public ::testing::Environment {
  public:
    void TearDown() override { fs::remove_all(scratch_root()); }
};
const auto* const g_cleanup = ::testing::AddGlobalTestEnvironment(new ScratchCleanup);

fs::path scratch_dir(const std::string& name) {
    const fs::path dir = scratch_root() / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

std::string model_path(const std::string& name) {
    return std::string(VIREO_SAMPLE_MODELS_DIR) + "/" + name + "/" + name + ".xml";
}

Core make_core() {
    return Core(std::string(VIREO_BUILD_LIB_DIR) + "/plugins.xml");
}

/// Inputs independent of the samples' own random generator: a plain sine pattern.
Tensor pattern_input(const Shape& shape) {
    Tensor t(element::f32, shape);
    float* data = t.data<float>();
    for (size_t i = 0; i < t.get_size(); ++i)
        data[i] = 0.5f * std::sin(0.37f * static_cast<float>(i));
    return t;
}

size_t count_lines(const std::string& text, const std::string& prefix) {
    size_t n = 0;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) n += line.rfind(prefix, 0) == 0;
    return n;
}

// ---- hello_infer: its saved outputs equal the API's results for the same input ----

struct HelloCase {
    std::string model;
    Shape input_shape;
    std::string device;
};

class HelloInferMatchesApi : public ::testing::TestWithParam<HelloCase> {};

TEST_P(HelloInferMatchesApi, SavedOutputEqualsDirectInference) {
    const HelloCase& c = GetParam();
    const fs::path dir = scratch_dir("hello_" + c.model + "_" + c.device);
    const Tensor input = pattern_input(c.input_shape);
    npy::write_npy((dir / "x.npy").string(), input);

    const RunResult run =
        run_sample("hello_infer", {"-m", model_path(c.model), "-d", c.device, "-i",
                                   "x=" + (dir / "x.npy").string(), "-o", (dir / "out").string()});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("Output y: f32"), std::string::npos) << run.output;
    const Tensor saved = npy::read_npy((dir / "out" / "y.npy").string());

    // The oracle: TEMPLATE through the API in this process.
    Core core = make_core();
    auto model = core.read_model(model_path(c.model));
    if (model->input().get_partial_shape().is_dynamic())
        model->reshape({{"x", PartialShape(c.input_shape)}});
    InferRequest request = core.compile_model(model, "TEMPLATE").create_infer_request();
    request.set_tensor("x", input);
    request.infer();
    const Tensor expected = request.get_tensor("y");

    ASSERT_EQ(saved.get_element_type(), element::f32);
    ASSERT_EQ(saved.get_shape(), expected.get_shape());
    const float* got = saved.data<float>();
    const float* want = expected.data<float>();
    for (size_t i = 0; i < saved.get_size(); ++i) {
        if (c.device == "TEMPLATE")
            ASSERT_EQ(got[i], want[i]) << "element " << i;  // same device, same input: identical
        else
            ASSERT_NEAR(got[i], want[i], 1e-5f + 1e-4f * std::fabs(want[i])) << "element " << i;
    }
}

INSTANTIATE_TEST_SUITE_P(BundledModels, HelloInferMatchesApi,
                         ::testing::Values(HelloCase{"mlp", {1, 256}, "TEMPLATE"},
                                           HelloCase{"cnn", {1, 3, 32, 32}, "TEMPLATE"},
                                           HelloCase{"dynamic", {3, 64}, "TEMPLATE"},
                                           HelloCase{"cnn", {1, 3, 32, 32}, "MOCK_REMOTE.0"},
                                           HelloCase{"mlp", {1, 256}, "MOCK_REMOTE.1"}),
                         [](const auto& info) {
                             std::string name = info.param.model + "_" + info.param.device;
                             for (char& ch : name)
                                 if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             return name;
                         });

// Issue 23 item 6: outputs whose names map to one file ("a/b" and "a:b") are both written.
TEST(HelloInfer, OutputsWhoseNamesMapToOneFileDoNotOverwriteEachOther) {
    const fs::path dir = scratch_dir("colliding_names");
    auto x = vireo::op::parameter(vireo::element::f32, vireo::PartialShape(vireo::Shape{3}), "x");
    auto first = vireo::op::relu(x);
    auto second = vireo::op::unary("Negative", x);
    first->output(0).set_names({"a/b"});
    second->output(0).set_names({"a:b"});
    vireo::serialize(
        vireo::Model(vireo::OutputVector{first, second}, vireo::ParameterVector{x}, "collide"),
        (dir / "collide.xml").string());
    vireo::Tensor input(vireo::element::f32, vireo::Shape{3});
    for (int i = 0; i < 3; ++i) input.data<float>()[i] = static_cast<float>(i) - 1.0f;  // -1 0 1
    vireo::npy::write_npy((dir / "x.npy").string(), input);
    const RunResult run =
        run_sample("hello_infer", {"-m", (dir / "collide.xml").string(), "-i",
                                   "x=" + (dir / "x.npy").string(), "-o", (dir / "out").string()});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const vireo::Tensor relu = vireo::npy::read_npy((dir / "out" / "a_b.npy").string());
    const vireo::Tensor negative = vireo::npy::read_npy((dir / "out" / "a_b.1.npy").string());
    const float expected_relu[] = {0.0f, 0.0f, 1.0f}, expected_negative[] = {1.0f, 0.0f, -1.0f};
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(relu.data<float>()[i], expected_relu[i]) << i;
        EXPECT_EQ(negative.data<float>()[i], expected_negative[i]) << i;
    }
}

// ---- benchmark_app: the JSON report and the trace ----

TEST(BenchmarkApp, JsonReportHasEveryDocumentedKey) {
    const fs::path dir = scratch_dir("report");
    const RunResult run = run_sample(
        "benchmark_app", {"-m", model_path("mlp"), "-d", "TEMPLATE", "-api", "async", "-nireq", "2",
                          "-niter", "20", "-json_report", (dir / "report.json").string()});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const JsonValue report = parse_json(read_file(dir / "report.json"));
    for (const char* key :
         {"model", "device", "api", "hint", "nireq", "compile_ms", "first_inference_ms", "count",
          "duration_ms", "throughput_fps", "latency_ms", "properties"})
        EXPECT_TRUE(report.has(key)) << key;
    EXPECT_EQ(report["device"].text, "TEMPLATE");
    EXPECT_EQ(report["api"].text, "async");
    EXPECT_EQ(report["nireq"].number, 2);
    EXPECT_EQ(report["count"].number, 20);
    EXPECT_GT(report["throughput_fps"].number, 0);
    const JsonValue& latency = report["latency_ms"];
    for (const char* key : {"median", "average", "min", "max", "p90", "p99"})
        ASSERT_TRUE(latency.has(key)) << key;
    EXPECT_LE(latency["min"].number, latency["median"].number);
    EXPECT_LE(latency["median"].number, latency["p90"].number);
    EXPECT_LE(latency["p90"].number, latency["p99"].number);
    EXPECT_LE(latency["p99"].number, latency["max"].number);
    EXPECT_EQ(report["properties"].kind, JsonValue::Kind::Object);
    EXPECT_FALSE(report["properties"].members.empty());
}

TEST(BenchmarkApp, TraceHasEveryStageOfEveryRequestOnNamedThreads) {
    const fs::path dir = scratch_dir("trace");
    const RunResult run =
        run_sample("benchmark_app", {"-m", model_path("cnn"), "-d", "MOCK_REMOTE.0", "-nireq", "3",
                                     "-niter", "12", "-trace", (dir / "trace.json").string()});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const JsonValue trace = parse_json(read_file(dir / "trace.json"));
    ASSERT_EQ(trace["traceEvents"].kind, JsonValue::Kind::Array);

    std::set<double> named_threads, used_threads;
    std::map<double, std::map<std::string, int>>
        spans_per_request;  // request -> span name -> count
    for (const JsonValue& e : trace["traceEvents"].items) {
        if (e["ph"].text == "M" && e["name"].text == "thread_name")
            named_threads.insert(e["tid"].number);
        if (e["ph"].text != "X") continue;
        EXPECT_GE(e["dur"].number, 0);
        EXPECT_GE(e["ts"].number, 0);
        used_threads.insert(e["tid"].number);
        if (e["args"]["request"].kind == JsonValue::Kind::Number)
            ++spans_per_request[e["args"]["request"].number][e["name"].text];
    }
    for (double tid : used_threads)
        EXPECT_TRUE(named_threads.count(tid)) << "thread " << tid << " has no name";
    // MOCK_REMOTE's pipeline has three stages; each request runs each stage, then its callback,
    // equally often.
    ASSERT_EQ(spans_per_request.size(), 3u);
    int async_runs = 0;
    for (const auto& [request, spans] : spans_per_request) {
        const int runs = spans.count("callback") ? spans.at("callback") : 0;
        EXPECT_GT(runs, 0) << "request " << request;
        for (const char* stage : {"stage 1/3", "stage 2/3", "stage 3/3"})
            EXPECT_EQ(spans.count(stage) ? spans.at(stage) : 0, runs)
                << "request " << request << " " << stage;
        async_runs += runs;
    }
    EXPECT_GE(async_runs, 12);  // every measured iteration (plus any warm-up run) is traced
}

// ---- benchmark_app: OpenVINO's flags (issue 22) ----

std::string golden(const std::string& name, const std::string& file) {
    return std::string(VIREO_TEST_DATA_DIR) + "/models/golden/" + name + "/" + file;
}

std::string two_inputs_model() {
    return std::string(VIREO_TEST_DATA_DIR) + "/models/openvino_ir/add_two_inputs_model/add.xml";
}

void write_text(const fs::path& path, const std::string& text) {
    std::ofstream out(path);
    out << text;
}

void write_f32_npy(const fs::path& path, const Shape& shape, float value) {
    Tensor t(element::f32, shape);
    std::fill_n(t.data<float>(), t.get_size(), value);
    npy::write_npy(path.string(), t);
}

TEST(BenchmarkAppFlags, LoadConfigSetsPropertiesAndDumpConfigWritesThemBack) {
    const fs::path dir = scratch_dir("config");
    write_text(
        dir / "in.json",
        R"({"TEMPLATE": {"NUM_STREAMS": 2, "PERFORMANCE_HINT": "LATENCY", "PERF_COUNT": true}})");
    const RunResult run =
        run_sample("benchmark_app",
                   {"-m", golden("tiny", "model.xml"), "-d", "TEMPLATE", "-niter", "4",
                    "-load_config", (dir / "in.json").string(), "-dump_config",
                    (dir / "out.json").string(), "-json_report", (dir / "report.json").string()});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const JsonValue dumped = parse_json(read_file(dir / "out.json"));
    ASSERT_EQ(dumped.members.size(), 1u);
    const JsonValue& config = dumped["TEMPLATE"];
    EXPECT_EQ(config["NUM_STREAMS"].text, "2");
    EXPECT_EQ(config["PERFORMANCE_HINT"].text, "LATENCY");  // the file's, since -hint was not given
    EXPECT_EQ(config["PERF_COUNT"].text, "YES");
    const JsonValue report = parse_json(read_file(dir / "report.json"));
    EXPECT_EQ(report["hint"].text, "LATENCY");
    EXPECT_EQ(report["config"]["NUM_STREAMS"].text, "2");
    EXPECT_EQ(report["command_line"]["-niter"].text, "4");
    EXPECT_EQ(report["properties"]["NUM_STREAMS"].text, "2");  // the compiled model took it

    // The dumped file loads back; an explicit flag overrides the file.
    const RunResult again = run_sample(
        "benchmark_app", {"-m", golden("tiny", "model.xml"), "-d", "TEMPLATE", "-niter", "2",
                          "-hint", "throughput", "-load_config", (dir / "out.json").string(),
                          "-dump_config", (dir / "again.json").string()});
    ASSERT_EQ(again.exit_code, 0) << again.output;
    EXPECT_EQ(parse_json(read_file(dir / "again.json"))["TEMPLATE"]["PERFORMANCE_HINT"].text,
              "THROUGHPUT");
}

TEST(BenchmarkAppFlags, LoadConfigErrorsNameTheFileAndTheFault) {
    const fs::path dir = scratch_dir("config_errors");
    write_text(dir / "broken.json", "{\"TEMPLATE\": {\"NUM_STREAMS\": }");
    write_text(dir / "flat.json", "{\"NUM_STREAMS\": 2}");
    write_text(dir / "unknown.json", "{\"TEMPLATE\": {\"NO_SUCH_KEY\": 1}}");
    const std::string model = golden("tiny", "model.xml");
    auto run = [&](const std::string& file) {
        return run_sample("benchmark_app",
                          {"-m", model, "-niter", "1", "-load_config", (dir / file).string()});
    };
    RunResult r = run("broken.json");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("-load_config '" + (dir / "broken.json").string() +
                            "': invalid JSON at offset"),
              std::string::npos)
        << r.output;
    r = run("flat.json");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("\"NUM_STREAMS\" is not an object of properties"), std::string::npos)
        << r.output;
    r = run("unknown.json");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("unknown property 'NO_SUCH_KEY'"), std::string::npos) << r.output;
    r = run("missing.json");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("cannot read"), std::string::npos) << r.output;
}

TEST(BenchmarkAppFlags, InputsFromFilesFoldersAndNames) {
    const fs::path dir = scratch_dir("inputs");
    fs::create_directories(dir / "one");
    fs::create_directories(dir / "two");
    for (int k = 0; k < 3; ++k)
        write_f32_npy(dir / "one" / ("x" + std::to_string(k) + ".npy"), Shape{1, 10}, k);
    write_f32_npy(dir / "two" / "input1.npy", Shape{1, 10}, 1);
    write_f32_npy(dir / "two" / "input2.npy", Shape{1, 10}, 2);
    write_f32_npy(dir / "wrong.npy", Shape{2, 10}, 0);

    RunResult r = run_sample(
        "benchmark_app", {"-m", golden("tiny", "model.xml"), "-niter", "6", "-api", "sync", "-i",
                          (dir / "one").string(), "-inference_only=false"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("input 'x': 3 file(s)"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Count:               6 iterations"), std::string::npos) << r.output;

    r = run_sample("benchmark_app",
                   {"-m", two_inputs_model(), "-niter", "2", "-i", (dir / "two").string()});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("input 'input1': 1 file(s)"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("input 'input2': 1 file(s)"), std::string::npos) << r.output;

    r = run_sample("benchmark_app", {"-m", two_inputs_model(), "-niter", "2", "-i",
                                     "input2:" + (dir / "one" / "x1.npy").string() +
                                         ",input1=" + (dir / "one").string()});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("input 'input1': 3 file(s)"), std::string::npos) << r.output;

    struct Bad {
        std::string model, inputs, message;
    };
    for (const Bad& bad : std::vector<Bad>{
             {golden("tiny", "model.xml"), (dir / "wrong.npy").string(),
              "has shape [2,10] but input 'x' has shape [1,10]"},
             {golden("tiny", "model.xml"), "nope=" + (dir / "wrong.npy").string(),
              "the model has no input named 'nope'"},
             {golden("tiny", "model.xml"), (dir / "absent.npy").string(), "does not exist"},
             {two_inputs_model(), (dir / "one" / "x0.npy").string(),
              "does not say which of the model's 2 inputs"},
             {two_inputs_model(), "input1:" + (dir / "one" / "x0.npy").string(),
              "no data for input 'input2'"},
         }) {
        r = run_sample("benchmark_app", {"-m", bad.model, "-niter", "1", "-i", bad.inputs});
        EXPECT_EQ(r.exit_code, 1) << bad.inputs;
        EXPECT_NE(r.output.find(bad.message), std::string::npos) << r.output;
    }
}

// Issue 35: gflags kept only the last of repeated -i flags, and hello_infer filled every input
// it was not given with random data, silently (exit 0 on garbage).
TEST(InputsFlag, RepeatedOrCommaSeparatedInputsAllReachHelloInfer) {
    const fs::path dir = scratch_dir("hello_two_inputs");
    write_f32_npy(dir / "a.npy", Shape{1, 10}, 1.5f);
    write_f32_npy(dir / "b.npy", Shape{1, 10}, 2.0f);
    const std::string a = "input1=" + (dir / "a.npy").string();
    const std::string b = "input2=" + (dir / "b.npy").string();
    for (const auto& flags : std::vector<std::vector<std::string>>{
             {"-i", a, "-i", b}, {"-i", a + "," + b}, {"--i=" + a, "-i", b}}) {
        fs::remove_all(dir / "out");
        std::vector<std::string> args{"-m", two_inputs_model(), "-o", (dir / "out").string()};
        args.insert(args.end(), flags.begin(), flags.end());
        const RunResult run = run_sample("hello_infer", args);
        ASSERT_EQ(run.exit_code, 0) << run.output;
        EXPECT_NE(run.output.find("Input input1: [1,10] from .npy"), std::string::npos)
            << run.output;
        EXPECT_NE(run.output.find("Input input2: [1,10] from .npy"), std::string::npos)
            << run.output;
        EXPECT_EQ(run.output.find("random"), std::string::npos) << run.output;
        // The one output, whatever name the v10 IR gives it.
        std::vector<fs::path> written;
        for (const auto& entry : fs::directory_iterator(dir / "out"))
            written.push_back(entry.path());
        ASSERT_EQ(written.size(), 1u);
        const Tensor sum = npy::read_npy(written[0].string());
        ASSERT_EQ(sum.get_size(), 10u);
        for (size_t i = 0; i < sum.get_size(); ++i) EXPECT_EQ(sum.data<float>()[i], 3.5f) << i;
    }
}

TEST(InputsFlag, HelloInferRefusesAMissingInputUnlessRandomInputsIsGiven) {
    const fs::path dir = scratch_dir("hello_missing_input");
    write_f32_npy(dir / "a.npy", Shape{1, 10}, 1.0f);
    const std::string a = "input1=" + (dir / "a.npy").string();
    RunResult run = run_sample("hello_infer", {"-m", two_inputs_model(), "-i", a});
    EXPECT_EQ(run.exit_code, 1) << run.output;
    EXPECT_NE(run.output.find("no data for input(s) 'input2'"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("-random_inputs"), std::string::npos) << run.output;
    EXPECT_EQ(run.output.find("Output"), std::string::npos) << run.output;  // nothing ran

    run = run_sample("hello_infer", {"-m", two_inputs_model(), "-i", a, "-random_inputs"});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("Input input1: [1,10] from .npy"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("Input input2: [1,10] random"), std::string::npos) << run.output;

    run = run_sample("hello_infer", {"-m", two_inputs_model(), "-i", a, "-i", a});
    EXPECT_EQ(run.exit_code, 1) << run.output;
    EXPECT_NE(run.output.find("-i gives input 'input1' twice"), std::string::npos) << run.output;
}

TEST(InputsFlag, BenchmarkAppTakesRepeatedInputsAndRandomInputsForTheRest) {
    const fs::path dir = scratch_dir("bench_two_inputs");
    write_f32_npy(dir / "a.npy", Shape{1, 10}, 1.0f);
    write_f32_npy(dir / "b.npy", Shape{1, 10}, 2.0f);
    const std::string a = "input1:" + (dir / "a.npy").string();
    RunResult r = run_sample("benchmark_app", {"-m", two_inputs_model(), "-niter", "2", "-i", a,
                                               "-i", "input2:" + (dir / "b.npy").string()});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("input 'input1': 1 file(s)"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("input 'input2': 1 file(s)"), std::string::npos) << r.output;

    r = run_sample("benchmark_app", {"-m", two_inputs_model(), "-niter", "2", "-i", a});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("no data for input 'input2'"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("-random_inputs"), std::string::npos) << r.output;

    r = run_sample("benchmark_app",
                   {"-m", two_inputs_model(), "-niter", "2", "-i", a, "-random_inputs"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("input 'input1': 1 file(s)"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("input 'input2': random data (-random_inputs)"), std::string::npos)
        << r.output;
}

TEST(BenchmarkAppFlags, BatchLayoutAndDataShape) {
    RunResult r =
        run_sample("benchmark_app", {"-m", golden("tiny", "model.xml"), "-niter", "2", "-b", "4"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("input 'x': f32 [4,10]"), std::string::npos) << r.output;
    r = run_sample("benchmark_app", {"-m", golden("tiny", "model.xml"), "-niter", "2", "-b", "3",
                                     "-layout", "[CN]"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("input 'x': f32 [1,3]"), std::string::npos) << r.output;
    r = run_sample("benchmark_app", {"-m", golden("tiny", "model.xml"), "-niter", "1", "-b", "3",
                                     "-layout", "[CH]"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("the layout 'CH' of input 'x' has no N"), std::string::npos)
        << r.output;
    r = run_sample("benchmark_app", {"-m", golden("tiny", "model.xml"), "-niter", "1", "-b", "-2"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("-b must be positive"), std::string::npos) << r.output;

    const std::string dynamic =
        std::string(VIREO_TEST_DATA_DIR) + "/models/openvino_ir/passthrough/passthrough.xml";
    r = run_sample("benchmark_app", {"-m", dynamic, "-niter", "3", "-data_shape", "[2,5]"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("Count:               3 iterations"), std::string::npos) << r.output;
    r = run_sample("benchmark_app", {"-m", dynamic, "-niter", "1"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("has dynamic shape"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("-data_shape"), std::string::npos) << r.output;
}

TEST(BenchmarkAppFlags, LatencyPercentile) {
    const fs::path dir = scratch_dir("percentile");
    RunResult r = run_sample(
        "benchmark_app", {"-m", golden("tiny", "model.xml"), "-niter", "40", "-api", "sync",
                          "-latency_percentile", "75", "-json_report", (dir / "r.json").string()});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("   p75:"), std::string::npos) << r.output;
    const JsonValue latency = parse_json(read_file(dir / "r.json"))["latency_ms"];
    EXPECT_EQ(latency["percentile"].number, 75);
    EXPECT_GE(latency["at_percentile"].number, latency["median"].number);
    EXPECT_LE(latency["at_percentile"].number, latency["p90"].number);
    for (const char* bad : {"0", "101"}) {
        r = run_sample("benchmark_app", {"-m", golden("tiny", "model.xml"), "-niter", "1",
                                         "-latency_percentile", bad});
        EXPECT_EQ(r.exit_code, 1);
        EXPECT_NE(r.output.find("-latency_percentile must be in 1..100"), std::string::npos)
            << r.output;
    }
}

// The counter lines benchmark_app prints: "  name  STATUS layerType: ... realTime (ms): X ...".
std::vector<std::pair<std::string, double>> counter_lines(const std::string& output) {
    std::vector<std::pair<std::string, double>> rows;
    std::istringstream in(output);
    for (std::string line; std::getline(in, line);) {
        const size_t at = line.find("realTime (ms):");
        if (at == std::string::npos) continue;
        rows.emplace_back(line, std::stod(line.substr(at + 14)));
    }
    return rows;
}

TEST(BenchmarkAppFlags, PcsortOrdersAndFiltersTheCounters) {
    const std::string model = golden("cnn", "model.xml");
    RunResult r = run_sample("benchmark_app", {"-m", model, "-niter", "4", "-pcsort", "sort"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    auto rows = counter_lines(r.output);
    ASSERT_GT(rows.size(), 8u) << r.output;
    for (size_t i = 1; i < rows.size(); ++i)
        EXPECT_GE(rows[i - 1].second, rows[i].second) << rows[i].first;
    EXPECT_NE(r.output.find("proportion:"), std::string::npos);

    r = run_sample("benchmark_app", {"-m", model, "-niter", "4", "-pcsort", "simple_sort"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto executed = counter_lines(r.output);
    for (const auto& [line, time] : executed)
        EXPECT_NE(line.find("EXECUTED"), std::string::npos) << line;
    EXPECT_LT(executed.size(), rows.size());  // the OPTIMIZED_OUT transfer stages are left out

    r = run_sample("benchmark_app", {"-m", model, "-niter", "1", "-pcsort", "fastest"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("-pcsort must be sort, no_sort or simple_sort"), std::string::npos)
        << r.output;
}

TEST(BenchmarkAppFlags, CsvReportsOfEachType) {
    const std::string model = golden("cnn", "model.xml");
    for (const std::string type : {"no_counters", "average_counters", "detailed_counters"}) {
        const fs::path dir = scratch_dir("csv_" + type);
        const RunResult r =
            run_sample("benchmark_app", {"-m", model, "-niter", "6", "-nireq", "2", "-report_type",
                                         type, "-report_folder", dir.string()});
        ASSERT_EQ(r.exit_code, 0) << r.output;
        const std::string main = read_file(dir / "benchmark_report.csv");
        for (const char* section :
             {"Command line parameters", "Configuration setup", "Execution results",
              "total number of iterations;6", "-report_type;"})
            EXPECT_NE(main.find(section), std::string::npos) << type << ": " << section;
        EXPECT_EQ(fs::exists(dir / "benchmark_average_counters_report.csv"),
                  type == "average_counters");
        EXPECT_EQ(fs::exists(dir / "benchmark_detailed_counters_report.csv"),
                  type == "detailed_counters");
        if (type == "average_counters") {
            const std::string csv = read_file(dir / "benchmark_average_counters_report.csv");
            EXPECT_EQ(count_lines(csv, "conv1;EXECUTED;Convolution;"), 1u) << csv;
            EXPECT_EQ(count_lines(csv, "Total;"), 1u) << csv;
        }
        if (type == "detailed_counters") {
            const std::string csv = read_file(dir / "benchmark_detailed_counters_report.csv");
            EXPECT_EQ(count_lines(csv, "Performance counters of request "), 2u) << csv;
            EXPECT_EQ(count_lines(csv, "conv1;EXECUTED;Convolution;"), 2u) << csv;
        }
    }
    const RunResult bad =
        run_sample("benchmark_app", {"-m", model, "-niter", "1", "-report_type", "everything"});
    EXPECT_EQ(bad.exit_code, 1);
    EXPECT_NE(bad.output.find("-report_type must be"), std::string::npos) << bad.output;
}

TEST(BenchmarkAppFlags, ExecGraphPathWritesTheRuntimeModelAsIr) {
    const fs::path dir = scratch_dir("exec_graph");
    const RunResult r =
        run_sample("benchmark_app", {"-m", golden("cnn", "model.xml"), "-niter", "1",
                                     "-exec_graph_path", (dir / "exec.xml").string()});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    ASSERT_TRUE(fs::exists(dir / "exec.bin"));
    Core core = make_core();
    const auto runtime = core.read_model((dir / "exec.xml").string());
    const auto expected =
        make_core().compile_model(golden("cnn", "model.xml"), "TEMPLATE").get_runtime_model();
    EXPECT_EQ(runtime->get_ordered_ops().size(), expected->get_ordered_ops().size());
}

// ---- async_pipeline ----

struct PipelineCase {
    std::string model;
    std::string device;
    std::vector<std::string> extra;
};

class AsyncPipeline : public ::testing::TestWithParam<PipelineCase> {};

TEST_P(AsyncPipeline, ChainsEveryInferenceAndMatchesSyncResults) {
    const PipelineCase& c = GetParam();
    std::vector<std::string> args = {
        "-m", model_path(c.model), "-d", c.device, "-nireq", "3", "-niter", "24"};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    const RunResult run = run_sample("async_pipeline", args);
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("Completed 24 inferences with 3 requests in flight"),
              std::string::npos)
        << run.output;
    EXPECT_NE(run.output.find("All results match the synchronous run"), std::string::npos)
        << run.output;
    // The five pipeline stage rows of the profiled request.
    for (const char* stage : {"input preprocessing", "input transfer", "execution",
                              "output transfer", "output postprocessing"})
        EXPECT_EQ(count_lines(run.output, std::string("  ") + stage), 1u) << stage << "\n"
                                                                          << run.output;
}

INSTANTIATE_TEST_SUITE_P(
    BundledModels, AsyncPipeline,
    ::testing::Values(PipelineCase{"cnn", "TEMPLATE", {}}, PipelineCase{"mlp", "MOCK_REMOTE.1", {}},
                      PipelineCase{"dynamic", "TEMPLATE", {"-shape", "[5,64]"}}),
    [](const auto& info) {
        std::string name = info.param.model + "_" + info.param.device;
        for (char& ch : name)
            if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
        return name;
    });

TEST(AsyncPipelineErrors, OneLineErrors) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"-m", model_path("dynamic")}, "dynamic shape [?,64]; give it with -shape"},
        {{"-m", "/nonexistent/model.xml"}, "does not exist"},
        {{"-m", model_path("cnn"), "-d", "NOPE"}, "NOPE"},
        {{"-m", model_path("cnn"), "-nireq", "0"}, "-nireq and -niter must be at least 1"},
        {{}, "-m is required"},
    };
    for (const auto& [args, message] : cases) {
        const RunResult run = run_sample("async_pipeline", args);
        EXPECT_EQ(run.exit_code, 1) << run.output;
        EXPECT_EQ(count_lines(run.output, "[ ERROR ]"), 1u) << run.output;
        EXPECT_NE(run.output.find(message), std::string::npos)
            << "expected '" << message << "' in\n"
            << run.output;
    }
}

// ---- model_generator: the committed models are what the generator writes today ----

TEST(ModelGenerator, CommittedModelsAreUpToDate) {
    const fs::path dir = scratch_dir("generated");
    const RunResult run = run_sample("model_generator", {"-o", dir.string()});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    for (const std::string name : {"mlp", "cnn", "dynamic", "summator"}) {
        for (const std::string ext : {".xml", ".bin"}) {
            const fs::path fresh = dir / name / (name + ext);
            const fs::path committed = fs::path(VIREO_SAMPLE_MODELS_DIR) / name / (name + ext);
            ASSERT_TRUE(fs::exists(fresh)) << fresh;
            EXPECT_EQ(read_file(fresh), read_file(committed))
                << committed << " differs from the generator's output; regenerate with "
                << "build/bin/model_generator -o samples/models";
        }
    }
}

TEST(ModelGenerator, RejectsUnknownModel) {
    const RunResult run =
        run_sample("model_generator", {"-o", scratch_dir("bad").string(), "-only", "resnet"});
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_NE(run.output.find("'resnet' is not a model"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace vireo::sample_test
