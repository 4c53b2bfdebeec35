// Declares the REMOTE plugin's helpers between Vireo and the KServe v2 protocol: datatype names
// and the exception a failed gRPC call becomes.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <string>

#include "vireo/element_type.hpp"

namespace vireo::remote {

/// "FP32" for f32, ...; an empty string for a type KServe has no name for (u1, u4, i4, dynamic).
std::string datatype_of(element::Type type);

/// Throws the exception a failed call becomes, its message "<where>: <what> failed: <reason>":
/// UNAVAILABLE, RESOURCE_EXHAUSTED and DEADLINE_EXCEEDED (with `timeout` named) -> Unavailable;
/// INVALID_ARGUMENT, OUT_OF_RANGE, FAILED_PRECONDITION, NOT_FOUND -> InvalidArgument (or
/// Unavailable when `not_found_unavailable`: a model that disappeared during inference);
/// CANCELLED -> Cancelled; anything else -> Exception. `hint` (optional) ends the message.
[[noreturn]] void throw_status(const grpc::Status& status, const std::string& where,
                               const std::string& what, std::chrono::milliseconds timeout,
                               bool not_found_unavailable = false, const std::string& hint = "");

/// What to check when a call to the grpcs:// `url` failed UNAVAILABLE other than by a refused
/// connection: a TLS handshake the server refused (a client certificate it requires and did not
/// get, or did not trust) reaches the client only as "Socket closed". `client_certificate`: one
/// was presented (REMOTE_TLS_CERT). Empty for other statuses and for plaintext URLs.
std::string tls_hint(const grpc::Status& status, const std::string& url, bool client_certificate);

}  // namespace vireo::remote
