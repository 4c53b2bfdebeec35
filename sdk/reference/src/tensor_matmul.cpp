// Implements the MatMul kernel: batched products with numpy broadcasting of batch axes,
// transposes and the 1-D rules of MatMul-1; f32 runs on the packed GEMM engine.
#include <algorithm>

#include "tensor_common.hpp"
#include "tensor_gemm.hpp"

namespace vireo::reference::tensor {
namespace {

using MatMulTypes = TypeList<element::TypeId::f16, element::TypeId::bf16, element::TypeId::f32,
                             element::TypeId::f64, element::TypeId::i8, element::TypeId::u8,
                             element::TypeId::i16, element::TypeId::u16, element::TypeId::i32,
                             element::TypeId::u32, element::TypeId::i64, element::TypeId::u64>;

// Accumulator type of the generic path: half types accumulate in float, integers in 64 bits
// (wrapping when stored back, as a product in the element type would).
template <typename T>
using Acc = std::conditional_t<std::is_integral_v<T>,
                               std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>,
                               std::conditional_t<std::is_same_v<T, double>, double, float>>;

// The geometry of one MatMul call, from the actual input shapes.
struct Geometry {
    size_t m = 0, n = 0, k = 0;
    Shape batch;                       // broadcast batch shape of the output
    std::vector<size_t> a_batch_step;  // per batch axis: matrices to skip in A (0 when broadcast)
    std::vector<size_t> b_batch_step;
    size_t batch_count = 1;
    // Strides of the (possibly transposed) operands inside one matrix, in elements.
    size_t a_row = 0, a_col = 0, b_row = 0, b_col = 0;
};

std::vector<size_t> batch_steps(const Shape& operand_batch, const Shape& out_batch) {
    // Matrices are stored back to back; a batch axis of size 1 repeats the same matrices.
    std::vector<size_t> steps(out_batch.size(), 0);
    size_t step = 1;
    for (size_t i = 0; i < operand_batch.size(); ++i) {
        const size_t axis = operand_batch.size() - 1 - i;
        const size_t out_axis = out_batch.size() - 1 - i;
        if (operand_batch[axis] != 1) steps[out_axis] = step;
        step *= operand_batch[axis];
    }
    return steps;
}

class MatMulKernel final : public Kernel {
  public:
    explicit MatMulKernel(const Node& node)
        : m_who(node.describe()),
          m_transpose_a(node.get_attribute<bool>("transpose_a")),
          m_transpose_b(node.get_attribute<bool>("transpose_b")),
          m_type(node.input_value(0).get_element_type()) {
        validate(node);
        if (runs_on_f32_engine(m_type) && is_constant_input(node, 1)) {
            const Tensor& b = node.input_value(1).get_node()->get_constant_value();
            // A product with few rows (batch-1 inference, the common case for large models)
            // streams B once per call; packing it would copy every weight at compile time and
            // keep both copies (the original often lies in a mapping of the weights file).
            // Such products read B where it lies; anything else, or a shape that may grow,
            // gets B packed once here.
            if (b.get_element_type() != element::f32 || !few_rows(node)) pack_constant_b(b);
        }
    }

    // Rows of A up to which constant weights stay unpacked. Measured with reference_kernels_bench
    // (BM_MatMul, 1024 x 1024 weights held in cache): 1 row runs as fast unpacked as packed, 2 rows
    // within about 10 %, 3 and 4 rows up to 1.7x slower, as the unpacked form reloads C for every
    // two rows of B. Weights streamed from memory (larger models) even out the difference.
    static constexpr size_t kUnpackedWeightRows = 2;

    // Whether every call multiplies at most kUnpackedWeightRows rows of A by B: A's shape is
    // static and holds that few rows outside its K axis (batch axes included, as they stack into
    // one product).
    bool few_rows(const Node& node) const {
        const PartialShape& a = node.input_value(0).get_partial_shape();
        if (!a.is_static()) return false;
        const Shape shape = a.to_shape();
        if (shape.empty()) return false;
        const size_t k_axis = shape.size() == 1 ? 0
                              : m_transpose_a   ? shape.size() - 2
                                                : shape.size() - 1;
        size_t rows = 1;
        for (size_t i = 0; i < shape.size(); ++i)
            if (i != k_axis) rows *= shape[i];
        return rows >= 1 && rows <= kUnpackedWeightRows;
    }

    // Everything the constructor refuses, without packing anything (the registry's support check).
    static void validate(const Node& node) {
        (void)node.get_attribute<bool>("transpose_a");
        (void)node.get_attribute<bool>("transpose_b");
        const element::Type type = node.input_value(0).get_element_type();
        if (!contains(MatMulTypes{}, type))
            throw_error<NotImplemented>(node.describe(), ": element type ", type,
                                        " is not supported");
        if (node.input_value(1).get_element_type() != type)
            throw_error<InvalidArgument>(node.describe(),
                                         ": inputs must have one element type, found ", type,
                                         " and ", node.input_value(1).get_element_type());
    }

    void execute(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override {
        check_arity(inputs, 2, outputs, 1, m_who);
        const Geometry g = geometry(inputs[0].get_shape(), inputs[1].get_shape());
        if (outputs[0].get_size() != g.batch_count * g.m * g.n)
            throw_error<InvalidArgument>(m_who, ": output holds ", outputs[0].get_size(),
                                         " elements, expected ", g.batch_count * g.m * g.n);
        if (runs_on_f32_engine(m_type)) {
            run_widened(inputs[0], inputs[1], outputs[0],
                        [&](const float* a, const float* b, float* c) { run_f32(g, a, b, c); });
            return;
        }
        dispatch(MatMulTypes{}, m_type, m_who.c_str(), [&](auto tag) {
            using T = decltype(tag);
            run_generic<T>(g, tensor_data<T>(inputs[0]), tensor_data<T>(inputs[1]),
                           tensor_data<T>(outputs[0]));
        });
    }

    double flops(const std::vector<Tensor>& inputs, const std::vector<Tensor>&) const override {
        const Geometry g = geometry(inputs[0].get_shape(), inputs[1].get_shape());
        return 2.0 * static_cast<double>(g.batch_count) * static_cast<double>(g.m * g.n * g.k);
    }

    size_t owned_bytes() const override { return m_packed_b.size() * sizeof(float); }

  private:
    Geometry geometry(Shape a, Shape b) const {
        if (a.empty() || b.empty())
            throw_error<InvalidArgument>(m_who, ": inputs must have rank >= 1, found shapes ", a,
                                         " and ", b);
        // 1-D rules: A becomes a row [1, K], B a column [K, 1]; transposes do not apply to them.
        bool ta = m_transpose_a, tb = m_transpose_b;
        if (a.size() == 1) {
            a.insert(a.begin(), 1);
            ta = false;
        }
        if (b.size() == 1) {
            b.push_back(1);
            tb = false;
        }
        Geometry g;
        const size_t ar = a[a.size() - 2], ac = a[a.size() - 1];
        const size_t br = b[b.size() - 2], bc = b[b.size() - 1];
        g.m = ta ? ac : ar;
        g.k = ta ? ar : ac;
        const size_t kb = tb ? bc : br;
        g.n = tb ? br : bc;
        if (g.k != kb)
            throw_error<InvalidArgument>(m_who, ": inner dimensions differ: A ", a,
                                         (ta ? " (transposed)" : ""), " has K=", g.k, ", B ", b,
                                         (tb ? " (transposed)" : ""), " has K=", kb);
        g.a_row = ta ? 1 : ac;
        g.a_col = ta ? ac : 1;
        g.b_row = tb ? 1 : bc;
        g.b_col = tb ? bc : 1;

        const Shape a_batch(a.begin(), a.end() - 2), b_batch(b.begin(), b.end() - 2);
        const size_t rank = std::max(a_batch.size(), b_batch.size());
        g.batch.assign(rank, 1);
        for (size_t i = 0; i < rank; ++i) {
            const size_t da = i < a_batch.size() ? a_batch[a_batch.size() - 1 - i] : 1;
            const size_t db = i < b_batch.size() ? b_batch[b_batch.size() - 1 - i] : 1;
            if (da != db && da != 1 && db != 1)
                throw_error<InvalidArgument>(m_who, ": batch dimensions of ", a, " and ", b,
                                             " do not broadcast");
            g.batch[rank - 1 - i] = std::max(da, db);
        }
        g.a_batch_step = batch_steps(a_batch, g.batch);
        g.b_batch_step = batch_steps(b_batch, g.batch);
        g.batch_count = shape_size(g.batch);
        return g;
    }

    // Calls f(batch, a_matrix_index, b_matrix_index) for every output matrix.
    template <typename F>
    static void for_each_batch(const Geometry& g, F&& f) {
        std::vector<size_t> index(g.batch.size(), 0);
        size_t ia = 0, ib = 0;
        for (size_t batch = 0; batch < g.batch_count; ++batch) {
            f(batch, ia, ib);
            for (size_t axis = g.batch.size(); axis-- > 0;) {
                ia += g.a_batch_step[axis];
                ib += g.b_batch_step[axis];
                if (++index[axis] < g.batch[axis]) break;
                ia -= g.a_batch_step[axis] * g.batch[axis];
                ib -= g.b_batch_step[axis] * g.batch[axis];
                index[axis] = 0;
            }
        }
    }

    void pack_constant_b(const Tensor& b) {
        Shape shape = b.get_shape();
        if (shape.empty()) return;
        bool tb = m_transpose_b;
        if (shape.size() == 1) {
            shape.push_back(1);
            tb = false;
        }
        const size_t rows = shape[shape.size() - 2], cols = shape[shape.size() - 1];
        const size_t k = tb ? cols : rows, n = tb ? rows : cols;
        const size_t count = shape_size(shape) / std::max<size_t>(rows * cols, 1);
        m_packed_k = k;
        m_packed_n = n;
        m_packed_stride = gemm::packed_b_size(k, n);
        m_packed_b.resize(m_packed_stride * count);
        std::vector<float> storage;
        const float* data = f32_view(b, storage);
        for (size_t i = 0; i < count; ++i) {
            const gemm::MatrixView view{data + i * rows * cols, k, n, tb ? 1 : cols, tb ? cols : 1};
            gemm::pack_b(view, m_packed_b.data() + i * m_packed_stride);
        }
        m_has_packed_b = true;
    }

    void run_f32(const Geometry& g, const float* a, const float* b, float* c) const {
        const size_t a_size = g.m * g.k, b_size = g.k * g.n, c_size = g.m * g.n;
        const bool use_packed = m_has_packed_b && m_packed_k == g.k && m_packed_n == g.n;
        // When every batch uses the same B and A's matrices are row-major, stack them into one
        // tall product: [batch * M, K] x [K, N].
        const bool b_shared = std::all_of(g.b_batch_step.begin(), g.b_batch_step.end(),
                                          [](size_t s) { return s == 0; });
        const bool a_dense = std::all_of(g.a_batch_step.begin(), g.a_batch_step.end(),
                                         [](size_t s) { return s != 0; }) ||
                             g.batch_count == 1;
        if (b_shared && a_dense && g.a_col == 1 && g.batch_count > 0) {
            const gemm::MatrixView av{a, g.batch_count * g.m, g.k, g.a_row, 1};
            if (use_packed) {
                gemm::multiply_packed_b(av, m_packed_b.data(), g.n, c, g.n);
            } else {
                multiply_unpacked(av, gemm::MatrixView{b, g.k, g.n, g.b_row, g.b_col}, c, g.n);
            }
            return;
        }
        for_each_batch(g, [&](size_t batch, size_t ia, size_t ib) {
            const gemm::MatrixView av{a + ia * a_size, g.m, g.k, g.a_row, g.a_col};
            if (use_packed) {
                gemm::multiply_packed_b(av, m_packed_b.data() + ib * m_packed_stride, g.n,
                                        c + batch * c_size, g.n);
            } else {
                multiply_unpacked(av, gemm::MatrixView{b + ib * b_size, g.k, g.n, g.b_row, g.b_col},
                                  c + batch * c_size, g.n);
            }
        });
    }

    // A few rows read B in place; more rows pack both operands into scratch first.
    static void multiply_unpacked(const gemm::MatrixView& a, const gemm::MatrixView& b, float* c,
                                  size_t ldc) {
        if (gemm::small_m_applies(a, b)) {
            gemm::multiply_small_m(a, b, c, ldc);
        } else {
            gemm::multiply(a, b, c, ldc);
        }
    }

    template <typename T>
    static void run_generic(const Geometry& g, const T* a, const T* b, T* c) {
        using A = Acc<T>;
        const size_t a_size = g.m * g.k, b_size = g.k * g.n, c_size = g.m * g.n;
        std::vector<A> row(g.n);
        for_each_batch(g, [&](size_t batch, size_t ia, size_t ib) {
            const T* am = a + ia * a_size;
            const T* bm = b + ib * b_size;
            T* cm = c + batch * c_size;
            for (size_t i = 0; i < g.m; ++i) {
                std::fill(row.begin(), row.end(), A{});
                for (size_t kk = 0; kk < g.k; ++kk) {
                    const A x = static_cast<A>(am[i * g.a_row + kk * g.a_col]);
                    const T* bk = bm + kk * g.b_row;
                    for (size_t j = 0; j < g.n; ++j) row[j] += x * static_cast<A>(bk[j * g.b_col]);
                }
                for (size_t j = 0; j < g.n; ++j) cm[i * g.n + j] = static_cast<T>(row[j]);
            }
        });
    }

    std::string m_who;
    bool m_transpose_a;
    bool m_transpose_b;
    element::Type m_type;
    bool m_has_packed_b = false;
    size_t m_packed_k = 0, m_packed_n = 0, m_packed_stride = 0;
    gemm::AlignedBuffer m_packed_b;
};

}  // namespace

void register_matmul_kernels(KernelRegistry& registry) {
    registry.add(
        "MatMul", [](const Node& node) { return std::make_unique<MatMulKernel>(node); },
        [](const Node& node) {
            MatMulKernel::validate(node);
            return true;
        });
}

}  // namespace vireo::reference::tensor
