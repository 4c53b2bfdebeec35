// Helpers shared by the hostile-input tests: a fresh temporary directory per test, whole-file
// writes, a Core over the build's plugins.xml, and an expect-error helper that checks the kind
// and the message.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "vireo/core.hpp"

namespace vireo::hostile {

/// A fresh, empty directory for the running test (removed first if a previous run left it).
std::string temp_dir();
void write_file(const std::string& path, const std::string& bytes);
std::string read_file(const std::string& path);
Core make_core();

/// Runs `f` and expects an exception of type E whose message holds every fragment.
template <typename E, typename F>
void expect_error(F&& f, const std::vector<std::string>& fragments) {
    try {
        f();
    } catch (const E& e) {
        const std::string message = e.what();
        for (const auto& fragment : fragments)
            EXPECT_NE(message.find(fragment), std::string::npos)
                << "'" << fragment << "' not in: " << message;
        return;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "expected another exception kind, got: " << e.what();
        return;
    }
    ADD_FAILURE() << "expected an exception, nothing was thrown";
}

}  // namespace vireo::hostile
