// Implements the .npy reader and writer.
#include "npy.hpp"

#include <cstring>
#include <fstream>
#include <sstream>

namespace vireo::npy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMaxHeader = 1 << 20;  // a header larger than 1 MiB is not a real .npy

struct DType {
    const char* code;
    element::Type type;
};
constexpr DType kDTypes[] = {
    {"b1", element::boolean}, {"u1", element::u8},  {"i1", element::i8},  {"u2", element::u16},
    {"i2", element::i16},     {"u4", element::u32}, {"i4", element::i32}, {"u8", element::u64},
    {"i8", element::i64},     {"f2", element::f16}, {"f4", element::f32}, {"f8", element::f64},
};

[[noreturn]] void fail(const std::string& name, const std::string& what) {
    throw_error<InvalidArgument>("npy file '", name, "': ", what);
}

// Finds `'key':` in the header dict and returns the text after the colon.
std::string value_after(const std::string& header, const std::string& key, const std::string& name) {
    for (const char quote : {'\'', '"'}) {
        const std::string k = std::string(1, quote) + key + quote;
        auto pos = header.find(k);
        if (pos == std::string::npos) continue;
        pos = header.find(':', pos + k.size());
        if (pos == std::string::npos) fail(name, "header key '" + key + "' has no value");
        return header.substr(pos + 1);
    }
    fail(name, "header has no '" + key + "' entry");
}

std::string quoted(const std::string& text, const std::string& name) {
    const auto b = text.find_first_of("'\"");
    if (b == std::string::npos) fail(name, "descr is not a string");
    const auto e = text.find(text[b], b + 1);
    if (e == std::string::npos) fail(name, "descr string is not closed");
    return text.substr(b + 1, e - b - 1);
}

Shape parse_shape(const std::string& text, const std::string& name) {
    const auto open = text.find('(');
    const auto close = text.find(')', open == std::string::npos ? 0 : open);
    if (open == std::string::npos || close == std::string::npos) fail(name, "shape is not a tuple");
    Shape shape;
    std::string item;
    std::istringstream in(text.substr(open + 1, close - open - 1));
    while (std::getline(in, item, ',')) {
        const auto b = item.find_first_not_of(" \t");
        if (b == std::string::npos) continue;  // trailing comma of a 1-tuple
        const auto e = item.find_last_not_of(" \tL");
        const std::string digits = item.substr(b, e - b + 1);
        if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 18)
            fail(name, "bad dimension '" + digits + "' in shape");
        shape.push_back(std::stoull(digits));
    }
    return shape;
}

}  // namespace

std::string dtype_of(element::Type type) {
    for (const auto& d : kDTypes)
        if (d.type == type) return std::string(type == element::boolean || type.size() == 1 ? "|" : "<") + d.code;
    throw_error<InvalidArgument>("element type ", type, " has no NumPy dtype");
}

Tensor read_npy(std::istream& in, const std::string& name) {
    char magic[6];
    if (!in.read(magic, 6) || std::memcmp(magic, kMagic, 6) != 0) fail(name, "not a .npy file (bad magic)");
    unsigned char version[2];
    if (!in.read(reinterpret_cast<char*>(version), 2)) fail(name, "truncated before the version");
    size_t header_len = 0;
    if (version[0] == 1) {
        unsigned char len[2];
        if (!in.read(reinterpret_cast<char*>(len), 2)) fail(name, "truncated header length");
        header_len = len[0] | (size_t(len[1]) << 8);
    } else if (version[0] == 2 || version[0] == 3) {
        unsigned char len[4];
        if (!in.read(reinterpret_cast<char*>(len), 4)) fail(name, "truncated header length");
        header_len = len[0] | (size_t(len[1]) << 8) | (size_t(len[2]) << 16) | (size_t(len[3]) << 24);
    } else {
        fail(name, "unsupported format version " + std::to_string(version[0]));
    }
    if (header_len > kMaxHeader) fail(name, "header length " + std::to_string(header_len) + " is implausible");
    std::string header(header_len, '\0');
    if (!in.read(header.data(), static_cast<std::streamsize>(header_len))) fail(name, "truncated header");

    const std::string descr = quoted(value_after(header, "descr", name), name);
    const std::string fortran = value_after(header, "fortran_order", name);
    if (fortran.find("True") != std::string::npos && fortran.find("True") < fortran.find_first_of(",}"))
        fail(name, "Fortran order is not supported (save with C order)");
    const Shape shape = parse_shape(value_after(header, "shape", name), name);

    if (descr.size() < 3) fail(name, "unknown dtype '" + descr + "'");
    const char order = descr[0];
    const std::string code = descr.substr(1);
    if (order == '>') fail(name, "big-endian dtype '" + descr + "' is not supported");
    if (order != '<' && order != '|' && order != '=') fail(name, "unknown dtype '" + descr + "'");
    element::Type type = element::undefined;
    for (const auto& d : kDTypes)
        if (code == d.code) type = d.type;
    if (type == element::undefined) fail(name, "unsupported dtype '" + descr + "'");

    size_t bytes = 0;
    try {
        bytes = type.bytes_for(shape_size(shape));
    } catch (const Exception& e) {
        fail(name, e.what());
    }
    // Check the data is there before allocating (a header may claim a huge shape).
    const auto here = in.tellg();
    in.seekg(0, std::ios::end);
    const auto end = in.tellg();
    if (here < 0 || end < 0 || static_cast<size_t>(end - here) < bytes)
        fail(name, "truncated data: shape " + Shape(shape).to_string() + " needs " + std::to_string(bytes) + " bytes");
    in.seekg(here);
    Tensor t(type, shape);
    if (bytes && !in.read(static_cast<char*>(t.data()), static_cast<std::streamsize>(bytes))) fail(name, "truncated data");
    return t;
}

Tensor read_npy(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw_error<NotFound>("cannot open npy file '", path, "'");
    return read_npy(in, path);
}

Tensor read_npy_bytes(const std::string& bytes, const std::string& name) {
    std::istringstream in(bytes, std::ios::binary);
    return read_npy(in, name);
}

void write_npy(std::ostream& out, const Tensor& tensor) {
    const std::string descr = dtype_of(tensor.get_element_type());
    std::string shape = "(";
    for (size_t d : tensor.get_shape()) shape += std::to_string(d) + ", ";
    if (tensor.get_shape().size() > 1) shape.erase(shape.size() - 2);
    else if (tensor.get_shape().size() == 1) shape.erase(shape.size() - 1);
    shape += ")";
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    // Pad with spaces so the data starts on a 64-byte boundary; end with a newline.
    const size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    out.write(kMagic, 6);
    const char version[2] = {1, 0};
    out.write(version, 2);
    const unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xff),
                                  static_cast<unsigned char>(header.size() >> 8)};
    out.write(reinterpret_cast<const char*>(len), 2);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    const Tensor dense = tensor.is_continuous() ? tensor : tensor.clone();
    out.write(static_cast<const char*>(dense.data()), static_cast<std::streamsize>(dense.get_byte_size()));
}

void write_npy(const std::string& path, const Tensor& tensor) {
    std::ofstream out(path, std::ios::binary);
    if (!out) throw_error<NotFound>("cannot create npy file '", path, "'");
    write_npy(out, tensor);
    if (!out) throw_error<InvalidArgument>("failed writing npy file '", path, "'");
}

}  // namespace vireo::npy
