// Maps Status codes onto HTTP statuses and names.
#include "status.hpp"

namespace vireo::server {

int http_status(StatusCode code) {
    switch (code) {
        case StatusCode::kOk:
            return 200;
        case StatusCode::kInvalidArgument:
            return 400;
        case StatusCode::kNotFound:
            return 404;
        case StatusCode::kAlreadyExists:
            return 400;  // as Triton answers
        case StatusCode::kUnavailable:
            return 503;
        case StatusCode::kResourceExhausted:
            return 503;
        case StatusCode::kDeadlineExceeded:
            return 504;
        case StatusCode::kCancelled:
            return 499;  // nginx's "client closed request"
        case StatusCode::kUnimplemented:
            return 501;
        case StatusCode::kInternal:
            return 500;
    }
    return 500;
}

const char* to_string(StatusCode code) {
    switch (code) {
        case StatusCode::kOk:
            return "OK";
        case StatusCode::kInvalidArgument:
            return "INVALID_ARGUMENT";
        case StatusCode::kNotFound:
            return "NOT_FOUND";
        case StatusCode::kAlreadyExists:
            return "ALREADY_EXISTS";
        case StatusCode::kUnavailable:
            return "UNAVAILABLE";
        case StatusCode::kResourceExhausted:
            return "RESOURCE_EXHAUSTED";
        case StatusCode::kDeadlineExceeded:
            return "DEADLINE_EXCEEDED";
        case StatusCode::kCancelled:
            return "CANCELLED";
        case StatusCode::kUnimplemented:
            return "UNIMPLEMENTED";
        case StatusCode::kInternal:
            return "INTERNAL";
    }
    return "UNKNOWN";
}

}  // namespace vireo::server
