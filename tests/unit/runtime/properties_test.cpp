// Tests property routing: precedence (call > "NAME.N" > "NAME" > plugins.xml), core-level keys,
// errors for unknown, read-only and malformed keys, device ids passed from "NAME.N".
#include "runtime_test_utils.hpp"

namespace vireo::runtime_test {
namespace {

class Properties : public ::testing::Test {
  protected:
    void SetUp() override {
        write_file(dir.file("p.xml"),
                   plugins_xml({{"TEST", test_plugin_path(), {{"TEST_ADDEND", "10"}}}}));
        core = Core(dir.file("p.xml"));
    }
    float compiled_addend(const std::string& device, const AnyMap& properties = {}) {
        CompiledModel compiled = core.compile_model(tiny_model(), device, properties);
        expect_adds(compiled, compiled.get_property(tp::addend));
        return compiled.get_property(tp::addend);
    }
    ScratchDir dir;
    Core core;
};

TEST_F(Properties, PrecedenceCallOverInstanceOverDeviceOverXml) {
    EXPECT_FLOAT_EQ(compiled_addend("TEST"), 10.0f);  // plugins.xml default
    core.set_property("TEST", {tp::addend(20.0f)});
    EXPECT_FLOAT_EQ(compiled_addend("TEST"), 20.0f);                // per device beats the default
    EXPECT_FLOAT_EQ(core.get_property("TEST", tp::addend), 20.0f);  // and reached the plugin
    EXPECT_FLOAT_EQ(compiled_addend("TEST", {tp::addend(30.0f)}), 30.0f);  // the call beats both
    core.set_property("TEST.1", {tp::addend(40.0f)});
    EXPECT_FLOAT_EQ(compiled_addend("TEST.1"), 40.0f);  // per instance beats per device
    EXPECT_FLOAT_EQ(core.get_property("TEST.1", tp::addend), 40.0f);  // and reads back per instance
    EXPECT_FLOAT_EQ(core.get_property("TEST.2", tp::addend), 20.0f);
    EXPECT_FLOAT_EQ(core.get_property("TEST", tp::addend), 20.0f);
    EXPECT_FLOAT_EQ(compiled_addend("TEST.2"), 20.0f);  // other instances are not affected
    EXPECT_FLOAT_EQ(compiled_addend("TEST"), 20.0f);
    EXPECT_FLOAT_EQ(compiled_addend("TEST.1", {tp::addend(50.0f)}), 50.0f);
}

TEST_F(Properties, ExactConfigurationPassedToThePlugin) {
    core.set_property("TEST", {enable_profiling(true)});
    core.compile_model(tiny_model(), "TEST.3", {num_streams(2)});
    // The call's own properties with the device id from the name: the plugin holds the
    // device's settings itself, so the core passes none of them; cache_dir is never passed on.
    EXPECT_EQ(core.get_property("TEST", tp::last_config), "DEVICE_ID=3;NUM_STREAMS=2");
    EXPECT_TRUE(core.get_property("TEST.3", enable_profiling));  // the plugin's own value
    core.set_property({cache_dir("")});
    core.compile_model(tiny_model(), "TEST", {cache_dir("")});
    EXPECT_EQ(core.get_property("TEST", tp::last_config), "");
}

TEST_F(Properties, SettingsSurviveUnloadAndReload) {
    core.set_property("TEST", {tp::addend(25.0f)});
    core.set_property("TEST.1", {tp::addend(26.0f)});
    core.unload_plugin("TEST");
    EXPECT_FLOAT_EQ(core.get_property("TEST", tp::addend), 25.0f);  // replayed at load
    EXPECT_FLOAT_EQ(core.get_property("TEST.1", tp::addend), 26.0f);
}

TEST_F(Properties, InstanceValuesAreCheckedBySetProperty) {
    // "NAME.N" values reach the plugin at once (with DEVICE_ID), so a bad one fails here, as
    // for "NAME", and changes nothing.
    const std::string message = error_of<InvalidArgument>([&] {
        core.set_property("TEST.1", {{"TEST_ADDEND", "abc"}});
    });
    EXPECT_NE(message.find("abc"), std::string::npos) << message;
    EXPECT_FLOAT_EQ(core.get_property("TEST.1", tp::addend), 10.0f);
    EXPECT_THROW(core.set_property("TEST.1", {device::id("2")}), InvalidArgument);
}

TEST_F(Properties, ReplayLogStaysBounded) {
    // Setting the same keys again and again must not grow what is replayed at load.
    for (int i = 0; i < 200; ++i) {
        core.set_property("TEST", {tp::addend(static_cast<float>(i))});
        core.set_property("TEST.1", {tp::addend(static_cast<float>(i + 1))});
    }
    core.unload_plugin("TEST");
    EXPECT_FLOAT_EQ(core.get_property("TEST", tp::addend), 199.0f);
    EXPECT_FLOAT_EQ(core.get_property("TEST.1", tp::addend), 200.0f);
    // The reloaded plugin got the plugins.xml defaults, then one map per scope.
    EXPECT_EQ(core.get_property("TEST", tp::set_count), 3u);
}

TEST_F(Properties, UnknownKeyListsTheSupportedOnes) {
    std::string message = error_of<NotFound>([&] {
        core.set_property("TEST", {{"NO_SUCH_KEY", 1}});
    });
    EXPECT_NE(message.find("NO_SUCH_KEY"), std::string::npos) << message;
    EXPECT_NE(message.find("TEST_ADDEND"), std::string::npos) << message;
    EXPECT_NE(message.find("CACHE_DIR"), std::string::npos) << message;
    message = error_of<NotFound>([&] {
        core.compile_model(tiny_model(), "TEST", {{"NO_SUCH_KEY", 1}});
    });
    EXPECT_NE(message.find("NO_SUCH_KEY"), std::string::npos) << message;
    // LOADED_FROM_CACHE is one of the core's keys, but a read-only one: not settable on a device.
    message = error_of<NotFound>([&] {
        core.set_property("TEST", {{loaded_from_cache.name(), true}});
    });
    EXPECT_NE(message.find("unknown property 'LOADED_FROM_CACHE'"), std::string::npos) << message;
    message = error_of<NotFound>([&] { core.get_property("TEST", "NO_SUCH_KEY"); });
    EXPECT_NE(message.find("PERF_COUNT"), std::string::npos) << message;
}

TEST_F(Properties, ReadOnlyKeyAndBadValue) {
    std::string message = error_of<InvalidArgument>([&] {
        core.set_property("TEST", {{"TEST_COMPILE_COUNT", 3}});
    });
    EXPECT_NE(message.find("read-only"), std::string::npos) << message;
    message = error_of<InvalidArgument>([&] {
        core.set_property("TEST", {{"TEST_ADDEND", "abc"}});
    });
    EXPECT_NE(message.find("TEST_ADDEND"), std::string::npos) << message;
    EXPECT_NE(message.find("abc"), std::string::npos) << message;
    // A rejected value is not stored: the plugin and later compiles keep the old one.
    EXPECT_FLOAT_EQ(core.get_property("TEST", tp::addend), 10.0f);
    EXPECT_FLOAT_EQ(compiled_addend("TEST"), 10.0f);
}

TEST_F(Properties, DeviceIdConflictIsAnError) {
    const std::string message = error_of<InvalidArgument>(
        [&] { core.compile_model(tiny_model(), "TEST.1", {device::id("2")}); });
    EXPECT_NE(message.find("'2'"), std::string::npos) << message;
    EXPECT_NE(message.find("'1'"), std::string::npos) << message;
    EXPECT_NO_THROW(core.compile_model(tiny_model(), "TEST.1", {device::id("1")}));
}

TEST_F(Properties, DeviceIdReachesGetPropertyAndContexts) {
    EXPECT_EQ(core.get_property("TEST.4", device::full_name), "Vireo test device #4");
    EXPECT_EQ(core.get_property("TEST", device::full_name), "Vireo test device");
    EXPECT_EQ(core.create_context("TEST.2", {}).get_device_name(), "TEST.2");
    EXPECT_EQ(core.get_default_context("TEST").get_device_name(), "TEST");
}

TEST_F(Properties, CoreAnswersItsOwnKeys) {
    const auto supported = core.get_property("TEST", supported_properties);
    EXPECT_NE(std::find(supported.begin(), supported.end(), "CACHE_DIR"), supported.end());
    EXPECT_NE(std::find(supported.begin(), supported.end(), "TEST_ADDEND"), supported.end());
    EXPECT_EQ(core.get_property("TEST", cache_dir), "");
    core.set_property({cache_dir(dir.file("global"))});
    EXPECT_EQ(core.get_property(cache_dir), dir.file("global"));
    EXPECT_EQ(core.get_property("TEST", cache_dir), dir.file("global"));
    core.set_property("TEST", {cache_dir(dir.file("per_device"))});
    EXPECT_EQ(core.get_property("TEST", cache_dir), dir.file("per_device"));
    EXPECT_EQ(core.get_property(cache_dir), dir.file("global"));
}

TEST_F(Properties, GlobalKeys) {
    const std::string message = error_of<NotFound>([&] { core.set_property({tp::addend(1.0f)}); });
    EXPECT_NE(message.find("TEST_ADDEND"), std::string::npos) << message;
    EXPECT_NE(message.find("CACHE_DIR"), std::string::npos) << message;
    EXPECT_THROW(core.get_property("NO_SUCH_CORE_KEY"), NotFound);
    const log::Level before = core.get_property(log::level);
    core.set_property({log::level(log::Level::ERR)});
    EXPECT_EQ(core.get_property(log::level), log::Level::ERR);
    EXPECT_THROW(core.set_property({{"LOG_LEVEL", "LOUD"}}), InvalidArgument);
    EXPECT_EQ(core.get_property(log::level), log::Level::ERR);
    // The numeric form OpenVINO users write (ov::log::Level: 2 is INFO); a bad number names the
    // key and the accepted values, never a C++ type ("N5vireo3log5LevelE" before).
    core.set_property({{"LOG_LEVEL", 2}});
    EXPECT_EQ(core.get_property(log::level), log::Level::INFO);
    const std::string bad = error_of<InvalidArgument>([&] {
        core.set_property({{"LOG_LEVEL", 9}});
    });
    EXPECT_NE(bad.find("LOG_LEVEL"), std::string::npos) << bad;
    EXPECT_NE(bad.find("-1 (none) to 4 (trace)"), std::string::npos) << bad;
    EXPECT_EQ(bad.find("N5vireo"), std::string::npos) << bad;
    EXPECT_EQ(core.get_property(log::level), log::Level::INFO);
    core.set_property({log::level(before)});
    const auto keys = core.get_property(supported_properties);
    EXPECT_EQ(keys.size(),
              5u);  // SUPPORTED_PROPERTIES, AVAILABLE_DEVICES, CACHE_DIR, ENABLE_MMAP, LOG_LEVEL
}

TEST_F(Properties, AnyFromThePluginKeepsTheLibraryLoaded) {
    Any value;
    {
        Core local = empty_core(dir);
        local.register_plugin(test_plugin_path(), "LOCAL");
        value = local.get_property("LOCAL", supported_properties.name());
    }
    EXPECT_TRUE(is_loaded(test_plugin_path()));
    EXPECT_FALSE(value.as<std::vector<PropertyName>>().empty());
    value = Any();
    EXPECT_FALSE(is_loaded(test_plugin_path()));
}

TEST_F(Properties, CompiledModelProperties) {
    CompiledModel compiled = core.compile_model(tiny_model("named"), "TEST.5");
    EXPECT_EQ(compiled.get_property(model_name), "named");
    EXPECT_EQ(compiled.get_property(execution_devices), std::vector<std::string>{"TEST.5"});
    EXPECT_EQ(compiled.get_property(optimal_number_of_infer_requests), 2u);
    EXPECT_FALSE(compiled.get_property(loaded_from_cache));
    const auto keys = compiled.get_property(supported_properties);
    EXPECT_EQ(std::count(keys.begin(), keys.end(), "LOADED_FROM_CACHE"), 1);  // added by the core
    EXPECT_EQ(std::count(keys.begin(), keys.end(), "TEST_ADDEND"), 1);
    EXPECT_FALSE(compiled.get_property(enable_profiling));
    compiled.set_property({enable_profiling(true)});
    EXPECT_TRUE(compiled.get_property(enable_profiling));
    const std::string message =
        error_of<NotFound>([&] { compiled.set_property({num_streams(3)}); });
    EXPECT_EQ(message.rfind("TEST: ", 0), 0u) << message;  // the guard prefixes the device
}

}  // namespace
}  // namespace vireo::runtime_test
