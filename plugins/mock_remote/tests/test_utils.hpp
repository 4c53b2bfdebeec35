// Helpers for the MOCK_REMOTE tests: a Core on the build tree's plugins.xml, fast device
// settings, small models, a minimal .npy reader and profiling-row lookup.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "vireo/core.hpp"
#include "vireo/mock_remote/properties.hpp"
#include "vireo/ops.hpp"

namespace vireo::mock_remote::test {

inline Core make_core() {
    return Core(std::string(VIREO_BUILD_LIB_DIR) + "/plugins.xml");
}

/// Small modelled costs so each inference takes a few milliseconds at most.
inline AnyMap fast(uint32_t latency = 1000) {
    return {latency_us(latency), compile_ms(0u),      bus_latency_us(0u),
            gflops(1000.0),      device_gbps(1000.0), bus_gbps(100.0)};
}

inline AnyMap with(AnyMap base, const AnyMap& extra) {
    for (const auto& [k, v] : extra) base[k] = v;
    return base;
}

/// y = x + 1 over f32 `shape`, input tensor "x", output "y".
inline std::shared_ptr<Model> add_one_model(const Shape& shape = {1, 8},
                                            const std::string& name = "add_one") {
    auto x = op::parameter(element::f32, PartialShape(shape), "x");
    auto y = op::add(x, op::constant<float>(element::f32, {1}, {1.f}));
    y->output(0).set_names({"y"});
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, name);
}

/// y = relu(a * b - 2), two inputs "a" and "b", output "y".
inline std::shared_ptr<Model> two_input_model(const Shape& shape = {2, 3}) {
    auto a = op::parameter(element::f32, PartialShape(shape), "a");
    auto b = op::parameter(element::f32, PartialShape(shape), "b");
    auto y =
        op::relu(op::subtract(op::multiply(a, b), op::constant<float>(element::f32, {1}, {2.f})));
    y->output(0).set_names({"y"});
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{a, b}, "two_inputs");
}

inline Tensor make_tensor(const Shape& shape, float start = 0.f, float step = 1.f) {
    Tensor t(element::f32, shape);
    float* p = t.data<float>();
    for (size_t i = 0; i < t.get_size(); ++i) p[i] = start + step * static_cast<float>(i);
    return t;
}

inline std::vector<float> values(const Tensor& t) {
    Tensor host = t.is_remote() ? t.clone() : t;
    if (!host.is_continuous()) host = host.clone();
    const float* p = host.data<float>();
    return std::vector<float>(p, p + host.get_size());
}

/// Reads a little-endian f32 .npy file (C order); shape into `shape`.
inline std::vector<float> read_npy_f32(const std::string& path, Shape* shape = nullptr) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    char magic[6];
    in.read(magic, 6);
    if (std::memcmp(magic, "\x93NUMPY", 6) != 0)
        throw std::runtime_error(path + ": not a .npy file");
    uint8_t version[2];
    in.read(reinterpret_cast<char*>(version), 2);
    uint32_t header_len = 0;
    if (version[0] == 1) {
        uint16_t len16 = 0;
        in.read(reinterpret_cast<char*>(&len16), 2);
        header_len = len16;
    } else {
        in.read(reinterpret_cast<char*>(&header_len), 4);
    }
    std::string header(header_len, '\0');
    in.read(header.data(), header_len);
    if (header.find("'<f4'") == std::string::npos ||
        header.find("'fortran_order': False") == std::string::npos)
        throw std::runtime_error(path + ": expected little-endian f32 in C order: " + header);
    const auto open = header.find('(', header.find("'shape'"));
    const auto close = header.find(')', open);
    Shape dims;
    size_t count = 1;
    std::string inside = header.substr(open + 1, close - open - 1);
    size_t pos = 0;
    while (pos < inside.size()) {
        const size_t comma = inside.find(',', pos);
        const std::string item =
            inside.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        if (item.find_first_of("0123456789") != std::string::npos) {
            dims.push_back(std::stoul(item));
            count *= dims.back();
        }
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    std::vector<float> data(count);
    in.read(reinterpret_cast<char*>(data.data()),
            static_cast<std::streamsize>(count * sizeof(float)));
    if (!in) throw std::runtime_error(path + ": truncated data");
    if (shape) *shape = dims;
    return data;
}

inline const ProfilingInfo* find_row(const std::vector<ProfilingInfo>& rows,
                                     const std::string& name) {
    for (const auto& row : rows)
        if (row.node_name == name) return &row;
    return nullptr;
}

template <typename T, PropertyMutability M>
T device_value(const Core& core, const std::string& device, const Property<T, M>& key) {
    return core.get_property(device, key);
}

/// Polls `condition` until it holds. No time limit of its own: a condition that never holds is
/// a failure the ctest timeout reports.
template <typename F>
void wait_until(F&& condition) {
    while (!condition()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

/// Runs `f`, expecting a vireo::Exception of `kind` whose message contains every fragment.
template <typename F>
void expect_error(F&& f, ErrorKind kind, const std::vector<std::string>& fragments) {
    try {
        f();
        ADD_FAILURE() << "expected an exception of kind " << to_string(kind);
    } catch (const Exception& e) {
        EXPECT_EQ(e.kind(), kind) << e.what();
        for (const auto& fragment : fragments)
            EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
                << "'" << fragment << "' not in: " << e.what();
    }
}

}  // namespace vireo::mock_remote::test
