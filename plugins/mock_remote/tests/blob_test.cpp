// Tests of what MOCK_REMOTE's export_model writes (sections of the one blob container): the
// settings and the model with large weights, a round trip, and the errors its import_model gives
// for truncated and damaged sections and its export for an unwritable stream.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

#include "test_utils.hpp"
#include "vireo/exception.hpp"
#include "vireo/mock_remote/properties.hpp"
#include "vireo/sdk/blob_sections.hpp"
#include "vireo/sdk/icompiled_model.hpp"
#include "vireo/sdk/iplugin.hpp"
#include "vireo/sdk/memory_limits.hpp"

namespace vireo::mock_remote::test {
namespace {

// y = (x @ w) @ w' + w2 where w' is a second Constant with w's bytes: 8 MiB of distinct weights
// (w and w' stored once), large enough for the device's huge-page buffers.
std::shared_ptr<Model> large_model() {
    std::vector<float> w(1024 * 1024), w2(1024 * 1024);
    for (size_t i = 0; i < w.size(); ++i) {
        w[i] = static_cast<float>(i % 7) * 0.001f;
        w2[i] = static_cast<float>(i % 5);
    }
    auto x = op::parameter(element::f32, PartialShape(Shape{1, 1024}), "x");
    auto h = op::matmul(op::matmul(x, op::constant<float>(element::f32, {1024, 1024}, w)),
                        op::constant<float>(element::f32, {1024, 1024}, w));
    auto y = op::add(h, op::constant<float>(element::f32, {1024, 1024}, w2));
    y->output(0).set_names({"y"});
    return std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "large");
}

// What the plugin's export_model writes for `model` (the sections inside the core's blob).
struct PluginBlob {
    std::shared_ptr<const sdk::IPlugin> plugin;
    std::string bytes;
};

PluginBlob export_sections(Core& core, const std::shared_ptr<Model>& model) {
    CompiledModel compiled = core.compile_model(model, "MOCK_REMOTE.0", fast());
    std::ostringstream out(std::ios::binary);
    compiled.impl()->export_model(out);
    return {compiled.impl()->get_plugin(), out.str()};
}

std::string error_of(const PluginBlob& blob, const std::string& bytes) {
    std::istringstream in(bytes, std::ios::binary);
    try {
        blob.plugin->import_model(in, {});
    } catch (const InvalidArgument& e) {
        return e.what();
    }
    return "(no error)";
}

// The offset of the size of section 'ir.bin' (the last section, holding `weights_size` bytes).
size_t weights_size_offset(const std::string& blob, uint64_t weights_size) {
    return blob.size() - weights_size - sizeof(uint64_t);
}

TEST(MockRemoteBlob, SectionsHoldTheSettingsAndTheModelWithItsWeightsLast) {
    Core core = make_core();
    auto model = large_model();
    const PluginBlob blob = export_sections(core, model);
    EXPECT_EQ(blob.bytes, export_sections(core, model).bytes);  // deterministic
    std::istringstream in(blob.bytes, std::ios::binary);
    sdk::BlobSectionReader sections(in, "MOCK_REMOTE");
    const AnyMap settings = sections.properties();
    EXPECT_EQ(settings.at(latency_us.name()).as<std::string>(), "1000");
    // The weights once per distinct constant (4 MiB each), in the last section.
    const std::vector<std::string> names = sections.names("");
    ASSERT_FALSE(names.empty());
    EXPECT_EQ(names.back(), "ir.bin");
    EXPECT_EQ(sections.size("ir.bin"), 2u * 4u * 1024u * 1024u);
    uint64_t weights_size = 0;
    std::memcpy(&weights_size,
                blob.bytes.data() + weights_size_offset(blob.bytes, 2u * 4u * 1024u * 1024u),
                sizeof(weights_size));
    EXPECT_EQ(weights_size, 2u * 4u * 1024u * 1024u);
    EXPECT_EQ(error_of(blob, blob.bytes), "(no error)");  // the plugin imports its own bytes
}

TEST(MockRemoteBlob, ImportedLargeModelComputesWhatTheOriginalDoes) {
    Core core = make_core();
    auto compiled = core.compile_model(large_model(), "MOCK_REMOTE.0", fast());
    std::stringstream blob;
    compiled.export_model(blob);
    auto imported = core.import_model(blob, "MOCK_REMOTE.1");
    const Tensor x = make_tensor({1, 1024}, -0.5f, 0.001f);
    auto r1 = compiled.create_infer_request();
    auto r2 = imported.create_infer_request();
    for (auto* r : {&r1, &r2}) {
        r->set_tensor("x", x);
        r->infer();
    }
    EXPECT_EQ(values(r1.get_tensor("y")), values(r2.get_tensor("y")));
}

TEST(MockRemoteBlob, TruncatedWeightsAreReportedAsTruncated) {
    Core core = make_core();
    const PluginBlob blob = export_sections(core, large_model());
    for (size_t cut : {size_t{1}, size_t{4096}, blob.bytes.size() / 2}) {
        const std::string message = error_of(blob, blob.bytes.substr(0, blob.bytes.size() - cut));
        EXPECT_NE(message.find("truncated"), std::string::npos) << message;
        EXPECT_NE(message.find("'ir.bin'"), std::string::npos) << message;
    }
}

TEST(MockRemoteBlob, AWeightsSizeBeyondTheBlobIsRefusedNotAllocated) {
    Core core = make_core();
    PluginBlob blob = export_sections(core, add_one_model());
    // add_one_model's weights: one f32.
    const size_t at = weights_size_offset(blob.bytes, sizeof(float));
    for (uint64_t claimed : {uint64_t{sdk::physical_memory_bytes()} + 1, ~uint64_t{0}}) {
        std::memcpy(blob.bytes.data() + at, &claimed, sizeof(claimed));
        const std::string message = error_of(blob, blob.bytes);
        EXPECT_NE(message.find("section 'ir.bin' is truncated: it claims"), std::string::npos)
            << message;
    }
}

TEST(MockRemoteBlob, WeightsThatDoNotMatchTheXmlAreADamagedModel) {
    Core core = make_core();
    PluginBlob blob = export_sections(core, add_one_model());
    // Claim 3 bytes of weights (and drop one): the xml's constant needs 4.
    const size_t at = weights_size_offset(blob.bytes, sizeof(float));
    const uint64_t three = 3;
    std::memcpy(blob.bytes.data() + at, &three, sizeof(three));
    blob.bytes.pop_back();
    const std::string message = error_of(blob, blob.bytes);
    EXPECT_NE(message.find("damaged model"), std::string::npos) << message;
}

// Accepts `limit` bytes, then fails every write.
class FailingBuffer : public std::streambuf {
  public:
    explicit FailingBuffer(size_t limit) : m_limit(limit) {}

  protected:
    std::streamsize xsputn(const char*, std::streamsize count) override {
        const auto room = static_cast<std::streamsize>(m_limit - m_written);
        const std::streamsize taken = std::min(room, count);
        m_written += static_cast<size_t>(taken);
        return taken;
    }
    int_type overflow(int_type c) override {
        if (m_written == m_limit) return traits_type::eof();
        ++m_written;
        return c;
    }

  private:
    size_t m_limit;
    size_t m_written = 0;
};

TEST(MockRemoteBlob, AStreamThatFailsWhileTheWeightsAreWrittenIsAnError) {
    Core core = make_core();
    CompiledModel compiled = core.compile_model(large_model(), "MOCK_REMOTE.0", fast());
    std::ostringstream whole(std::ios::binary);
    compiled.impl()->export_model(whole);
    const size_t full = whole.str().size();
    for (size_t limit : {size_t{10}, full - 4 * 1024 * 1024, full - 1}) {
        FailingBuffer buffer(limit);
        std::ostream out(&buffer);
        try {
            compiled.impl()->export_model(out);
            FAIL() << "a stream that takes " << limit << " bytes of " << full;
        } catch (const Exception& e) {
            EXPECT_NE(std::string(e.what()).find("writing the exported model failed"),
                      std::string::npos)
                << e.what();
        }
        EXPECT_FALSE(out) << limit;
    }
}

}  // namespace
}  // namespace vireo::mock_remote::test
