// Declares the REMOTE device's own property keys (plugins/remote/README.md describes them).
#pragma once

#include <cstdint>
#include <string>

#include "vireo/properties.hpp"

namespace vireo::remote {

/// The server of an instance: "host:port" or "grpcs://host:port" (TLS). Per instance; the
/// environment variable VIREO_REMOTE_URLS=host:port,host:port sets instance N to the N-th one.
inline constexpr Property<std::string> url{"REMOTE_URL"};
/// Path of the PEM file of the CA that signed the server's certificate (grpcs:// only; empty:
/// the system's roots).
inline constexpr Property<std::string> tls_ca{"REMOTE_TLS_CA"};
/// Paths of the PEM files of the client's certificate (chain) and its private key, presented to a
/// server that requires mutual TLS (grpcs:// only). Both or neither: set them in one set_property
/// call (or one compile_model); a set that would leave one without the other is InvalidArgument.
inline constexpr Property<std::string> tls_cert{"REMOTE_TLS_CERT"};
inline constexpr Property<std::string> tls_key{"REMOTE_TLS_KEY"};
/// Use this model of the server's repository instead of loading the compiled model (its metadata
/// is checked against the model's inputs and outputs). Empty (default): load the model.
inline constexpr Property<std::string> model_name{"REMOTE_MODEL_NAME"};
/// The version of REMOTE_MODEL_NAME (empty: the server's choice).
inline constexpr Property<std::string> model_version{"REMOTE_MODEL_VERSION"};
/// The deadline of each call to the server in milliseconds (0: none; default 0 for inference).
inline constexpr Property<uint32_t> timeout_ms{"REMOTE_TIMEOUT_MS"};
/// How many times an inference that failed with UNAVAILABLE is sent again (with exponential
/// backoff from 50 ms); 0 (default): never.
inline constexpr Property<uint32_t> retries{"REMOTE_RETRIES"};
/// Unload a model this plugin loaded when its compiled model is released (default false: the
/// model stays for other clients sharing it).
inline constexpr Property<bool> unload_on_release{"REMOTE_UNLOAD_ON_RELEASE"};
/// The server-side device a loaded model runs on (the "target_device" of the load's config;
/// empty: the server's default).
inline constexpr Property<std::string> server_device{"REMOTE_SERVER_DEVICE"};
/// What a loaded model is sent as. To compile_model / set_property: "AUTO" (default: the ONNX
/// file the model was read from, when the model is still exactly what that file reads as and has
/// no external data; else IR v11) or "IR" (always IR v11). Read from a compiled model: what was
/// sent, "ONNX" or "IR" (empty when REMOTE_MODEL_NAME named a model of the server's repository).
inline constexpr Property<std::string> model_format{"REMOTE_MODEL_FORMAT"};

}  // namespace vireo::remote
