// Implements the REMOTE plugin's protocol helpers.
#include "protocol.hpp"

#include "vireo/exception.hpp"
#include "vireo/kserve/client.hpp"

namespace vireo::remote {

std::string datatype_of(element::Type type) {
    if (type == element::boolean) return "BOOL";
    if (type == element::u8) return "UINT8";
    if (type == element::u16) return "UINT16";
    if (type == element::u32) return "UINT32";
    if (type == element::u64) return "UINT64";
    if (type == element::i8) return "INT8";
    if (type == element::i16) return "INT16";
    if (type == element::i32) return "INT32";
    if (type == element::i64) return "INT64";
    if (type == element::f16) return "FP16";
    if (type == element::bf16) return "BF16";
    if (type == element::f32) return "FP32";
    if (type == element::f64) return "FP64";
    return "";
}

std::string tls_hint(const grpc::Status& status, const std::string& url, bool client_certificate) {
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE) return "";
    // Nobody listening: no handshake took place.
    if (status.error_message().find("Connection refused") != std::string::npos) return "";
    try {
        if (!kserve::parse_url(url).tls) return "";
    } catch (const std::invalid_argument&) {
        return "";
    }
    std::string hint =
        "over TLS this is also how a refused TLS handshake shows: check that REMOTE_TLS_CA (empty: "
        "the system's roots) signed the server's certificate";
    return hint + (client_certificate
                       ? ", and that the server trusts the CA that signed REMOTE_TLS_CERT"
                       : ", and if the server requires client certificates (mutual TLS), set "
                         "REMOTE_TLS_CERT and REMOTE_TLS_KEY");
}

void throw_status(const grpc::Status& status, const std::string& where, const std::string& what,
                  std::chrono::milliseconds timeout, bool not_found_unavailable,
                  const std::string& hint) {
    const std::string code = kserve::status_code_name(status.error_code());
    const std::string reason =
        (status.error_message().empty() ? code : code + ": " + status.error_message()) +
        (hint.empty() ? "" : "; " + hint);
    switch (status.error_code()) {
        case grpc::StatusCode::DEADLINE_EXCEEDED:
            throw_error<Unavailable>(where, ": ", what, " failed: the deadline of ",
                                     timeout.count(), " ms (REMOTE_TIMEOUT_MS) was exceeded (",
                                     reason, ")");
        case grpc::StatusCode::UNAVAILABLE:
            throw_error<Unavailable>(where, ": ", what,
                                     " failed: the server is unreachable or did not serve it (",
                                     reason, ")");
        case grpc::StatusCode::RESOURCE_EXHAUSTED:
            throw_error<Unavailable>(where, ": ", what, " failed: the server is busy (", reason,
                                     ")");
        case grpc::StatusCode::NOT_FOUND:
            if (not_found_unavailable)
                throw_error<Unavailable>(where, ": ", what,
                                         " failed: the server no longer serves the model (", reason,
                                         ")");
            [[fallthrough]];
        case grpc::StatusCode::INVALID_ARGUMENT:
        case grpc::StatusCode::OUT_OF_RANGE:
        case grpc::StatusCode::FAILED_PRECONDITION:
            throw_error<InvalidArgument>(where, ": ", what, " refused by the server (", reason,
                                         ")");
        case grpc::StatusCode::CANCELLED:
            throw_error<Cancelled>(where, ": ", what, " was cancelled (", reason, ")");
        default:
            throw_error<Exception>(where, ": ", what, " failed (", reason, ")");
    }
}

}  // namespace vireo::remote
