// Implements the .npy reader and writer.
#include "npy.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
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
    {"b1", element::boolean},
    {"u1", element::u8},
    {"i1", element::i8},
    {"u2", element::u16},
    {"i2", element::i16},
    {"u4", element::u32},
    {"i4", element::i32},
    {"u8", element::u64},
    {"i8", element::i64},
    {"f2", element::f16},
    {"f4", element::f32},
    {"f8", element::f64},
    // bf16 has no NumPy type: written as 2-byte void ('<V2', what ml_dtypes' bfloat16 saves as);
    // such a file reads back as bf16 (view it with .view(ml_dtypes.bfloat16) or as uint16 bits).
    {"V2", element::bf16},
};

[[noreturn]] void fail(const std::string& name, const std::string& what) {
    throw_error<InvalidArgument>("npy file '", name, "': ", what);
}

// The header dict, parsed as the Python literal NumPy writes: {'key': value, ...} where a value
// is a quoted string, a tuple "(...)" or a bare word (True, False). Keys map to their value's
// text (strings without their quotes, tuples with their parentheses). Searching the text for
// "'shape'" instead misread a header whose other values contained that word.
std::map<std::string, std::string> parse_header_dict(const std::string& header,
                                                     const std::string& name) {
    size_t i = 0;
    auto skip_space = [&] {
        while (i < header.size() && std::isspace(static_cast<unsigned char>(header[i]))) ++i;
    };
    auto quoted_at = [&](const char* what) {
        const char quote = header[i];
        const size_t close = header.find(quote, i + 1);
        if (close == std::string::npos)
            fail(name, std::string("header: ") + what + " string is not closed");
        std::string text = header.substr(i + 1, close - i - 1);
        i = close + 1;
        return text;
    };
    std::map<std::string, std::string> dict;
    skip_space();
    if (i >= header.size() || header[i] != '{') fail(name, "header is not a dict (expected '{')");
    ++i;
    for (;;) {
        skip_space();
        if (i >= header.size()) fail(name, "header dict is not closed (expected '}')");
        if (header[i] == '}') break;
        if (header[i] != '\'' && header[i] != '"')
            fail(name, "header: expected a quoted key at offset " + std::to_string(i));
        const std::string key = quoted_at("key");
        skip_space();
        if (i >= header.size() || header[i] != ':')
            fail(name, "header key '" + key + "' has no value");
        ++i;
        skip_space();
        if (i >= header.size()) fail(name, "header key '" + key + "' has no value");
        std::string value;
        if (header[i] == '\'' || header[i] == '"') {
            value = quoted_at("value");
        } else if (header[i] == '(') {
            const size_t close = header.find(')', i);
            if (close == std::string::npos)
                fail(name, "header: the tuple of '" + key + "' is not closed");
            value = header.substr(i, close - i + 1);
            i = close + 1;
        } else {
            const size_t b = i;
            while (i < header.size() &&
                   (std::isalnum(static_cast<unsigned char>(header[i])) || header[i] == '_'))
                ++i;
            value = header.substr(b, i - b);
            if (value.empty()) fail(name, "header key '" + key + "' has no value");
        }
        if (!dict.emplace(key, value).second) fail(name, "header key '" + key + "' appears twice");
        skip_space();
        if (i < header.size() && header[i] == ',') {
            ++i;
            continue;
        }
        skip_space();
        if (i >= header.size() || header[i] != '}')
            fail(name, "header: expected ',' or '}' after the value of '" + key + "'");
    }
    return dict;
}

const std::string& entry(const std::map<std::string, std::string>& dict, const std::string& key,
                         const std::string& name) {
    const auto it = dict.find(key);
    if (it == dict.end()) fail(name, "header has no '" + key + "' entry");
    return it->second;
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
        if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos ||
            digits.size() > 18)
            fail(name, "bad dimension '" + digits + "' in shape");
        shape.push_back(std::stoull(digits));
    }
    return shape;
}

}  // namespace

std::string dtype_of(element::Type type) {
    for (const auto& d : kDTypes)
        if (d.type == type)
            return std::string(type == element::boolean || type.size() == 1 ? "|" : "<") + d.code;
    throw_error<InvalidArgument>("element type ", type, " has no NumPy dtype");
}

Tensor read_npy(std::istream& in, const std::string& name) {
    char magic[6];
    if (!in.read(magic, 6) || std::memcmp(magic, kMagic, 6) != 0)
        fail(name, "not a .npy file (bad magic)");
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
        header_len =
            len[0] | (size_t(len[1]) << 8) | (size_t(len[2]) << 16) | (size_t(len[3]) << 24);
    } else {
        fail(name, "unsupported format version " + std::to_string(version[0]));
    }
    if (header_len > kMaxHeader)
        fail(name, "header length " + std::to_string(header_len) + " is implausible");
    std::string header(header_len, '\0');
    if (!in.read(header.data(), static_cast<std::streamsize>(header_len)))
        fail(name, "truncated header");

    const std::map<std::string, std::string> dict = parse_header_dict(header, name);
    const std::string& descr = entry(dict, "descr", name);
    const std::string& fortran = entry(dict, "fortran_order", name);
    if (fortran == "True") fail(name, "Fortran order is not supported (save with C order)");
    if (fortran != "False")
        fail(name, "fortran_order must be True or False, found '" + fortran + "'");
    const Shape shape = parse_shape(entry(dict, "shape", name), name);

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
        fail(name, "truncated data: shape " + Shape(shape).to_string() + " needs " +
                       std::to_string(bytes) + " bytes");
    in.seekg(here);
    Tensor t(type, shape);
    if (bytes && !in.read(static_cast<char*>(t.data()), static_cast<std::streamsize>(bytes)))
        fail(name, "truncated data");
    return t;
}

Tensor read_npy(const std::string& path) {
    // Opened non-blocking and checked with fstat before any read: a FIFO (or device) given as
    // an input would otherwise block open() or read() forever.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) throw_error<NotFound>("cannot open npy file '", path, "': ", std::strerror(errno));
    std::string bytes;
    try {
        struct stat info {};
        if (::fstat(fd, &info) != 0)
            fail(path, std::string("cannot stat it: ") + std::strerror(errno));
        if (!S_ISREG(info.st_mode)) fail(path, "not a regular file");
        bytes.resize(static_cast<size_t>(info.st_size));
        size_t done = 0;
        while (done < bytes.size()) {
            const ssize_t got = ::read(fd, bytes.data() + done, bytes.size() - done);
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) fail(path, std::string("cannot read it: ") + std::strerror(errno));
            if (got == 0) break;  // shrank meanwhile: the parser reports what is missing
            done += static_cast<size_t>(got);
        }
        bytes.resize(done);
    } catch (...) {
        ::close(fd);
        throw;
    }
    ::close(fd);
    return read_npy_bytes(bytes, path);
}

Tensor read_npy_bytes(const std::string& bytes, const std::string& name) {
    std::istringstream in(bytes, std::ios::binary);
    return read_npy(in, name);
}

void write_npy(std::ostream& out, const Tensor& tensor) {
    const std::string descr = dtype_of(tensor.get_element_type());
    std::string shape = "(";
    for (size_t d : tensor.get_shape()) shape += std::to_string(d) + ", ";
    if (tensor.get_shape().size() > 1)
        shape.erase(shape.size() - 2);
    else if (tensor.get_shape().size() == 1)
        shape.erase(shape.size() - 1);
    shape += ")";
    std::string header =
        "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
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
    out.write(static_cast<const char*>(dense.data()),
              static_cast<std::streamsize>(dense.get_byte_size()));
}

void write_npy(const std::string& path, const Tensor& tensor) {
    std::ofstream out(path, std::ios::binary);
    if (!out) throw_error<NotFound>("cannot create npy file '", path, "': ", std::strerror(errno));
    write_npy(out, tensor);
    // The data may sit in the stream's buffer until close(): a full device shows only then.
    out.close();
    if (!out)
        throw_error<InvalidArgument>("failed writing npy file '", path,
                                     "': ", std::strerror(errno));
}

}  // namespace vireo::npy
