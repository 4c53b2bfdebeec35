// Conformance category "Plugin": the device loads and identifies itself, its properties behave
// (listed keys answer, RW keys round-trip and reject bad values, unknown keys are NotFound),
// device ids, query_model agrees with compile_model, and load/use/unload leaks nothing.
#include <dirent.h>
#include <dlfcn.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "vireo/conformance/suite.hpp"

namespace vireo::conformance {
namespace {

// Every variant of every model (supported or not: query_model must say which), the dynamic and
// stateful ones only when the device claims those capabilities.
std::vector<ReferenceModel> query_models() {
    std::vector<ReferenceModel> models;
    for (auto& m : all_model_variants()) {
        const std::string& name = m.model->get_name();
        if (name.find("dynamic") != std::string::npos &&
            !has_capability(device::capability::kDynamicShapes))
            continue;
        if (name.find("stateful") != std::string::npos &&
            !has_capability(device::capability::kStates))
            continue;
        models.push_back(std::move(m));
    }
    return models;
}

size_t count_entries(const char* dir) {
    size_t n = 0;
    if (DIR* d = opendir(dir)) {
        while (readdir(d)) ++n;
        closedir(d);
    }
    return n;
}

/// Mapped files of this process and how many mappings each has.
std::map<std::string, size_t> mapped_files() {
    std::map<std::string, size_t> files;
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        const auto slash = line.find('/');
        if (slash != std::string::npos) ++files[line.substr(slash)];
    }
    return files;
}

bool is_computation(const Node& node) {
    const std::string& type = node.get_type_name();
    return type != "Parameter" && type != "Result" && type != "Constant";
}

}  // namespace

TEST(Plugin, ReportsNameAndVersion) {
    const auto versions = core().get_versions(device_name());
    ASSERT_EQ(versions.size(), 1u) << "get_versions must return one entry for the device";
    const auto& [name, version] = *versions.begin();
    EXPECT_TRUE(name == device_base_name() || name == device_name())
        << "versions are keyed by '" << name << "'";
    EXPECT_FALSE(version.build_number.empty()) << "the plugin's build number is empty";
    EXPECT_FALSE(version.description.empty()) << "the plugin's description is empty";
    EXPECT_FALSE(core().get_property(device_name(), device::full_name).empty())
        << "FULL_DEVICE_NAME is empty";
}

TEST(Plugin, SupportedPropertiesAllAnswer) {
    const auto keys = core().get_property(device_name(), supported_properties);
    std::set<std::string> names(keys.begin(), keys.end());
    for (const char* required : {supported_properties.name(), device::full_name.name(),
                                 device::capabilities.name(), available_devices.name()})
        EXPECT_TRUE(names.count(required)) << "SUPPORTED_PROPERTIES does not list " << required;
    for (const auto& key : keys) {
        try {
            core().get_property(device_name(), key);
        } catch (const std::exception& e) {
            ADD_FAILURE() << "listed property " << key << " does not answer: " << e.what();
        }
    }
}

TEST(Plugin, ReadWritePropertiesRoundTrip) {
    for (const auto& key : core().get_property(device_name(), supported_properties)) {
        if (!key.is_mutable() || key == cache_dir.name()) continue;
        SCOPED_TRACE("property " + key);
        const Any value = core().get_property(device_name(), key);
        EXPECT_NO_THROW(core().set_property(device_name(), {{key, value}}));
        EXPECT_EQ(core().get_property(device_name(), key).to_string(), value.to_string());
    }
}

TEST(Plugin, ReadWritePropertiesRejectBadValues) {
    for (const auto& key : core().get_property(device_name(), supported_properties)) {
        if (!key.is_mutable() || key == cache_dir.name()) continue;
        const std::string before = core().get_property(device_name(), key).to_string();
        EXPECT_TRUE(throws_kind(
            [&] {
                core().set_property(device_name(), {{key, Any("#not a value#")}});
            },
            ErrorKind::kInvalidArgument))
            << "property " << key;
        EXPECT_EQ(core().get_property(device_name(), key).to_string(), before)
            << "a rejected value changed property " << key;
    }
}

TEST(Plugin, AcceptsPerformanceHint) {
    // benchmark_app sets PERFORMANCE_HINT by default: every device must take it, on the device
    // and in compile_model, and read it back.
    const auto keys = core().get_property(device_name(), supported_properties);
    const auto listed = std::find(keys.begin(), keys.end(), hint::performance_mode.name());
    ASSERT_NE(listed, keys.end()) << "SUPPORTED_PROPERTIES does not list PERFORMANCE_HINT";
    EXPECT_TRUE(listed->is_mutable());
    Core c = make_core();
    c.set_property(device_name(), {hint::performance_mode(hint::PerformanceMode::THROUGHPUT)});
    EXPECT_EQ(c.get_property(device_name(), hint::performance_mode),
              hint::PerformanceMode::THROUGHPUT);
    ReferenceModel m = elementwise_model();
    EXPECT_NO_THROW(c.compile_model(m.model, device_name(),
                                    {hint::performance_mode(hint::PerformanceMode::LATENCY)}));
}

TEST(Plugin, ReadOnlyPropertiesRejectSet) {
    for (const auto& key : core().get_property(device_name(), supported_properties)) {
        if (key.is_mutable()) continue;
        const Any value = core().get_property(device_name(), key);
        EXPECT_TRUE(throws_kind(
            [&] {
                core().set_property(device_name(), {{key, value}});
            },
            ErrorKind::kInvalidArgument))
            << "read-only property " << key;
    }
}

TEST(Plugin, UnknownPropertyIsNotFound) {
    const std::string key = "CONFORMANCE_NO_SUCH_PROPERTY";
    EXPECT_TRUE(
        throws_kind([&] { core().get_property(device_name(), key); }, ErrorKind::kNotFound));
    EXPECT_TRUE(throws_kind(
        [&] {
            core().set_property(device_name(), {{key, Any(1)}});
        },
        ErrorKind::kNotFound));
    const CompiledModel compiled = compile(elementwise_model().model);
    EXPECT_TRUE(throws_kind([&] { compiled.get_property(key); }, ErrorKind::kNotFound));
}

TEST(Plugin, DeviceIds) {
    const auto ids = core().get_property(device_name(), available_devices);
    const auto devices = core().get_available_devices();
    auto listed = [&](const std::string& name) {
        return std::find(devices.begin(), devices.end(), name) != devices.end();
    };
    if (ids.size() <= 1) {
        EXPECT_TRUE(listed(device_base_name()))
            << "get_available_devices does not list " << device_base_name();
    } else {
        for (const auto& id : ids)
            EXPECT_TRUE(listed(device_base_name() + "." + id))
                << "get_available_devices does not list id " << id;
    }
    const auto dot = device_name().find('.');
    if (dot != std::string::npos &&
        listed_devices().empty()) {  // "HETERO:A.1": A's id, not HETERO's
        const std::string id = device_name().substr(dot + 1);
        EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end())
            << "AVAILABLE_DEVICES does not list id " << id;
    }
    const std::string bogus = device_base_name() + ".987";
    EXPECT_THROW(core().compile_model(elementwise_model().model, bogus), Exception)
        << "compiling for a device id the plugin does not serve must fail";
}

TEST(Plugin, DeclaredCapabilities) {
    if (!options().capabilities_declared)
        GTEST_SKIP() << "the expectations file declares no capabilities";
    std::set<std::string> declared(options().declared_capabilities.begin(),
                                   options().declared_capabilities.end());
    std::set<std::string> reported(device_capabilities().begin(), device_capabilities().end());
    EXPECT_EQ(reported, declared)
        << "OPTIMIZATION_CAPABILITIES differs from the conformance file's capabilities";
}

TEST(Plugin, QueryModelAgreesWithCompile) {
    for (const auto& m : query_models()) {
        SCOPED_TRACE("model " + m.model->get_name());
        const auto supported = core().query_model(m.model, device_name());
        std::set<std::string> friendly;
        bool all = true;
        for (const auto& node : m.model->get_ordered_ops()) {
            friendly.insert(node->get_friendly_name());
            if (is_computation(*node) && !supported.count(node->get_friendly_name())) all = false;
        }
        for (const auto& [name, device] : supported) {
            EXPECT_TRUE(friendly.count(name))
                << "query_model names '" << name << "', not an op of the model";
            const auto listed = listed_devices();  // a meta-device maps ops to the devices it lists
            EXPECT_TRUE(device == device_base_name() || device == device_name() ||
                        std::find(listed.begin(), listed.end(), device) != listed.end())
                << "query_model maps '" << name << "' to '" << device << "'";
        }
        bool compiled = true;
        std::string error;
        try {
            core().compile_model(m.model, device_name());
        } catch (const std::exception& e) {
            compiled = false;
            error = e.what();
        }
        EXPECT_EQ(all, compiled)
            << (all ? "query_model reports every op supported but compile failed: " + error
                    : "query_model leaves ops out but the model compiled");
    }
}

TEST(Plugin, LoadUseUnloadLeaksNothing) {
    const auto before_any = mapped_files();
    std::set<std::string> loaded;   // files the plugin brought in (the module and its libraries)
    std::set<std::string> modules;  // those that export the plugin entry symbol
    auto cycle = [&] {
        Core c = make_core();
        ReferenceModel m = elementwise_model();
        CompiledModel compiled = c.compile_model(m.model, device_name());
        InferRequest request = compiled.create_infer_request();
        const auto inputs = set_inputs(request, compiled, 3);
        request.infer();
        EXPECT_TRUE(outputs_match(request, compiled, m, inputs));
        for (const auto& [file, count] : mapped_files())
            if (!before_any.count(file)) loaded.insert(file);
        for (const auto& file : loaded) {
            // RTLD_NOLOAD only finds an already loaded library (and takes a reference we drop).
            if (void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
                if (dlsym(handle, "vireo_plugin_entry")) modules.insert(file);
                dlclose(handle);
            }
        }
        c.unload_plugin(device_base_name());
    };
    auto measure = [&](size_t& fds, size_t& maps, size_t& threads) {
        fds = count_entries("/proc/self/fd");
        threads = count_entries("/proc/self/task");
        maps = 0;
        for (const auto& [file, count] : mapped_files())
            if (loaded.count(file)) maps += count;
    };
    cycle();  // the first use creates process-wide things (executors, caches) once
    size_t fds0 = 0, maps0 = 0, threads0 = 0, fds1 = 0, maps1 = 0, threads1 = 0;
    measure(fds0, maps0, threads0);
    for (int i = 0; i < 4; ++i) cycle();
    measure(fds1, maps1, threads1);
    EXPECT_FALSE(loaded.empty()) << "loading the plugin mapped no new file";
    EXPECT_LE(fds1, fds0) << "open file descriptors grew over 4 load/use/unload cycles";
    EXPECT_LE(maps1, maps0)
        << "mappings of the plugin's libraries grew over 4 load/use/unload cycles";
    EXPECT_LE(threads1, threads0) << "threads grew over 4 load/use/unload cycles";
    // The module itself must be unloaded; libraries it pulled in may stay (a library with
    // GNU-unique symbols, e.g. in sanitizer builds, cannot be unloaded) as long as they do not
    // grow.
    EXPECT_FALSE(modules.empty()) << "no newly mapped file exports vireo_plugin_entry";
    std::string still_mapped;
    for (const auto& [file, count] : mapped_files())
        if (modules.count(file)) still_mapped += " " + file;
    EXPECT_EQ(still_mapped, "") << "the plugin module stays mapped after unload_plugin and every "
                                   "object it made is gone";
}

}  // namespace vireo::conformance
