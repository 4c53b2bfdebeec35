// Implements the HETERO split: cycle-free subgraph grouping, merging, ordering and submodel
// construction with their slots.
#include "graph_splitter.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "vireo/exception.hpp"
#include "vireo/ops.hpp"

namespace hetero {
using namespace vireo;

namespace {

// Dependencies between subgraphs: deps[s] holds the subgraphs whose values s reads.
class SubgraphGraph {
  public:
    size_t add() {
        m_deps.emplace_back();
        return m_deps.size() - 1;
    }
    void add_dependency(size_t consumer, size_t producer) {
        if (consumer != producer) m_deps[consumer].insert(producer);
    }
    /// True when `to` depends on `from`, directly or through others.
    bool depends(size_t to, size_t from) const {
        std::vector<bool> seen(m_deps.size(), false);
        std::vector<size_t> stack{to};
        while (!stack.empty()) {
            const size_t s = stack.back();
            stack.pop_back();
            for (size_t d : m_deps[s]) {
                if (d == from) return true;
                if (!seen[d]) {
                    seen[d] = true;
                    stack.push_back(d);
                }
            }
        }
        return false;
    }
    const std::set<size_t>& deps(size_t s) const { return m_deps[s]; }
    size_t size() const { return m_deps.size(); }

  private:
    std::vector<std::set<size_t>> m_deps;
};

}  // namespace

std::vector<Passthrough> passthroughs_of(const Model& model) {
    const ParameterVector& parameters = model.get_parameters();
    const ResultVector& results = model.get_results();
    std::vector<Passthrough> out;
    for (size_t k = 0; k < results.size(); ++k) {
        const Node* producer = results[k]->input_value(0).get_node();
        if (producer->get_type_name() == "Parameter") {
            auto it = std::find_if(parameters.begin(), parameters.end(),
                                   [&](const NodePtr& p) { return p.get() == producer; });
            out.push_back({k, static_cast<size_t>(it - parameters.begin()), {}});
        } else if (producer->get_type_name() == "Constant") {
            out.push_back({k, std::nullopt, producer->get_constant_value()});
        }
    }
    return out;
}

SplitPlan split_model(const Model& model, const Affinity& affinity) {
    const NodeVector ops = model.get_ordered_ops();

    // 1. Group: each op joins a producer's subgraph of its device when that makes no cycle.
    std::unordered_map<const Node*, size_t> group;
    std::vector<std::string> group_device;
    SubgraphGraph graph;
    for (const auto& node : ops) {
        if (is_placed_by_hetero(*node)) continue;
        const std::string& device = affinity.at(node.get());
        std::vector<size_t> inputs;
        for (const Output& in : node->input_values()) {
            auto it = group.find(in.get_node());
            if (it != group.end() &&
                std::find(inputs.begin(), inputs.end(), it->second) == inputs.end())
                inputs.push_back(it->second);
        }
        std::optional<size_t> chosen;
        for (size_t candidate : inputs) {
            if (group_device[candidate] != device) continue;
            const bool cycle = std::any_of(inputs.begin(), inputs.end(), [&](size_t other) {
                return other != candidate && graph.depends(other, candidate);
            });
            if (!cycle) {
                chosen = candidate;
                break;
            }
        }
        if (!chosen) {
            chosen = graph.add();
            group_device.push_back(device);
        }
        group[node.get()] = *chosen;
        for (size_t producer : inputs) graph.add_dependency(*chosen, producer);
    }

    // 2. Merge subgraphs of one device when no path through a third joins them. `label` maps
    //    an original subgraph to its merged representative.
    const size_t count = graph.size();
    std::vector<size_t> label(count);
    for (size_t i = 0; i < count; ++i) label[i] = i;
    auto merged_deps = [&]() {
        std::vector<std::set<size_t>> deps(count);
        for (size_t s = 0; s < count; ++s)
            for (size_t d : graph.deps(s))
                if (label[d] != label[s]) deps[label[s]].insert(label[d]);
        return deps;
    };
    bool changed = true;
    while (changed) {
        changed = false;
        const std::vector<std::set<size_t>> deps = merged_deps();
        // reach[a][b]: b depends on a (transitively), over the merged subgraphs.
        std::vector<std::vector<bool>> reach(count, std::vector<bool>(count, false));
        for (size_t b = 0; b < count; ++b) {
            if (label[b] != b) continue;
            std::vector<size_t> stack(deps[b].begin(), deps[b].end());
            while (!stack.empty()) {
                const size_t a = stack.back();
                stack.pop_back();
                if (reach[a][b]) continue;
                reach[a][b] = true;
                stack.insert(stack.end(), deps[a].begin(), deps[a].end());
            }
        }
        for (size_t a = 0; a < count && !changed; ++a) {
            if (label[a] != a) continue;
            for (size_t b = a + 1; b < count && !changed; ++b) {
                if (label[b] != b || group_device[a] != group_device[b]) continue;
                bool through_third = false;
                for (size_t x = 0; x < count && !through_third; ++x) {
                    if (label[x] != x || x == a || x == b) continue;
                    through_third = (reach[a][x] && reach[x][b]) || (reach[b][x] && reach[x][a]);
                }
                if (through_third) continue;
                for (auto& l : label)
                    if (l == b) l = a;
                changed = true;
            }
        }
    }

    // 3. Order the merged subgraphs (Kahn; ties by first op in model order).
    std::vector<std::set<size_t>> deps = merged_deps();
    std::vector<size_t> roots;
    for (size_t s = 0; s < count; ++s)
        if (label[s] == s) roots.push_back(s);
    std::vector<size_t> order;
    std::set<size_t> placed;
    while (order.size() < roots.size()) {
        bool progress = false;
        for (size_t s : roots) {
            if (placed.count(s)) continue;
            if (std::all_of(deps[s].begin(), deps[s].end(),
                            [&](size_t d) { return placed.count(d) != 0; })) {
                order.push_back(s);
                placed.insert(s);
                progress = true;
                break;
            }
        }
        if (!progress)  // cannot happen: grouping and merging never make cycles
            throw_error<Exception>(
                "HETERO: internal error: the subgraphs of the split form a cycle");
    }

    // 4. Build one Model per subgraph, in order.
    std::unordered_map<const Node*, std::vector<const Node*>> consumers;
    for (const auto& node : ops)
        for (const Output& in : node->input_values())
            consumers[in.get_node()].push_back(node.get());
    std::map<std::pair<const Node*, size_t>, Slot> slot_of;  // value -> where it lives
    const ParameterVector& parameters = model.get_parameters();
    const ResultVector& results = model.get_results();
    for (size_t k = 0; k < parameters.size(); ++k)
        slot_of[{parameters[k].get(), 0}] = Slot{Slot::Kind::kInput, k};

    SplitPlan plan;
    plan.passthroughs = passthroughs_of(model);

    std::unordered_map<std::string, std::set<std::string>> variable_submodels;
    for (size_t s : order) {
        Submodel sub;
        sub.device = group_device[s];
        std::vector<NodePtr> members;
        for (const auto& node : ops) {
            auto it = group.find(node.get());
            if (it != group.end() && label[it->second] == s) members.push_back(node);
        }
        std::unordered_map<const Node*, NodePtr> clones;
        std::map<std::pair<const Node*, size_t>, Output> outside;  // values read from outside
        ParameterVector sub_parameters;
        auto input_for = [&](const Output& value) -> Output {
            const Node* producer = value.get_node();
            auto cloned = clones.find(producer);
            if (cloned != clones.end()) return Output(cloned->second, value.get_index());
            const std::pair<const Node*, size_t> key{producer, value.get_index()};
            auto known = outside.find(key);
            if (known != outside.end()) return known->second;
            Output made;
            if (producer->get_type_name() == "Constant") {
                made = Output(producer->clone_with_new_inputs({}), 0);
            } else {
                const Slot slot = slot_of.at(key);
                NodePtr parameter =
                    op::parameter(value.get_element_type(), value.get_partial_shape());
                if (slot.kind == Slot::Kind::kInput) {
                    parameter->set_friendly_name(producer->get_friendly_name());
                    parameter->output(0).set_names(value.get_names());
                    parameter->get_rt_info() = producer->get_rt_info();
                } else {
                    parameter->set_friendly_name(producer->get_friendly_name() + "/hetero_input_" +
                                                 std::to_string(value.get_index()));
                }
                sub_parameters.push_back(parameter);
                sub.inputs.push_back(slot);
                made = Output(parameter, 0);
            }
            outside[key] = made;
            return made;
        };
        SinkVector sinks;
        for (const auto& node : members) {
            OutputVector inputs;
            for (const Output& in : node->input_values()) inputs.push_back(input_for(in));
            NodePtr clone = node->clone_with_new_inputs(inputs);
            clones[node.get()] = clone;
            if (node->get_type_name() == "Assign") sinks.push_back(clone);
            if (node->get_type_name() == "ReadValue" || node->get_type_name() == "Assign")
                variable_submodels[node->get_attribute<std::string>("variable_id")].insert(
                    std::to_string(plan.submodels.size()));
        }
        // Results: the model's outputs this subgraph computes, then values later ones read.
        ResultVector sub_results;
        for (size_t k = 0; k < results.size(); ++k) {
            const Output& source = results[k]->input_value(0);
            auto cloned = clones.find(source.get_node());
            if (cloned == clones.end()) continue;
            NodePtr result = op::result(Output(cloned->second, source.get_index()));
            result->set_friendly_name(results[k]->get_friendly_name());
            result->get_rt_info() = results[k]->get_rt_info();
            sub_results.push_back(result);
            sub.outputs.push_back(Slot{Slot::Kind::kOutput, k});
            slot_of.emplace(std::make_pair(source.get_node(), source.get_index()),
                            Slot{Slot::Kind::kOutput, k});
        }
        for (const auto& node : members) {
            for (size_t port = 0; port < node->get_output_size(); ++port) {
                const std::pair<const Node*, size_t> key{node.get(), port};
                if (slot_of.count(key)) continue;
                bool read_later = false;
                for (const Node* c : consumers[node.get()]) {
                    auto g = group.find(c);
                    if (g == group.end() || label[g->second] == s) continue;
                    for (const Output& in : c->input_values())
                        if (in.get_node() == node.get() && in.get_index() == port)
                            read_later = true;
                }
                if (!read_later) continue;
                const Output value(clones.at(node.get()), port);
                NodePtr result = op::result(value);
                result->set_friendly_name(node->get_friendly_name() + "/hetero_output_" +
                                          std::to_string(port));
                sub_results.push_back(result);
                const Slot slot{Slot::Kind::kCut, plan.cuts.size()};
                plan.cuts.push_back(Cut{value.get_element_type(), value.get_partial_shape(),
                                        node->get_friendly_name() + ":" + std::to_string(port)});
                sub.outputs.push_back(slot);
                slot_of[key] = slot;
            }
        }
        sub.model = Model::make(
            sub_results, sinks, sub_parameters,
            model.get_name() + "/" + sub.device + "#" + std::to_string(plan.submodels.size()));
        plan.submodels.push_back(std::move(sub));
    }
    for (const auto& [variable, where] : variable_submodels)
        if (where.size() > 1)
            throw_error<NotImplemented>(
                "HETERO: variable '", variable,
                "' would be split over several submodels (ops of other devices sit between its "
                "ReadValue and Assign); pin them to one device with the 'affinity' rt_info");
    return plan;
}

std::string encode_slots(const std::vector<Slot>& slots) {
    std::string bytes;
    for (const Slot& slot : slots) {
        bytes += static_cast<char>(slot.kind);
        for (int i = 0; i < 8; ++i)
            bytes += static_cast<char>((uint64_t{slot.index} >> (8 * i)) & 0xff);
    }
    return bytes;
}

std::vector<Slot> decode_slots(const std::string& bytes, const std::string& what) {
    constexpr size_t kRecord = 9;
    if (bytes.size() % kRecord != 0)
        throw_error<InvalidArgument>("HETERO blob is damaged: ", what, " has ", bytes.size(),
                                     " bytes, not a multiple of ", kRecord);
    std::vector<Slot> slots;
    for (size_t at = 0; at < bytes.size(); at += kRecord) {
        const auto kind = static_cast<uint8_t>(bytes[at]);
        if (kind > static_cast<uint8_t>(Slot::Kind::kCut))
            throw_error<InvalidArgument>("HETERO blob is damaged: ", what, " has slot kind ",
                                         static_cast<int>(kind));
        uint64_t index = 0;
        for (int i = 7; i >= 0; --i) index = (index << 8) | static_cast<uint8_t>(bytes[at + 1 + i]);
        slots.push_back(Slot{static_cast<Slot::Kind>(kind), static_cast<size_t>(index)});
    }
    return slots;
}

}  // namespace hetero
