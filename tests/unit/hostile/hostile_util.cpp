// Implements the hostile-input tests' helpers.
#include "hostile_util.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace vireo::hostile {

std::string temp_dir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("vireo_hostile_" + std::to_string(::getuid())) /
                                      (std::string(info->test_suite_name()) + "." + info->name());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir.string();
}

void write_file(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    ASSERT_TRUE(out.good()) << path;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

Core make_core() {
    return Core(std::string(VIREO_BUILD_LIB_DIR) + "/plugins.xml");
}

}  // namespace vireo::hostile
