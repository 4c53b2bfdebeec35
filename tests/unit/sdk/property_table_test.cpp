// Tests of sdk::PropertyTable (declared properties: values, scopes, instances, errors, atomic
// sets) and of the support check shared by query_model and compile_model.
#include "vireo/sdk/property_table.hpp"

#include <gtest/gtest.h>

#include <memory>

#include "vireo/ops.hpp"
#include "vireo/sdk/support_check.hpp"

namespace vireo::sdk {
namespace {

inline constexpr Property<uint32_t> depth{"DEV_DEPTH"};
inline constexpr Property<uint32_t> count{"DEV_COUNT"};

std::unique_ptr<PropertyTable> make_table() {
    auto table = std::make_unique<PropertyTable>(
        "DEV", std::vector<PropertySpec>{
                   common::full_name([](const std::string& id) { return "dev #" + id; }),
                   common::performance_hint(), common::num_streams(), common::profiling(),
                   in_range<uint32_t>(depth, 4, 1, 64),
                   in_range<uint32_t>(count, 2, 1, 8, PropertyScope::kPlugin)});
    table->set_instances({"0", "1"});
    return table;
}

template <typename E, typename F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    return "(no error of the expected kind)";
}

TEST(PropertyTable, DefaultsSupportedListAndBuiltInKeys) {
    const auto owned = make_table();
    const PropertyTable& t = *owned;
    EXPECT_EQ(t.get(depth.name()).as<uint32_t>(), 4u);
    EXPECT_EQ(t.get(num_streams.name()).as<int32_t>(), 0);
    EXPECT_EQ(t.get(hint::performance_mode.name()).as<hint::PerformanceMode>(),
              hint::PerformanceMode::LATENCY);
    EXPECT_EQ(t.get(available_devices.name()).as<std::vector<std::string>>(),
              (std::vector<std::string>{"0", "1"}));
    EXPECT_EQ(t.get(device::id.name()).as<std::string>(), "0");
    EXPECT_EQ(t.get(device::full_name.name(), {{device::id.name(), "1"}}).as<std::string>(),
              "dev #1");
    const auto keys = t.get(supported_properties.name()).as<std::vector<PropertyName>>();
    ASSERT_EQ(keys.size(), 9u);  // SUPPORTED_PROPERTIES, AVAILABLE_DEVICES, DEVICE_ID + 6 declared
    EXPECT_EQ(keys[0], supported_properties.name());
    EXPECT_FALSE(keys[0].is_mutable());
    EXPECT_TRUE(keys[2].is_mutable());  // DEVICE_ID
}

TEST(PropertyTable, ErrorsNameKeyValueAndRange) {
    const auto owned = make_table();
    PropertyTable& t = *owned;
    std::string m = error_of<NotFound>([&] { t.set({{"NOPE", 1}}); });
    EXPECT_NE(m.find("NOPE"), std::string::npos) << m;
    EXPECT_NE(m.find("DEV_DEPTH"), std::string::npos) << m;  // lists the supported keys
    m = error_of<InvalidArgument>([&] { t.set({{depth.name(), 65}}); });
    EXPECT_NE(
        m.find("DEV: property DEV_DEPTH has a bad value '65' (expected an integer from 1 to 64)"),
        std::string::npos)
        << m;
    m = error_of<InvalidArgument>([&] { t.set({{num_streams.name(), "many"}}); });
    EXPECT_NE(m.find("'many' (expected an integer from 0 to 256)"), std::string::npos) << m;
    m = error_of<InvalidArgument>([&] { t.set({{device::full_name.name(), "x"}}); });
    EXPECT_NE(m.find("read-only"), std::string::npos) << m;
    m = error_of<InvalidArgument>([&] { t.set({{device::id.name(), "7"}, {depth.name(), 5}}); });
    EXPECT_NE(m.find("'7'"), std::string::npos) << m;
    EXPECT_NE(m.find("\"0\", \"1\""), std::string::npos) << m;
    EXPECT_THROW(t.get("NOPE"), NotFound);
}

TEST(PropertyTable, MultiKeySetIsAtomic) {
    const auto owned = make_table();
    PropertyTable& t = *owned;
    EXPECT_THROW(t.set({{depth.name(), 8}, {num_streams.name(), -1}}), InvalidArgument);
    EXPECT_EQ(t.get(depth.name()).as<uint32_t>(), 4u);  // the good key was not applied either
    t.set({{depth.name(), 8}, {num_streams.name(), 2}});
    EXPECT_EQ(t.get(depth.name()).as<uint32_t>(), 8u);
    EXPECT_EQ(t.get(num_streams.name()).as<int32_t>(), 2);
}

TEST(PropertyTable, InstanceValuesOverrideThePluginWideOnes) {
    const auto owned = make_table();
    PropertyTable& t = *owned;
    const AnyMap one{{device::id.name(), "1"}};
    t.set({{device::id.name(), "1"}, {depth.name(), 16}});
    EXPECT_EQ(t.get(depth.name(), one).as<uint32_t>(), 16u);
    EXPECT_EQ(t.get(depth.name()).as<uint32_t>(), 4u);  // instance 0 (the default) unchanged
    EXPECT_EQ(t.resolve(one).get(depth), 16u);
    EXPECT_EQ(t.resolve(one).instance(), "1");
    // A call's argument wins for that call only.
    EXPECT_EQ(t.resolve({{device::id.name(), "1"}, {depth.name(), 32}}).get(depth), 32u);
    EXPECT_EQ(t.get(depth.name(), one).as<uint32_t>(), 16u);
    // Plugin-wide set: every instance, the instance's own value gives way.
    t.set({{depth.name(), 2}});
    EXPECT_EQ(t.get(depth.name(), one).as<uint32_t>(), 2u);
    // A lone DEVICE_ID picks the default instance.
    t.set({{device::id.name(), "1"}, {depth.name(), 3}});
    t.set({{device::id.name(), "1"}});
    EXPECT_EQ(t.get(depth.name()).as<uint32_t>(), 3u);
    EXPECT_EQ(t.get(device::id.name()).as<std::string>(), "1");
}

TEST(PropertyTable, ScopesInCallArguments) {
    const auto owned = make_table();
    PropertyTable& t = *owned;
    std::string m = error_of<InvalidArgument>([&] { t.resolve({{count.name(), 3}}); });
    EXPECT_NE(m.find("plugin-wide"), std::string::npos) << m;
    m = error_of<InvalidArgument>([&] { t.resolve({{device::full_name.name(), "x"}}); });
    EXPECT_NE(m.find("read-only"), std::string::npos) << m;
    EXPECT_THROW(t.resolve({{"NOPE", 1}}), NotFound);
    // Keys the core owns pass through to the plugin.
    const PropertyValues v =
        t.resolve({{cache_dir.name(), "/tmp/x"}, {loaded_from_cache.name(), true}});
    EXPECT_EQ(v.call().count(cache_dir.name()), 1u);
    EXPECT_EQ(v.map().count(cache_dir.name()), 0u);
}

TEST(PropertyTable, SingleInstanceDeviceAcceptsEmptyAndZeroIds) {
    PropertyTable t("ONE", {common::profiling()});
    EXPECT_NO_THROW(t.set({{device::id.name(), "0"}, {enable_profiling.name(), true}}));
    EXPECT_NO_THROW(t.set({{device::id.name(), ""}}));
    EXPECT_TRUE(t.get(enable_profiling.name()).as<bool>());
    EXPECT_THROW(t.set({{device::id.name(), "1"}}), InvalidArgument);
    // The one instance is "0" wherever an id is read back (the core lists the device by its
    // plain name all the same).
    EXPECT_EQ(t.get(available_devices.name()).as<std::vector<std::string>>(),
              std::vector<std::string>{"0"});
    EXPECT_EQ(t.get(device::id.name()).as<std::string>(), "0");
    EXPECT_EQ(t.resolve({}).device_name("ONE"), "ONE");
    EXPECT_EQ(t.resolve({{device::id.name(), "0"}}).device_name("ONE"), "ONE");
}

TEST(PropertyTable, AnEmptyDeviceIdMeansTheDefaultInstance) {
    const auto owned = make_table();
    PropertyTable& t = *owned;
    t.set({{device::id.name(), "1"}});  // the default instance is now 1
    t.set({{device::id.name(), ""}, {depth.name(), 9}});
    EXPECT_EQ(t.get(depth.name(), {{device::id.name(), "1"}}).as<uint32_t>(), 9u);
    EXPECT_EQ(t.get(depth.name(), {{device::id.name(), "0"}}).as<uint32_t>(), 4u);
    EXPECT_EQ(t.resolve({{device::id.name(), ""}}).instance(), "1");
    // A multi-instance device's calls know the name the caller used.
    EXPECT_EQ(t.resolve({}).device_name("DEV"), "DEV.1");
    EXPECT_EQ(t.resolve({{device::id.name(), "0"}}).device_name("DEV"), "DEV.0");
}

TEST(PropertyTable, AKeyDeclaredTwiceIsRefusedAndSetSpecReplacesOne) {
    std::string m = error_of<InvalidArgument>([] {
        PropertyTable t("DEV", {common::profiling(), common::profiling(true)});
    });
    EXPECT_NE(m.find("DEV: property PERF_COUNT is declared twice"), std::string::npos) << m;
    m = error_of<InvalidArgument>([] { PropertyTable t("DEV", {fixed(device::id.name(), 1)}); });
    EXPECT_NE(m.find("DEVICE_ID is declared twice"), std::string::npos) << m;
    // A compiled model's table declares no DEVICE_ID of its own: there the key is free.
    EXPECT_NO_THROW(PropertyTable("DEV", {fixed(device::id.name(), std::string("0"))}, false));

    std::vector<PropertySpec> specs{common::profiling(),
                                    fixed(model_name.name(), std::string("a"))};
    set_spec(specs, fixed(model_name.name(), std::string("b")));
    set_spec(specs, fixed(execution_devices.name(), std::vector<std::string>{"DEV.3"}));
    ASSERT_EQ(specs.size(), 3u);
    PropertyTable t("DEV", specs, false);
    EXPECT_EQ(t.get(model_name.name()).as<std::string>(), "b");
    EXPECT_EQ(t.get(execution_devices.name()).as<std::vector<std::string>>(),
              std::vector<std::string>{"DEV.3"});
    m = error_of<InvalidArgument>([&] { t.set({{model_name.name(), "c"}}); });
    EXPECT_NE(m.find("read-only"), std::string::npos) << m;
}

TEST(PropertyTable, CompiledModelTableHasNoDeviceKeys) {
    PropertyTable t("DEV",
                    {common::profiling(true, PropertyScope::kCompiledModel),
                     common::optimal_number_of_infer_requests([] { return 3u; })},
                    /*plugin_table=*/false);
    EXPECT_EQ(t.supported().size(), 3u);
    EXPECT_TRUE(t.get(enable_profiling.name()).as<bool>());
    EXPECT_EQ(t.get(optimal_number_of_infer_requests.name()).as<uint32_t>(), 3u);
    EXPECT_THROW(t.get(device::id.name()), NotFound);
    EXPECT_THROW(t.set({{optimal_number_of_infer_requests.name(), 4}}), InvalidArgument);
}

TEST(SupportCheck, QueryAndCompileComeFromOnePredicate) {
    auto x = op::parameter(element::f32, Shape{2}, "x");
    auto sum = op::add(x, x);
    sum->set_friendly_name("sum");
    auto sub = op::subtract(sum, x);
    sub->set_friendly_name("diff");
    auto model = std::make_shared<Model>(OutputVector{sub}, ParameterVector{x}, "m");
    const OpSupport adds = [](const Node& n) { return n.get_type_name() == "Add"; };
    const SupportedOpsMap supported = supported_ops(*model, "DEV", adds);
    EXPECT_EQ(supported.count("sum"), 1u);
    EXPECT_EQ(supported.count("diff"), 0u);
    EXPECT_EQ(supported.count("x"), 1u);  // Parameters always run
    const std::string m = error_of<NotImplemented>([&] { check_supported(*model, "DEV", adds); });
    EXPECT_NE(m.find("DEV: the model has ops this device does not run: Subtract 'diff'"),
              std::string::npos)
        << m;
    EXPECT_NO_THROW(check_supported(*model, "DEV", [](const Node&) { return true; }));
}

TEST(SupportCheck, ARefusalCarriesItsReasonAndAllNodesAsksAboutInputsToo) {
    auto x = op::parameter(element::f64, Shape{2}, "x");
    auto sum = op::add(x, x);
    sum->set_friendly_name("sum");
    auto model = std::make_shared<Model>(OutputVector{sum}, ParameterVector{x}, "m");
    // An element-type limit, stated once: it refuses the f64 input and the f64 Add.
    const OpSupport f32_only = [](const Node& n) -> Support {
        if (n.get_output_size() > 0 && n.get_output_element_type(0) != element::f32)
            return Support::refused("only f32 values");
        return true;
    };
    // The default scope never asks about Parameters and Results.
    SupportedOpsMap ops = supported_ops(*model, "DEV", f32_only);
    EXPECT_EQ(ops.count("x"), 1u);
    EXPECT_EQ(ops.count("sum"), 0u);
    std::string m = error_of<NotImplemented>([&] { check_supported(*model, "DEV", f32_only); });
    EXPECT_NE(m.find("does not run: Add 'sum' (only f32 values)"), std::string::npos) << m;
    EXPECT_EQ(m.find("Parameter"), std::string::npos) << m;

    ops = supported_ops(*model, "DEV", f32_only, SupportScope::kAllNodes);
    EXPECT_EQ(ops.size(), 0u);  // the Result passes the f64 value on: refused as well
    m = error_of<NotImplemented>(
        [&] { check_supported(*model, "DEV", f32_only, SupportScope::kAllNodes); });
    EXPECT_NE(m.find("does not run: Parameter 'x' (only f32 values), Add 'sum' (only f32 values), "
                     "Result '"),
              std::string::npos)
        << m;
    // A bool predicate still converts: a refusal without a reason is named alone.
    m = error_of<NotImplemented>(
        [&] { check_supported(*model, "DEV", [](const Node&) { return false; }); });
    EXPECT_NE(m.find("does not run: Add 'sum'"), std::string::npos) << m;
    EXPECT_EQ(m.find("'sum' ("), std::string::npos) << m;
}

}  // namespace
}  // namespace vireo::sdk
