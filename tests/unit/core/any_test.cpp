// Tests Any conversions and the typed property keys.
#include <gtest/gtest.h>

#include "vireo/properties.hpp"

using namespace vireo;

TEST(Any, HoldsAndConvertsNumbers) {
    Any a = 4;
    EXPECT_TRUE(a.is<int>());
    EXPECT_EQ(a.as<int64_t>(), 4);
    EXPECT_EQ(a.as<double>(), 4.0);
    EXPECT_EQ(a.as<std::string>(), "4");
    EXPECT_THROW(Any(-1).as<uint32_t>(), InvalidArgument);
    EXPECT_THROW(Any(2.5).as<int>(), InvalidArgument);
}

TEST(Any, ParsesText) {
    EXPECT_EQ(Any("12").as<uint32_t>(), 12u);
    EXPECT_TRUE(Any("YES").as<bool>());
    EXPECT_FALSE(Any("false").as<bool>());
    EXPECT_THROW(Any("maybe").as<bool>(), InvalidArgument);
    EXPECT_THROW(Any("12x").as<int>(), InvalidArgument);
    EXPECT_EQ(Any("a, b,c").as<std::vector<std::string>>(),
              (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(Any(std::vector<int>{1, 2}).to_string(), "1,2");
}

TEST(Any, EmptyAndEquality) {
    Any empty;
    EXPECT_TRUE(empty.empty());
    EXPECT_THROW(empty.as<int>(), InvalidArgument);
    EXPECT_EQ(Any(1), Any("1"));
    EXPECT_NE(Any(1), Any(2));
}

TEST(Properties, TypedKeysMakePairs) {
    auto [key, value] = enable_profiling(true);
    EXPECT_EQ(key, "PERF_COUNT");
    EXPECT_TRUE(value.as<bool>());
    auto [k2, v2] = hint::performance_mode(hint::PerformanceMode::THROUGHPUT);
    EXPECT_EQ(k2, "PERFORMANCE_HINT");
    EXPECT_EQ(v2.as<std::string>(), "THROUGHPUT");
    EXPECT_EQ(Any("LATENCY").as<hint::PerformanceMode>(), hint::PerformanceMode::LATENCY);
    EXPECT_THROW(Any("FAST").as<hint::PerformanceMode>(), InvalidArgument);
    EXPECT_EQ(Any("LOG_INFO").as<log::Level>(), log::Level::INFO);
    // Element types by name (INFERENCE_PRECISION_HINT), in either case, and back as text.
    EXPECT_EQ(Any("bf16").as<element::Type>(), element::bf16);
    EXPECT_EQ(Any("F32").as<element::Type>(), element::f32);
    EXPECT_EQ(Any(element::bf16).to_string(), "bf16");
    EXPECT_THROW(Any("float33").as<element::Type>(), InvalidArgument);
    auto [k3, v3] = hint::inference_precision(element::bf16);
    EXPECT_EQ(k3, "INFERENCE_PRECISION_HINT");
    EXPECT_EQ(v3.as<element::Type>(), element::bf16);
    PropertyName ro = loaded_from_cache;
    EXPECT_FALSE(ro.is_mutable());
    EXPECT_EQ(ro, "LOADED_FROM_CACHE");
}

TEST(Properties, GetOrNamesTheKey) {
    AnyMap m{{"NUM_STREAMS", Any("x")}};
    try {
        get_or<int32_t>(m, "NUM_STREAMS", 1);
        FAIL();
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("NUM_STREAMS"), std::string::npos);
    }
    EXPECT_EQ(get_or<int32_t>(m, "OTHER", 3), 3);
}

namespace {
struct Gadget {
    int value = 0;
};
[[maybe_unused]] std::ostream& operator<<(std::ostream& out, const Gadget& g) {
    return out << g.value;
}
std::istream& operator>>(std::istream& in, Gadget& g) {
    return in >> g.value;
}
}  // namespace

TEST(Any, ErrorsNameTypesAsPeopleWriteThem) {
    // Used to print typeid names: "cannot convert value '2.5' to N5vireo4hint15PerformanceModeE".
    auto message_of = [](auto call) {
        try {
            call();
        } catch (const InvalidArgument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string mode =
        message_of([] { Any(std::vector<std::string>{"x"}).as<hint::PerformanceMode>(); });
    EXPECT_EQ(mode, "cannot convert value 'x' to performance mode");
    const std::string gadget = message_of([] { Any(std::vector<std::string>{"x"}).as<Gadget>(); });
    EXPECT_EQ(gadget, "cannot convert value 'x' to (anonymous namespace)::Gadget");
    EXPECT_EQ(message_of([] { Any(2.5).as<hint::PerformanceMode>(); }),
              "unknown performance mode '2.5' (expected one of: LATENCY, THROUGHPUT, "
              "CUMULATIVE_THROUGHPUT)");
    EXPECT_EQ(std::string(type_name<device::Type>()), "device type");
    EXPECT_EQ(detail::readable_type_name(typeid(log::Level)), "vireo::log::Level");
}
