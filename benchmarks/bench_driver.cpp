// The bench driver: one measurement per process (so peak RSS belongs to it), printed as
// "key=value" lines for scripts/bench.sh — a large generated IR, read/compile time and memory,
// an mmap-and-touch baseline, model-cache import vs compile, per-request memory.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "vireo/core.hpp"
#include "vireo/ir.hpp"
#include "vireo/mock_remote/properties.hpp"
#include "vireo/ops.hpp"
#ifdef VIREO_BENCH_ONNX
#include <onnx/onnx_pb.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Peak resident set of this process so far, in MiB.
double peak_rss_mib() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// Current resident set, in MiB (from /proc/self/statm).
double rss_mib() {
    std::ifstream statm("/proc/self/statm");
    size_t pages = 0, resident = 0;
    statm >> pages >> resident;
    return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) /
           (1024.0 * 1024.0);
}

void print(const std::string& key, double value) {
    std::printf("%s=%.3f\n", key.c_str(), value);
}

// TEMPLATE on one thread (figures independent of the helper threads); other devices as they are.
vireo::AnyMap device_properties(const std::string& device) {
    if (device.rfind("TEMPLATE", 0) == 0) return {vireo::inference_num_threads(1)};
    return {};
}

// generate DIR MIB: an MLP of 2048x2048 f32 MatMuls + Relu with MIB MiB of weights in total
// (16 MiB per layer, each layer's bytes distinct so the writer cannot share them), as
// DIR/big.xml + DIR/big.bin.
int generate(const std::string& dir, size_t mib) {
    constexpr size_t kWidth = 2048;
    const size_t layers = std::max<size_t>(1, mib / 16);
    auto x = vireo::op::parameter(vireo::element::f32, vireo::PartialShape(vireo::Shape{1, kWidth}),
                                  "x");
    vireo::Output value = x;
    for (size_t layer = 0; layer < layers; ++layer) {
        vireo::Tensor w(vireo::element::f32, vireo::Shape{kWidth, kWidth});
        float* p = w.data<float>();
        uint32_t state = static_cast<uint32_t>(layer) * 2654435761u + 12345u;
        for (size_t i = 0; i < w.get_size(); ++i) {
            state = state * 1664525u + 1013904223u;  // LCG: fast, distinct per layer
            p[i] = static_cast<float>(static_cast<int32_t>(state >> 8) % 2001 - 1000) * 1e-6f;
        }
        value = vireo::op::relu(vireo::op::matmul(value, vireo::op::constant(w)));
    }
    value.set_names({"y"});
    auto model = std::make_shared<vireo::Model>(vireo::OutputVector{value},
                                                vireo::ParameterVector{x}, "big_mlp");
    const auto start = Clock::now();
    vireo::serialize(*model, dir + "/big.xml", dir + "/big.bin");
    print("layers", static_cast<double>(layers));
    print("serialize_ms", ms_since(start));
    print("bin_mib", static_cast<double>(std::filesystem::file_size(dir + "/big.bin")) / 1048576.0);
    return 0;
}

// load MODEL DEVICE (IR or ONNX): read_model, compile_model, one inference; times and memory after
// each.
int load(const std::string& xml, const std::string& device) {
    print("rss_start_mib", rss_mib());
    auto start = Clock::now();
    vireo::Core core;
    core.get_versions(device.substr(0, device.find('.')));
    print("core_ms", ms_since(start));
    start = Clock::now();
    auto model = core.read_model(xml);
    print("read_ms", ms_since(start));
    print("rss_read_mib", rss_mib());
    print("peak_rss_read_mib", peak_rss_mib());
    start = Clock::now();
    auto compiled = core.compile_model(model, device, device_properties(device));
    print("compile_ms", ms_since(start));
    print("rss_compiled_mib", rss_mib());
    start = Clock::now();
    auto request = compiled.create_infer_request();
    request.infer();
    print("first_infer_ms", ms_since(start));
    print("rss_end_mib", rss_mib());
    print("peak_rss_mib", peak_rss_mib());
    return 0;
}

// mmap FILE: map the file read-only and touch one byte per page (what a zero-copy read of the
// weights costs at least once every page is used).
int map_and_touch(const std::string& path) {
    const auto start = Clock::now();
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) throw std::runtime_error("cannot open " + path);
    struct stat info {};
    ::fstat(fd, &info);
    const auto size = static_cast<size_t>(info.st_size);
    void* address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (address == MAP_FAILED) throw std::runtime_error("cannot map " + path);
    const auto* bytes = static_cast<const volatile unsigned char*>(address);
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    unsigned sum = 0;
    for (size_t i = 0; i < size; i += page) sum += bytes[i];
    print("touch_ms", ms_since(start));
    print("peak_rss_mib", peak_rss_mib());
    print("checksum", sum % 256);
    ::munmap(address, size);
    return 0;
}

// cache XML COMPILE_MS: MOCK_REMOTE.0 with a modelled compile time, compiled through an empty
// cache_dir twice (two Cores): the first compiles and stores, the second imports.
int cache(const std::string& xml, uint32_t compile_ms) {
    namespace mr = vireo::mock_remote;
    char pattern[] = "/tmp/vireo_bench_cache_XXXXXX";
    if (!::mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
    const std::string dir = pattern;
    double times[2] = {0, 0};
    bool from_cache[2] = {false, false};
    for (int run = 0; run < 2; ++run) {
        vireo::Core core;
        core.set_property({vireo::cache_dir(dir)});
        auto model = core.read_model(xml);
        const auto start = Clock::now();
        auto compiled = core.compile_model(model, "MOCK_REMOTE.0", {mr::compile_ms(compile_ms)});
        times[run] = ms_since(start);
        from_cache[run] = compiled.get_property(vireo::loaded_from_cache);
    }
    std::filesystem::remove_all(dir);
    print("first_ms", times[0]);
    print("second_ms", times[1]);
    print("ratio", times[1] / times[0]);
    print("first_from_cache", from_cache[0]);
    print("second_from_cache", from_cache[1]);
    return 0;
}

// memory XML DEVICE N: compile, then create N requests and run each once; resident memory
// after compiling and after the requests, and the difference per request.
int memory(const std::string& xml, const std::string& device, int requests) {
    vireo::Core core;
    auto compiled = core.compile_model(xml, device, device_properties(device));
    compiled.create_infer_request()
        .infer();  // first-use allocations outside the per-request figure
    const double compiled_rss = rss_mib();
    std::vector<vireo::InferRequest> all;
    for (int i = 0; i < requests; ++i) {
        all.push_back(compiled.create_infer_request());
        all.back().infer();
    }
    const double end_rss = rss_mib();
    print("requests", requests);
    print("rss_compiled_mib", compiled_rss);
    print("rss_end_mib", end_rss);
    print("per_request_kib", (end_rss - compiled_rss) * 1024.0 / requests);
    print("peak_rss_mib", peak_rss_mib());
    return 0;
}

#ifdef VIREO_BENCH_ONNX
// generate_onnx FILE MIB: the same MLP as `generate` written as one ONNX file (MatMul + Relu,
// weights as raw-data initializers), for read_model timings beside the IR ones.
int generate_onnx(const std::string& path, size_t mib) {
    constexpr int64_t kWidth = 2048;
    const size_t layers = std::max<size_t>(1, mib / 16);
    onnx::ModelProto model;
    model.set_ir_version(8);
    auto* opset = model.add_opset_import();
    opset->set_domain("");
    opset->set_version(13);
    auto* graph = model.mutable_graph();
    graph->set_name("big_mlp");
    auto value_info = [](onnx::ValueInfoProto* v, const std::string& name) {
        v->set_name(name);
        auto* t = v->mutable_type()->mutable_tensor_type();
        t->set_elem_type(onnx::TensorProto::FLOAT);
        t->mutable_shape()->add_dim()->set_dim_value(1);
        t->mutable_shape()->add_dim()->set_dim_value(kWidth);
    };
    value_info(graph->add_input(), "x");
    std::string value = "x";
    std::vector<float> w(static_cast<size_t>(kWidth * kWidth));
    for (size_t layer = 0; layer < layers; ++layer) {
        uint32_t state = static_cast<uint32_t>(layer) * 2654435761u + 12345u;
        for (auto& v : w) {
            state = state * 1664525u + 1013904223u;
            v = static_cast<float>(static_cast<int32_t>(state >> 8) % 2001 - 1000) * 1e-6f;
        }
        const std::string n = std::to_string(layer);
        auto* init = graph->add_initializer();
        init->set_name("w" + n);
        init->set_data_type(onnx::TensorProto::FLOAT);
        init->add_dims(kWidth);
        init->add_dims(kWidth);
        init->set_raw_data(
            std::string(reinterpret_cast<const char*>(w.data()), w.size() * sizeof(float)));
        auto* mm = graph->add_node();
        mm->set_op_type("MatMul");
        mm->add_input(value);
        mm->add_input("w" + n);
        mm->add_output("m" + n);
        auto* relu = graph->add_node();
        relu->set_op_type("Relu");
        relu->add_input("m" + n);
        value = layer + 1 == layers ? "y" : "r" + n;
        relu->add_output(value);
    }
    value_info(graph->add_output(), "y");
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!model.SerializeToOstream(&out)) throw std::runtime_error("cannot write " + path);
    print("onnx_mib", static_cast<double>(std::filesystem::file_size(path)) / 1048576.0);
    return 0;
}

// onnx_parse FILE: what protobuf alone costs for an ONNX file (map it, parse a ModelProto), the
// floor for read_model of the same file.
int onnx_parse(const std::string& path) {
    print("rss_start_mib", rss_mib());
    const auto start = Clock::now();
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error("cannot open " + path);
    struct stat st {};
    ::fstat(fd, &st);
    void* data = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (data == MAP_FAILED) throw std::runtime_error("cannot map " + path);
    onnx::ModelProto model;
    if (!model.ParseFromArray(data, static_cast<int>(st.st_size)))
        throw std::runtime_error("parse failed");
    ::munmap(data, static_cast<size_t>(st.st_size));
    print("parse_ms", ms_since(start));
    print("file_mib", static_cast<double>(st.st_size) / 1048576.0);
    print("rss_parsed_mib", rss_mib());
    print("peak_rss_mib", peak_rss_mib());
    return 0;
}
#endif

int usage() {
    std::cerr << "usage: bench_driver generate DIR MIB | load MODEL DEVICE | mmap FILE |\n"
                 "       cache XML COMPILE_MS | memory XML DEVICE N | generate_onnx FILE MIB | "
                 "onnx_parse FILE\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    try {
        if (args.size() == 3 && args[0] == "generate")
            return generate(args[1], std::stoul(args[2]));
        if (args.size() == 3 && args[0] == "load") return load(args[1], args[2]);
        if (args.size() == 2 && args[0] == "mmap") return map_and_touch(args[1]);
        if (args.size() == 3 && args[0] == "cache")
            return cache(args[1], static_cast<uint32_t>(std::stoul(args[2])));
        if (args.size() == 4 && args[0] == "memory")
            return memory(args[1], args[2], std::stoi(args[3]));
#ifdef VIREO_BENCH_ONNX
        if (args.size() == 2 && args[0] == "onnx_parse") return onnx_parse(args[1]);
        if (args.size() == 3 && args[0] == "generate_onnx")
            return generate_onnx(args[1], std::stoul(args[2]));
#endif
    } catch (const std::exception& error) {
        std::cerr << "bench_driver: " << error.what() << "\n";
        return 1;
    }
    return usage();
}
