// Implements the ONNX test helpers.
#include "onnx_test_util.hpp"

#include <unistd.h>

#include <cstring>
#include <fstream>
#include <random>

namespace vireo::test {

OnnxBuilder::OnnxBuilder(int64_t opset) {
    m_model.set_ir_version(8);
    m_model.set_producer_name("vireo-tests");
    auto* op = m_model.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    m_model.mutable_graph()->set_name("test");
}

static void set_type(onnx::ValueInfoProto* v, const std::string& name, int32_t type,
                     const std::vector<int64_t>& dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    auto* shape = t->mutable_shape();
    for (int64_t d : dims) {
        if (d < 0)
            shape->add_dim()->set_dim_param("N");
        else
            shape->add_dim()->set_dim_value(d);
    }
}

OnnxBuilder& OnnxBuilder::input(const std::string& name, int32_t type,
                                const std::vector<int64_t>& dims) {
    set_type(m_model.mutable_graph()->add_input(), name, type, dims);
    return *this;
}

OnnxBuilder& OnnxBuilder::output(const std::string& name, int32_t type,
                                 const std::vector<int64_t>& dims) {
    set_type(m_model.mutable_graph()->add_output(), name, type, dims);
    return *this;
}

onnx::NodeProto& OnnxBuilder::node(const std::string& op, const std::vector<std::string>& inputs,
                                   const std::vector<std::string>& outputs,
                                   const std::string& name) {
    auto* n = m_model.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return *n;
}

onnx::TensorProto& OnnxBuilder::initializer(const std::string& name,
                                            const std::vector<int64_t>& dims,
                                            const std::vector<float>& values) {
    auto* t = m_model.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    t->set_raw_data(
        std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
    return *t;
}

std::string OnnxBuilder::bytes() const {
    return m_model.SerializeAsString();
}

void OnnxBuilder::write(const std::filesystem::path& path) const {
    std::ofstream out(path, std::ios::binary);
    out << bytes();
}

TempDir::TempDir() {
    std::random_device rd;
    m_path = std::filesystem::temp_directory_path() /
             ("vireo_onnx_test_" + std::to_string(::getpid()) + "_" + std::to_string(rd()));
    std::filesystem::create_directories(m_path);
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
}

namespace {

onnx::AttributeProto& add_attribute(onnx::NodeProto& node, const std::string& name,
                                    onnx::AttributeProto::AttributeType type) {
    auto* a = node.add_attribute();
    a->set_name(name);
    a->set_type(type);
    return *a;
}

}  // namespace

void int_attribute(onnx::NodeProto& node, const std::string& name, int64_t value) {
    add_attribute(node, name, onnx::AttributeProto::INT).set_i(value);
}

void float_attribute(onnx::NodeProto& node, const std::string& name, float value) {
    add_attribute(node, name, onnx::AttributeProto::FLOAT).set_f(value);
}

void string_attribute(onnx::NodeProto& node, const std::string& name, const std::string& value) {
    add_attribute(node, name, onnx::AttributeProto::STRING).set_s(value);
}

void ints_attribute(onnx::NodeProto& node, const std::string& name,
                    const std::vector<int64_t>& values) {
    auto& a = add_attribute(node, name, onnx::AttributeProto::INTS);
    for (int64_t v : values) a.add_ints(v);
}

}  // namespace vireo::test
