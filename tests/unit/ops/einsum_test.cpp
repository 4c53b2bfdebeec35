// Shape inference of Einsum-7: explicit and implicit outputs, repeated labels, ellipses.
#include "ops_test_utils.hpp"

namespace vireo::test {
namespace {

struct EinsumCase {
    std::vector<std::string> inputs;
    std::string equation, expected;
};

class EinsumShapes : public ::testing::TestWithParam<EinsumCase> {};

TEST_P(EinsumShapes, Infers) {
    const auto& c = GetParam();
    OutputVector inputs;
    for (const auto& s : c.inputs) inputs.push_back(param(s));
    EXPECT_EQ(shape_of(op::einsum(inputs, c.equation)), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Ops, EinsumShapes,
    ::testing::Values(
        EinsumCase{{"2,3", "3,4"}, "ij,jk->ik", "[2,4]"},
        EinsumCase{{"2,3", "3,4"}, "ij,jk", "[2,4]"},
        EinsumCase{{"2,3", "3,4"}, "ij, jk -> ki", "[4,2]"}, EinsumCase{{"3,3"}, "ii->i", "[3]"},
        EinsumCase{{"3,3"}, "ii", "[]"}, EinsumCase{{"5,2,3", "5,3,4"}, "bij,bjk->bik", "[5,2,4]"},
        EinsumCase{{"7,1,2,3", "5,3,4"}, "...ij,...jk->...ik", "[7,5,2,4]"},
        EinsumCase{{"4,2,3"}, "...ij", "[4,2,3]"}, EinsumCase{{"2,3,4"}, "abc->cba", "[4,3,2]"},
        EinsumCase{{"2,3"}, "ij->", "[]"}, EinsumCase{{"?,3", "3,?"}, "ij,jk->ik", "[?,?]"},
        EinsumCase{{"2,3", "..."}, "ij,jk->ik", "[2,?]"},
        EinsumCase{{"2,3", "..."}, "ij,...k->...ik", "[...]"}));

TEST(Einsum, Errors) {
    expect_invalid(
        [] {
            op::einsum({param("2,3"), param("4,5")}, "ij,jk->ik");
        },
        {"Einsum '", "label 'j'", "3", "4"});
    expect_invalid([] { op::einsum({param("2,3")}, "ij,jk->ik"); },
                   {"Einsum '", "2 input subscripts", "1 inputs"});
    expect_invalid([] { op::einsum({param("2,3,4")}, "ij->i"); }, {"Einsum '", "[2,3,4]", "'ij'"});
    expect_invalid([] { op::einsum({param("2,3")}, "ij->iz"); }, {"Einsum '", "'z'", "no input"});
    expect_invalid([] { op::einsum({param("2,3")}, "i1->i"); }, {"Einsum '", "invalid subscript"});
    expect_invalid([] { op::einsum({param("2,3")}, "ij->ii"); },
                   {"Einsum '", "repeats output label 'i'"});
    expect_invalid(
        [] {
            op::einsum({param("2,3"), param("3", element::f16)}, "ij,j->i");
        },
        {"Einsum '", "f32", "f16"});
    expect_invalid([] { make_node("Einsum", {param("2")}); }, {"Einsum '", "equation", "missing"});
}

}  // namespace
}  // namespace vireo::test
