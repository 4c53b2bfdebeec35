// Tests DFT-7/IDFT-7, Det-1 and TfIdfVectorizer-1 with hand-computed values and their errors:
// signal_size cropping and padding, an inverse round trip, pivoting and singular matrices,
// skip-grams, the three TfIdf modes, and attributes that do not describe the pool.
#include "tensor_test_utils.hpp"

namespace vireo::test {
namespace {

std::vector<Tensor> eval(const std::string& type, const std::vector<Tensor>& inputs,
                         Attrs attrs = {}, int version = -1) {
    OutputVector args;
    for (const auto& t : inputs) args.push_back(param(t.get_element_type(), t.get_shape()));
    return run(make_node(type, args, std::move(attrs), version), inputs);
}

TEST(DftKernel, TransformsOneAxisCropsPadsAndInvertsExactly) {
    // [1, 4] complex: x = 1, 2, 3, 4 (real). DFT = 10, -2+2i, -2, -2-2i.
    const auto x =
        make_tensor(element::f32, {1, 4, 2}, std::vector<double>{1, 0, 2, 0, 3, 0, 4, 0});
    const auto axis = make_tensor(element::i64, {1}, Ints{1});
    const auto y = eval("DFT", {x, axis}, {}, 7)[0];
    EXPECT_EQ(y.get_shape(), (Shape{1, 4, 2}));
    expect_near(values_of(y), {10, 0, -2, 2, -2, 0, -2, -2}, 1e-5);
    // IDFT brings it back (divided by the length).
    expect_near(values_of(eval("IDFT", {y, axis}, {}, 7)[0]), {1, 0, 2, 0, 3, 0, 4, 0}, 1e-5);
    // signal_size 2 keeps 1, 2: DFT = 3, -1. signal_size 6 pads with zeros: bin 0 is the sum.
    const auto two = make_tensor(element::i64, {1}, Ints{2});
    expect_near(values_of(eval("DFT", {x, axis, two}, {}, 7)[0]), {3, 0, -1, 0}, 1e-5);
    const auto six = make_tensor(element::i64, {1}, Ints{6});
    const auto padded = eval("DFT", {x, axis, six}, {}, 7)[0];
    EXPECT_EQ(padded.get_shape(), (Shape{1, 6, 2}));
    EXPECT_NEAR(values_of(padded)[0], 10, 1e-5);
    // Axis 0 of a [2, 1] complex signal: (1 + i, 3) -> (4 + i, -2 + i).
    const auto column = make_tensor(element::f64, {2, 1, 2}, std::vector<double>{1, 1, 3, 0});
    const auto axis0 = make_tensor(element::i64, {1}, Ints{0});
    expect_near(values_of(eval("DFT", {column, axis0}, {}, 7)[0]), {4, 1, -2, 1}, 1e-12);
}

TEST(DftKernel, RefusesABadLastAxisAndAnAxisOutOfRange) {
    auto bad_last = [] {
        OutputVector args{param(element::f32, Shape{4, 3}), param(element::i64, Shape{1})};
        make_node("DFT", args, {}, 7);
    };
    EXPECT_THROW(bad_last(), InvalidArgument);
    const auto x = make_tensor(element::f32, {4, 2}, std::vector<double>(8, 1.0));
    const auto axis = make_tensor(element::i64, {1}, Ints{1});  // the complex rank is 1
    EXPECT_THROW(eval("DFT", {x, axis}, {}, 7), InvalidArgument);
    const auto zero = make_tensor(element::i64, {1}, Ints{0});
    EXPECT_THROW(eval("DFT", {x, make_tensor(element::i64, {1}, Ints{0}), zero}, {}, 7),
                 InvalidArgument);
}

TEST(DetKernel, PivotsSignsBatchesAndSingularMatrices) {
    // [[0, 1], [1, 0]] needs a row swap: -1. [[2, 0], [0, 3]]: 6. [[1, 2], [2, 4]]: singular.
    const auto x = make_tensor(element::f32, {3, 2, 2},
                               std::vector<double>{0, 1, 1, 0, 2, 0, 0, 3, 1, 2, 2, 4});
    const auto y = eval("Det", {x}, {}, 1)[0];
    EXPECT_EQ(y.get_shape(), (Shape{3}));
    expect_near(values_of(y), {-1, 6, 0}, 1e-6);
    const auto m3 =
        make_tensor(element::f64, {3, 3}, std::vector<double>{2, -3, 1, 2, 0, -1, 1, 4, 5});
    const auto d = eval("Det", {m3}, {}, 1)[0];
    EXPECT_EQ(d.get_shape(), Shape{});
    EXPECT_NEAR(values_of(d)[0], 49, 1e-9);
    auto not_square = [] { make_node("Det", {param(element::f32, Shape{2, 3})}, {}, 1); };
    EXPECT_THROW(not_square(), InvalidArgument);
}

Attrs tfidf_attrs(const std::string& mode, int64_t min_n, int64_t max_n, int64_t skip,
                  std::vector<double> weights = {}) {
    // Pool: 1-grams 7, 8; 2-grams (7, 8), (8, 9). Output slots 0..3 in that order.
    return {{"min_gram_length", min_n},
            {"max_gram_length", max_n},
            {"max_skip_count", skip},
            {"mode", mode},
            {"ngram_counts", std::vector<int64_t>{0, 2}},
            {"ngram_indexes", std::vector<int64_t>{0, 1, 2, 3}},
            {"pool_int64s", std::vector<int64_t>{7, 8, 7, 8, 8, 9}},
            {"weights", std::move(weights)}};
}

TEST(TfIdfVectorizerKernel, CountsGramsAndSkipGramsPerRowInEveryMode) {
    // Row 0: 7 8 9 7 -> 1-grams 7 twice, 8 once; 2-grams (7,8) once, (8,9) once.
    // Row 1: 7 0 8 9 -> with skip 1 also (7, 8) from positions 0 and 2; (8, 9) adjacent.
    const auto x = make_tensor(element::i32, {2, 4}, Ints{7, 8, 9, 7, 7, 0, 8, 9});
    auto tf = eval("TfIdfVectorizer", {x}, tfidf_attrs("TF", 1, 2, 0), 1)[0];
    EXPECT_EQ(tf.get_shape(), (Shape{2, 4}));
    EXPECT_EQ(values_of(tf), (std::vector<double>{2, 1, 1, 1, 1, 1, 0, 1}));
    tf = eval("TfIdfVectorizer", {x}, tfidf_attrs("TF", 1, 2, 1), 1)[0];
    EXPECT_EQ(values_of(tf), (std::vector<double>{2, 1, 1, 1, 1, 1, 1, 1}));
    tf = eval("TfIdfVectorizer", {x}, tfidf_attrs("TF", 2, 2, 0), 1)[0];  // 2-grams only
    EXPECT_EQ(values_of(tf), (std::vector<double>{0, 0, 1, 1, 0, 0, 0, 1}));
    const std::vector<double> w{0.5, 2, 3, 4};
    auto idf = eval("TfIdfVectorizer", {x}, tfidf_attrs("IDF", 1, 2, 0, w), 1)[0];
    EXPECT_EQ(values_of(idf), (std::vector<double>{0.5, 2, 3, 4, 0.5, 2, 0, 4}));
    auto tfidf = eval("TfIdfVectorizer", {x}, tfidf_attrs("TFIDF", 1, 2, 0, w), 1)[0];
    EXPECT_EQ(values_of(tfidf), (std::vector<double>{1, 2, 3, 4, 0.5, 2, 0, 4}));
    // A 1-D X gives a 1-D output.
    const auto row = make_tensor(element::i64, {3}, Ints{8, 8, 9});
    EXPECT_EQ(values_of(eval("TfIdfVectorizer", {row}, tfidf_attrs("TF", 1, 2, 0), 1)[0]),
              (std::vector<double>{0, 2, 0, 1}));
}

TEST(TfIdfVectorizerKernel, AttributesThatDoNotDescribeThePoolAreRefusedNamingThem) {
    auto build = [](Attrs attrs) {
        make_node("TfIdfVectorizer", {param(element::i64, Shape{4})}, std::move(attrs), 1);
    };
    Attrs odd = tfidf_attrs("TF", 1, 2, 0);
    odd["pool_int64s"] = std::vector<int64_t>{7, 8, 7, 8, 8};  // 2-grams of 3 values
    try {
        build(odd);
        ADD_FAILURE() << "expected InvalidArgument";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("ngram_counts"), std::string::npos) << e.what();
    }
    Attrs few = tfidf_attrs("TF", 1, 2, 0);
    few["ngram_indexes"] = std::vector<int64_t>{0, 1};
    EXPECT_THROW(build(few), InvalidArgument);
    EXPECT_THROW(build(tfidf_attrs("TF", 2, 1, 0)), InvalidArgument);
}

}  // namespace
}  // namespace vireo::test
