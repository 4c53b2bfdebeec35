// Helpers shared by the runtime tests: test plugin paths, a scratch directory, a tiny model,
// plugins.xml writing and a check for whether a library is currently loaded.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "plugins/test_plugin.hpp"
#include "vireo/vireo.hpp"

namespace vireo::runtime_test {

namespace fs = std::filesystem;
namespace tp = vireo::test_plugin;

inline std::string lib_dir() {
    return VIREO_BUILD_LIB_DIR;
}
/// Absolute path of a test plugin by target name ("vireo_test_plugin").
inline std::string plugin_path(const std::string& target) {
    return lib_dir() + "/lib" + target + ".so";
}
inline std::string test_plugin_path() {
    return plugin_path("vireo_test_plugin");
}

/// True while `path` is loaded in this process (dlopen with RTLD_NOLOAD never loads it).
inline bool is_loaded(const std::string& path) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (!handle) return false;
    dlclose(handle);
    return true;
}

/// A fresh directory under the system temp dir, removed at destruction.
class ScratchDir {
  public:
    ScratchDir() {
        static std::atomic<int> counter{0};
        m_path = fs::temp_directory_path() / ("vireo_runtime_test_" + std::to_string(::getpid()) +
                                              "_" + std::to_string(counter++));
        fs::remove_all(m_path);
        fs::create_directories(m_path);
    }
    ~ScratchDir() {
        std::error_code ec;
        fs::remove_all(m_path, ec);
    }
    const fs::path& path() const { return m_path; }
    std::string str() const { return m_path.string(); }
    std::string file(const std::string& name) const { return (m_path / name).string(); }

  private:
    fs::path m_path;
};

inline void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

struct XmlPlugin {
    std::string name;
    std::string location;
    std::vector<std::pair<std::string, std::string>> properties;
};

inline std::string plugins_xml(const std::vector<XmlPlugin>& plugins) {
    std::string xml = "<ie>\n  <plugins>\n";
    for (const auto& p : plugins) {
        xml += "    <plugin name=\"" + p.name + "\" location=\"" + p.location + "\">\n";
        if (!p.properties.empty()) {
            xml += "      <properties>\n";
            for (const auto& [k, v] : p.properties)
                xml += "        <property key=\"" + k + "\" value=\"" + v + "\"/>\n";
            xml += "      </properties>\n";
        }
        xml += "    </plugin>\n";
    }
    return xml + "  </plugins>\n</ie>\n";
}

/// A Core that knows only what the test registers (an empty plugins.xml).
inline Core empty_core(const ScratchDir& dir) {
    const std::string xml = dir.file("empty_plugins.xml");
    write_file(xml, plugins_xml({}));
    return Core(xml);
}

/// x (f32 {2,3}) -> Relu -> y. The TEST device ignores the graph and computes y = x + addend.
/// Every node is named, so two calls build the same serialized model (same cache key):
/// unnamed nodes get names from their process-unique instance ids.
inline std::shared_ptr<Model> tiny_model(const std::string& name = "tiny") {
    auto x = op::parameter(element::f32, PartialShape{2, 3}, "x");
    auto relu = make_node("Relu", {x->output(0)});
    relu->set_friendly_name("relu");
    relu->output(0).set_names({"y"});
    auto model = std::make_shared<Model>(OutputVector{relu->output(0)}, ParameterVector{x}, name);
    model->get_results().at(0)->set_friendly_name("y_result");
    return model;
}

/// Input values 0, 1, ..., 5 (negative ones too, so that a real Relu would differ).
inline Tensor input_values() {
    Tensor t(element::f32, Shape{2, 3});
    float* p = t.data<float>();
    for (int i = 0; i < 6; ++i) p[i] = static_cast<float>(i) - 2.0f;
    return t;
}

/// Runs one inference and checks y[i] == x[i] + addend for every element.
inline void expect_adds(InferRequest& request, float addend) {
    Tensor x = input_values();
    request.set_tensor("x", x);
    request.infer();
    const Tensor y = request.get_tensor("y");
    ASSERT_EQ(y.get_size(), 6u);
    for (int i = 0; i < 6; ++i)
        EXPECT_FLOAT_EQ(y.data<float>()[i], static_cast<float>(i) - 2.0f + addend) << i;
}

inline void expect_adds(CompiledModel& compiled, float addend) {
    InferRequest request = compiled.create_infer_request();
    expect_adds(request, addend);
}

/// Runs `fn`, expects it to throw E, and returns the message.
template <typename E, typename Fn>
std::string error_of(Fn&& fn) {
    try {
        fn();
    } catch (const E& e) {
        return e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "threw another exception type: " << e.what();
        return {};
    }
    ADD_FAILURE() << "did not throw";
    return {};
}

}  // namespace vireo::runtime_test
