// Issue 23 item 3 and the cache parts of item 6: the model cache never writes through a planted
// symlink, never reads an entry that is a symlink or another user's file, refuses a directory
// others can tamper with, refuses a blob copied under another model's key, and removes the
// temporaries of writers that were killed.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "hostile_util.hpp"
#include "vireo/ops.hpp"

namespace vireo::hostile {
namespace {
namespace fs = std::filesystem;

// y = x * k, named by k so different k give different cache keys.
std::shared_ptr<Model> scale_model(float k) {
    auto x = op::parameter(element::f32, PartialShape(Shape{4}), "x");
    auto y = op::multiply(x, op::constant<float>(element::f32, Shape{4}, {k}));
    y->output(0).set_names({"y"});
    auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "scale");
    // Fixed names: generated ones differ between instances, and so would the cache keys.
    int index = 0;
    for (const auto& node : model->get_ordered_ops())
        node->set_friendly_name("n" + std::to_string(index++));
    return model;
}

float run_first_output(CompiledModel& compiled) {
    auto request = compiled.create_infer_request();
    Tensor x(element::f32, Shape{4});
    for (int i = 0; i < 4; ++i) x.data<float>()[i] = 1.0f;
    request.set_tensor("x", x);
    request.infer();
    return request.get_tensor("y").data<float>()[0];
}

std::vector<std::string> entries(const std::string& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

// The file name of the entry `model` gets on MOCK_REMOTE.0 (compiled once in a scratch cache).
std::string entry_name(const std::shared_ptr<Model>& model, const std::string& scratch) {
    Core core = make_core();
    core.set_property({cache_dir(scratch)});
    core.compile_model(model, "MOCK_REMOTE.0");
    const auto names = entries(scratch);
    EXPECT_EQ(names.size(), 1u);
    return names.empty() ? std::string() : names[0];
}

TEST(CacheAttack, PlantedSymlinksAtTemporaryNamesAreNotWrittenThrough) {
    const std::string base = temp_dir();
    const std::string victim = base + "/victim";
    write_file(victim, "root's secret");
    ::chmod(victim.c_str(), 0600);
    const std::string dir = base + "/cache";
    fs::create_directories(dir);
    const std::string entry = entry_name(scale_model(2.0f), base + "/scratch");
    const std::string stem = entry.substr(0, entry.size() - 5);  // without ".blob"
    // Every name the old scheme "<key>.blob.tmp.<pid>.<n>" would have used next.
    for (int n = 0; n < 64; ++n)
        fs::create_symlink(victim, dir + "/" + stem + ".blob.tmp." + std::to_string(::getpid()) +
                                       "." + std::to_string(n));
    Core core = make_core();
    core.set_property({cache_dir(dir)});
    auto compiled = core.compile_model(scale_model(2.0f), "MOCK_REMOTE.0");
    EXPECT_EQ(run_first_output(compiled), 2.0f);
    EXPECT_EQ(read_file(victim), "root's secret");
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir + "/" + entry)));
    // The entry is ours and works.
    auto again = core.compile_model(scale_model(2.0f), "MOCK_REMOTE.0");
    EXPECT_TRUE(again.get_property(loaded_from_cache.name()).as<bool>());
}

TEST(CacheAttack, EntryThatIsASymlinkIsNeitherReadNorFollowed) {
    const std::string base = temp_dir();
    const std::string dir = base + "/cache";
    fs::create_directories(dir);
    const std::string entry = entry_name(scale_model(3.0f), base + "/scratch");
    // The attacker's symlink points at a valid entry elsewhere (so following it would "hit").
    fs::create_symlink(base + "/scratch/" + entry, dir + "/" + entry);
    Core core = make_core();
    core.set_property({cache_dir(dir)});
    auto compiled = core.compile_model(scale_model(3.0f), "MOCK_REMOTE.0");
    EXPECT_FALSE(compiled.get_property(loaded_from_cache.name()).as<bool>());
    EXPECT_EQ(run_first_output(compiled), 3.0f);
    EXPECT_TRUE(
        fs::is_regular_file(fs::symlink_status(dir + "/" + entry)));  // replaced, not followed
}

TEST(CacheAttack, EntryOwnedByAnotherUserIsNotTrusted) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another user";
    const std::string base = temp_dir();
    const std::string dir = base + "/cache";
    fs::create_directories(dir);
    const std::string entry = entry_name(scale_model(4.0f), base + "/scratch");
    fs::copy_file(base + "/scratch/" + entry, dir + "/" + entry);
    ASSERT_EQ(::chown((dir + "/" + entry).c_str(), 65534, 65534), 0);
    Core core = make_core();
    core.set_property({cache_dir(dir)});
    auto compiled = core.compile_model(scale_model(4.0f), "MOCK_REMOTE.0");
    EXPECT_FALSE(compiled.get_property(loaded_from_cache.name()).as<bool>());
}

TEST(CacheAttack, DirectoryOthersMayTamperWithIsNotUsed) {
    const std::string base = temp_dir();
    const std::string dir = base + "/shared";
    fs::create_directories(dir);
    ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
    Core core = make_core();
    core.set_property({cache_dir(dir)});
    auto compiled = core.compile_model(scale_model(5.0f), "MOCK_REMOTE.0");
    EXPECT_EQ(run_first_output(compiled), 5.0f);
    EXPECT_TRUE(entries(dir).empty());  // bypassed, nothing written
    // With the sticky bit (as /tmp) nobody can swap our files: the cache is used.
    ASSERT_EQ(::chmod(dir.c_str(), 01777), 0);
    core.compile_model(scale_model(5.0f), "MOCK_REMOTE.0");
    EXPECT_EQ(entries(dir).size(), 1u);
    if (::geteuid() == 0) {  // owned by another user: bypassed
        const std::string other = base + "/other";
        fs::create_directories(other);
        ASSERT_EQ(::chown(other.c_str(), 65534, 65534), 0);
        core.set_property({cache_dir(other)});
        core.compile_model(scale_model(5.0f), "MOCK_REMOTE.0");
        EXPECT_TRUE(entries(other).empty());
    }
}

TEST(CacheAttack, BlobCopiedUnderAnotherModelsKeyIsRefused) {
    const std::string base = temp_dir();
    const std::string dir = base + "/cache";
    fs::create_directories(dir);
    const std::string entry_two = entry_name(scale_model(2.0f), base + "/two");
    const std::string entry_seven = entry_name(scale_model(7.0f), base + "/seven");
    ASSERT_NE(entry_two, entry_seven);
    // The x7 model's blob under the x2 model's key.
    fs::copy_file(base + "/seven/" + entry_seven, dir + "/" + entry_two);
    Core core = make_core();
    core.set_property({cache_dir(dir)});
    auto compiled = core.compile_model(scale_model(2.0f), "MOCK_REMOTE.0");
    EXPECT_FALSE(compiled.get_property(loaded_from_cache.name()).as<bool>());
    EXPECT_EQ(run_first_output(compiled), 2.0f);
}

TEST(CacheStale, TemporariesOfDeadWritersAreRemoved) {
    const std::string dir = temp_dir();
    // A pid that is not running: a child that has exited and been reaped.
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ASSERT_GT(child, 0);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    const std::string dead =
        dir + "/0123456789abcdef.blob.tmp." + std::to_string(child) + ".Ab12Cd";
    const std::string old =
        dir + "/fedcba9876543210.blob.tmp." + std::to_string(::getpid()) + ".Zz99Yy";
    const std::string live =
        dir + "/00000000ffffffff.blob.tmp." + std::to_string(::getpid()) + ".Qq11Ww";
    write_file(dead, std::string(4096, 'x'));
    write_file(old, std::string(4096, 'x'));
    write_file(live, std::string(4096, 'x'));
    fs::last_write_time(old, fs::file_time_type::clock::now() - std::chrono::hours(2));
    Core core = make_core();
    core.set_property({cache_dir(dir)});
    core.compile_model(scale_model(6.0f), "MOCK_REMOTE.0");
    EXPECT_FALSE(fs::exists(dead));
    EXPECT_FALSE(fs::exists(old));
    EXPECT_TRUE(fs::exists(live));       // a writer of this (live) process, recent: kept
    EXPECT_EQ(entries(dir).size(), 2u);  // the live temporary and the new entry
}

}  // namespace
}  // namespace vireo::hostile
