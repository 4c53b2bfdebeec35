// Implements the helpers of the tensor-kernel tests.
#include "tensor_test_utils.hpp"

#include <cmath>

namespace vireo::test {

std::vector<double> values_of(const Tensor& t) {
    std::vector<double> out(t.get_size());
    const void* p = t.data();
    for (size_t i = 0; i < out.size(); ++i) {
        switch (t.get_element_type().id()) {
            case element::TypeId::boolean:
            case element::TypeId::u8:
                out[i] = static_cast<const uint8_t*>(p)[i];
                break;
            case element::TypeId::i8:
                out[i] = static_cast<const int8_t*>(p)[i];
                break;
            case element::TypeId::u16:
                out[i] = static_cast<const uint16_t*>(p)[i];
                break;
            case element::TypeId::i16:
                out[i] = static_cast<const int16_t*>(p)[i];
                break;
            case element::TypeId::u32:
                out[i] = static_cast<const uint32_t*>(p)[i];
                break;
            case element::TypeId::i32:
                out[i] = static_cast<const int32_t*>(p)[i];
                break;
            case element::TypeId::u64:
                out[i] = static_cast<double>(static_cast<const uint64_t*>(p)[i]);
                break;
            case element::TypeId::i64:
                out[i] = static_cast<double>(static_cast<const int64_t*>(p)[i]);
                break;
            case element::TypeId::f16:
                out[i] = static_cast<float>(static_cast<const float16*>(p)[i]);
                break;
            case element::TypeId::bf16:
                out[i] = static_cast<float>(static_cast<const bfloat16*>(p)[i]);
                break;
            case element::TypeId::f32:
                out[i] = static_cast<const float*>(p)[i];
                break;
            case element::TypeId::f64:
                out[i] = static_cast<const double*>(p)[i];
                break;
            default:
                ADD_FAILURE() << "values_of: unsupported type " << t.get_element_type();
                return out;
        }
    }
    return out;
}

std::vector<int64_t> ints_of(const Tensor& t) {
    std::vector<int64_t> out(t.get_size());
    if (t.get_element_type() == element::i64) {
        for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<const int64_t*>(t.data())[i];
        return out;
    }
    const auto v = values_of(t);
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int64_t>(v[i]);
    return out;
}

std::vector<double> random_values(size_t n, uint32_t seed, double lo, double hi, bool integral) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> dist(lo, hi);
    std::vector<double> out(n);
    for (auto& v : out) {
        v = dist(gen);
        if (integral)
            v = std::floor(v);
        else
            v = static_cast<float>(v);  // exactly representable in f32
    }
    return out;
}

void expect_near(const std::vector<double>& actual, const std::vector<double>& expected, double tol,
                 const std::string& what) {
    ASSERT_EQ(actual.size(), expected.size()) << what;
    size_t failures = 0;
    for (size_t i = 0; i < actual.size(); ++i) {
        const double bound = tol * (1.0 + std::fabs(expected[i]));
        if (!(std::fabs(actual[i] - expected[i]) <= bound)) {
            if (++failures <= 5)
                ADD_FAILURE() << what << " element " << i << ": got " << actual[i] << ", expected "
                              << expected[i];
        }
    }
    EXPECT_EQ(failures, 0u) << what << ": " << failures << " of " << actual.size()
                            << " elements differ";
}

}  // namespace vireo::test
