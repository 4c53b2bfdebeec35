// White-box tests of the MOCK_REMOTE export format: round trips with weights large and shared,
// the bytes the writer produces, and the errors for truncated, damaged and unwritable blobs.
#include "blob.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

#include "test_utils.hpp"
#include "vireo/exception.hpp"
#include "vireo/sdk/memory_limits.hpp"

namespace vireo::mock_remote::test {
namespace {

const std::vector<std::pair<std::string, std::string>> kSettings = {{"LATENCY_US", "300"},
                                                                    {"JITTER_US", "11"}};

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

std::string export_text(const Model& model) {
    std::stringstream out;
    write_blob(out, model, kSettings, "1.2.3");
    return out.str();
}

std::string error_of(const std::string& blob) {
    std::stringstream in(blob);
    try {
        read_blob(in, "1.2.3");
    } catch (const InvalidArgument& e) {
        return e.what();
    }
    return "(no error)";
}

// The offset of the weights' u64 length: after the magic, version, plugin version, settings
// and the xml, i.e. the total size minus the weights and their length field.
size_t weights_length_offset(const std::string& blob, uint64_t weights_size) {
    return blob.size() - weights_size - sizeof(uint64_t);
}

TEST(MockRemoteBlob, LargeWeightsRoundTripIntoConstantsThatShareOneBuffer) {
    auto model = large_model();
    const std::string blob = export_text(*model);
    EXPECT_EQ(blob, export_text(*model));  // deterministic
    // Layout: the weights come last, once per distinct constant (4 MiB each).
    uint64_t weights_size = 0;
    const size_t at = weights_length_offset(blob, 2u * 4u * 1024u * 1024u);
    std::memcpy(&weights_size, blob.data() + at, sizeof(weights_size));
    EXPECT_EQ(weights_size, 2u * 4u * 1024u * 1024u);

    std::stringstream in(blob);
    const Blob read = read_blob(in, "1.2.3");
    EXPECT_EQ(read.settings, kSettings);
    ASSERT_TRUE(read.model);
    EXPECT_EQ(read.model->get_name(), "large");
    const auto& original = model->get_ordered_ops();
    const auto& loaded = read.model->get_ordered_ops();
    ASSERT_EQ(original.size(), loaded.size());
    std::vector<std::pair<Tensor, Tensor>> constants;  // (original, loaded)
    for (size_t i = 0; i < original.size(); ++i) {
        if (original[i]->get_type_name() != "Constant") continue;
        const Tensor& a = original[i]->get_constant_value();
        const Tensor& b = loaded[i]->get_constant_value();
        ASSERT_EQ(a.get_byte_size(), b.get_byte_size());
        EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.get_byte_size()));
        EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % 64, 0u);
        constants.emplace_back(a, b);
    }
    ASSERT_EQ(constants.size(), 3u);
    // Loaded Constants point into the one weights buffer: equal bytes at one place, w2 apart.
    for (size_t i = 0; i < constants.size(); ++i)
        for (size_t j = i + 1; j < constants.size(); ++j) {
            const bool same = std::memcmp(constants[i].first.data(), constants[j].first.data(),
                                          constants[i].first.get_byte_size()) == 0;
            EXPECT_EQ(constants[i].second.data() == constants[j].second.data(), same) << i << j;
        }
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
    const std::string blob = export_text(*large_model());
    for (size_t cut : {size_t{1}, size_t{4096}, blob.size() / 2}) {
        const std::string message = error_of(blob.substr(0, blob.size() - cut));
        EXPECT_NE(message.find("truncated"), std::string::npos) << message;
        EXPECT_NE(message.find("the model weights"), std::string::npos) << message;
    }
}

TEST(MockRemoteBlob, AWeightsLengthBeyondMemoryIsDamagedNotAnAllocation) {
    std::string blob = export_text(*add_one_model());
    // add_one_model's weights: one f32.
    const size_t at = weights_length_offset(blob, sizeof(float));
    for (uint64_t claimed : {uint64_t{sdk::physical_memory_bytes()} + 1, ~uint64_t{0}}) {
        std::memcpy(blob.data() + at, &claimed, sizeof(claimed));
        const std::string message = error_of(blob);
        EXPECT_NE(message.find("damaged"), std::string::npos) << message;
        EXPECT_NE(message.find("the model weights"), std::string::npos) << message;
    }
}

TEST(MockRemoteBlob, WeightsThatDoNotMatchTheXmlAreADamagedModel) {
    std::string blob = export_text(*add_one_model());
    // Claim 3 bytes of weights (and drop one): the xml's constant needs 4.
    const size_t at = weights_length_offset(blob, sizeof(float));
    const uint64_t three = 3;
    std::memcpy(blob.data() + at, &three, sizeof(three));
    blob.pop_back();
    const std::string message = error_of(blob);
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
    auto model = large_model();
    const size_t full = export_text(*model).size();
    for (size_t limit : {size_t{10}, full - 4 * 1024 * 1024, full - 1}) {
        FailingBuffer buffer(limit);
        std::ostream out(&buffer);
        try {
            write_blob(out, *model, kSettings, "1.2.3");
            FAIL() << "a stream that takes " << limit << " bytes of " << full;
        } catch (const InvalidArgument& e) {
            EXPECT_NE(std::string(e.what()).find("writing the exported model failed"),
                      std::string::npos)
                << e.what();
        }
        EXPECT_FALSE(out) << limit;
    }
}

}  // namespace
}  // namespace vireo::mock_remote::test
