// Declares Status, the transport-neutral outcome of a server operation, and its mapping onto
// gRPC status codes and HTTP status codes (KServe v2: 400 for a bad request, 404 for an unknown
// model, 503 for a full queue or a model not ready).
#pragma once

#include <string>
#include <utility>

namespace vireo::server {

/// What went wrong, with the same meaning as the gRPC code of the same name. Which to pick:
/// kInvalidArgument for anything the client can fix in its request (names the field);
/// kNotFound for an unknown model or version; kUnavailable when the model exists but is not
/// loaded or the server is shutting down; kResourceExhausted when the model's queue is full;
/// kDeadlineExceeded / kCancelled for requests that ran out of time or were abandoned;
/// kAlreadyExists for registering a name in use (a shared memory region).
enum class StatusCode {
    kOk,
    kInvalidArgument,
    kNotFound,
    kAlreadyExists,
    kUnavailable,
    kResourceExhausted,
    kDeadlineExceeded,
    kCancelled,
    kUnimplemented,
    kInternal
};

struct Status {
    StatusCode code = StatusCode::kOk;
    std::string message;

    Status() = default;
    Status(StatusCode c, std::string m) : code(c), message(std::move(m)) {}
    bool ok() const { return code == StatusCode::kOk; }
};

/// The HTTP status a REST response carries for `code`.
int http_status(StatusCode code);
/// A short name ("INVALID_ARGUMENT") for logs and metrics.
const char* to_string(StatusCode code);

}  // namespace vireo::server
