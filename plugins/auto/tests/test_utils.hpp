// Shared helpers of the AUTO/MULTI tests: small models, inputs, expected values from a plain
// TEMPLATE run, MOCK_REMOTE's counters, and a glog sink that keeps WARNING lines.
#pragma once

#include <glog/logging.h>
#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vireo/auto/properties.hpp"
#include "vireo/mock_remote/properties.hpp"
#include "vireo/vireo.hpp"

namespace auto_test {

inline vireo::NodePtr named(vireo::NodePtr node, const std::string& name) {
    node->set_friendly_name(name);
    return node;
}

/// y = relu(x * 3 - 1), x of shape {1, 16}: MOCK_REMOTE and TEMPLATE both run it.
inline std::shared_ptr<vireo::Model> small_model() {
    using namespace vireo;
    auto x = op::parameter(element::f32, {1, 16}, "x");
    auto m = named(op::multiply(x, op::constant<float>(element::f32, {1}, {3.f})), "m");
    auto s = named(op::subtract(m, op::constant<float>(element::f32, {1}, {1.f})), "s");
    auto r = named(op::relu(s), "r");
    return std::make_shared<Model>(OutputVector{r}, ParameterVector{x}, "small");
}

/// acc += x; out = acc * 2: ReadValue/Assign, which MOCK_REMOTE does not run.
inline std::shared_ptr<vireo::Model> stateful_model() {
    using namespace vireo;
    auto x = op::parameter(element::f32, {1, 16}, "x");
    auto read = named(op::read_value("acc", element::f32, PartialShape{1, 16}), "read");
    auto sum = named(op::add(read, x), "sum");
    auto write = named(op::assign(sum, "acc"), "write");
    auto out = named(op::multiply(sum, op::constant<float>(element::f32, {1}, {2.f})), "double");
    return Model::make({op::result(out)}, {write}, {x}, "summator");
}

inline vireo::Tensor make_input(float start, float step = 0.25f) {
    vireo::Tensor t(vireo::element::f32, {1, 16});
    float* p = t.data<float>();
    for (size_t i = 0; i < t.get_size(); ++i) p[i] = start + step * static_cast<float>(i);
    return t;
}

inline std::vector<float> values_of(const vireo::Tensor& t) {
    const float* p = t.data<float>();
    return std::vector<float>(p, p + t.get_size());
}

/// The plain loop the small model computes.
inline std::vector<float> small_expected(const vireo::Tensor& x) {
    std::vector<float> out;
    for (float v : values_of(x)) out.push_back(std::max(0.f, v * 3.f - 1.f));
    return out;
}

/// The same model on plain TEMPLATE (the reference the meta-devices must match).
inline std::vector<float> template_run(vireo::Core& core,
                                       const std::shared_ptr<vireo::Model>& model,
                                       const vireo::Tensor& x) {
    vireo::InferRequest request = core.compile_model(model, "TEMPLATE").create_infer_request();
    request.set_input_tensor(x);
    request.infer();
    return values_of(request.get_output_tensor());
}

inline void expect_near(const std::vector<float>& actual, const std::vector<float>& expected) {
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i)
        EXPECT_NEAR(actual[i], expected[i], 1e-5f) << "at " << i;
}

inline uint64_t jobs_completed(vireo::Core& core, const std::string& device) {
    return core.get_property(device, vireo::mock_remote::jobs_completed);
}
inline uint64_t jobs_failed(vireo::Core& core, const std::string& device) {
    return core.get_property(device, vireo::mock_remote::jobs_failed);
}
inline uint64_t jobs_cancelled(vireo::Core& core, const std::string& device) {
    return core.get_property(device, vireo::mock_remote::jobs_cancelled);
}

/// Keeps the glog lines at WARNING and above sent while it lives.
class WarningSink : public google::LogSink {
  public:
    WarningSink() {
        // Vireo writes through glog (and so to sinks) once the application initialised it.
        if (!google::IsGoogleLoggingInitialized()) {
            FLAGS_logtostderr = true;  // no log files in /tmp
            google::InitGoogleLogging("vireo_auto_tests");
        }
        google::AddLogSink(this);
    }
    ~WarningSink() override { google::RemoveLogSink(this); }
    void send(google::LogSeverity severity, const char*, const char*, int, const struct ::tm*,
              const char* message, size_t length) override {
        if (severity < google::GLOG_WARNING) return;
        std::lock_guard<std::mutex> lock(m_mutex);
        m_lines.emplace_back(message, length);
    }
    std::vector<std::string> lines_with(const std::string& text) const {
        std::lock_guard<std::mutex> lock(m_mutex);
        std::vector<std::string> out;
        for (const auto& l : m_lines)
            if (l.find(text) != std::string::npos) out.push_back(l);
        return out;
    }

  private:
    mutable std::mutex m_mutex;
    std::vector<std::string> m_lines;
};

/// Runs `call` and returns the message of the vireo::Exception it throws, checking its kind.
template <typename Call>
std::string error_of(Call&& call, vireo::ErrorKind kind) {
    try {
        call();
    } catch (const vireo::Exception& e) {
        EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(kind)) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "no exception";
    return {};
}

}  // namespace auto_test
