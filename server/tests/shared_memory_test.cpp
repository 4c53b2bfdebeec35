// Tests of the system shared memory registry: register/status/unregister on real POSIX shared
// memory objects, the bounds and size checks, reads and writes of tensors, a region outliving its
// unregister while a request holds it, and the shared_memory_* parameters of both request forms.
#include "shared_memory.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "grpc_conversion.hpp"
#include "rest_conversion.hpp"

namespace vireo::server {
namespace {

// A POSIX shared memory object of `size` bytes made for one test, unlinked at the end.
class ShmObject {
  public:
    explicit ShmObject(size_t size)
        : m_key("/vireo_shm_test_" + std::to_string(::getpid()) + "_" + std::to_string(++s_count)),
          m_size(size) {
        const int fd = ::shm_open(m_key.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
        EXPECT_GE(fd, 0) << m_key;
        EXPECT_EQ(::ftruncate(fd, static_cast<off_t>(size)), 0);
        m_data =
            static_cast<char*>(::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
        ::close(fd);
    }
    ~ShmObject() {
        ::munmap(m_data, m_size);
        ::shm_unlink(m_key.c_str());
    }
    const std::string& key() const { return m_key; }
    char* data() const { return m_data; }

    void put_floats(size_t at, const std::vector<float>& values) const {
        std::memcpy(m_data + at, values.data(), values.size() * sizeof(float));
    }
    std::vector<float> floats(size_t at, size_t n) const {
        std::vector<float> out(n);
        std::memcpy(out.data(), m_data + at, n * sizeof(float));
        return out;
    }

  private:
    static inline int s_count = 0;
    std::string m_key;
    size_t m_size;
    char* m_data = nullptr;
};

SharedMemoryParams shm_params(const std::string& region, int64_t byte_size, int64_t offset = 0) {
    SharedMemoryParams p;
    p.region = region;
    p.byte_size = byte_size;
    p.offset = offset;
    return p;
}

bool mentions(const Status& s, const std::string& text) {
    return s.message.find(text) != std::string::npos;
}

TEST(SharedMemory, RegisterStatusUnregister) {
    ShmObject object(8192);
    SharedMemory shm;
    ASSERT_TRUE(shm.register_region("a", object.key(), 0, 64).ok());
    // An offset that is not page-aligned maps too.
    ASSERT_TRUE(shm.register_region("b", object.key(), 4100, 16).ok());
    std::vector<std::shared_ptr<const SharedMemoryRegion>> regions;
    ASSERT_TRUE(shm.status("", regions).ok());
    ASSERT_EQ(regions.size(), 2u);
    EXPECT_EQ(regions[0]->name(), "a");
    EXPECT_EQ(regions[1]->key(), object.key());
    EXPECT_EQ(regions[1]->offset(), 4100u);
    EXPECT_EQ(regions[1]->byte_size(), 16u);
    object.data()[4100] = 42;
    EXPECT_EQ(regions[1]->data()[0], 42);

    const Status again = shm.register_region("a", object.key(), 0, 8);
    EXPECT_EQ(again.code, StatusCode::kAlreadyExists);
    EXPECT_TRUE(mentions(again, "'a' is already registered")) << again.message;

    shm.unregister("a");
    regions.clear();
    const Status gone = shm.status("a", regions);
    EXPECT_EQ(gone.code, StatusCode::kNotFound);
    EXPECT_TRUE(mentions(gone, "'a'")) << gone.message;
    shm.unregister("nope");  // not an error
    shm.unregister("");
    regions.clear();
    ASSERT_TRUE(shm.status("", regions).ok());
    EXPECT_TRUE(regions.empty());
}

// Without --allow_client_shm the registry opens nothing: register and resolve are Unavailable and
// say how to turn it on; status lists nothing.
TEST(SharedMemory, OffUnlessAllowed) {
    ShmObject object(4096);
    SharedMemory shm(false);
    EXPECT_FALSE(shm.enabled());
    const Status s = shm.register_region("a", object.key(), 0, 64);
    EXPECT_EQ(s.code, StatusCode::kUnavailable);
    EXPECT_TRUE(mentions(s, "shared memory region 'a'")) << s.message;
    EXPECT_TRUE(mentions(s, "--allow_client_shm")) << s.message;
    SharedMemoryRef ref;
    const Status r = shm.resolve("input 'x'", shm_params("a", 16), ref);
    EXPECT_EQ(r.code, StatusCode::kUnavailable);
    EXPECT_TRUE(mentions(r, "input 'x'")) << r.message;
    EXPECT_FALSE(ref.region);
    std::vector<std::shared_ptr<const SharedMemoryRegion>> regions;
    ASSERT_TRUE(shm.status("", regions).ok());
    EXPECT_TRUE(regions.empty());
    EXPECT_TRUE(SharedMemory().enabled());
}

TEST(SharedMemory, RegisterRefusesBadKeysAndWindows) {
    ShmObject object(100);
    SharedMemory shm;
    Status s = shm.register_region("r", "/vireo_shm_test_no_such_object", 0, 4);
    EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
    EXPECT_TRUE(mentions(s, "'/vireo_shm_test_no_such_object'")) << s.message;
    s = shm.register_region("r", object.key(), 0, 101);
    EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
    EXPECT_TRUE(mentions(s, "runs past the end")) << s.message;
    EXPECT_TRUE(mentions(s, "(100 bytes)")) << s.message;
    s = shm.register_region("r", object.key(), 200, 1);
    EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
    s = shm.register_region("r", object.key(), UINT64_MAX, 2);  // no overflow past the check
    EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
    s = shm.register_region("r", object.key(), 0, 0);
    EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
    std::vector<std::shared_ptr<const SharedMemoryRegion>> regions;
    ASSERT_TRUE(shm.status("", regions).ok());
    EXPECT_TRUE(regions.empty());
}

TEST(SharedMemory, ResolveChecksParametersAndBounds) {
    ShmObject object(64);
    SharedMemory shm;
    ASSERT_TRUE(shm.register_region("r", object.key(), 0, 64).ok());
    SharedMemoryRef ref;
    ASSERT_TRUE(shm.resolve("input 'x'", shm_params("r", 16, 48), ref).ok());
    EXPECT_EQ(ref.offset, 48u);
    EXPECT_EQ(ref.byte_size, 16u);

    Status s = shm.resolve("input 'x'", shm_params("r", 16, 49), ref);
    EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
    EXPECT_TRUE(mentions(s, "input 'x'")) << s.message;
    EXPECT_TRUE(mentions(s, "region 'r' (64 bytes)")) << s.message;
    s = shm.resolve("input 'x'", shm_params("r", 4, 65), ref);
    EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
    s = shm.resolve("input 'x'", shm_params("r", -1), ref);
    EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
    s = shm.resolve("output 'y'", shm_params("q", 4), ref);
    EXPECT_EQ(s.code, StatusCode::kNotFound);
    EXPECT_TRUE(mentions(s, "output 'y': shared memory region 'q' is not registered")) << s.message;
    SharedMemoryParams half;
    half.region = "r";
    s = shm.resolve("input 'x'", half, ref);
    EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
    EXPECT_TRUE(mentions(s, "must be given together")) << s.message;
}

// A client that cuts its object (ftruncate) after registering a window of it: the server would
// fault (SIGBUS) touching pages past the object's new end, so reads and writes are refused,
// naming the tensor, the region and the sizes, and nothing is copied.
TEST(SharedMemory, ObjectCutAfterRegisterIsRefusedNotTouched) {
    ShmObject object(8192);
    SharedMemory shm;
    ASSERT_TRUE(shm.register_region("r", object.key(), 4096, 4096).ok());
    SharedMemoryRef in, out;
    ASSERT_TRUE(shm.resolve("input 'x'", shm_params("r", 12, 0), in).ok());
    ASSERT_TRUE(shm.resolve("output 'y'", shm_params("r", 12, 16), out).ok());
    const int fd = ::shm_open(object.key().c_str(), O_RDWR, 0);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, 100), 0);
    ::close(fd);

    Tensor tensor(element::f32, Shape{1, 3});
    const Status r = read_shared_memory_input("x", in, tensor);
    EXPECT_EQ(r.code, StatusCode::kInvalidArgument);
    EXPECT_TRUE(mentions(r, "input 'x'")) << r.message;
    EXPECT_TRUE(mentions(r, "region 'r' was cut to 100 bytes")) << r.message;
    EXPECT_TRUE(mentions(r, "needs 8192")) << r.message;

    std::vector<float> y = {7, 8, 9};
    const std::vector<OutputData> outputs = {
        {"y", element::f32, {3}, std::string(reinterpret_cast<char*>(y.data()), 12)}};
    const SharedMemoryOutputs targets{{"y", out}};
    const Status w = write_shared_memory_outputs(targets, outputs);
    EXPECT_EQ(w.code, StatusCode::kInvalidArgument);
    EXPECT_TRUE(mentions(w, "output 'y'")) << w.message;
    EXPECT_TRUE(mentions(w, "cut to 100 bytes")) << w.message;
}

TEST(SharedMemory, InputSizeMustMatchAndOutputsMustFit) {
    ShmObject object(64);
    SharedMemory shm;
    ASSERT_TRUE(shm.register_region("r", object.key(), 0, 64).ok());
    object.put_floats(8, {1.5f, -2.0f, 3.25f});
    SharedMemoryRef ref;
    ASSERT_TRUE(shm.resolve("input 'x'", shm_params("r", 12, 8), ref).ok());
    Tensor tensor(element::f32, Shape{1, 3});
    ASSERT_TRUE(read_shared_memory_input("x", ref, tensor).ok());
    EXPECT_EQ(tensor.data<float>()[2], 3.25f);

    ASSERT_TRUE(shm.resolve("input 'x'", shm_params("r", 8, 8), ref).ok());
    const Status s = read_shared_memory_input("x", ref, tensor);
    EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
    EXPECT_TRUE(mentions(s, "input 'x' in shared memory region 'r'")) << s.message;
    EXPECT_TRUE(mentions(s, "holds 8 bytes, the shape and datatype need 12")) << s.message;

    // Outputs: every size is checked before anything is written.
    std::vector<float> y = {7, 8, 9};
    std::vector<OutputData> outputs = {
        {"y", element::f32, {3}, std::string(reinterpret_cast<char*>(y.data()), 12)},
        {"z", element::f32, {3}, std::string(reinterpret_cast<char*>(y.data()), 12)}};
    SharedMemoryOutputs targets;
    ASSERT_TRUE(shm.resolve("output 'y'", shm_params("r", 12, 32), targets["y"]).ok());
    ASSERT_TRUE(shm.resolve("output 'z'", shm_params("r", 8, 48), targets["z"]).ok());
    const Status small = write_shared_memory_outputs(targets, outputs);
    EXPECT_EQ(small.code, StatusCode::kInvalidArgument);
    EXPECT_TRUE(mentions(small, "output 'z' needs 12 bytes")) << small.message;
    EXPECT_TRUE(mentions(small, "region 'r' is 8")) << small.message;
    EXPECT_EQ(object.floats(32, 3), (std::vector<float>{0, 0, 0}));
    targets.erase("z");
    ASSERT_TRUE(write_shared_memory_outputs(targets, outputs).ok());
    EXPECT_EQ(object.floats(32, 3), y);
}

TEST(SharedMemory, UnregisterLeavesHeldRegionsMapped) {
    SharedMemory shm;
    SharedMemoryRef ref;
    {
        ShmObject object(32);  // unlinked by its creator at the end of this block
        ASSERT_TRUE(shm.register_region("r", object.key(), 0, 32).ok());
        ASSERT_TRUE(shm.resolve("output 'y'", shm_params("r", 32), ref).ok());
    }
    shm.unregister("r");
    std::vector<float> y = {1, 2};
    std::vector<OutputData> outputs = {
        {"y", element::f32, {2}, std::string(reinterpret_cast<char*>(y.data()), 8)}};
    ASSERT_TRUE(write_shared_memory_outputs({{"y", ref}}, outputs).ok());
    EXPECT_EQ(std::memcmp(ref.region->data(), y.data(), 8), 0);
}

TEST(SharedMemory, GrpcRequestTakesInputsAndOutputsFromRegions) {
    const std::vector<TensorInfo> ins = {{"a", element::f32, {2}}, {"b", element::f32, {2}}};
    const std::vector<TensorInfo> outs = {{"y", element::f32, {2}}};
    ShmObject object(64);
    SharedMemory shm;
    ASSERT_TRUE(shm.register_region("r", object.key(), 0, 64).ok());
    object.put_floats(16, {5, 6});

    inference::ModelInferRequest request;
    auto* a = request.add_inputs();
    a->set_name("a");
    a->set_datatype("FP32");
    a->add_shape(2);
    auto* b = request.add_inputs();
    b->set_name("b");
    b->set_datatype("FP32");
    b->add_shape(2);
    (*b->mutable_parameters())["shared_memory_region"].set_string_param("r");
    (*b->mutable_parameters())["shared_memory_byte_size"].set_int64_param(8);
    (*b->mutable_parameters())["shared_memory_offset"].set_int64_param(16);
    // One raw entry: for "a", the only input not in shared memory (as tritonclient sends it).
    const float a_values[] = {1, 2};
    request.add_raw_input_contents(std::string(reinterpret_cast<const char*>(a_values), 8));
    auto* y = request.add_outputs();
    y->set_name("y");
    (*y->mutable_parameters())["shared_memory_region"].set_string_param("r");
    (*y->mutable_parameters())["shared_memory_byte_size"].set_int64_param(8);
    (*y->mutable_parameters())["shared_memory_offset"].set_int64_param(32);

    InferJob refused;
    GrpcReplyForm refused_form;
    EXPECT_EQ(job_from_grpc(request, ins, outs, 1 << 20, refused, refused_form).code,
              StatusCode::kInvalidArgument);  // no registry: refused

    InferJob job;
    GrpcReplyForm form;
    ASSERT_TRUE(job_from_grpc(request, ins, outs, 1 << 20, job, form, &shm).ok());
    ASSERT_EQ(job.inputs.size(), 2u);
    EXPECT_EQ(job.inputs[1].second.data<float>()[1], 6.0f);
    ASSERT_EQ(form.shm_outputs.count("y"), 1u);

    std::vector<OutputData> outputs = {
        {"y", element::f32, {2}, std::string(reinterpret_cast<const char*>(a_values), 8)}};
    ASSERT_TRUE(write_shared_memory_outputs(form.shm_outputs, outputs).ok());
    inference::ModelInferResponse response;
    fill_grpc_response(outputs, form, response);
    ASSERT_EQ(response.raw_output_contents_size(), 1);
    EXPECT_TRUE(response.raw_output_contents(0).empty());
    const auto& p = response.outputs(0).parameters();
    EXPECT_EQ(p.at("shared_memory_region").string_param(), "r");
    EXPECT_EQ(p.at("shared_memory_byte_size").int64_param(), 8);
    EXPECT_EQ(p.at("shared_memory_offset").int64_param(), 32);
    EXPECT_EQ(object.floats(32, 2), (std::vector<float>{1, 2}));

    (*b->mutable_parameters())["shared_memory_byte_size"].set_int64_param(4);
    InferJob bad;
    const Status s = job_from_grpc(request, ins, outs, 1 << 20, bad, form, &shm);
    EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
    EXPECT_TRUE(mentions(s, "input 'b' in shared memory region 'r'")) << s.message;
}

TEST(SharedMemory, RestRequestTakesInputsAndOutputsFromRegions) {
    const std::vector<TensorInfo> ins = {{"a", element::f32, {2}}};
    const std::vector<TensorInfo> outs = {{"y", element::f32, {2}}};
    ShmObject object(64);
    SharedMemory shm;
    ASSERT_TRUE(shm.register_region("r", object.key(), 0, 64).ok());
    object.put_floats(0, {3, 4});
    const std::string body = R"({"inputs": [{"name": "a", "shape": [2], "datatype": "FP32",
        "parameters": {"shared_memory_region": "r", "shared_memory_byte_size": 8}}],
        "outputs": [{"name": "y", "parameters": {"shared_memory_region": "r",
        "shared_memory_byte_size": 8, "shared_memory_offset": 8}}]})";
    InferJob job;
    RestReplyForm form;
    ASSERT_TRUE(
        job_from_rest(body, std::string_view::npos, ins, outs, RestLimits{}, job, form, &shm).ok());
    EXPECT_EQ(job.inputs[0].second.data<float>()[0], 3.0f);
    std::vector<OutputData> outputs = {{"y", element::f32, {2}, std::string(8, '\0')}};
    ASSERT_TRUE(write_shared_memory_outputs(form.shm_outputs, outputs).ok());
    size_t header_length = 0;
    const std::string text = render_rest_response("m", 1, form, outputs, header_length);
    EXPECT_EQ(header_length, std::string::npos);
    EXPECT_NE(text.find(R"("parameters":{"shared_memory_region":"r","shared_memory_offset":8,)"
                        R"("shared_memory_byte_size":8})"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("\"data\""), std::string::npos) << text;

    const std::string with_data = R"({"inputs": [{"name": "a", "shape": [2], "datatype": "FP32",
        "data": [1, 2], "parameters": {"shared_memory_region": "r",
        "shared_memory_byte_size": 8}}]})";
    InferJob bad;
    RestReplyForm bad_form;
    const Status s = job_from_rest(with_data, std::string_view::npos, ins, outs, RestLimits{}, bad,
                                   bad_form, &shm);
    EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
    EXPECT_TRUE(mentions(s, "inputs[0]")) << s.message;
}

}  // namespace
}  // namespace vireo::server
