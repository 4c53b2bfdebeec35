// Tests the Reduce* kernels: every op over every axis subset of a rank-3 tensor (negative axes,
// keep_dims), every numeric type, integer wrap and mean truncation, empty axes and empty inputs.
#include "math_test_util.hpp"

namespace vireo::reference::test {
namespace {

enum class Kind { kSum, kMean, kProd, kMax, kMin, kL1, kL2 };

const std::vector<std::pair<std::string, Kind>> kOps{
    {"ReduceSum", Kind::kSum}, {"ReduceMean", Kind::kMean}, {"ReduceProd", Kind::kProd},
    {"ReduceMax", Kind::kMax}, {"ReduceMin", Kind::kMin},   {"ReduceL1", Kind::kL1},
    {"ReduceL2", Kind::kL2},
};

/// The reduction by brute force: for every output coordinate, visit every input element and keep
/// those whose non-reduced coordinates match.
std::vector<double> expected_reduce(const std::vector<double>& x, const Shape& shape,
                                    const std::vector<bool>& mask, Kind kind) {
    Shape out_shape = shape;
    for (size_t i = 0; i < shape.size(); ++i)
        if (mask[i]) out_shape[i] = 1;
    const size_t n_out = shape_size(out_shape);
    std::vector<double> out;
    for (size_t o = 0; o < n_out; ++o) {
        // Coordinates of output element o.
        std::vector<size_t> oc(shape.size());
        for (size_t i = shape.size(), r = o; i-- > 0;) oc[i] = r % out_shape[i], r /= out_shape[i];
        std::vector<double> group;
        for (size_t e = 0; e < x.size(); ++e) {
            bool match = true;
            for (size_t i = shape.size(), r = e; i-- > 0;) {
                const size_t c = r % shape[i];
                r /= shape[i];
                if (!mask[i] && c != oc[i]) match = false;
            }
            if (match) group.push_back(x[e]);
        }
        double acc = 0;
        switch (kind) {
            case Kind::kSum:
                for (double v : group) acc += v;
                break;
            case Kind::kMean:
                for (double v : group) acc += v / static_cast<double>(group.size());
                break;
            case Kind::kProd:
                acc = 1;
                for (double v : group) acc *= v;
                break;
            case Kind::kMax:
                acc = -INFINITY;
                for (double v : group) acc = std::max(acc, v);
                break;
            case Kind::kMin:
                acc = INFINITY;
                for (double v : group) acc = std::min(acc, v);
                break;
            case Kind::kL1:
                for (double v : group) acc += std::fabs(v);
                break;
            case Kind::kL2:
                for (double v : group) acc += v * v;
                acc = std::sqrt(acc);
                break;
        }
        out.push_back(acc);
    }
    return out;
}

Shape out_shape_of(const Shape& shape, const std::vector<bool>& mask, bool keep_dims) {
    Shape out;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (!mask[i])
            out.push_back(shape[i]);
        else if (keep_dims)
            out.push_back(1);
    }
    return out;
}

TEST(Reduce, EveryOpOverEveryAxisSubset) {
    const Shape shape{2, 3, 4};
    std::vector<double> x(24);
    for (size_t i = 0; i < x.size(); ++i)
        x[i] = 0.5 + 0.25 * static_cast<double>((i * 7) % 11) - 1.0;
    for (unsigned bits = 0; bits < 8; ++bits) {
        std::vector<bool> mask(3);
        std::vector<int64_t> axes;
        for (size_t a = 0; a < 3; ++a)
            if (bits & (1u << a)) {
                mask[a] = true;
                axes.push_back(a == 1 ? -2 : static_cast<int64_t>(a));  // mix in a negative axis
            }
        for (const bool keep : {false, true}) {
            for (const auto& [name, kind] : kOps) {
                const Tensor out =
                    run(name, {f32(shape, x), i64s(axes)}, {{"keep_dims", keep}}, -1, {1});
                const std::string what =
                    name + " mask " + std::to_string(bits) + (keep ? " keep" : "");
                EXPECT_EQ(out.get_shape(), out_shape_of(shape, mask, keep)) << what;
                expect_values(out, expected_reduce(x, shape, mask, kind), 1e-5, what);
            }
        }
    }
}

TEST(Reduce, AxesAsI32ScalarAndRuntimeParameter) {
    const Shape shape{3, 4};
    std::vector<double> x(12);
    for (size_t i = 0; i < 12; ++i) x[i] = static_cast<double>(i);
    const Tensor axis = make_tensor(element::i32, {}, std::vector<int64_t>{-1});
    expect_values(run("ReduceSum", {f32(shape, x), axis}, {}, -1, {1}), {6, 22, 38});
    // Axes not known at compile time: the kernel reads them per execution.
    expect_values(run("ReduceMax", {f32(shape, x), i64s({0})}), {8, 9, 10, 11});
}

TEST(Reduce, EveryNumericType) {
    const std::vector<double> x{1, 2, 3, 4, 5, 6};  // [2,3]
    for (const element::Type type : numeric_types()) {
        const Tensor t = make_tensor(type, {2, 3}, x);
        const std::string name(type.name());
        expect_values(run("ReduceSum", {t, i64s({1})}, {}, -1, {1}), {6, 15}, -1, "sum " + name);
        expect_values(run("ReduceProd", {t, i64s({1})}, {}, -1, {1}), {6, 120}, -1, "prod " + name);
        expect_values(run("ReduceMax", {t, i64s({0})}, {}, -1, {1}), {4, 5, 6}, -1, "max " + name);
        expect_values(run("ReduceMin", {t, i64s({0})}, {}, -1, {1}), {1, 2, 3}, -1, "min " + name);
        expect_values(run("ReduceL1", {t, i64s({0, 1})}, {}, -1, {1}), {21}, -1, "l1 " + name);
        // Mean: reals exact; integers truncate (5/2 -> 2, 7/2 -> 3, 9/2 -> 4).
        expect_values(
            run("ReduceMean", {t, i64s({0})}, {}, -1, {1}),
            type.is_real() ? std::vector<double>{2.5, 3.5, 4.5} : std::vector<double>{2, 3, 4}, -1,
            "mean " + name);
        // L2 of [3,4] is 5 for every type.
        expect_values(
            run("ReduceL2", {make_tensor(type, {2}, std::vector<double>{3, 4}), i64s({0})}, {}, -1,
                {1}),
            {5}, -1, "l2 " + name);
    }
}

TEST(Reduce, IntegerSumAndProdWrapLikeTheType) {
    const Tensor x = make_tensor(element::i8, {3}, std::vector<int64_t>{100, 100, 100});
    EXPECT_EQ(ints_of(run("ReduceSum", {x, i64s({0})}, {}, -1, {1})),
              (std::vector<int64_t>{44}));  // 300 - 256
    EXPECT_EQ(ints_of(run("ReduceProd", {x, i64s({0})}, {}, -1, {1})),
              (std::vector<int64_t>{64}));  // 10^6 mod 256
    // Mean of i8 sums in 64 bits first: (100 + 100 + 100) / 3 = 100, no wrap.
    EXPECT_EQ(ints_of(run("ReduceMean", {x, i64s({0})}, {}, -1, {1})), (std::vector<int64_t>{100}));
    const Tensor n = make_tensor(element::i32, {2}, std::vector<int64_t>{-7, 0});
    EXPECT_EQ(ints_of(run("ReduceMean", {n, i64s({0})}, {}, -1, {1})),
              (std::vector<int64_t>{-3}));  // toward zero
}

TEST(Reduce, MaxAndMinPropagateNaN) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const Tensor x = f32({2, 3}, {1, nan, 3, -1, -2, -3});
    expect_values(run("ReduceMax", {x, i64s({1})}, {}, -1, {1}), {nan, -1});
    expect_values(run("ReduceMin", {x, i64s({1})}, {}, -1, {1}), {nan, -3});
    expect_values(run("ReduceSum", {x, i64s({0})}, {}, -1, {1}), {0, nan, 0});
}

TEST(Reduce, EmptyAxesReduceNothing) {
    const Tensor x = f32({2, 2}, {-1, 2, -3, 4});
    const Tensor none = make_tensor(element::i64, {0}, std::vector<int64_t>{});
    expect_values(run("ReduceSum", {x, none}, {}, -1, {1}), {-1, 2, -3, 4});
    expect_values(run("ReduceMean", {x, none}, {}, -1, {1}), {-1, 2, -3, 4});
    expect_values(run("ReduceL2", {x, none}, {}, -1, {1}), {1, 2, 3, 4});
}

TEST(Reduce, ZeroLengthAxisGivesIdentities) {
    const Tensor x = make_tensor(element::f32, {2, 0}, std::vector<double>{});
    expect_values(run("ReduceSum", {x, i64s({1})}, {}, -1, {1}), {0, 0});
    expect_values(run("ReduceProd", {x, i64s({1})}, {}, -1, {1}), {1, 1});
    expect_values(run("ReduceMax", {x, i64s({1})}, {}, -1, {1}), {-INFINITY, -INFINITY});
    expect_values(run("ReduceMin", {x, i64s({1})}, {}, -1, {1}), {INFINITY, INFINITY});
    expect_values(run("ReduceMean", {x, i64s({1})}, {}, -1, {1}), {NAN, NAN});
    const Tensor xi = make_tensor(element::i32, {2, 0}, std::vector<int64_t>{});
    EXPECT_EQ(ints_of(run("ReduceMean", {xi, i64s({1})}, {}, -1, {1})),
              (std::vector<int64_t>{0, 0}));
    EXPECT_EQ(ints_of(run("ReduceMax", {xi, i64s({1})}, {}, -1, {1}))[0],
              std::numeric_limits<int32_t>::min());
}

TEST(Reduce, LogicalAndOr) {
    const Tensor b = make_tensor(element::boolean, {2, 3}, std::vector<int64_t>{1, 1, 1, 0, 1, 0});
    EXPECT_EQ(ints_of(run("ReduceLogicalAnd", {b, i64s({1})}, {}, -1, {1})),
              (std::vector<int64_t>{1, 0}));
    EXPECT_EQ(ints_of(run("ReduceLogicalOr", {b, i64s({0})}, {}, -1, {1})),
              (std::vector<int64_t>{1, 1, 1}));
}

TEST(Reduce, OutOfRangeAxisIsRejected) {
    EXPECT_THROW(run("ReduceSum", {f32({2}, {1, 2}), i64s({1})}), InvalidArgument);
}

TEST(Reduce, InnermostReductionOfALargeRow) {
    // 3 rows of 5,000: the contiguous path; integers-valued floats keep the sum exact.
    std::vector<double> x(15000);
    double s[3] = {0, 0, 0};
    for (size_t i = 0; i < x.size(); ++i) {
        x[i] = static_cast<double>(i % 13);
        s[i / 5000] += x[i];
    }
    expect_values(run("ReduceSum", {f32({3, 5000}, x), i64s({1})}, {}, -1, {1}), {s[0], s[1], s[2]},
                  0.0);
}

}  // namespace
}  // namespace vireo::reference::test
