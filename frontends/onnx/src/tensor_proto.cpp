// Implements TensorProto -> Tensor: raw data shared with the parsed message, typed fields
// converted, external data through ExternalData; every size checked against the shape before any
// copy.
#include "tensor_proto.hpp"

#include <cstring>
#include <limits>

#include "external_data.hpp"
#include "vireo/exception.hpp"

namespace vireo::onnx_import {
namespace {

using TP = onnx::TensorProto;

size_t checked_count(const Shape& shape, const std::string& what) {
    size_t count = 1;
    for (size_t d : shape) {
        if (d == 0) return 0;
        if (count > std::numeric_limits<size_t>::max() / d)
            throw_error<InvalidArgument>(what, ": element count of shape ", shape, " overflows");
        count *= d;
    }
    return count;
}

template <typename Dst, typename Src>
void fill(Tensor& t, const Src& values) {
    Dst* out = t.data<Dst>();
    for (int i = 0; i < values.size(); ++i) out[i] = static_cast<Dst>(values.Get(i));
}

// int32_data carries 8- and 16-bit types and booleans one per entry; f16/bf16 as their bits.
template <typename Dst>
void fill_bits16(Tensor& t, const google::protobuf::RepeatedField<int32_t>& values) {
    auto* out = static_cast<uint16_t*>(t.data());
    for (int i = 0; i < values.size(); ++i) out[i] = static_cast<uint16_t>(values.Get(i));
}

}  // namespace

element::Type to_element_type(int32_t type, const std::string& what) {
    switch (type) {
        case TP::FLOAT:
            return element::f32;
        case TP::UINT8:
            return element::u8;
        case TP::INT8:
            return element::i8;
        case TP::UINT16:
            return element::u16;
        case TP::INT16:
            return element::i16;
        case TP::INT32:
            return element::i32;
        case TP::INT64:
            return element::i64;
        case TP::BOOL:
            return element::boolean;
        case TP::FLOAT16:
            return element::f16;
        case TP::DOUBLE:
            return element::f64;
        case TP::UINT32:
            return element::u32;
        case TP::UINT64:
            return element::u64;
        case TP::BFLOAT16:
            return element::bf16;
        case TP::STRING:
            throw_error<NotImplemented>(what, ": string tensors are not supported");
        case TP::COMPLEX64:
        case TP::COMPLEX128:
            throw_error<NotImplemented>(what, ": complex tensors are not supported");
        case TP::UNDEFINED:
            throw_error<InvalidArgument>(what, ": element type is UNDEFINED");
        default:
            throw_error<InvalidArgument>(what, ": unknown ONNX element type code ", type);
    }
}

int32_t to_onnx_type(element::Type type) {
    switch (type.id()) {
        case element::TypeId::f32:
            return TP::FLOAT;
        case element::TypeId::u8:
            return TP::UINT8;
        case element::TypeId::i8:
            return TP::INT8;
        case element::TypeId::u16:
            return TP::UINT16;
        case element::TypeId::i16:
            return TP::INT16;
        case element::TypeId::i32:
            return TP::INT32;
        case element::TypeId::i64:
            return TP::INT64;
        case element::TypeId::boolean:
            return TP::BOOL;
        case element::TypeId::f16:
            return TP::FLOAT16;
        case element::TypeId::f64:
            return TP::DOUBLE;
        case element::TypeId::u32:
            return TP::UINT32;
        case element::TypeId::u64:
            return TP::UINT64;
        case element::TypeId::bf16:
            return TP::BFLOAT16;
        default:
            throw_error<InvalidArgument>("element type ", type, " has no ONNX equivalent");
    }
}

Tensor to_tensor(const TP& proto, const std::shared_ptr<void>& owner, ExternalData* external,
                 const std::string& what) {
    const element::Type type = to_element_type(proto.data_type(), what);
    Shape shape;
    for (int64_t d : proto.dims()) {
        if (d < 0) throw_error<InvalidArgument>(what, ": negative dimension ", d);
        shape.push_back(static_cast<size_t>(d));
    }
    const size_t count = checked_count(shape, what);
    if (count > std::numeric_limits<size_t>::max() / type.size())
        throw_error<InvalidArgument>(what, ": byte size of shape ", shape, " overflows");
    const size_t bytes = count * type.size();

    auto wrap_or_copy = [&](const char* data, std::shared_ptr<void> keep) {
        const auto address = reinterpret_cast<uintptr_t>(data);
        if (bytes > 0 && address % type.size() == 0)
            return Tensor::wrap_shared(type, shape, data, std::move(keep));
        Tensor copy(type, shape);
        if (bytes > 0) std::memcpy(copy.data(), data, bytes);
        return copy;
    };

    if (proto.data_location() == TP::EXTERNAL) {
        if (!external) throw_error<InvalidArgument>(what, ": external data is not allowed here");
        ExternalData::Bytes b = external->read(proto, bytes, what);
        return wrap_or_copy(b.data, std::move(b.owner));
    }
    if (proto.has_raw_data()) {
        const std::string& raw = proto.raw_data();
        if (raw.size() != bytes)
            throw_error<InvalidArgument>(what, ": raw_data holds ", raw.size(), " bytes, its type ",
                                         type, " and shape ", shape, " need ", bytes);
        return wrap_or_copy(raw.data(), owner);
    }

    // Typed fields: the value count must match the shape before anything is allocated (a shape of
    // billions of elements with three values would otherwise allocate first).
    int n = 0;
    const char* field = "int32_data";
    switch (proto.data_type()) {
        case TP::FLOAT:
            n = proto.float_data_size(), field = "float_data";
            break;
        case TP::DOUBLE:
            n = proto.double_data_size(), field = "double_data";
            break;
        case TP::INT64:
            n = proto.int64_data_size(), field = "int64_data";
            break;
        case TP::UINT32:
        case TP::UINT64:
            n = proto.uint64_data_size(), field = "uint64_data";
            break;
        case TP::INT32:
        case TP::INT16:
        case TP::INT8:
        case TP::UINT16:
        case TP::UINT8:
        case TP::BOOL:
        case TP::FLOAT16:
        case TP::BFLOAT16:
            n = proto.int32_data_size();
            break;
        default:
            throw_error<InvalidArgument>(what, ": no data for element type ", type);
    }
    if (static_cast<size_t>(n) != count)
        throw_error<InvalidArgument>(what, ": ", field, " holds ", n, " values, shape ", shape,
                                     " needs ", count);
    Tensor t(type, shape);
    switch (proto.data_type()) {
        case TP::FLOAT:
            fill<float>(t, proto.float_data());
            break;
        case TP::DOUBLE:
            fill<double>(t, proto.double_data());
            break;
        case TP::INT64:
            fill<int64_t>(t, proto.int64_data());
            break;
        case TP::UINT32:
            fill<uint32_t>(t, proto.uint64_data());
            break;
        case TP::UINT64:
            fill<uint64_t>(t, proto.uint64_data());
            break;
        case TP::INT32:
            fill<int32_t>(t, proto.int32_data());
            break;
        case TP::INT16:
            fill<int16_t>(t, proto.int32_data());
            break;
        case TP::INT8:
            fill<int8_t>(t, proto.int32_data());
            break;
        case TP::UINT16:
            fill<uint16_t>(t, proto.int32_data());
            break;
        case TP::UINT8:
            fill<uint8_t>(t, proto.int32_data());
            break;
        case TP::BOOL: {
            auto* out = t.data<bool>();
            for (int i = 0; i < proto.int32_data_size(); ++i) out[i] = proto.int32_data(i) != 0;
            break;
        }
        case TP::FLOAT16:
        case TP::BFLOAT16:
            fill_bits16<uint16_t>(t, proto.int32_data());
            break;
        default:
            throw_error<InvalidArgument>(what, ": no data for element type ", type);
    }
    return t;
}

}  // namespace vireo::onnx_import
