// Implements the port lookups shared by CompiledModel and InferRequest.
#include "port_lookup.hpp"

#include "vireo/exception.hpp"

namespace vireo::runtime {

namespace {

// The tensor a port stands for: a Result's port is its input's tensor, so two Results of one
// value are the same tensor (and may share its names).
Output tensor_of(const Output& port) {
    Node* node = port.get_node();
    if (node && node->get_type_name() == "Result" && node->get_input_size() == 1)
        return node->input_value(0);
    return port;
}

}  // namespace

Output find_port_named(const OutputVector& ports, const std::string& tensor_name) {
    Output found;
    size_t found_index = 0;
    for (size_t i = 0; i < ports.size(); ++i) {
        if (!ports[i].get_names().count(tensor_name)) continue;
        if (!found) {
            found = ports[i];
            found_index = i;
        } else if (tensor_of(found) != tensor_of(ports[i])) {
            const Output a = tensor_of(found), b = tensor_of(ports[i]);
            throw_error<InvalidArgument>(
                "tensor name '", tensor_name, "' is ambiguous: ports ", found_index, " (output ",
                a.get_index(), " of ", a.get_node()->describe(), ") and ", i, " (output ",
                b.get_index(), " of ", b.get_node()->describe(), ") both carry it");
        }
    }
    return found;
}

std::string describe_ports(const OutputVector& ports) {
    std::string out;
    for (size_t i = 0; i < ports.size(); ++i) {
        std::string names;
        for (const auto& name : ports[i].get_names())
            names += (names.empty() ? "'" : "', '") + name;
        out += (i ? "; " : "") + std::to_string(i) + ": " +
               (names.empty() ? "(no names)" : names + "'");
    }
    return out.empty() ? "none" : out;
}

Output port_named(const OutputVector& ports, const std::string& tensor_name, const char* kind) {
    Output port = find_port_named(ports, tensor_name);
    if (!port)
        throw_error<NotFound>("no ", kind, " with tensor name '", tensor_name, "'; the ", kind,
                              "s are ", describe_ports(ports));
    return port;
}

const Output& port_at(const OutputVector& ports, size_t index, const char* kind) {
    if (index >= ports.size())
        throw_error<InvalidArgument>(kind, " index ", index, " is out of range: the model has ",
                                     ports.size(), " ", kind, ports.size() == 1 ? "" : "s");
    return ports[index];
}

const Output& single_port(const OutputVector& ports, const char* kind) {
    if (ports.size() != 1)
        throw_error<InvalidArgument>("the model has ", ports.size(), " ", kind, "s, so the ", kind,
                                     " must be named or indexed; the ", kind, "s are ",
                                     describe_ports(ports));
    return ports[0];
}

}  // namespace vireo::runtime
