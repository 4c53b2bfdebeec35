// Tests of PluginObject<T>: the module handle outlives the implementation (destruction, copy and
// move assignment), call() rethrows what a plugin throws with its kind and the object's name, the
// name never throws, and an empty object is reported.
#include "vireo/plugin_object.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace vireo {
namespace {

// A fake plugin object: records its destruction in `events`, throws what `fault` says from act().
struct FakeImpl {
    FakeImpl(std::vector<std::string>* events, std::string id)
        : m_events(events), m_id(std::move(id)) {}
    ~FakeImpl() { m_events->push_back("impl " + m_id); }
    int act(int fault) {
        switch (fault) {
            case 1:
                throw NotFound("no tensor 'x'");
            case 2:
                throw std::runtime_error("vector::_M_range_check");
            case 3:
                throw 42;
            case 4:
                throw Busy("DEV.1: the request is running");
            default:
                return 7;
        }
    }
    std::vector<std::string>* m_events;
    std::string m_id;
    bool name_throws = false;
};

// A fake module handle: its deleter records the unloading of module `id`.
std::shared_ptr<void> fake_module(std::vector<std::string>* events, const std::string& id) {
    return std::shared_ptr<void>(new int(0), [events, id](void* p) {
        events->push_back("module " + id);
        delete static_cast<int*>(p);
    });
}

PluginObject<FakeImpl> make_object(std::vector<std::string>* events, const std::string& id) {
    return PluginObject<FakeImpl>(std::make_shared<FakeImpl>(events, id), fake_module(events, id),
                                  "DEV." + id);
}

// Runs `call`; returns the vireo::Exception it throws (fails the test if it throws nothing or
// something else).
template <typename Call>
Exception error_of(Call&& call) {
    try {
        call();
    } catch (const Exception& e) {
        return e;
    } catch (...) {
        ADD_FAILURE() << "a foreign exception escaped";
        return Exception("foreign");
    }
    ADD_FAILURE() << "no exception";
    return Exception("none");
}

TEST(PluginObject, TheModuleOutlivesTheImplementationOnDestruction) {
    std::vector<std::string> events;
    { auto object = make_object(&events, "1"); }
    EXPECT_EQ(events, (std::vector<std::string>{"impl 1", "module 1"}));
}

TEST(PluginObject, CopyAssignmentReleasesTheOldImplementationBeforeItsModule) {
    std::vector<std::string> events;
    auto target = make_object(&events, "1");
    {
        auto source = make_object(&events, "2");
        target = source;
        EXPECT_EQ(events, (std::vector<std::string>{"impl 1", "module 1"}));
        EXPECT_EQ(target.impl(), source.impl());
        EXPECT_EQ(target.module(), source.module());
        EXPECT_EQ(target.name(), "DEV.2");
    }
    EXPECT_EQ(events.size(), 2u);  // target still holds object 2
    target = PluginObject<FakeImpl>();
    EXPECT_EQ(events, (std::vector<std::string>{"impl 1", "module 1", "impl 2", "module 2"}));
    EXPECT_FALSE(target);
}

TEST(PluginObject, MoveAssignmentReleasesTheOldImplementationBeforeItsModule) {
    std::vector<std::string> events;
    auto target = make_object(&events, "1");
    target = make_object(&events, "2");
    EXPECT_EQ(events, (std::vector<std::string>{"impl 1", "module 1"}));
    EXPECT_EQ(target.name(), "DEV.2");
    EXPECT_EQ(target.call("act", [](FakeImpl& impl) { return impl.act(0); }), 7);
}

TEST(PluginObject, MoveConstructionLeavesTheSourceEmpty) {
    std::vector<std::string> events;
    auto source = make_object(&events, "1");
    PluginObject<FakeImpl> target(std::move(source));
    EXPECT_FALSE(source);  // NOLINT(bugprone-use-after-move): the contract under test
    EXPECT_TRUE(target);
    EXPECT_TRUE(events.empty());
}

TEST(PluginObject, CallReturnsTheResult) {
    std::vector<std::string> events;
    auto object = make_object(&events, "1");
    int calls = 0;
    EXPECT_EQ(object.call("act",
                          [&](FakeImpl& impl) {
                              ++calls;
                              return impl.act(0);
                          }),
              7);
    EXPECT_EQ(calls, 1);
}

TEST(PluginObject, AVireoExceptionKeepsItsKindAndGetsTheName) {
    std::vector<std::string> events;
    auto object = make_object(&events, "1");
    Exception e = error_of([&] { object.call("infer", [](FakeImpl& impl) { impl.act(1); }); });
    EXPECT_EQ(e.kind(), ErrorKind::kNotFound);
    EXPECT_EQ(std::string(e.what()), "DEV.1: no tensor 'x'");
    // Rethrown as the kind's own class, so `catch (const NotFound&)` works.
    EXPECT_THROW(object.call("infer", [](FakeImpl& impl) { impl.act(1); }), NotFound);
}

TEST(PluginObject, APluginThatNamedItselfIsNotNamedTwice) {
    std::vector<std::string> events;
    auto object = make_object(&events, "1");
    Exception e = error_of([&] { object.call("infer", [](FakeImpl& impl) { impl.act(4); }); });
    EXPECT_EQ(e.kind(), ErrorKind::kBusy);
    EXPECT_EQ(std::string(e.what()), "DEV.1: the request is running");
}

TEST(PluginObject, AForeignExceptionBecomesGeneralWithTheNameAndTheOperation) {
    std::vector<std::string> events;
    auto object = make_object(&events, "1");
    Exception e = error_of([&] { object.call("infer", [](FakeImpl& impl) { impl.act(2); }); });
    EXPECT_EQ(e.kind(), ErrorKind::kGeneral);
    EXPECT_EQ(std::string(e.what()), "DEV.1: infer: vector::_M_range_check");
    e = error_of([&] { object.call("wait", [](FakeImpl& impl) { impl.act(3); }); });
    EXPECT_EQ(e.kind(), ErrorKind::kGeneral);
    EXPECT_EQ(std::string(e.what()), "DEV.1: wait: unknown exception");
}

std::string read_name(const FakeImpl& impl) {
    if (impl.name_throws) throw std::runtime_error("no name");
    return "READ." + impl.m_id;
}

TEST(PluginObject, ANameThatThrowsGivesTheFallbackAndThePluginsErrorSurvives) {
    std::vector<std::string> events;
    auto impl = std::make_shared<FakeImpl>(&events, "3");
    PluginObject<FakeImpl> object(impl, nullptr, read_name, "fake (no name)");
    EXPECT_EQ(object.name(), "READ.3");
    Exception e = error_of([&] { object.call("infer", [](FakeImpl& i) { i.act(1); }); });
    EXPECT_EQ(std::string(e.what()), "READ.3: no tensor 'x'");
    impl->name_throws = true;
    EXPECT_EQ(object.name(), "fake (no name)");
    e = error_of([&] { object.call("infer", [](FakeImpl& i) { i.act(1); }); });
    EXPECT_EQ(e.kind(), ErrorKind::kNotFound);
    EXPECT_EQ(std::string(e.what()), "fake (no name): no tensor 'x'");
}

TEST(PluginObject, AnEmptyObjectIsReported) {
    PluginObject<FakeImpl> empty;
    EXPECT_FALSE(empty);
    EXPECT_EQ(empty.impl(), nullptr);
    EXPECT_EQ(empty.module(), nullptr);
    Exception e = error_of([&] { empty.checked("CompiledModel"); });
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
    EXPECT_EQ(std::string(e.what()), "CompiledModel is empty (default-constructed or moved from)");
    int calls = 0;
    e = error_of([&] { empty.call("infer", [&](FakeImpl&) { ++calls; }); });
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
    EXPECT_EQ(std::string(e.what()), "infer: the plugin object is empty");
    EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace vireo
