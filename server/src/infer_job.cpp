// Helpers of the scheduler shared by ModelVersion's files: durations and inference errors.
#include "infer_job.hpp"

#include "vireo/exception.hpp"

namespace vireo::server {

uint64_t micros(Clock::duration d) {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(d).count());
}

uint64_t nanos(Clock::duration d) {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

Status status_of(std::exception_ptr error, const InferJob& job) {
    try {
        std::rethrow_exception(error);
    } catch (const Exception& e) {
        switch (e.kind()) {
            case ErrorKind::kCancelled:
                if (Clock::now() >= job.deadline) {
                    return {StatusCode::kDeadlineExceeded, "inference deadline exceeded"};
                }
                return {StatusCode::kCancelled, e.what()};
            case ErrorKind::kInvalidArgument:
                return {StatusCode::kInvalidArgument, e.what()};
            case ErrorKind::kBusy:
            case ErrorKind::kUnavailable:
                return {StatusCode::kUnavailable, e.what()};
            default:
                return {StatusCode::kInternal, e.what()};
        }
    } catch (const std::exception& e) {
        return {StatusCode::kInternal, e.what()};
    } catch (...) {
        return {StatusCode::kInternal, "unknown error during inference"};
    }
}

}  // namespace vireo::server
