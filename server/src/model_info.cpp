// ModelConfig and ModelStatistics contents, shared by the gRPC RPCs and the REST endpoints.
#include "model_info.hpp"

namespace vireo::server {

namespace {

inference::DataType config_type(element::Type type) {
    switch (type.id()) {
        case element::TypeId::boolean:
            return inference::TYPE_BOOL;
        case element::TypeId::u8:
            return inference::TYPE_UINT8;
        case element::TypeId::u16:
            return inference::TYPE_UINT16;
        case element::TypeId::u32:
            return inference::TYPE_UINT32;
        case element::TypeId::u64:
            return inference::TYPE_UINT64;
        case element::TypeId::i8:
            return inference::TYPE_INT8;
        case element::TypeId::i16:
            return inference::TYPE_INT16;
        case element::TypeId::i32:
            return inference::TYPE_INT32;
        case element::TypeId::i64:
            return inference::TYPE_INT64;
        case element::TypeId::f16:
            return inference::TYPE_FP16;
        case element::TypeId::bf16:
            return inference::TYPE_BF16;
        case element::TypeId::f32:
            return inference::TYPE_FP32;
        case element::TypeId::f64:
            return inference::TYPE_FP64;
        default:
            return inference::TYPE_INVALID;
    }
}

void fill_duration(inference::StatisticDuration* d, uint64_t count, uint64_t ns) {
    d->set_count(count);
    d->set_ns(ns);
}

}  // namespace

Status describe_model_config(const ModelManager& models, const std::string& name,
                             const std::string& version_text, inference::ModelConfig& config_out) {
    std::shared_ptr<ModelVersion> version;
    Status s = models.find(name, version_text, version);
    if (!s.ok()) return s;
    server::ModelConfig config;
    models.config_of(name, config);
    auto* out = &config_out;
    out->set_name(name);
    out->set_platform("vireo");
    out->set_backend("vireo");
    // Triton's convention: with max_batch_size > 0 the dims leave the batch dimension out.
    const auto& batching = config.dynamic_batching;
    const size_t skip = batching.max_batch_size > 0 ? 1 : 0;
    out->set_max_batch_size(static_cast<int32_t>(batching.max_batch_size));
    if (batching.max_batch_size > 0) {
        auto* db = out->mutable_dynamic_batching();
        db->set_max_queue_delay_microseconds(batching.max_queue_delay_microseconds);
        for (uint32_t p : batching.preferred_batch_size)
            db->add_preferred_batch_size(static_cast<int32_t>(p));
    }
    out->set_default_model_filename(version->model_file());
    auto* policy = out->mutable_version_policy();
    switch (config.version_policy.kind) {
        case VersionPolicy::Kind::kAll:
            policy->mutable_all();
            break;
        case VersionPolicy::Kind::kLatest:
            policy->mutable_latest()->set_num_versions(config.version_policy.num_versions);
            break;
        case VersionPolicy::Kind::kSpecific:
            for (int64_t v : config.version_policy.versions)
                policy->mutable_specific()->add_versions(v);
            break;
    }
    for (const auto& info : version->inputs()) {
        auto* in = out->add_input();
        in->set_name(info.name);
        in->set_data_type(config_type(info.type));
        for (size_t i = skip; i < info.shape.size(); ++i) in->add_dims(info.shape[i]);
    }
    for (const auto& info : version->outputs()) {
        auto* o = out->add_output();
        o->set_name(info.name);
        o->set_data_type(config_type(info.type));
        for (size_t i = skip; i < info.shape.size(); ++i) o->add_dims(info.shape[i]);
    }
    auto* group = out->add_instance_group();
    group->set_name(name + "_0");
    group->set_count(static_cast<int32_t>(version->nireq()));
    group->set_kind(inference::ModelInstanceGroup::KIND_CPU);
    (*out->mutable_parameters())["target_device"].set_string_value(version->device());
    for (const auto& [key, value] : config.plugin_config) {
        (*out->mutable_parameters())[key].set_string_value(value);
    }
    return {};
}

Status collect_statistics(const ModelManager& models, const std::string& name,
                          const std::string& version_text,
                          inference::ModelStatisticsResponse& response) {
    bool any = false;
    for (const auto& version : models.loaded()) {
        if (!name.empty() && version->model_name() != name) continue;
        if (!version_text.empty() && std::to_string(version->version()) != version_text) {
            continue;
        }
        any = true;
        const VersionStats st = version->stats();
        auto* out = response.add_model_stats();
        out->set_name(version->model_name());
        out->set_version(std::to_string(version->version()));
        out->set_last_inference(st.last_inference_ms);
        out->set_inference_count(st.inference_items);
        out->set_execution_count(st.infer_count);
        auto* is = out->mutable_inference_stats();
        fill_duration(is->mutable_success(), st.success_count, st.success_ns);
        fill_duration(is->mutable_fail(), st.fail_count, st.fail_ns);
        fill_duration(is->mutable_queue(), st.queue_count, st.queue_ns);
        fill_duration(is->mutable_compute_input(), st.queue_count, 0);
        fill_duration(is->mutable_compute_infer(), st.infer_count, st.infer_ns);
        fill_duration(is->mutable_compute_output(), st.output_count, st.output_ns);
    }
    if (!any && !name.empty()) {
        return {StatusCode::kNotFound,
                "no loaded model '" + name + "'" +
                    (version_text.empty() ? std::string() : " version " + version_text)};
    }
    return {};
}

}  // namespace vireo::server
