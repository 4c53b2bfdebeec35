// Declares vireo::Exception and its kinds: the only errors Vireo's API throws.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace vireo {

/// Which kind of error happened. Pick the kind by what the *caller* can do about it:
/// - kNotFound: a named thing does not exist (tensor name, device, file, property key).
/// - kInvalidArgument: the caller passed something malformed or inconsistent (bad shape,
///   wrong element type, malformed IR, a property value of the wrong type).
/// - kNotImplemented: the operation is valid but this plugin or build does not do it.
/// - kBusy: the object is in use (an infer request that is running); retry later.
/// - kCancelled: the operation was cancelled by the user.
/// - kUnavailable: a device or resource failed or cannot be reached right now.
/// - kGeneral: anything else (internal invariants, errors from a plugin without a kind).
enum class ErrorKind {
    kGeneral,
    kNotFound,
    kInvalidArgument,
    kNotImplemented,
    kBusy,
    kCancelled,
    kUnavailable
};

const char* to_string(ErrorKind kind);

/// Base of every exception Vireo throws. The message names the thing at fault and what was
/// expected versus found. Thread-safe to copy; carries no references to runtime objects.
class Exception : public std::runtime_error {
  public:
    explicit Exception(const std::string& message, ErrorKind kind = ErrorKind::kGeneral)
        : std::runtime_error(message), m_kind(kind) {}
    ErrorKind kind() const noexcept { return m_kind; }

  private:
    ErrorKind m_kind;
};

#define VIREO_DECLARE_EXCEPTION(Name, Kind)                                     \
    class Name : public Exception {                                             \
      public:                                                                   \
        explicit Name(const std::string& message) : Exception(message, Kind) {} \
    }

VIREO_DECLARE_EXCEPTION(NotFound, ErrorKind::kNotFound);
VIREO_DECLARE_EXCEPTION(InvalidArgument, ErrorKind::kInvalidArgument);
VIREO_DECLARE_EXCEPTION(NotImplemented, ErrorKind::kNotImplemented);
VIREO_DECLARE_EXCEPTION(Busy, ErrorKind::kBusy);
VIREO_DECLARE_EXCEPTION(Cancelled, ErrorKind::kCancelled);
VIREO_DECLARE_EXCEPTION(Unavailable, ErrorKind::kUnavailable);
#undef VIREO_DECLARE_EXCEPTION

namespace detail {
template <typename... Args>
std::string concat(Args&&... args) {
    std::ostringstream out;
    (out << ... << std::forward<Args>(args));
    return out.str();
}
}  // namespace detail

/// Throws E with the streamed concatenation of args: `throw_error<NotFound>("no tensor '", n,
/// "'")`.
template <typename E = Exception, typename... Args>
[[noreturn]] void throw_error(Args&&... args) {
    throw E(detail::concat(std::forward<Args>(args)...));
}

/// Rethrows the exception in `error` as a vireo::Exception of the same kind, with `context`
/// prepended to the message. Foreign exceptions become kGeneral. Used where plugin calls are
/// guarded.
[[noreturn]] void rethrow_with_context(std::exception_ptr error, const std::string& context);

}  // namespace vireo

/// Checks a condition; on failure throws `kind` (an Exception subclass) with the streamed message.
#define VIREO_CHECK(cond, kind, ...)                          \
    do {                                                      \
        if (!(cond)) ::vireo::throw_error<kind>(__VA_ARGS__); \
    } while (0)
