// Declares Model: a graph of ops with parameters, results, sinks and variables.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "vireo/node.hpp"

namespace vireo {

using ParameterVector = std::vector<NodePtr>;  // nodes of type Parameter
using ResultVector = std::vector<NodePtr>;     // nodes of type Result
using SinkVector = std::vector<NodePtr>;       // nodes of type Assign

/// A variable of a stateful model (ReadValue/Assign pairs share one by id).
struct VariableInfo {
    std::string id;
    element::Type type;
    PartialShape shape;
};

/// A model: the graph reachable from its results and sinks, plus its parameters.
///
///     auto x = op::parameter(element::f32, {1, 10}, "x");
///     auto y = op::add(x, op::constant<float>(element::f32, {1}, {1.f}));
///     auto model = std::make_shared<Model>(OutputVector{y}, ParameterVector{x}, "tiny");
///
/// Thread safety: const methods may run concurrently; changing methods may not.
class Model : public std::enable_shared_from_this<Model> {
  public:
    /// Results are made for each output in `outputs` (or taken as-is if they are Results).
    Model(const OutputVector& outputs, const ParameterVector& parameters,
          const std::string& name = "");
    Model(const ResultVector& results, const SinkVector& sinks, const ParameterVector& parameters,
          const std::string& name = "");
    /// Builds from results, sinks and parameters; validates. Throws InvalidArgument if a
    /// parameter used by the graph is missing from `parameters`.
    static std::shared_ptr<Model> make(const ResultVector& results, const SinkVector& sinks,
                                       const ParameterVector& parameters,
                                       const std::string& name = "");

    const std::string& get_name() const { return m_name; }
    void set_name(const std::string& name) { m_name = name; }

    const ParameterVector& get_parameters() const { return m_parameters; }
    const ResultVector& get_results() const { return m_results; }
    const SinkVector& get_sinks() const { return m_sinks; }

    /// Outputs of the parameters (the model's inputs), in parameter order.
    OutputVector inputs() const;
    /// Outputs of the results (the model's outputs), in result order.
    OutputVector outputs() const;
    Output input(size_t i = 0) const;
    /// The input whose tensor names include `name`; throws NotFound listing the inputs.
    Output input(const std::string& name) const;
    Output output(size_t i = 0) const;
    Output output(const std::string& name) const;

    /// Every node, each after its inputs (parameters in order first); iterative, so very deep
    /// graphs do not overflow the stack. Throws InvalidArgument if the graph has a cycle.
    NodeVector get_ordered_ops() const;

    /// Re-runs type and shape inference over the whole graph in order.
    void validate();
    /// Deep copy: new nodes with the same friendly names (default names included), constants
    /// share their (read-only) data; rt_info copied.
    std::shared_ptr<Model> clone() const;

    /// Changes input shapes and re-infers. Keys are tensor names of inputs. Throws NotFound for
    /// an unknown name and InvalidArgument if the new shapes do not fit the graph (the model is
    /// restored to its previous shapes then).
    void reshape(const std::map<std::string, PartialShape>& shapes);
    void reshape(const std::map<Output, PartialShape>& shapes);
    /// Single-input models only.
    void reshape(const PartialShape& shape);

    /// Variables of ReadValue/Assign, sorted by id.
    std::vector<VariableInfo> get_variables() const;

    void add_results(const ResultVector& results);
    void add_parameters(const ParameterVector& parameters);
    void add_sinks(const SinkVector& sinks);
    void remove_result(const NodePtr& result);
    /// Drops a parameter from the model's inputs (its node is left to whoever still holds it).
    void remove_parameter(const NodePtr& parameter);

    RTMap& get_rt_info() { return m_rt_info; }
    const RTMap& get_rt_info() const { return m_rt_info; }

    /// Keeps a plugin library (or a mapped file) alive as long as this model lives.
    void set_shared_object(std::shared_ptr<void> so) { m_so = std::move(so); }

  private:
    std::shared_ptr<void> m_so;  // first member: the library outlives the nodes
    std::string m_name;
    ParameterVector m_parameters;
    ResultVector m_results;
    SinkVector m_sinks;
    RTMap m_rt_info;
};

}  // namespace vireo
