// Einsum on CPU: two-operand contractions are lowered to a MatMul between views (einsum_lowering)
// and must give TEMPLATE's values (its reference kernel sums directly); equations the lowering
// does not take (repeated labels, broadcast ellipses, one or three operands) stay on the reference
// kernel and give the same values too.
#include <gtest/gtest.h>

#include "test_utils.hpp"
#include "vireo/ops.hpp"

namespace vireo::cpu_test {
namespace {

using EinsumModel = std::shared_ptr<Model>;

EinsumModel einsum_of_inputs(const std::vector<PartialShape>& shapes, const std::string& equation) {
    ParameterVector params;
    OutputVector inputs;
    for (size_t i = 0; i < shapes.size(); ++i) {
        auto p = op::parameter(element::f32, shapes[i], "x" + std::to_string(i));
        params.push_back(p);
        inputs.push_back(p);
    }
    auto e = op::einsum(inputs, equation);
    e->set_friendly_name("einsum");
    return std::make_shared<Model>(OutputVector{e}, params, "einsum");
}

size_t einsum_rows_of_type(const EinsumModel& model, const std::string& type) {
    size_t n = 0;
    for (const auto& row : cpu_profile(model))
        if (row.node_type == type) ++n;
    return n;
}

struct EinsumCase {
    std::vector<Shape> shapes;
    std::string equation;
};

// Shapes with odd sizes (17, 33: tails of every vector width), batch axes, transposed operands,
// outer products, full contractions, labels summed in one operand only, implicit outputs and
// ellipses of equal dimensions.
const std::vector<EinsumCase> kLoweredEinsums = {
    {{Shape{2, 17, 33}, Shape{2, 9, 33}}, "bid,bjd->bij"},  // attention scores: B transposed
    {{Shape{2, 17, 9}, Shape{2, 9, 33}}, "bij,bjd->bid"},   // attention output: plain product
    {{Shape{1, 2, 3, 7, 5}, Shape{1, 2, 3, 6, 5}}, "BGHID,BGHJD->BGHIJ"},
    {{Shape{1, 2, 3, 7, 6}, Shape{1, 2, 3, 6, 5}}, "B G H I J, B G H J D -> B G H I D"},
    {{Shape{5, 7}, Shape{7, 3}}, "ij,jk->ik"},
    {{Shape{5, 7}, Shape{3, 7}}, "ij,kj->ik"},
    {{Shape{7, 5}, Shape{7, 3}}, "ji,jk->ik"},
    {{Shape{7, 5}, Shape{3, 7}}, "ji,kj->ki"},
    {{Shape{19}, Shape{23}}, "i,j->ij"},                // outer product: K empty
    {{Shape{4, 17}, Shape{4, 17}}, "bi,bi->b"},         // M and N empty
    {{Shape{6, 5}, Shape{6, 5}}, "ij,ij->"},            // everything summed: a scalar
    {{Shape{3, 4, 5}, Shape{5, 6}}, "abc,cd->dba"},     // the output transposed
    {{Shape{3, 4, 5}, Shape{4, 3, 6}}, "ijk,jil->kl"},  // both operands transposed
    {{Shape{3, 4, 5}, Shape{5, 2}}, "ijk,kl->il"},      // j summed in A alone
    {{Shape{2, 3, 4}, Shape{2, 4, 5}}, "bij,bjk"},      // implicit output: bik
    {{Shape{2, 3, 4, 5}, Shape{2, 3, 5, 6}}, "...ij,...jk->...ik"},
    {{Shape{2, 3, 4, 5}, Shape{3, 5, 6}},
     "...ij,...jk->...ik"},                          // A's ellipsis longer: its axis is M
    {{Shape{4, 5}, Shape{2, 5, 6}}, "ij,bjk->bik"},  // batch in B alone: N
};

TEST(Einsum, ContractionsRunAsMatMulAndMatchTemplate) {
    for (const auto& c : kLoweredEinsums) {
        SCOPED_TRACE(c.equation);
        std::vector<PartialShape> shapes(c.shapes.begin(), c.shapes.end());
        auto model = einsum_of_inputs(shapes, c.equation);
        expect_matches_template(model, 1e-4, 1e-5);
        EXPECT_EQ(einsum_rows_of_type(model, "Einsum"), 0u);
    }
}

TEST(Einsum, AttentionAsEinsumIsMatMulSoftmaxMatMul) {
    auto q = op::parameter(element::f32, PartialShape{2, 4, 13, 8}, "q");
    auto k = op::parameter(element::f32, PartialShape{2, 4, 11, 8}, "k");
    auto v = op::parameter(element::f32, PartialShape{2, 4, 11, 8}, "v");
    auto s = op::einsum({q, k}, "bhid,bhjd->bhij");
    auto p = op::softmax(s, -1);
    auto o = op::einsum({p, v}, "bhij,bhjd->bhid");
    auto model = std::make_shared<Model>(OutputVector{o}, ParameterVector{q, k, v}, "attention");
    expect_matches_template(model, 1e-4, 1e-5);
    EXPECT_EQ(einsum_rows_of_type(model, "Einsum"), 0u);
    EXPECT_EQ(einsum_rows_of_type(model, "MatMul"), 2u);
}

TEST(Einsum, ConstantOperandIsMatMulWeights) {
    auto x = op::parameter(element::f32, PartialShape{2, 5, 7}, "x");
    auto w = op::constant(random_tensor(Shape{3, 7}, 11));
    auto e = op::einsum({x, w}, "bij,kj->bik");
    auto model = std::make_shared<Model>(OutputVector{e}, ParameterVector{x}, "weights");
    expect_matches_template(model, 1e-4, 1e-5);
    EXPECT_EQ(einsum_rows_of_type(model, "Einsum"), 0u);
}

TEST(Einsum, EmptyTensors) {
    for (const auto& c :
         std::vector<EinsumCase>{{{Shape{0, 3, 4}, Shape{0, 4, 5}}, "bij,bjk->bik"},
                                 {{Shape{2, 3, 0}, Shape{2, 0, 5}}, "bij,bjk->bik"},
                                 {{Shape{2, 0, 4}, Shape{2, 4, 5}}, "bij,bjk->bik"}}) {
        SCOPED_TRACE(c.equation);
        std::vector<PartialShape> shapes(c.shapes.begin(), c.shapes.end());
        expect_matches_template(einsum_of_inputs(shapes, c.equation), 1e-4, 1e-5);
    }
}

TEST(Einsum, EquationsLeftToTheReferenceKernelStillMatch) {
    const std::vector<EinsumCase> cases = {
        {{Shape{4, 4}, Shape{4, 5}}, "ii,ij->j"},  // a diagonal
        {{Shape{2, 1, 4, 5}, Shape{3, 5, 6}},
         "...ij,...jk->...ik"},     // the ellipsis broadcasts 1 to 3
        {{Shape{3, 4}}, "ij->ji"},  // one operand
        {{Shape{3, 4}, Shape{4, 5}, Shape{5, 2}}, "ij,jk,kl->il"},  // three operands
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.equation);
        std::vector<PartialShape> shapes(c.shapes.begin(), c.shapes.end());
        expect_matches_template(einsum_of_inputs(shapes, c.equation), 1e-4, 1e-5);
    }
}

// A dynamic model is compiled per set of input shapes: the lowering runs on each, and a shape met
// again (or a new one) after another still gives TEMPLATE's values.
TEST(Einsum, DynamicShapesChangingBetweenInferences) {
    auto model =
        einsum_of_inputs({PartialShape{-1, -1, 8}, PartialShape{-1, -1, 8}}, "bid,bjd->bij");
    Core core = make_core();
    CompiledModel cpu = core.compile_model(model, "CPU");
    CompiledModel ref = core.compile_model(model, "TEMPLATE");
    InferRequest a = cpu.create_infer_request();
    InferRequest b = ref.create_infer_request();
    unsigned seed = 3;
    for (const auto& [batch, rows, cols] : std::vector<std::tuple<size_t, size_t, size_t>>{
             {1, 5, 7}, {3, 17, 2}, {1, 5, 7}, {2, 1, 33}}) {
        const Tensor x = random_tensor(Shape{batch, rows, 8}, seed++);
        const Tensor y = random_tensor(Shape{batch, cols, 8}, seed++);
        for (InferRequest* r : {&a, &b}) {
            r->set_input_tensor(0, x);
            r->set_input_tensor(1, y);
            r->infer();
        }
        EXPECT_TRUE(all_close(a.get_output_tensor(0), b.get_output_tensor(0), 1e-4, 1e-5))
            << batch << "x" << rows << "x" << cols;
    }
}

}  // namespace
}  // namespace vireo::cpu_test
