// Implements the helpers of vireo/exception.hpp.
#include "vireo/exception.hpp"

namespace vireo {

const char* to_string(ErrorKind kind) {
    switch (kind) {
        case ErrorKind::kGeneral:
            return "general error";
        case ErrorKind::kNotFound:
            return "not found";
        case ErrorKind::kInvalidArgument:
            return "invalid argument";
        case ErrorKind::kNotImplemented:
            return "not implemented";
        case ErrorKind::kBusy:
            return "busy";
        case ErrorKind::kCancelled:
            return "cancelled";
        case ErrorKind::kUnavailable:
            return "unavailable";
    }
    return "unknown";
}

void rethrow_with_context(std::exception_ptr error, const std::string& context) {
    try {
        std::rethrow_exception(error);
    } catch (const Exception& e) {
        // A plugin that already named itself ("TEMPLATE: ...") is not named twice.
        const std::string what = e.what();
        const std::string message =
            what.rfind(context + ": ", 0) == 0 ? what : context + ": " + what;
        switch (e.kind()) {
            case ErrorKind::kNotFound:
                throw NotFound(message);
            case ErrorKind::kInvalidArgument:
                throw InvalidArgument(message);
            case ErrorKind::kNotImplemented:
                throw NotImplemented(message);
            case ErrorKind::kBusy:
                throw Busy(message);
            case ErrorKind::kCancelled:
                throw Cancelled(message);
            case ErrorKind::kUnavailable:
                throw Unavailable(message);
            case ErrorKind::kGeneral:
                break;
        }
        throw Exception(message);
    } catch (const std::exception& e) {
        throw Exception(context + ": " + e.what());
    } catch (...) {
        throw Exception(context + ": unknown exception");
    }
}

}  // namespace vireo
