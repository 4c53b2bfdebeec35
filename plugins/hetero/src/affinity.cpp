// Implements the HETERO affinity pass: manual affinity, query_model in priority order, and
// variables kept on one device.
#include "affinity.hpp"

#include <algorithm>
#include <set>

#include "vireo/exception.hpp"
#include "vireo/sdk/device_list.hpp"

namespace hetero {
using namespace vireo;

namespace {

// Ops reachable downwards from `from` (consumers), `from` included.
std::set<const Node*> descendants(
    const Node* from, const std::unordered_map<const Node*, std::vector<const Node*>>& consumers) {
    std::set<const Node*> seen{from};
    std::vector<const Node*> stack{from};
    while (!stack.empty()) {
        const Node* n = stack.back();
        stack.pop_back();
        auto it = consumers.find(n);
        if (it == consumers.end()) continue;
        for (const Node* c : it->second)
            if (seen.insert(c).second) stack.push_back(c);
    }
    return seen;
}

std::set<const Node*> ancestors(const Node* from) {
    std::set<const Node*> seen{from};
    std::vector<const Node*> stack{from};
    while (!stack.empty()) {
        const Node* n = stack.back();
        stack.pop_back();
        for (const Output& in : n->input_values())
            if (seen.insert(in.get_node()).second) stack.push_back(in.get_node());
    }
    return seen;
}

}  // namespace

bool is_placed_by_hetero(const Node& node) {
    const std::string& type = node.get_type_name();
    return type == "Parameter" || type == "Constant" || type == "Result";
}

Affinity assign_affinity(const Model& model, const std::vector<std::string>& devices,
                         const QueryFunction& query) {
    const NodeVector ops = model.get_ordered_ops();
    std::map<std::string, std::map<std::string, std::string>> answers;  // device -> its answer
    auto supports = [&](const std::string& device, const Node& node) {
        auto it = answers.find(device);
        if (it == answers.end()) it = answers.emplace(device, query(device)).first;
        return it->second.count(node.get_friendly_name()) != 0;
    };

    Affinity affinity;
    std::vector<std::string> missing;
    for (const auto& node : ops) {
        if (is_placed_by_hetero(*node)) continue;
        auto manual = node->get_rt_info().find(kAffinityKey);
        if (manual != node->get_rt_info().end()) {
            const std::string device = manual->second.to_string();
            if (std::find(devices.begin(), devices.end(), device) == devices.end())
                throw_error<InvalidArgument>("HETERO: ", node->describe(), " has affinity '",
                                             device, "', which is not one of the devices asked (",
                                             sdk::join_device_list(devices, ", "), ")");
            affinity[node.get()] = device;
            continue;
        }
        for (const auto& device : devices) {
            if (supports(device, *node)) {
                affinity[node.get()] = device;
                break;
            }
        }
        if (!affinity.count(node.get())) missing.push_back(node->describe());
    }
    if (!missing.empty())
        throw_error<NotImplemented>("HETERO: no device of ", sdk::join_device_list(devices, ", "),
                                    " runs ", missing.size() == 1 ? "op " : "ops ",
                                    sdk::join_device_list(missing, ", "));

    // Variables: every ReadValue/Assign of one id, and the ops between them, on one device.
    std::unordered_map<const Node*, std::vector<const Node*>> consumers;
    std::map<std::string, std::vector<const Node*>> by_variable;
    for (const auto& node : ops) {
        for (const Output& in : node->input_values())
            consumers[in.get_node()].push_back(node.get());
        const std::string& type = node->get_type_name();
        if ((type == "ReadValue" || type == "Assign") && node->has_attribute("variable_id"))
            by_variable[node->get_attribute<std::string>("variable_id")].push_back(node.get());
    }
    for (const auto& [variable, members] : by_variable) {
        std::set<const Node*> group(members.begin(), members.end());
        for (const Node* reader : members) {
            if (reader->get_type_name() != "ReadValue") continue;
            const std::set<const Node*> below = descendants(reader, consumers);
            for (const Node* writer : members) {
                if (writer->get_type_name() != "Assign") continue;
                for (const Node* n : ancestors(writer))
                    if (below.count(n) && !is_placed_by_hetero(*n)) group.insert(n);
            }
        }
        const Node* first_reader = members.front();
        for (const Node* m : members)
            if (m->get_type_name() == "ReadValue") {
                first_reader = m;
                break;
            }
        std::vector<std::string> candidates{affinity.at(first_reader)};
        for (const auto& d : devices)
            if (d != candidates.front()) candidates.push_back(d);
        std::string chosen;
        for (const auto& device : candidates) {
            const bool runs_all = std::all_of(group.begin(), group.end(), [&](const Node* n) {
                auto manual = n->get_rt_info().find(kAffinityKey);
                if (manual != n->get_rt_info().end()) return manual->second.to_string() == device;
                return supports(device, *n);
            });
            if (runs_all) {
                chosen = device;
                break;
            }
        }
        if (chosen.empty())
            throw_error<NotImplemented>(
                "HETERO: variable '", variable, "': no device of ",
                sdk::join_device_list(devices, ", "),
                " runs its ReadValue, its Assign and every op between "
                "them, which must share one device (the state lives there)");
        for (const Node* n : group) affinity[n] = chosen;
    }
    return affinity;
}

}  // namespace hetero
