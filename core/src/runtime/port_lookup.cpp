// Implements the port lookups shared by CompiledModel and InferRequest.
#include "runtime/port_lookup.hpp"

#include "vireo/exception.hpp"

namespace vireo::runtime {

Output find_port_named(const OutputVector& ports, const std::string& tensor_name) {
    for (const auto& port : ports)
        if (port.get_names().count(tensor_name)) return port;
    return {};
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
