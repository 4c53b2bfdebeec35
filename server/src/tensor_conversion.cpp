// Request tensors -> Vireo tensors, with the checks that turn bad requests into INVALID_ARGUMENT.
#include "tensor_conversion.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "datatype.hpp"
#include "vireo/float16.hpp"

namespace vireo::server {

namespace {

Status invalid(std::string message) {
    return {StatusCode::kInvalidArgument, std::move(message)};
}

std::string shape_text(const std::vector<int64_t>& shape) {
    std::string out = "[";
    for (size_t i = 0; i < shape.size(); ++i) out += (i ? "," : "") + std::to_string(shape[i]);
    return out + "]";
}

template <typename T>
Status store_integer(const std::string& field, Tensor& tensor, size_t index,
                     const ScalarValue& value) {
    T result{};
    bool ok = false;
    if (const auto* i = std::get_if<int64_t>(&value)) {
        if constexpr (std::is_signed_v<T>) {
            ok = *i >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
                 *i <= static_cast<int64_t>(std::numeric_limits<T>::max());
        } else {
            ok = *i >= 0 && static_cast<uint64_t>(*i) <= std::numeric_limits<T>::max();
        }
        result = static_cast<T>(*i);
    } else if (const auto* u = std::get_if<uint64_t>(&value)) {
        ok = *u <= static_cast<uint64_t>(std::numeric_limits<T>::max());
        result = static_cast<T>(*u);
    } else if (const auto* d = std::get_if<double>(&value)) {
        // JSON writers print integral floats as "3.0": accept those when they fit exactly.
        // The upper bound is exclusive and exact (2^digits): max() itself rounds up to it as a
        // double for 64-bit types, and converting 2^64 to uint64_t is undefined (found by
        // fuzz_rest).
        ok = std::isfinite(*d) && std::floor(*d) == *d &&
             *d >= static_cast<double>(std::numeric_limits<T>::min()) &&
             *d < std::ldexp(1.0, std::numeric_limits<T>::digits);
        result = ok ? static_cast<T>(*d) : T{};
    }
    if (!ok) {
        return invalid(field + "[" + std::to_string(index) + "] does not fit the input's type " +
                       datatype_of(tensor.get_element_type()));
    }
    std::memcpy(static_cast<char*>(tensor.data()) + index * sizeof(T), &result, sizeof(T));
    return {};
}

double as_double(const ScalarValue& value, bool& ok) {
    ok = true;
    if (const auto* i = std::get_if<int64_t>(&value)) return static_cast<double>(*i);
    if (const auto* u = std::get_if<uint64_t>(&value)) return static_cast<double>(*u);
    if (const auto* d = std::get_if<double>(&value)) return *d;
    ok = false;
    return 0;
}

template <typename T>
double load(const std::string& bytes, size_t index) {
    T v;
    std::memcpy(&v, bytes.data() + index * sizeof(T), sizeof(T));
    return static_cast<double>(v);
}

}  // namespace

Status prepare_input(const TensorInfo& info, const std::string& datatype,
                     const std::vector<int64_t>& shape, size_t max_bytes, Tensor& out) {
    const std::string expected = datatype_of(info.type);
    if (datatype == "BYTES") {
        return invalid("input '" + info.name +
                       "': datatype BYTES is not supported by Vireo (the model expects " +
                       expected + ")");
    }
    if (!element_type_of(datatype)) {
        return invalid("input '" + info.name + "': unknown datatype '" + datatype + "'");
    }
    if (datatype != expected) {
        return invalid("input '" + info.name + "': datatype " + datatype +
                       " given, the model expects " + expected);
    }
    const bool any_rank = info.shape.size() == 1 && info.shape[0] == -1;
    bool shape_ok = any_rank || shape.size() == info.shape.size();
    for (size_t i = 0; shape_ok && !any_rank && i < shape.size(); ++i) {
        if (info.shape[i] >= 0 && shape[i] != info.shape[i]) shape_ok = false;
    }
    for (int64_t d : shape) shape_ok = shape_ok && d >= 0;
    if (!shape_ok) {
        return invalid("input '" + info.name + "': shape " + shape_text(shape) +
                       " does not match the model's " + shape_text(info.shape));
    }
    const auto bytes = element_count(shape, info.type.size());
    if (!bytes || *bytes > max_bytes) {
        return invalid("input '" + info.name + "': shape " + shape_text(shape) +
                       " is larger than the request size limit");
    }
    Shape dims;
    for (int64_t d : shape) dims.push_back(static_cast<size_t>(d));
    out = Tensor(info.type, dims);
    return {};
}

Status fill_raw(const std::string& field, Tensor& tensor, const void* data, size_t size) {
    if (size != tensor.get_byte_size()) {
        return invalid(field + " holds " + std::to_string(size) +
                       " bytes, the shape and datatype need " +
                       std::to_string(tensor.get_byte_size()));
    }
    if (size != 0) std::memcpy(tensor.data(), data, size);
    return {};
}

Status write_element(const std::string& field, Tensor& tensor, size_t index,
                     const ScalarValue& value) {
    char* base = static_cast<char*>(tensor.data());
    switch (tensor.get_element_type().id()) {
        case element::TypeId::boolean: {
            const auto* b = std::get_if<bool>(&value);
            if (!b) return invalid(field + "[" + std::to_string(index) + "] must be true or false");
            base[index] = *b ? 1 : 0;
            return {};
        }
        case element::TypeId::u8:
            return store_integer<uint8_t>(field, tensor, index, value);
        case element::TypeId::u16:
            return store_integer<uint16_t>(field, tensor, index, value);
        case element::TypeId::u32:
            return store_integer<uint32_t>(field, tensor, index, value);
        case element::TypeId::u64:
            return store_integer<uint64_t>(field, tensor, index, value);
        case element::TypeId::i8:
            return store_integer<int8_t>(field, tensor, index, value);
        case element::TypeId::i16:
            return store_integer<int16_t>(field, tensor, index, value);
        case element::TypeId::i32:
            return store_integer<int32_t>(field, tensor, index, value);
        case element::TypeId::i64:
            return store_integer<int64_t>(field, tensor, index, value);
        default:
            break;
    }
    bool ok = false;
    const double d = as_double(value, ok);
    if (!ok) return invalid(field + "[" + std::to_string(index) + "] must be a number");
    switch (tensor.get_element_type().id()) {
        case element::TypeId::f16:
            reinterpret_cast<float16*>(base)[index] = float16(static_cast<float>(d));
            break;
        case element::TypeId::bf16:
            reinterpret_cast<bfloat16*>(base)[index] = bfloat16(static_cast<float>(d));
            break;
        case element::TypeId::f32:
            reinterpret_cast<float*>(base)[index] = static_cast<float>(d);
            break;
        case element::TypeId::f64:
            reinterpret_cast<double*>(base)[index] = d;
            break;
        default:
            return invalid(field + ": element type " +
                           std::string(tensor.get_element_type().name()) + " cannot be written");
    }
    return {};
}

size_t output_element_count(const OutputData& output) {
    const size_t size = output.type.size();
    return size ? output.bytes.size() / size : 0;
}

ScalarValue read_element(const OutputData& output, size_t index) {
    const std::string& b = output.bytes;
    switch (output.type.id()) {
        case element::TypeId::boolean:
            return b[index] != 0;
        case element::TypeId::u8:
            return static_cast<uint64_t>(static_cast<uint8_t>(b[index]));
        case element::TypeId::u16:
            return static_cast<uint64_t>(load<uint16_t>(b, index));
        case element::TypeId::u32:
            return static_cast<uint64_t>(load<uint32_t>(b, index));
        case element::TypeId::u64: {
            uint64_t v;
            std::memcpy(&v, b.data() + index * 8, 8);
            return v;
        }
        case element::TypeId::i8:
            return static_cast<int64_t>(static_cast<int8_t>(b[index]));
        case element::TypeId::i16:
            return static_cast<int64_t>(load<int16_t>(b, index));
        case element::TypeId::i32:
            return static_cast<int64_t>(load<int32_t>(b, index));
        case element::TypeId::i64: {
            int64_t v;
            std::memcpy(&v, b.data() + index * 8, 8);
            return v;
        }
        case element::TypeId::f16: {
            uint16_t bits;
            std::memcpy(&bits, b.data() + index * 2, 2);
            return static_cast<double>(static_cast<float>(float16::from_bits(bits)));
        }
        case element::TypeId::bf16: {
            bfloat16 v;
            std::memcpy(&v, b.data() + index * 2, 2);
            return static_cast<double>(static_cast<float>(v));
        }
        case element::TypeId::f32:
            return load<float>(b, index);
        case element::TypeId::f64:
            return load<double>(b, index);
        default:
            return 0.0;
    }
}

}  // namespace vireo::server
