// Tests the model cache (hit, miss, key inputs, damaged/truncated/foreign entries replaced,
// atomic writes, non-exporting devices) and export/import blob checks.
#include <cstring>
#include <thread>

#include "runtime_test_utils.hpp"

namespace vireo::runtime_test {
namespace {

class Cache : public ::testing::Test {
  protected:
    void SetUp() override {
        core = empty_core(dir);
        core.register_plugin(test_plugin_path(), "TEST");
        core.register_plugin(plugin_path("vireo_test_plugin_v2"), "TEST_V2");
        cache = dir.path() / "cache";
        core.set_property({cache_dir(cache.string())});
    }
    std::vector<fs::path> entries() const {
        std::vector<fs::path> out;
        if (!fs::exists(cache)) return out;
        for (const auto& e : fs::directory_iterator(cache)) out.push_back(e.path());
        std::sort(out.begin(), out.end());
        return out;
    }
    uint64_t compiles(const std::string& device = "TEST") {
        return core.get_property(device, tp::compile_count);
    }
    uint64_t imports(const std::string& device = "TEST") {
        return core.get_property(device, tp::import_count);
    }

    ScratchDir dir;
    Core core;
    fs::path cache;
};

TEST_F(Cache, MissThenHit) {
    CompiledModel first = core.compile_model(tiny_model(), "TEST", {tp::addend(4.0f)});
    EXPECT_FALSE(first.get_property(loaded_from_cache));
    EXPECT_EQ(compiles(), 1u);
    EXPECT_EQ(imports(), 0u);
    ASSERT_EQ(entries().size(), 1u);
    EXPECT_EQ(entries()[0].extension(), ".blob");
    EXPECT_EQ(entries()[0].stem().string().size(), 16u);

    // A model built separately but identical hits the same entry.
    CompiledModel second = core.compile_model(tiny_model(), "TEST", {tp::addend(4.0f)});
    EXPECT_TRUE(second.get_property(loaded_from_cache));
    EXPECT_EQ(compiles(), 1u);
    EXPECT_EQ(imports(), 1u);
    expect_adds(second, 4.0f);  // the imported model computes the same thing
    EXPECT_TRUE(second.create_infer_request().get_compiled_model().get_property(loaded_from_cache));
    EXPECT_EQ(entries().size(), 1u);
}

TEST_F(Cache, HitAcrossCores) {
    core.compile_model(tiny_model(), "TEST");
    Core other = empty_core(dir);
    other.register_plugin(test_plugin_path(), "TEST");
    other.set_property({cache_dir(cache.string())});
    CompiledModel hit = other.compile_model(tiny_model(), "TEST");
    EXPECT_TRUE(hit.get_property(loaded_from_cache));
    EXPECT_EQ(other.get_property("TEST", tp::compile_count), 0u);
}

TEST_F(Cache, KeyDependsOnModelPropertiesDeviceAndPlugin) {
    core.compile_model(tiny_model(), "TEST");
    core.compile_model(tiny_model("renamed"), "TEST");             // model changed
    core.compile_model(tiny_model(), "TEST", {tp::addend(2.0f)});  // properties changed
    core.compile_model(tiny_model(), "TEST.1");                    // device instance changed
    core.compile_model(tiny_model(), "TEST_V2");                   // plugin (version) changed
    EXPECT_EQ(compiles(), 4u);
    EXPECT_EQ(compiles("TEST_V2"), 1u);
    EXPECT_EQ(imports(), 0u);
    EXPECT_EQ(entries().size(), 5u);
    // Per-device properties count too: they are part of what the plugin receives.
    core.set_property("TEST", {enable_profiling(true)});
    core.compile_model(tiny_model(), "TEST");
    EXPECT_EQ(compiles(), 5u);
    EXPECT_EQ(entries().size(), 6u);
}

TEST_F(Cache, CorruptEntryIsReplacedByAFreshCompile) {
    core.compile_model(tiny_model(), "TEST");
    const fs::path entry = entries().at(0);
    std::string bytes = read_file(entry.string());
    bytes[bytes.size() - 3] ^= 0x5a;  // inside the payload
    write_file(entry.string(), bytes);

    CompiledModel recompiled = core.compile_model(tiny_model(), "TEST");
    EXPECT_FALSE(recompiled.get_property(loaded_from_cache));
    EXPECT_EQ(compiles(), 2u);
    EXPECT_EQ(imports(), 0u);  // the checksum caught it before the plugin saw it
    expect_adds(recompiled, 1.0f);
    // The entry was rewritten: the next compile hits.
    EXPECT_TRUE(core.compile_model(tiny_model(), "TEST").get_property(loaded_from_cache));
    EXPECT_EQ(entries().size(), 1u);
}

TEST_F(Cache, TruncatedEntriesAreReplaced) {
    core.compile_model(tiny_model(), "TEST");
    const fs::path entry = entries().at(0);
    const std::string bytes = read_file(entry.string());
    // Cut inside the payload, inside the header, and to nothing at all.
    for (size_t keep : {bytes.size() - 1, size_t{20}, size_t{0}}) {
        write_file(entry.string(), bytes.substr(0, keep));
        CompiledModel compiled = core.compile_model(tiny_model(), "TEST");
        EXPECT_FALSE(compiled.get_property(loaded_from_cache)) << keep;
        EXPECT_EQ(read_file(entry.string()), bytes) << keep;  // rewritten whole
    }
    EXPECT_EQ(compiles(), 4u);
}

TEST_F(Cache, ForeignAndGarbageEntriesAreReplaced) {
    core.compile_model(tiny_model(), "TEST");
    const fs::path v1_entry = entries().at(0);
    core.compile_model(tiny_model(), "TEST_V2");
    ASSERT_EQ(entries().size(), 2u);
    const fs::path v2_entry = entries()[0] == v1_entry ? entries()[1] : entries()[0];
    // A valid blob, but of another plugin version, where the v1 entry should be.
    fs::copy_file(v2_entry, v1_entry, fs::copy_options::overwrite_existing);
    EXPECT_FALSE(core.compile_model(tiny_model(), "TEST").get_property(loaded_from_cache));
    EXPECT_EQ(compiles(), 2u);
    EXPECT_EQ(imports(), 0u);
    EXPECT_EQ(imports("TEST_V2"), 0u);

    write_file(v1_entry.string(), "definitely not a blob");
    EXPECT_FALSE(core.compile_model(tiny_model(), "TEST").get_property(loaded_from_cache));
    EXPECT_EQ(compiles(), 3u);
    EXPECT_TRUE(core.compile_model(tiny_model(), "TEST").get_property(loaded_from_cache));
}

TEST_F(Cache, NoTemporaryFilesAreLeft) {
    for (int i = 0; i < 3; ++i) core.compile_model(tiny_model("m" + std::to_string(i)), "TEST");
    for (const auto& e : entries()) EXPECT_EQ(e.extension(), ".blob") << e;
    EXPECT_EQ(entries().size(), 3u);
}

TEST_F(Cache, DeviceThatCannotExportIsCompiledWithoutCache) {
    core.set_property("TEST", {tp::exportable(false)});
    EXPECT_FALSE(core.compile_model(tiny_model(), "TEST").get_property(loaded_from_cache));
    EXPECT_FALSE(core.compile_model(tiny_model(), "TEST").get_property(loaded_from_cache));
    EXPECT_EQ(compiles(), 2u);
    EXPECT_TRUE(entries().empty());
}

TEST_F(Cache, PerDeviceAndPerCallCacheDir) {
    core.set_property({cache_dir("")});
    core.compile_model(tiny_model(), "TEST");
    EXPECT_TRUE(entries().empty());
    const fs::path per_call = dir.path() / "per_call";
    core.compile_model(tiny_model(), "TEST", {cache_dir(per_call.string())});
    EXPECT_EQ(std::distance(fs::directory_iterator(per_call), fs::directory_iterator()), 1);
    core.set_property("TEST", {cache_dir(cache.string())});
    core.compile_model(tiny_model(), "TEST");
    EXPECT_EQ(entries().size(), 1u);
}

TEST_F(Cache, KeyIsDeterministicAndHex) {
    core.compile_model(tiny_model(), "TEST");
    const std::string name = entries().at(0).stem().string();
    EXPECT_EQ(name.find_first_not_of("0123456789abcdef"), std::string::npos) << name;
    fs::remove_all(cache);
    core.compile_model(tiny_model(), "TEST");
    EXPECT_EQ(entries().at(0).stem().string(), name);
}

class ExportImport : public Cache {};

TEST_F(ExportImport, RoundTrip) {
    core.set_property({cache_dir("")});
    std::stringstream blob;
    core.compile_model(tiny_model("exported"), "TEST", {tp::addend(6.0f)}).export_model(blob);
    EXPECT_EQ(blob.str().substr(0, 8), "VIREOBLB");
    CompiledModel imported = core.import_model(blob, "TEST");
    EXPECT_FALSE(imported.get_property(loaded_from_cache));
    EXPECT_EQ(imported.get_property(model_name), "exported");
    EXPECT_EQ(imports(), 1u);
    expect_adds(imported, 6.0f);
    EXPECT_EQ(imported.input().get_any_name(), "x");
    EXPECT_EQ(imported.output().get_names().count("y"), 1u);
}

TEST_F(ExportImport, BlobOfAnotherPluginVersionIsRefused) {
    std::stringstream blob;
    core.compile_model(tiny_model(), "TEST_V2").export_model(blob);
    const std::string message = error_of<InvalidArgument>([&] { core.import_model(blob, "TEST"); });
    EXPECT_NE(message.find("'vireo_test_plugin_v2' version '2.0.0'"), std::string::npos) << message;
    EXPECT_NE(message.find("'vireo_test_plugin' version '1.0.0'"), std::string::npos) << message;
    EXPECT_EQ(imports(), 0u);
}

TEST_F(ExportImport, DamagedBlobsAreRefusedWithTheReason) {
    std::stringstream blob;
    core.compile_model(tiny_model(), "TEST").export_model(blob);
    const std::string bytes = blob.str();
    auto import_bytes = [&](const std::string& b) {
        std::stringstream in(b);
        return error_of<InvalidArgument>([&] { core.import_model(in, "TEST"); });
    };
    EXPECT_NE(import_bytes("hello world").find("not a Vireo compiled-model blob"),
              std::string::npos);
    EXPECT_NE(import_bytes(bytes.substr(0, 12)).find("truncated"), std::string::npos);
    EXPECT_NE(import_bytes(bytes.substr(0, bytes.size() - 5)).find("truncated"), std::string::npos);
    std::string flipped = bytes;
    flipped.back() ^= 1;
    EXPECT_NE(import_bytes(flipped).find("checksum"), std::string::npos);
    std::string other_format = bytes;
    other_format[8] = 9;  // format version
    EXPECT_NE(import_bytes(other_format).find("format version 9"), std::string::npos);
    EXPECT_EQ(imports(), 0u);
}

// A stream that cannot seek (like a pipe): tellg() fails, so the blob reader cannot learn how
// many bytes are left and must read the payload in chunks.
class UnseekableBuffer : public std::streambuf {
  public:
    explicit UnseekableBuffer(std::string bytes) : m_bytes(std::move(bytes)) {
        setg(m_bytes.data(), m_bytes.data(), m_bytes.data() + m_bytes.size());
    }

  private:
    std::string m_bytes;
};

// Byte offset of the header's payload size: magic, format, ABI, then three length-prefixed strings.
size_t payload_size_offset(const std::string& blob) {
    size_t offset = 16;
    for (int s = 0; s < 3; ++s) {  // plugin name, plugin version, origin
        uint32_t length = 0;
        std::memcpy(&length, blob.data() + offset, sizeof(length));  // little-endian, as written
        offset += 4 + length;
    }
    return offset;
}

TEST_F(ExportImport, AHugePayloadSizeIsRefusedBeforeAllocating) {
    std::stringstream blob;
    core.compile_model(tiny_model(), "TEST").export_model(blob);
    std::string bytes = blob.str();
    const uint64_t huge = uint64_t{1} << 62;
    std::memcpy(bytes.data() + payload_size_offset(bytes), &huge, sizeof(huge));
    // Seekable: compared with what the stream holds.
    std::stringstream seekable(bytes);
    const std::string message =
        error_of<InvalidArgument>([&] { core.import_model(seekable, "TEST"); });
    EXPECT_NE(message.find("truncated blob: the header announces a payload of " +
                           std::to_string(huge) + " bytes, found only"),
              std::string::npos)
        << message;
    // Unseekable: compared with the machine's memory.
    UnseekableBuffer buffer(bytes);
    std::istream unseekable(&buffer);
    const std::string pipe_message =
        error_of<InvalidArgument>([&] { core.import_model(unseekable, "TEST"); });
    EXPECT_NE(pipe_message.find("bytes of memory this machine has"), std::string::npos)
        << pipe_message;
    EXPECT_EQ(imports(), 0u);
}

TEST_F(ExportImport, UnseekableStreamsImportAndDetectTruncation) {
    std::stringstream blob;
    core.compile_model(tiny_model(), "TEST").export_model(blob);
    const std::string bytes = blob.str();
    UnseekableBuffer whole(bytes);
    std::istream in(&whole);
    EXPECT_NO_THROW(core.import_model(in, "TEST"));
    UnseekableBuffer cut(bytes.substr(0, bytes.size() - 5));
    std::istream cut_in(&cut);
    const std::string message =
        error_of<InvalidArgument>([&] { core.import_model(cut_in, "TEST"); });
    EXPECT_NE(message.find("truncated"), std::string::npos) << message;
}

}  // namespace
}  // namespace vireo::runtime_test

namespace vireo::runtime_test {
namespace {

TEST_F(Cache, ConcurrentCompilesOfOneModelShareOneEntry) {
    constexpr int kThreads = 8;
    std::vector<std::thread> threads;
    std::vector<int> failures(kThreads, 0);
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            try {
                CompiledModel compiled =
                    core.compile_model(tiny_model(), "TEST", {tp::addend(3.0f)});
                InferRequest request = compiled.create_infer_request();
                Tensor x = input_values();
                request.set_tensor("x", x);
                request.infer();
                for (int k = 0; k < 6; ++k)
                    if (request.get_tensor("y").data<float>()[k] != static_cast<float>(k) + 1.0f)
                        ++failures[t];
            } catch (const std::exception& e) {
                ++failures[t];
                ADD_FAILURE() << e.what();
            }
        });
    }
    for (auto& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << t;
    // Every thread either compiled (and wrote the entry) or imported it; the entry is complete.
    EXPECT_EQ(compiles() + imports(), static_cast<uint64_t>(kThreads));
    ASSERT_EQ(entries().size(), 1u);
    EXPECT_TRUE(core.compile_model(tiny_model(), "TEST", {tp::addend(3.0f)})
                    .get_property(loaded_from_cache));
}

TEST_F(Cache, CompileFromIrPathGoesThroughTheCache) {
    serialize(*tiny_model(), dir.file("tiny.xml"), dir.file("tiny.bin"));
    CompiledModel first = core.compile_model(dir.file("tiny.xml"), "TEST");
    expect_adds(first, 1.0f);
    EXPECT_FALSE(first.get_property(loaded_from_cache));
    EXPECT_TRUE(core.compile_model(dir.file("tiny.xml"), "TEST").get_property(loaded_from_cache));
    // The IR read back is the same model as the one built in C++: same key.
    EXPECT_TRUE(core.compile_model(tiny_model(), "TEST").get_property(loaded_from_cache));
    EXPECT_EQ(compiles(), 1u);
}

TEST_F(Cache, ReadModelDelegatesToTheIrReader) {
    serialize(*tiny_model("from_ir"), dir.file("m.xml"), dir.file("m.bin"));
    auto model = core.read_model(dir.file("m.xml"));
    EXPECT_EQ(model->get_name(), "from_ir");
    EXPECT_EQ(model->input().get_any_name(), "x");
    std::ostringstream xml;
    std::ostringstream bin;
    serialize(*model, xml, bin);
    EXPECT_EQ(core.read_model(xml.str(), Tensor())->get_name(), "from_ir");
    EXPECT_THROW(core.read_model(dir.file("missing.xml")), NotFound);
    EXPECT_THROW(core.compile_model(dir.file("missing.xml"), "TEST"), NotFound);
}

}  // namespace
}  // namespace vireo::runtime_test
