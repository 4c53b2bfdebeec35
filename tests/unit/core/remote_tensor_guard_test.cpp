// Tests that Tensor's calls into a remote tensor (set_shape, copy_to's copy_to_host and
// copy_from_host) are guarded: what the device throws reaches the caller as a vireo::Exception of
// the same kind naming the operation and the device, and the tensors are left as promised. Also
// RemoteContext: an error its plugin throws survives a device name that throws while reporting it.
#include <gtest/gtest.h>

#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "vireo/remote_context.hpp"
#include "vireo/sdk/iremote_context.hpp"
#include "vireo/sdk/itensor.hpp"
#include "vireo/tensor.hpp"

using namespace vireo;

namespace {

// What a faulty device throws.
enum class Fault { kNone, kStdError, kInt, kInvalidArgument, kBadAlloc };

void throw_fault(Fault fault, const std::string& operation) {
    switch (fault) {
        case Fault::kNone:
            return;
        case Fault::kStdError:
            throw std::runtime_error("device lost during " + operation);
        case Fault::kInt:
            throw 42;
        case Fault::kInvalidArgument:
            throw InvalidArgument("bad request for " + operation);
        case Fault::kBadAlloc:
            throw std::bad_alloc();
    }
}

// The message the guard is expected to end with for `fault` thrown by `operation`, by hand.
std::string expected_reason(Fault fault, const std::string& operation) {
    switch (fault) {
        case Fault::kStdError:
            return "device lost during " + operation;
        case Fault::kInt:
            return "unknown exception";
        case Fault::kInvalidArgument:
            return "bad request for " + operation;
        case Fault::kBadAlloc:
            return std::bad_alloc().what();
        case Fault::kNone:
            break;
    }
    return "";
}

ErrorKind expected_kind(Fault fault) {
    return fault == Fault::kInvalidArgument ? ErrorKind::kInvalidArgument : ErrorKind::kGeneral;
}

// An f32 device tensor in a host vector whose set_shape / copy_to_host / copy_from_host throw the
// configured fault before changing anything, and which counts the calls that got through.
class FaultyRemoteTensor final : public sdk::IRemoteTensor {
  public:
    FaultyRemoteTensor(std::string device, const Shape& shape, std::vector<float> values)
        : m_device(std::move(device)),
          m_shape(shape),
          m_strides(row_major_strides(shape, sizeof(float))),
          m_memory(std::move(values)) {
        m_memory.resize(shape_size(shape));
    }

    element::Type get_element_type() const override { return element::f32; }
    const Shape& get_shape() const override { return m_shape; }
    const Strides& get_strides() const override { return m_strides; }
    const std::string& get_device_name() const override {
        if (name_throws) throw std::runtime_error("no name");
        return m_device;
    }
    const AnyMap& get_properties() const override { return m_properties; }

    void set_shape(const Shape& shape) override {
        throw_fault(set_shape_fault, "set_shape");
        ++set_shape_calls;
        m_shape = shape;
        m_strides = row_major_strides(shape, sizeof(float));
        m_memory.assign(shape_size(shape), 0.f);
    }
    void copy_from_host(const void* src) override {
        throw_fault(copy_from_host_fault, "copy_from_host");
        ++copy_from_host_calls;
        std::memcpy(m_memory.data(), src, m_memory.size() * sizeof(float));
    }
    void copy_to_host(void* dst) const override {
        throw_fault(copy_to_host_fault, "copy_to_host");
        ++copy_to_host_calls;
        std::memcpy(dst, m_memory.data(), m_memory.size() * sizeof(float));
    }

    const std::vector<float>& memory() const { return m_memory; }

    Fault set_shape_fault = Fault::kNone;
    Fault copy_from_host_fault = Fault::kNone;
    Fault copy_to_host_fault = Fault::kNone;
    bool name_throws = false;
    int set_shape_calls = 0;
    int copy_from_host_calls = 0;
    mutable int copy_to_host_calls = 0;

  private:
    std::string m_device;
    Shape m_shape;
    Strides m_strides;
    std::vector<float> m_memory;
    AnyMap m_properties;
};

struct Remote {
    std::shared_ptr<FaultyRemoteTensor> impl;
    Tensor tensor;
};

Remote make_remote(const std::string& device, const Shape& shape, std::vector<float> values) {
    auto impl = std::make_shared<FaultyRemoteTensor>(device, shape, std::move(values));
    return {impl, Tensor(impl)};
}

Tensor make_host(const Shape& shape, const std::vector<float>& values) {
    Tensor t(element::f32, shape);
    std::memcpy(t.data(), values.data(), values.size() * sizeof(float));
    return t;
}

std::vector<float> host_values(const Tensor& t) {
    return std::vector<float>(t.data<float>(), t.data<float>() + t.get_size());
}

// Runs `call`; expects a vireo::Exception of `kind` whose whole message is `message`.
template <typename Call>
void expect_guarded(Call&& call, ErrorKind kind, const std::string& message) {
    try {
        call();
        ADD_FAILURE() << "expected: " << message;
    } catch (const Exception& e) {
        EXPECT_EQ(e.kind(), kind) << e.what();
        EXPECT_EQ(std::string(e.what()), message);
    } catch (...) {
        ADD_FAILURE() << "an exception that is not a vireo::Exception escaped; expected: "
                      << message;
    }
}

const std::vector<float> kSix = {1, 2, 3, 4, 5, 6};

class RemoteTensorGuard : public ::testing::TestWithParam<Fault> {};

TEST_P(RemoteTensorGuard, SetShapeNamesTheDeviceAndKeepsTheTensor) {
    const Fault fault = GetParam();
    auto remote = make_remote("FAULTY.1", Shape{2, 3}, kSix);
    remote.impl->set_shape_fault = fault;
    const auto impl_before = remote.tensor.impl();
    expect_guarded(
        [&] {
            remote.tensor.set_shape(Shape{4, 4});
        },
        expected_kind(fault),
        "set_shape to [4,4] on a remote tensor of device 'FAULTY.1': " +
            expected_reason(fault, "set_shape"));
    EXPECT_EQ(remote.tensor.impl(), impl_before);
    EXPECT_EQ(remote.tensor.get_shape(), (Shape{2, 3}));
    EXPECT_EQ(remote.impl->memory(), kSix);
}

TEST_P(RemoteTensorGuard, ReadingTheSourceIntoAContiguousHostTensorKeepsBothShapes) {
    const Fault fault = GetParam();
    auto remote = make_remote("FAULTY.1", Shape{2, 3}, kSix);
    remote.impl->copy_to_host_fault = fault;
    Tensor dst = make_host(Shape{3, 2}, {9, 9, 9, 9, 9, 9});
    expect_guarded([&] { remote.tensor.copy_to(dst); }, expected_kind(fault),
                   "copy_to: copy_to_host on the source, a remote tensor of device 'FAULTY.1': " +
                       expected_reason(fault, "copy_to_host"));
    EXPECT_EQ(remote.tensor.get_shape(), (Shape{2, 3}));
    EXPECT_EQ(remote.impl->memory(), kSix);
    EXPECT_EQ(dst.get_shape(), (Shape{3, 2}));
}

TEST_P(RemoteTensorGuard, ReadingTheSourceIntoALargerHostTensorReshapesOnlyAfterTheCopy) {
    const Fault fault = GetParam();
    auto remote = make_remote("FAULTY.1", Shape{2, 3}, kSix);
    remote.impl->copy_to_host_fault = fault;
    Tensor dst(element::f32, Shape{4, 4});
    expect_guarded([&] { remote.tensor.copy_to(dst); }, expected_kind(fault),
                   "copy_to: copy_to_host on the source, a remote tensor of device 'FAULTY.1': " +
                       expected_reason(fault, "copy_to_host"));
    EXPECT_EQ(dst.get_shape(), (Shape{4, 4}));
    EXPECT_EQ(remote.tensor.get_shape(), (Shape{2, 3}));
}

TEST_P(RemoteTensorGuard, ReadingTheSourceIntoAStridedViewLeavesTheViewUntouched) {
    const Fault fault = GetParam();
    auto remote = make_remote("FAULTY.1", Shape{2, 3}, kSix);
    remote.impl->copy_to_host_fault = fault;
    std::vector<float> wide_values(10);
    for (size_t i = 0; i < wide_values.size(); ++i) wide_values[i] = 100.f + static_cast<float>(i);
    Tensor wide = make_host(Shape{2, 5}, wide_values);
    Tensor view(wide, Coordinate{0, 1}, Coordinate{2, 4});
    expect_guarded([&] { remote.tensor.copy_to(view); }, expected_kind(fault),
                   "copy_to: copy_to_host on the source, a remote tensor of device 'FAULTY.1': " +
                       expected_reason(fault, "copy_to_host"));
    EXPECT_EQ(view.get_shape(), (Shape{2, 3}));
    EXPECT_EQ(host_values(wide), wide_values);
}

TEST_P(RemoteTensorGuard, ReadingTheSourceIntoASmallerHostTensorHasAlreadyGrownIt) {
    // The documented exception: a destination that must grow is reallocated before the read.
    const Fault fault = GetParam();
    auto remote = make_remote("FAULTY.1", Shape{2, 3}, kSix);
    remote.impl->copy_to_host_fault = fault;
    Tensor dst = make_host(Shape{2}, {7, 8});
    expect_guarded([&] { remote.tensor.copy_to(dst); }, expected_kind(fault),
                   "copy_to: copy_to_host on the source, a remote tensor of device 'FAULTY.1': " +
                       expected_reason(fault, "copy_to_host"));
    EXPECT_EQ(dst.get_shape(), (Shape{2, 3}));
    EXPECT_EQ(remote.tensor.get_shape(), (Shape{2, 3}));
}

TEST_P(RemoteTensorGuard, WritingTheDestinationNamesItAndKeepsTheSource) {
    const Fault fault = GetParam();
    auto remote = make_remote("FAULTY.2", Shape{3, 2}, {9, 9, 9, 9, 9, 9});
    remote.impl->copy_from_host_fault = fault;
    const std::string message =
        "copy_to: copy_from_host on the destination, a remote tensor of device 'FAULTY.2': " +
        expected_reason(fault, "copy_from_host");
    // A contiguous source, then a strided one (gathered into a bounce buffer first).
    const Tensor src = make_host(Shape{2, 3}, kSix);
    expect_guarded([&] { src.copy_to(remote.tensor); }, expected_kind(fault), message);
    EXPECT_EQ(src.get_shape(), (Shape{2, 3}));
    EXPECT_EQ(host_values(src), kSix);
    EXPECT_EQ(remote.tensor.get_shape(), (Shape{3, 2}));

    const Tensor wide = make_host(Shape{2, 5}, {0, 1, 2, 3, 0, 0, 4, 5, 6, 0});
    const Tensor view(wide, Coordinate{0, 1}, Coordinate{2, 4});
    expect_guarded([&] { view.copy_to(remote.tensor); }, expected_kind(fault), message);
    EXPECT_EQ(host_values(wide), (std::vector<float>{0, 1, 2, 3, 0, 0, 4, 5, 6, 0}));
    EXPECT_EQ(remote.tensor.get_shape(), (Shape{3, 2}));
    EXPECT_EQ(remote.impl->copy_from_host_calls, 0);
}

TEST_P(RemoteTensorGuard, ReshapingARemoteDestinationNamesItAndSkipsTheWrite) {
    const Fault fault = GetParam();
    auto remote = make_remote("FAULTY.2", Shape{3}, {7, 8, 9});
    remote.impl->set_shape_fault = fault;
    const Tensor src = make_host(Shape{2, 3}, kSix);
    expect_guarded(
        [&] { src.copy_to(remote.tensor); }, expected_kind(fault),
        "copy_to: set_shape to [2,3] on the destination, a remote tensor of device 'FAULTY.2': " +
            expected_reason(fault, "set_shape"));
    EXPECT_EQ(remote.tensor.get_shape(), (Shape{3}));
    EXPECT_EQ(remote.impl->memory(), (std::vector<float>{7, 8, 9}));
    EXPECT_EQ(remote.impl->copy_from_host_calls, 0);
}

TEST_P(RemoteTensorGuard, DeviceToDeviceReadFailureNamesTheSourceAndLeavesTheDestination) {
    const Fault fault = GetParam();
    auto src = make_remote("FAULTY.1", Shape{2, 3}, kSix);
    auto dst = make_remote("FAULTY.2", Shape{3}, {7, 8, 9});
    src.impl->copy_to_host_fault = fault;
    expect_guarded([&] { src.tensor.copy_to(dst.tensor); }, expected_kind(fault),
                   "copy_to: copy_to_host on the source, a remote tensor of device 'FAULTY.1': " +
                       expected_reason(fault, "copy_to_host"));
    EXPECT_EQ(dst.tensor.get_shape(), (Shape{3}));
    EXPECT_EQ(dst.impl->memory(), (std::vector<float>{7, 8, 9}));
    EXPECT_EQ(dst.impl->set_shape_calls, 0);
    EXPECT_EQ(dst.impl->copy_from_host_calls, 0);
    EXPECT_EQ(src.tensor.get_shape(), (Shape{2, 3}));
}

TEST_P(RemoteTensorGuard, DeviceToDeviceWriteFailureNamesTheDestinationAndKeepsTheSource) {
    const Fault fault = GetParam();
    auto src = make_remote("FAULTY.1", Shape{2, 3}, kSix);
    auto dst = make_remote("FAULTY.2", Shape{2, 3}, {0, 0, 0, 0, 0, 0});
    dst.impl->copy_from_host_fault = fault;
    expect_guarded(
        [&] { src.tensor.copy_to(dst.tensor); }, expected_kind(fault),
        "copy_to: copy_from_host on the destination, a remote tensor of device 'FAULTY.2': " +
            expected_reason(fault, "copy_from_host"));
    EXPECT_EQ(src.tensor.get_shape(), (Shape{2, 3}));
    EXPECT_EQ(src.impl->memory(), kSix);
    EXPECT_EQ(src.impl->copy_to_host_calls, 1);
    EXPECT_EQ(dst.tensor.get_shape(), (Shape{2, 3}));
}

INSTANTIATE_TEST_SUITE_P(Faults, RemoteTensorGuard,
                         ::testing::Values(Fault::kStdError, Fault::kInt, Fault::kInvalidArgument,
                                           Fault::kBadAlloc),
                         [](const ::testing::TestParamInfo<Fault>& info) {
                             switch (info.param) {
                                 case Fault::kStdError:
                                     return std::string("StdRuntimeError");
                                 case Fault::kInt:
                                     return std::string("Int42");
                                 case Fault::kInvalidArgument:
                                     return std::string("InvalidArgument");
                                 case Fault::kBadAlloc:
                                     return std::string("BadAlloc");
                                 case Fault::kNone:
                                     break;
                             }
                             return std::string("None");
                         });

TEST(RemoteTensorGuard, ADeviceNameThatThrowsDoesNotReplaceTheError) {
    auto remote = make_remote("FAULTY.1", Shape{2, 3}, kSix);
    remote.impl->copy_to_host_fault = Fault::kInvalidArgument;
    remote.impl->name_throws = true;
    Tensor dst(element::f32, Shape{2, 3});
    expect_guarded(
        [&] { remote.tensor.copy_to(dst); }, ErrorKind::kInvalidArgument,
        "copy_to: copy_to_host on the source, a remote tensor (its device name could not be "
        "read): bad request for copy_to_host");
}

TEST(RemoteTensorGuard, AHostTensorWithRoomIsFilledInPlaceAndThenReshaped) {
    auto remote = make_remote("FAULTY.1", Shape{2, 3}, kSix);
    Tensor dst(element::f32, Shape{4, 4});
    const void* memory = dst.data();
    remote.tensor.copy_to(dst);
    EXPECT_EQ(dst.get_shape(), (Shape{2, 3}));
    EXPECT_EQ(dst.data(), memory);
    EXPECT_EQ(host_values(dst), kSix);
    EXPECT_EQ(remote.impl->copy_to_host_calls, 1);
}

TEST(RemoteTensorGuard, SuccessfulCopiesReshapeAndMoveTheData) {
    // Host into a smaller device tensor, device to device into another element count, and back
    // into a strided view.
    auto first = make_remote("FAULTY.1", Shape{2}, {0, 0});
    make_host(Shape{2, 3}, kSix).copy_to(first.tensor);
    EXPECT_EQ(first.tensor.get_shape(), (Shape{2, 3}));
    EXPECT_EQ(first.impl->memory(), kSix);
    auto second = make_remote("FAULTY.2", Shape{5}, {0, 0, 0, 0, 0});
    first.tensor.copy_to(second.tensor);
    EXPECT_EQ(second.tensor.get_shape(), (Shape{2, 3}));
    EXPECT_EQ(second.impl->memory(), kSix);
    EXPECT_EQ(second.impl->set_shape_calls, 1);
    Tensor wide(element::f32, Shape{2, 5});
    Tensor view(wide, Coordinate{0, 2}, Coordinate{2, 5});
    second.tensor.copy_to(view);
    EXPECT_EQ(host_values(wide), (std::vector<float>{0, 0, 1, 2, 3, 0, 0, 4, 5, 6}));
}

TEST(RemoteTensorGuard, AnEmptyCopyDoesNotCallTheDevice) {
    auto remote = make_remote("FAULTY.1", Shape{0, 3}, {});
    remote.impl->copy_to_host_fault = Fault::kStdError;
    remote.impl->copy_from_host_fault = Fault::kStdError;
    Tensor host(element::f32, Shape{0, 3});
    EXPECT_NO_THROW(remote.tensor.copy_to(host));
    EXPECT_NO_THROW(host.copy_to(remote.tensor));
    EXPECT_EQ(remote.impl->copy_to_host_calls, 0);
    EXPECT_EQ(remote.impl->copy_from_host_calls, 0);
}

// A remote context whose create_tensor fails and whose name fails too while that error is
// reported: the caller sees the plugin's error, not the name's.
class FaultyRemoteContext final : public sdk::IRemoteContext {
  public:
    const std::string& get_device_name() const override {
        if (name_throws) throw std::runtime_error("no name");
        return m_device;
    }
    const AnyMap& get_property() const override { throw std::runtime_error("no properties"); }
    Tensor create_tensor(element::Type, const Shape&, const AnyMap&) override {
        throw InvalidArgument("shape too large for the device");
    }
    bool name_throws = false;

  private:
    std::string m_device = "FAULTY.3";
};

TEST(RemoteContextGuard, ThePluginsErrorSurvivesADeviceNameThatThrows) {
    auto impl = std::make_shared<FaultyRemoteContext>();
    RemoteContext context(impl, nullptr);
    try {
        context.create_tensor(element::f32, Shape{2});
        FAIL() << "no exception";
    } catch (const Exception& e) {
        EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
        EXPECT_EQ(std::string(e.what()), "FAULTY.3: shape too large for the device");
    }
    impl->name_throws = true;
    try {
        context.create_tensor(element::f32, Shape{2});
        FAIL() << "no exception";
    } catch (const Exception& e) {
        EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
        EXPECT_EQ(
            std::string(e.what()),
            "remote context (its device name could not be read): shape too large for the device");
    }
    try {
        context.get_params();
        FAIL() << "no exception";
    } catch (const Exception& e) {
        EXPECT_EQ(e.kind(), ErrorKind::kGeneral);
        EXPECT_NE(std::string(e.what()).find("no properties"), std::string::npos) << e.what();
    }
}

}  // namespace
