// Implements BATCH's Plugin: the device and N from the properties, the batched copy of the
// model, and both compiles through the core.
#include "plugin.hpp"

#include <algorithm>
#include <mutex>

#include "batcher.hpp"
#include "compiled_model.hpp"
#include "vireo/batch/properties.hpp"
#include "vireo/log.hpp"
#include "vireo/sdk/cpu_streams_executor.hpp"
#include "vireo/sdk/icore.hpp"
#include "vireo/sdk/plugin_entry.hpp"

#ifndef VIREO_PLUGIN_VERSION
#define VIREO_PLUGIN_VERSION "0.0.0"
#endif

namespace batch_plugin {
using namespace vireo;

namespace {

constexpr uint32_t kDefaultBatch = 4;

// One glog line at a time from this module: glog's time formatting (localtime_r -> tzset) keeps
// global state under a libc lock ThreadSanitizer cannot see (see plugins/auto/src/log.hpp).
void log_warning(const std::string& line) {
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    VIREO_LOG(WARNING) << line;
}

// Every input and output must be static with batch 1 on dim 0 (the batch axis BATCH fills);
// returns why not, or "".
std::string not_batchable(const Model& model) {
    auto check = [&](const Output& port, const char* what) -> std::string {
        const PartialShape& shape = port.get_partial_shape();
        if (shape.is_dynamic() || shape.rank().get_length() == 0 || shape.to_shape()[0] != 1)
            return std::string(what) + " '" +
                   (port.get_names().empty() ? port.get_node()->get_friendly_name()
                                             : port.get_any_name()) +
                   "' has the shape " + shape.to_string() +
                   ", not static with 1 as the first (batch) dimension";
        return {};
    };
    for (const auto& p : model.inputs())
        if (auto why = check(p, "input"); !why.empty()) return why;
    for (const auto& r : model.outputs())
        if (auto why = check(r, "output"); !why.empty()) return why;
    return {};
}

}  // namespace

Plugin::Plugin()
    : m_properties(
          "BATCH",
          {sdk::common::full_name([](const std::string&) { return "Vireo automatic batching"; }),
           sdk::common::capabilities({device::capability::kFP32}),
           sdk::common::meta_device(sdk::MetaDevice::kBatch),  // "BATCH:A(N)"
           sdk::rw<std::string>(device::priorities, "", "one device name"),
           sdk::rw<uint32_t>(device::batch_size, 0, "0 (the default, 4) to 256"),
           sdk::rw<uint32_t>(batch::timeout, 1000, "milliseconds, 0 or more"),
           sdk::rw<AnyMap>(device::properties, AnyMap{}, "{DEVICE:{KEY:VALUE,...},...}"),
           sdk::common::performance_hint()}) {}

std::shared_ptr<sdk::ICompiledModel> Plugin::compile_model(
    const std::shared_ptr<const Model>& model, const AnyMap& properties) const {
    if (!model) throw_error<InvalidArgument>("BATCH: compile_model got no model");
    AnyMap args = properties;
    for (auto it = args.begin(); it != args.end();)
        it = sdk::is_core_key(it->first) ? args.erase(it) : std::next(it);
    const sdk::PropertyValues values = m_properties.resolve(args);
    const std::string device = values.get(device::priorities);
    if (device.empty() || device.find(',') != std::string::npos)
        throw_error<InvalidArgument>("BATCH: needs exactly one device (\"BATCH:A(N)\" or ",
                                     device::priorities.name(), "), got '", device, "'");
    uint32_t n = values.get(device::batch_size);
    if (n == 0) n = kDefaultBatch;
    // Each request waiting for its batch holds one of the compiled model's threads, of which
    // there are at most sdk::kMaxStreams: a larger batch could never gather.
    if (n > static_cast<uint32_t>(sdk::kMaxStreams))
        throw_error<InvalidArgument>("BATCH: batch size ", n, " is over the largest, ",
                                     sdk::kMaxStreams,
                                     " (each waiting request holds one of at most that many "
                                     "threads, so a larger batch would never form)");

    auto core = get_core();
    AnyMap device_props;
    const AnyMap per_device = values.get(device::properties);
    for (const std::string& name : {device.substr(0, device.find('.')), device}) {
        auto it = per_device.find(name);
        if (it == per_device.end()) continue;
        for (const auto& [key, value] : it->second.as<AnyMap>()) device_props[key] = value;
    }
    // The batched copy; a model that cannot be batched runs every request unbatched (WARNING).
    std::string why = not_batchable(*model);
    sdk::CompiledModelHandle on_batched, on_single;
    if (why.empty()) {
        try {
            std::shared_ptr<Model> batched = model->clone();
            std::map<Output, PartialShape> shapes;
            for (const auto& input : batched->inputs()) {
                Shape shape = input.get_partial_shape().to_shape();
                shape[0] = n;
                shapes[input] = PartialShape(shape);
            }
            batched->reshape(shapes);
            on_batched = core->compile_model(batched, device, device_props);
        } catch (const std::exception& e) {
            why = std::string("the batched copy failed: ") + e.what();
        }
    }
    if (!why.empty()) {
        log_warning("BATCH: model '" + model->get_name() + "' runs unbatched on " + device + ": " +
                    why);
        n = 1;
    }
    try {
        on_single = core->compile_model(model, device, device_props);
    } catch (...) {
        rethrow_with_context(std::current_exception(),
                             "BATCH: compiling model '" + model->get_name() + "' on " + device);
    }
    auto batcher = std::make_shared<Batcher>("BATCH", std::move(on_batched), std::move(on_single),
                                             n, values.get(batch::timeout));
    auto self = std::static_pointer_cast<const Plugin>(shared_from_this());
    return std::make_shared<CompiledModel>(model, self, std::move(batcher), device);
}

std::shared_ptr<sdk::ICompiledModel> Plugin::import_model(std::istream&, const AnyMap&) const {
    throw_error<NotImplemented>(
        "BATCH: import_model is not supported (BATCH compiled models do not export)");
}

sdk::SupportedOpsMap Plugin::query_model(const std::shared_ptr<const Model>& model,
                                         const AnyMap& properties) const {
    if (!model) throw_error<InvalidArgument>("BATCH: query_model got no model");
    AnyMap args = properties;
    for (auto it = args.begin(); it != args.end();)
        it = sdk::is_core_key(it->first) ? args.erase(it) : std::next(it);
    const std::string device = m_properties.resolve(args).get(device::priorities);
    sdk::SupportedOpsMap out;
    for (const auto& [op, _] : get_core()->query_model(model, device, {})) out[op] = "BATCH";
    return out;
}

void Plugin::set_property(const AnyMap& properties) {
    m_properties.set(properties);
}

Any Plugin::get_property(const std::string& name, const AnyMap& arguments) const {
    AnyMap args = arguments;
    args.erase(device::priorities.name());
    args.erase(device::batch_size.name());
    return m_properties.get(name, args);
}

}  // namespace batch_plugin

VIREO_DEFINE_PLUGIN(batch_plugin::Plugin, VIREO_PLUGIN_VERSION)
