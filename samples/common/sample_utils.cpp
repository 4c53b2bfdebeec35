// Implements the samples' shared helpers.
#include "sample_utils.hpp"

#include <gflags/gflags.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <random>
#include <sstream>

#include "vireo/float16.hpp"

namespace vireo::samples {

std::map<std::string, PartialShape> parse_shape_argument(const std::string& text) {
    std::map<std::string, PartialShape> shapes;
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t open = text.find('[', pos);
        const size_t close = open == std::string::npos ? std::string::npos : text.find(']', open);
        if (open == std::string::npos || close == std::string::npos)
            throw_error<InvalidArgument>("bad shape argument '", text,
                                         "' (expected name[d0,d1,...] or [d0,d1,...])");
        const std::string name = text.substr(pos, open - pos);
        try {
            shapes[name] = PartialShape::parse(text.substr(open, close - open + 1));
        } catch (const Exception& e) {
            throw_error<InvalidArgument>("bad shape argument '", text, "': ", e.what());
        }
        pos = close + 1;
        if (pos < text.size()) {
            if (text[pos] != ',')
                throw_error<InvalidArgument>("bad shape argument '", text,
                                             "': expected ',' after ']'");
            ++pos;
        }
    }
    if (shapes.empty()) throw_error<InvalidArgument>("empty shape argument");
    return shapes;
}

void fill_random(Tensor& tensor, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> real(0.0, 1.0);
    const size_t n = tensor.get_size();
    auto ints = [&](auto* p) {
        using T = std::remove_pointer_t<decltype(p)>;
        for (size_t i = 0; i < n; ++i) p[i] = static_cast<T>(rng() % 100);
    };
    switch (tensor.get_element_type().id()) {
        case element::TypeId::f32: {
            auto* p = static_cast<float*>(tensor.data());
            for (size_t i = 0; i < n; ++i) p[i] = static_cast<float>(real(rng));
            break;
        }
        case element::TypeId::f64: {
            auto* p = static_cast<double*>(tensor.data());
            for (size_t i = 0; i < n; ++i) p[i] = real(rng);
            break;
        }
        case element::TypeId::f16: {
            auto* p = static_cast<float16*>(tensor.data());
            for (size_t i = 0; i < n; ++i) p[i] = float16(static_cast<float>(real(rng)));
            break;
        }
        case element::TypeId::bf16: {
            auto* p = static_cast<bfloat16*>(tensor.data());
            for (size_t i = 0; i < n; ++i) p[i] = bfloat16(static_cast<float>(real(rng)));
            break;
        }
        case element::TypeId::boolean: {
            auto* p = static_cast<uint8_t*>(tensor.data());
            for (size_t i = 0; i < n; ++i) p[i] = rng() & 1;
            break;
        }
        case element::TypeId::u8:
            ints(static_cast<uint8_t*>(tensor.data()));
            break;
        case element::TypeId::i8:
            ints(static_cast<int8_t*>(tensor.data()));
            break;
        case element::TypeId::u16:
            ints(static_cast<uint16_t*>(tensor.data()));
            break;
        case element::TypeId::i16:
            ints(static_cast<int16_t*>(tensor.data()));
            break;
        case element::TypeId::u32:
            ints(static_cast<uint32_t*>(tensor.data()));
            break;
        case element::TypeId::i32:
            ints(static_cast<int32_t*>(tensor.data()));
            break;
        case element::TypeId::u64:
            ints(static_cast<uint64_t*>(tensor.data()));
            break;
        case element::TypeId::i64:
            ints(static_cast<int64_t*>(tensor.data()));
            break;
        default:
            throw_error<NotImplemented>("cannot fill a tensor of element type ",
                                        tensor.get_element_type());
    }
}

std::string format_values(const Tensor& tensor, size_t count) {
    std::ostringstream out;
    const size_t n = std::min(count, tensor.get_size());
    const Tensor t = tensor.is_continuous() ? tensor : tensor.clone();
    for (size_t i = 0; i < n; ++i) {
        if (i) out << ", ";
        switch (t.get_element_type().id()) {
            case element::TypeId::f32:
                out << static_cast<const float*>(t.data())[i];
                break;
            case element::TypeId::f64:
                out << static_cast<const double*>(t.data())[i];
                break;
            case element::TypeId::f16:
                out << static_cast<float>(static_cast<const float16*>(t.data())[i]);
                break;
            case element::TypeId::bf16:
                out << static_cast<float>(static_cast<const bfloat16*>(t.data())[i]);
                break;
            case element::TypeId::boolean:
            case element::TypeId::u8:
                out << int(static_cast<const uint8_t*>(t.data())[i]);
                break;
            case element::TypeId::i8:
                out << int(static_cast<const int8_t*>(t.data())[i]);
                break;
            case element::TypeId::u16:
                out << static_cast<const uint16_t*>(t.data())[i];
                break;
            case element::TypeId::i16:
                out << static_cast<const int16_t*>(t.data())[i];
                break;
            case element::TypeId::u32:
                out << static_cast<const uint32_t*>(t.data())[i];
                break;
            case element::TypeId::i32:
                out << static_cast<const int32_t*>(t.data())[i];
                break;
            case element::TypeId::u64:
                out << static_cast<const uint64_t*>(t.data())[i];
                break;
            case element::TypeId::i64:
                out << static_cast<const int64_t*>(t.data())[i];
                break;
            default:
                out << "?";
                break;
        }
    }
    if (tensor.get_size() > n) out << " ...";
    return out.str();
}

int run_main(int (*body)(int, char**), int argc, char** argv) {
    try {
        return body(argc, argv);
    } catch (const std::exception& e) {
        std::string message = e.what();
        for (char& c : message)
            if (c == '\n') c = ' ';
        std::fprintf(stderr, "[ ERROR ] %s\n", message.c_str());
    } catch (...) {
        std::fprintf(stderr, "[ ERROR ] unknown exception\n");
    }
    return 1;
}

bool show_help_if_asked(int argc, char** argv, const char* flags_file) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "-h" || arg == "-help" || arg == "--help" || arg == "--h") {
            gflags::ShowUsageWithFlagsRestrict(argv[0], flags_file);
            return true;
        }
    }
    return false;
}

std::string repeated_flag_values(int argc, char** argv, const std::string& name) {
    std::string joined;
    auto add = [&](const std::string& value) { joined += (joined.empty() ? "" : ",") + value; };
    for (int k = 1; k < argc; ++k) {
        const std::string arg = argv[k];
        if (arg == "--") break;
        const size_t dashes = arg.rfind("--", 0) == 0 ? 2 : arg.rfind('-', 0) == 0 ? 1 : 0;
        if (dashes == 0) continue;
        const std::string flag = arg.substr(dashes);
        if (flag == name && k + 1 < argc)
            add(argv[++k]);
        else if (flag.rfind(name + "=", 0) == 0)
            add(flag.substr(name.size() + 1));
    }
    return joined;
}

}  // namespace vireo::samples
