// Tests VIREO_LOG: the level is honoured from the start (no set_log_level call needed), a line
// above it is not even formatted, and a process that never initialised glog gets plain lines.
#include "vireo/log.hpp"

#include <gtest/gtest.h>

#include <string>

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
