// Tests VIREO_LOG: the level is honoured from the start (no set_log_level call needed), a line
// above it is not even formatted, a process that never initialised glog gets plain lines, and an
// application's sink (set_log_sink) gets every line, one at a time, without recursion.
#include "vireo/log.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace vireo;

namespace {

int g_formatted = 0;
std::string counted(const char* text) {
    ++g_formatted;
    return text;
}

std::string logged_by(void (*write)()) {
    ::testing::internal::CaptureStderr();
    write();
    return ::testing::internal::GetCapturedStderr();
}

}  // namespace

TEST(Log, DefaultLevelIsWarningAndHonouredWithoutAnySet) {
    // Nothing in this binary sets the level before this test (the others restore theirs).
    EXPECT_EQ(get_log_level(), log::Level::WARNING);
    g_formatted = 0;
    const std::string out = logged_by([] {
        VIREO_LOG(INFO) << counted("an info line");
        VIREO_LOG(DEBUG) << counted("a debug line");
        VIREO_LOG(WARNING) << counted("a warning line");
        VIREO_LOG(ERR) << counted("an error line");
    });
    EXPECT_EQ(g_formatted, 2);  // INFO and DEBUG were never formatted
    EXPECT_EQ(out, "[vireo WARNING] a warning line\n[vireo ERROR] an error line\n");
    EXPECT_EQ(out.find("InitGoogleLogging"), std::string::npos) << out;
}

TEST(Log, LevelChangesWhatIsWritten) {
    const log::Level saved = get_log_level();
    set_log_level(log::Level::DEBUG);
    EXPECT_EQ(logged_by([] {
                  VIREO_LOG(DEBUG) << "d" << 1;
                  VIREO_LOG(TRACE) << "t";
              }),
              "[vireo DEBUG] d1\n");
    set_log_level(log::Level::NO);
    EXPECT_EQ(logged_by([] { VIREO_LOG(ERR) << "e"; }), "");
    EXPECT_FALSE(log_enabled(log::Level::NO));
    set_log_level(saved);
}

TEST(Log, LevelReadsNamesAndOpenVinoNumbers) {
    EXPECT_EQ(Any(2).as<log::Level>(), log::Level::INFO);  // ov::log::Level::INFO == 2
    EXPECT_EQ(Any(int64_t{-1}).as<log::Level>(), log::Level::NO);
    EXPECT_EQ(Any(1u).as<log::Level>(), log::Level::WARNING);
    EXPECT_EQ(Any("4").as<log::Level>(), log::Level::TRACE);
    EXPECT_EQ(Any("LOG_ERROR").as<log::Level>(), log::Level::ERR);
    try {
        Any(7).as<log::Level>();
        FAIL() << "7 is no log level";
    } catch (const InvalidArgument& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("unknown log level '7'"), std::string::npos) << message;
        EXPECT_NE(message.find("LOG_WARNING"), std::string::npos) << message;
        EXPECT_NE(message.find("-1 (none) to 4 (trace)"), std::string::npos) << message;
    }
}

namespace vireo {
namespace {

struct Captured {
    std::vector<std::pair<log::Level, std::string>> lines;
};

TEST(LogSink, ReceivesTheLinesTheLevelLetsThroughInsteadOfStderr) {
    Captured captured;
    const LogSink before = set_log_sink([&](log::Level level, std::string_view text) {
        captured.lines.emplace_back(level, std::string(text));
    });
    EXPECT_FALSE(before);  // the default
    const std::string out = logged_by([] {
        VIREO_LOG(WARNING) << "w " << 1;
        VIREO_LOG(INFO) << "below the level";
        VIREO_LOG(ERR) << "e";
    });
    EXPECT_EQ(out, "");
    ASSERT_EQ(captured.lines.size(), 2u);
    EXPECT_EQ(captured.lines[0], std::make_pair(log::Level::WARNING, std::string("w 1")));
    EXPECT_EQ(captured.lines[1], std::make_pair(log::Level::ERR, std::string("e")));
    // Removing it returns the one that was set and restores stderr.
    EXPECT_TRUE(set_log_sink({}));
    EXPECT_EQ(logged_by([] { VIREO_LOG(WARNING) << "back"; }), "[vireo WARNING] back\n");
    EXPECT_EQ(captured.lines.size(), 2u);
}

TEST(LogSink, ALineLoggedFromTheSinkOrAThrowingSinkGoesToStderr) {
    set_log_sink([](log::Level, std::string_view text) {
        if (text == "outer") VIREO_LOG(WARNING) << "from the sink";
        if (text == "throw") throw std::runtime_error("sink failed");
    });
    EXPECT_EQ(logged_by([] { VIREO_LOG(WARNING) << "outer"; }), "[vireo WARNING] from the sink\n");
    EXPECT_EQ(logged_by([] { VIREO_LOG(ERR) << "throw"; }),
              "[vireo ERROR] throw (the log sink threw: sink failed)\n");
    set_log_sink({});
}

TEST(LogSink, IsCalledOneLineAtATimeFromManyThreads) {
    std::atomic<int> inside{0}, overlaps{0}, calls{0};
    set_log_sink([&](log::Level, std::string_view) {
        if (inside.fetch_add(1) != 0) overlaps.fetch_add(1);
        std::this_thread::yield();
        calls.fetch_add(1);
        inside.fetch_sub(1);
    });
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([] {
            for (int i = 0; i < 200; ++i) VIREO_LOG(WARNING) << "line " << i;
        });
    for (auto& t : threads) t.join();
    set_log_sink({});
    EXPECT_EQ(calls.load(), 1600);
    EXPECT_EQ(overlaps.load(), 0);
}

}  // namespace
}  // namespace vireo
