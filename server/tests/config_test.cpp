// Tests of the server's configuration: model names, version policies, OVMS config.json, the
// command line and the repository scan.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "model_manager.hpp"
#include "server_config.hpp"

namespace vireo::server {
namespace {

namespace fs = std::filesystem;

TEST(ModelName, AcceptsPlainNames) {
    for (const char* name : {"resnet", "my-model_2", "a.b", "X"}) {
        EXPECT_TRUE(validate_model_name(name).ok()) << name;
    }
}

TEST(ModelName, RefusesNamesThatCouldBecomePaths) {
    const std::vector<std::string> names = {"",
                                            ".",
                                            "..",
                                            "../etc",
                                            "a/b",
                                            "a\\b",
                                            "/abs",
                                            "sp ace",
                                            std::string(129, 'a'),
                                            std::string("nul\0x", 5)};
    for (const std::string& name : names) {
        const Status s = validate_model_name(name);
        EXPECT_EQ(s.code, StatusCode::kInvalidArgument) << name;
        EXPECT_NE(s.message.find("model name"), std::string::npos) << s.message;
    }
}

TEST(VersionPolicy, LatestByDefaultPicksTheHighest) {
    VersionPolicy policy;
    EXPECT_EQ(policy.select({1, 3, 2}), (std::vector<int64_t>{3}));
    policy.num_versions = 2;
    EXPECT_EQ(policy.select({1, 3, 2}), (std::vector<int64_t>{3, 2}));
    policy.num_versions = 5;
    EXPECT_EQ(policy.select({1, 2}), (std::vector<int64_t>{2, 1}));
    EXPECT_TRUE(policy.select({}).empty());
}

TEST(VersionPolicy, AllAndSpecific) {
    VersionPolicy all{VersionPolicy::Kind::kAll, 1, {}};
    EXPECT_EQ(all.select({2, 1, 4}), (std::vector<int64_t>{4, 2, 1}));
    VersionPolicy specific{VersionPolicy::Kind::kSpecific, 1, {1, 3, 7}};
    EXPECT_EQ(specific.select({1, 2, 3, 4}), (std::vector<int64_t>{3, 1}));
}

TEST(ConfigList, ParsesModelsAndPolicies) {
    const std::string json = R"({"model_config_list": [
        {"config": {"name": "a", "base_path": "/m/a", "target_device": "TEMPLATE", "nireq": 3,
                    "plugin_config": {"NUM_STREAMS": 2, "PERF_COUNT": true, "HINT": "LATENCY"},
                    "model_version_policy": {"latest": {"num_versions": 2}}}},
        {"config": {"name": "b", "base_path": "/m/b", "shape": {"x": "[1,3,-1,-1]"}, "batch_size": "4",
                    "model_version_policy": {"specific": {"versions": [1, 3]}}}},
        {"config": {"name": "c", "base_path": "/m/c", "model_version_policy": {"all": {}},
                    "dynamic_batching": {"max_batch_size": 8, "max_queue_delay_microseconds": 500,
                                         "preferred_batch_size": [4, 8]}}}]})";
    std::vector<ModelConfig> models;
    ASSERT_TRUE(parse_model_config_list(json, models).ok());
    ASSERT_EQ(models.size(), 3u);
    EXPECT_EQ(models[0].name, "a");
    EXPECT_EQ(models[0].target_device, "TEMPLATE");
    EXPECT_EQ(models[0].nireq, 3u);
    EXPECT_EQ(models[0].plugin_config.at("NUM_STREAMS"), "2");
    EXPECT_EQ(models[0].plugin_config.at("PERF_COUNT"), "YES");
    EXPECT_EQ(models[0].plugin_config.at("HINT"), "LATENCY");
    EXPECT_EQ(models[0].version_policy.kind, VersionPolicy::Kind::kLatest);
    EXPECT_EQ(models[0].version_policy.num_versions, 2u);
    EXPECT_EQ(models[1].target_device, "CPU");
    EXPECT_EQ(models[1].version_policy.kind, VersionPolicy::Kind::kSpecific);
    EXPECT_EQ(models[1].version_policy.versions, (std::vector<int64_t>{1, 3}));
    EXPECT_EQ(models[2].version_policy.kind, VersionPolicy::Kind::kAll);
    EXPECT_EQ(models[1].shapes.at("x"), "[1,3,-1,-1]");
    EXPECT_EQ(models[1].batch_size, 4);
    EXPECT_EQ(models[0].dynamic_batching.max_batch_size, 0u);
    EXPECT_EQ(models[2].dynamic_batching.max_batch_size, 8u);
    EXPECT_EQ(models[2].dynamic_batching.max_queue_delay_microseconds, 500u);
    EXPECT_EQ(models[2].dynamic_batching.preferred_batch_size, (std::vector<uint32_t>{4, 8}));
}

TEST(ConfigList, ErrorsNameTheProblem) {
    struct Case {
        const char* json;
        const char* expected;
    };
    const Case cases[] = {
        {"{", "not valid JSON"},
        {R"({"models": []})", "model_config_list"},
        {R"({"model_config_list": [{"config": {"base_path": "/x"}}]})", "config.name is required"},
        {R"({"model_config_list": [{"config": {"name": "../x", "base_path": "/x"}}]})",
         "model name"},
        {R"({"model_config_list": [{"config": {"name": "a", "base_path": "/x"}},
                                   {"config": {"name": "a", "base_path": "/y"}}]})",
         "listed twice"},
        {R"({"model_config_list": [{"config": {"name": "a", "base_path": "/x",
            "model_version_policy": {"newest": {}}}}]})",
         "unknown model_version_policy 'newest'"},
        {R"({"model_config_list": [{"config": {"name": "a", "base_path": "/x",
            "model_version_policy": {"latest": {"num_versions": 0}}}}]})",
         "num_versions"},
        {R"({"model_config_list": [{"config": {"name": "a", "base_path": "/x", "nireq": -1}}]})",
         "nireq"},
    };
    for (const auto& c : cases) {
        std::vector<ModelConfig> models;
        const Status s = parse_model_config_list(c.json, models);
        EXPECT_EQ(s.code, StatusCode::kInvalidArgument) << c.json;
        EXPECT_NE(s.message.find(c.expected), std::string::npos) << s.message;
    }
}

Status parse_args(std::vector<const char*> args, ServerOptions& options) {
    args.insert(args.begin(), "vireo_server");
    bool help = false;
    return parse_command_line(static_cast<int>(args.size()), args.data(), options, help);
}

TEST(CommandLine, OneModelLikeOvms) {
    ServerOptions options;
    ASSERT_TRUE(parse_args({"--model_path", "/models/m", "--model_name", "m", "--port", "9000",
                            "--rest_port=8000", "--target_device", "TEMPLATE", "--nireq", "4",
                            "--plugin_config", R"({"NUM_STREAMS":"2"})", "--metrics_enable",
                            "--shape", "(1,3,224,224)", "--batch_size", "2"},
                           options)
                    .ok());
    EXPECT_EQ(options.grpc_port, 9000);
    EXPECT_EQ(options.rest_port, 8000);
    EXPECT_TRUE(options.metrics_enable);
    EXPECT_FALSE(options.allow_client_shm);  // off unless asked for
    EXPECT_EQ(options.stream_max_pending, 64);
    ASSERT_EQ(options.models.size(), 1u);
    EXPECT_EQ(options.models[0].base_path, "/models/m");
    EXPECT_EQ(options.models[0].target_device, "TEMPLATE");
    EXPECT_EQ(options.models[0].nireq, 4u);
    EXPECT_EQ(options.models[0].plugin_config.at("NUM_STREAMS"), "2");
    EXPECT_EQ(options.models[0].shapes.at(""), "(1,3,224,224)");
    EXPECT_EQ(options.models[0].batch_size, 2);
}

TEST(CommandLine, AllowClientShm) {
    for (const auto& [flag, expected] :
         std::vector<std::pair<const char*, bool>>{{"--allow_client_shm", true},
                                                   {"--allow_client_shm=true", true},
                                                   {"--allow_client_shm=1", true},
                                                   {"--allow_client_shm=false", false},
                                                   {"--allow_client_shm=0", false}}) {
        ServerOptions options;
        ASSERT_TRUE(
            parse_args({"--model_path", "/m", "--model_name", "m", "--port", "1", flag}, options)
                .ok())
            << flag;
        EXPECT_EQ(options.allow_client_shm, expected) << flag;
    }
}

TEST(CommandLine, ErrorsNameTheFlag) {
    struct Case {
        std::vector<const char*> args;
        const char* expected;
    };
    const std::vector<Case> cases = {
        {{"--port", "abc"}, "--port must be an integer"},
        {{"--port", "70000"}, "--port must be an integer"},
        {{"--bogus", "1"}, "unknown flag --bogus"},
        {{"--port", "1", "--model_path", "/x"}, "go together"},
        {{"--port", "1", "--model_path", "/x", "--model_name", "../up"}, "model name"},
        {{"--port", "1", "--model_path", "/x", "--model_name", "m", "--plugin_config", "[1"},
         "--plugin_config"},
        {{"--model_path", "/x", "--model_name", "m"}, "--port"},
        {{"--port"}, "needs a value"},
        {{"--port", "1", "--allow_client_shm=yes"}, "--allow_client_shm takes true or false"},
        {{"--port", "1", "--stream_max_pending", "0"},
         "--stream_max_pending must be an integer in 1..65536"},
    };
    for (const auto& c : cases) {
        ServerOptions options;
        const Status s = parse_args(c.args, options);
        EXPECT_EQ(s.code, StatusCode::kInvalidArgument) << c.expected;
        EXPECT_NE(s.message.find(c.expected), std::string::npos) << s.message;
    }
}

TEST(Repository, ScanFindsIntegerVersionsWithAModelFile) {
    const fs::path root =
        fs::temp_directory_path() / ("vireo_server_scan_" + std::to_string(::getpid()));
    fs::remove_all(root);
    auto touch = [](const fs::path& p) {
        fs::create_directories(p.parent_path());
        std::ofstream(p) << "x";
    };
    touch(root / "1" / "model.xml");
    touch(root / "2" / "model.onnx");
    touch(root / "3" / "readme.txt");   // no model file: not a version
    touch(root / "abc" / "model.xml");  // not an integer: not a version
    touch(root / "0" / "model.xml");    // versions start at 1
    touch(root / "10" / "resnet.xml");  // the only .xml of the folder
    const auto versions = scan_versions(root.string());
    ASSERT_EQ(versions.size(), 3u);
    EXPECT_EQ(fs::path(versions.at(1)).filename(), "model.xml");
    EXPECT_EQ(fs::path(versions.at(2)).filename(), "model.onnx");
    EXPECT_EQ(fs::path(versions.at(10)).filename(), "resnet.xml");
    EXPECT_TRUE(scan_versions((root / "missing").string()).empty());
    fs::remove_all(root);
}

}  // namespace
}  // namespace vireo::server
