// Declares typed property keys (Property<T>) and the standard keys every device understands.
#pragma once

#include <cstdint>
#include <istream>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "vireo/any.hpp"
#include "vireo/element_type.hpp"

namespace vireo {

enum class PropertyMutability { RO, RW };

/// A property name with its mutability, as `supported_properties` lists them.
class PropertyName : public std::string {
  public:
    PropertyName(const std::string& name = {},
                 PropertyMutability mutability = PropertyMutability::RW)  // NOLINT
        : std::string(name), m_mutability(mutability) {}
    PropertyName(const char* name,
                 PropertyMutability mutability = PropertyMutability::RW)  // NOLINT
        : std::string(name), m_mutability(mutability) {}
    bool is_mutable() const { return m_mutability == PropertyMutability::RW; }
    PropertyMutability mutability() const { return m_mutability; }

  private:
    PropertyMutability m_mutability;
};

/// A typed key. `key(value)` makes a {name, Any} pair for an AnyMap, so calls read
///     core.compile_model(model, "TEMPLATE", {enable_profiling(true), num_streams(2)});
///     bool on = compiled.get_property(enable_profiling);
template <typename T, PropertyMutability M = PropertyMutability::RW>
class Property {
  public:
    using value_type = T;
    constexpr explicit Property(const char* name) : m_name(name) {}
    constexpr const char* name() const { return m_name; }
    operator PropertyName() const { return PropertyName(m_name, M); }  // NOLINT
    operator std::string() const { return m_name; }                    // NOLINT
    template <typename... Args, PropertyMutability MM = M,
              typename = std::enable_if_t<MM == PropertyMutability::RW>>
    std::pair<std::string, Any> operator()(Args&&... args) const {
        return {m_name, Any(T(std::forward<Args>(args)...))};
    }

  private:
    const char* m_name;
};

template <typename T, PropertyMutability M>
bool operator==(const std::string& a, const Property<T, M>& b) {
    return a == b.name();
}

// ---- Standard keys (each plugin may add its own, with its own prefix) ----

/// Every property the object answers, with mutability.
inline constexpr Property<std::vector<PropertyName>, PropertyMutability::RO> supported_properties{
    "SUPPORTED_PROPERTIES"};
/// Instance ids a plugin serves ("0", "1"); the core lists "NAME.id" for each.
inline constexpr Property<std::vector<std::string>, PropertyMutability::RO> available_devices{
    "AVAILABLE_DEVICES"};
/// Directory for the model cache; empty disables caching.
inline constexpr Property<std::string> cache_dir{"CACHE_DIR"};
/// Core property, default true: Core::read_model maps the .bin (no copy; the file must then not
/// be truncated or rewritten in place while the model lives, see docs/ir.md). false reads the
/// .bin into memory the model owns, so later changes to the file cannot affect it.
inline constexpr Property<bool> enable_mmap{"ENABLE_MMAP"};
/// Collect per-op and per-stage timings for get_profiling_info().
inline constexpr Property<bool> enable_profiling{"PERF_COUNT"};
/// Number of parallel execution streams; 0 lets the performance hint decide.
inline constexpr Property<int32_t> num_streams{"NUM_STREAMS"};
/// Threads used for inference; 0 means all cores.
inline constexpr Property<int32_t> inference_num_threads{"INFERENCE_NUM_THREADS"};
/// How many requests the compiled model suggests running in parallel.
inline constexpr Property<uint32_t, PropertyMutability::RO> optimal_number_of_infer_requests{
    "OPTIMAL_NUMBER_OF_INFER_REQUESTS"};
inline constexpr Property<std::string, PropertyMutability::RO> model_name{"NETWORK_NAME"};
/// Devices the compiled model runs on ("TEMPLATE", "MOCK_REMOTE.1").
inline constexpr Property<std::vector<std::string>, PropertyMutability::RO> execution_devices{
    "EXECUTION_DEVICES"};
/// True when the compiled model came from the model cache.
inline constexpr Property<bool, PropertyMutability::RO> loaded_from_cache{"LOADED_FROM_CACHE"};

namespace device {
/// Instance id ("0", "1"); the core sets it from "NAME.N".
inline constexpr Property<std::string> id{"DEVICE_ID"};
inline constexpr Property<std::string, PropertyMutability::RO> full_name{"FULL_DEVICE_NAME"};
/// What the device can do; see the capability names below.
inline constexpr Property<std::vector<std::string>, PropertyMutability::RO> capabilities{
    "OPTIMIZATION_CAPABILITIES"};
/// Meta-devices (HETERO, AUTO, MULTI, BATCH): the devices to use, most preferred first, as a
/// comma-separated list ("MOCK_REMOTE.1,TEMPLATE"). "HETERO:A,B" is shorthand for device
/// "HETERO" with this property set to "A,B" (docs/plugins.md, "Device-name grammar").
inline constexpr Property<std::string> priorities{"MULTI_DEVICE_PRIORITIES"};
/// Meta-devices: settings for each listed device, {device name -> {key -> value}}; a meta-device
/// passes each device its own map when it compiles on it. As text: "{TEMPLATE:{PERF_COUNT:YES},
/// MOCK_REMOTE.1:{...}}".
inline constexpr Property<AnyMap> properties{"DEVICE_PROPERTIES"};
/// What kind of device this is (read-only, plugin-wide). DISCRETE and INTEGRATED are OpenVINO's
/// (an accelerator with its own memory, one sharing the host's); the rest are Vireo's. Plain
/// "AUTO" / "MULTI" with no device list choose only among DISCRETE, INTEGRATED and HOST devices,
/// then REFERENCE ones as a last resort; a SIMULATED device, or one that does not declare this
/// key, runs only where it is named (docs/virtual_devices.md, "Which devices plain AUTO uses").
enum class Type {
    DISCRETE,    ///< a hardware accelerator with memory of its own
    INTEGRATED,  ///< a hardware accelerator sharing the host's memory
    HOST,        ///< the host's own processors (CPU)
    REFERENCE,   ///< a software reference interpreter: exact but slow (TEMPLATE)
    SIMULATED,   ///< a simulation or a test device (MOCK_REMOTE, test plugins): no real hardware
};
std::ostream& operator<<(std::ostream& out, Type type);
std::istream& operator>>(std::istream& in, Type& type);
inline constexpr Property<Type, PropertyMutability::RO> type{"DEVICE_TYPE"};
/// BATCH: the batch size "BATCH:A(4)" names (0 or absent: the device's own choice).
inline constexpr Property<uint32_t> batch_size{"AUTO_BATCH_SIZE"};
namespace capability {
inline constexpr const char* kFP32 = "FP32";
inline constexpr const char* kFP16 = "FP16";
inline constexpr const char* kExportImport = "EXPORT_IMPORT";
inline constexpr const char* kDynamicShapes = "DYNAMIC_SHAPES";
inline constexpr const char* kStates = "STATES";
inline constexpr const char* kRemoteTensors = "REMOTE_TENSORS";
inline constexpr const char* kProfiling = "PROFILING";
}  // namespace capability
}  // namespace device

namespace hint {
enum class PerformanceMode { LATENCY, THROUGHPUT, CUMULATIVE_THROUGHPUT };
std::ostream& operator<<(std::ostream& out, PerformanceMode mode);
std::istream& operator>>(std::istream& in, PerformanceMode& mode);
inline constexpr Property<PerformanceMode> performance_mode{"PERFORMANCE_HINT"};
/// Upper bound on requests the application will run at once (0 = no limit).
inline constexpr Property<uint32_t> num_requests{"PERFORMANCE_HINT_NUM_REQUESTS"};
/// The precision a device may compute in (OpenVINO's INFERENCE_PRECISION_HINT): element::f32
/// (exact as the model says) or a lower one such as element::bf16, traded for speed where the
/// hardware has it. A device that lacks it computes in f32 and reports f32 on its compiled model.
inline constexpr Property<element::Type> inference_precision{"INFERENCE_PRECISION_HINT"};
/// Core key (never reaches a plugin): when a device cannot run every op of a model,
/// compile_model on it runs the model through HETERO instead, with the CPU device (or TEMPLATE)
/// as the fallback for the ops it lacks; EXECUTION_DEVICES then names both and an INFO log line
/// names the ops that moved. Per call, per device (set_property("NAME", ...) or a plugins.xml
/// default), default false (docs/heterogeneous.md, "Automatic fallback").
inline constexpr Property<bool> allow_fallback{"ALLOW_FALLBACK"};
}  // namespace hint

namespace log {
enum class Level { NO, ERR, WARNING, INFO, DEBUG, TRACE };
std::ostream& operator<<(std::ostream& out, Level level);
std::istream& operator>>(std::istream& in, Level& level);
/// LOG_LEVEL: LOG_NONE, LOG_ERROR, LOG_WARNING (default), LOG_INFO, LOG_DEBUG, LOG_TRACE, or
/// the number OpenVINO's ov::log::Level gives each: -1 (none), 0 (error), 1 (warning), 2 (info),
/// 3 (debug), 4 (trace).
inline constexpr Property<Level> level{"LOG_LEVEL"};
}  // namespace log

template <>
inline const char* type_name<log::Level>() {
    return "log level";
}
template <>
inline const char* type_name<hint::PerformanceMode>() {
    return "performance mode";
}
template <>
inline const char* type_name<device::Type>() {
    return "device type";
}

/// Finds `key` in `properties` and returns it as T, or `fallback` if absent. Throws
/// InvalidArgument naming the key when the value does not convert.
template <typename T>
T get_or(const AnyMap& properties, const std::string& key, const T& fallback) {
    auto it = properties.find(key);
    if (it == properties.end()) return fallback;
    try {
        return it->second.as<T>();
    } catch (const Exception& e) {
        throw_error<InvalidArgument>("property ", key, ": ", e.what());
    }
}

}  // namespace vireo
