// LLMPipeline: loads an ONNX Runtime GenAI-style folder, compiles the decoder (made stateful at
// load unless asked not to) and runs the token loop: greedy, sampling, beam search, streaming.
#include "vireo/genai/llm_pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <mutex>
#include <random>
#include <sstream>

#include "json_value.hpp"
#include "sampling.hpp"
#include "vireo/core.hpp"
#include "vireo/exception.hpp"
#include "vireo/ops.hpp"
#include "vireo/transformations.hpp"

namespace vireo::genai {

namespace {

namespace fs = std::filesystem;
using detail::JsonValue;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::string read_text(const fs::path& path, const char* what) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw_error<NotFound>(what, ": cannot open '", path.string(), "'");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string name_for(const std::string& pattern, size_t layer) {
    const size_t at = pattern.find("%d");
    if (at == std::string::npos) return pattern;
    return pattern.substr(0, at) + std::to_string(layer) + pattern.substr(at + 2);
}

// Bytes at the end of `s` that begin a UTF-8 character not yet complete.
size_t incomplete_utf8_tail(std::string_view s) {
    for (size_t back = 1; back <= std::min<size_t>(4, s.size()); ++back) {
        const unsigned char c = static_cast<unsigned char>(s[s.size() - back]);
        if ((c & 0xC0) == 0x80) continue;  // continuation byte: look further back
        size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        return need > back ? back : 0;
    }
    return 0;
}

}  // namespace

// ---- configuration --------------------------------------------------------------------------

struct ModelConfig {
    size_t num_layers = 0;
    size_t num_kv_heads = 0;
    size_t head_size = 0;
    size_t context_length = 0;
    size_t vocab_size = 0;
    std::vector<TokenId> eos_ids;
    std::string decoder_file;
    std::string input_ids = "input_ids";
    std::string attention_mask = "attention_mask";
    std::string position_ids = "position_ids";
    std::string past_key = "past_key_values.%d.key";
    std::string past_value = "past_key_values.%d.value";
    std::string logits = "logits";
    std::string present_key = "present.%d.key";
    std::string present_value = "present.%d.value";
    GenerationConfig search;
};

namespace {

const JsonValue& require(const JsonValue& obj, const char* key, const std::string& where) {
    const JsonValue* v = obj.is_object() ? obj.find(key) : nullptr;
    if (!v) throw_error<InvalidArgument>(where, ": missing \"", key, "\"");
    return *v;
}

size_t positive(const JsonValue& v, const std::string& where) {
    if (!v.is_number() || v.as_number() < 1 || v.as_number() != std::floor(v.as_number()))
        throw_error<InvalidArgument>(where, " must be a positive integer");
    return static_cast<size_t>(v.as_int());
}

void read_string(const JsonValue* obj, const char* key, std::string& out,
                 const std::string& where) {
    if (!obj) return;
    if (const JsonValue* v = obj->find(key)) {
        if (!v->is_string() || v->as_string().empty())
            throw_error<InvalidArgument>(where, ".", key, " must be a non-empty string");
        out = v->as_string();
    }
}

ModelConfig parse_genai_config(const fs::path& path) {
    const std::string where = path.string();
    const JsonValue root = JsonValue::parse(read_text(path, "genai_config.json"), where);
    const JsonValue& model = require(root, "model", where);
    const JsonValue& dec = require(model, "decoder", where + ": model");
    ModelConfig c;
    c.num_layers = positive(require(dec, "num_hidden_layers", where + ": model.decoder"),
                            where + ": model.decoder.num_hidden_layers");
    const size_t heads = positive(require(dec, "num_attention_heads", where + ": model.decoder"),
                                  where + ": model.decoder.num_attention_heads");
    const JsonValue* kvh = dec.find("num_key_value_heads");
    c.num_kv_heads = kvh ? positive(*kvh, where + ": model.decoder.num_key_value_heads") : heads;
    if (const JsonValue* hs = dec.find("head_size")) {
        c.head_size = positive(*hs, where + ": model.decoder.head_size");
    } else {
        const size_t hidden = positive(require(dec, "hidden_size", where + ": model.decoder"),
                                       where + ": model.decoder.hidden_size");
        c.head_size = hidden / heads;
    }
    c.context_length = positive(require(model, "context_length", where + ": model"),
                                where + ": model.context_length");
    c.vocab_size =
        positive(require(model, "vocab_size", where + ": model"), where + ": model.vocab_size");
    if (const JsonValue* e = model.find("eos_token_id")) {
        if (e->is_array()) {
            for (const JsonValue& x : e->as_array())
                c.eos_ids.push_back(static_cast<TokenId>(x.as_int()));
        } else if (e->is_number()) {
            c.eos_ids.push_back(static_cast<TokenId>(e->as_int()));
        } else {
            throw_error<InvalidArgument>(where, ": model.eos_token_id must be a number or a list");
        }
    }
    if (const JsonValue* f = dec.find("filename")) {
        if (!f->is_string() || f->as_string().empty())
            throw_error<InvalidArgument>(where, ": model.decoder.filename must be a file name");
        c.decoder_file = f->as_string();
    }
    const JsonValue* in = dec.find("inputs");
    const std::string iw = where + ": model.decoder.inputs";
    read_string(in, "input_ids", c.input_ids, iw);
    read_string(in, "attention_mask", c.attention_mask, iw);
    read_string(in, "position_ids", c.position_ids, iw);
    read_string(in, "past_key_names", c.past_key, iw);
    read_string(in, "past_value_names", c.past_value, iw);
    const JsonValue* out = dec.find("outputs");
    const std::string ow = where + ": model.decoder.outputs";
    read_string(out, "logits", c.logits, ow);
    read_string(out, "present_key_names", c.present_key, ow);
    read_string(out, "present_value_names", c.present_value, ow);

    GenerationConfig& g = c.search;
    if (!c.eos_ids.empty()) g.eos_token_id = c.eos_ids.front();
    for (size_t i = 1; i < c.eos_ids.size(); ++i) g.stop_token_ids.push_back(c.eos_ids[i]);
    if (const JsonValue* s = root.find("search"); s && s->is_object()) {
        auto num = [&](const char* key, auto& field) {
            if (const JsonValue* v = s->find(key)) {
                if (!v->is_number())
                    throw_error<InvalidArgument>(where, ": search.", key, " must be a number");
                field = static_cast<std::remove_reference_t<decltype(field)>>(v->as_number());
            }
        };
        if (const JsonValue* v = s->find("do_sample"); v && v->is_bool())
            g.do_sample = v->as_bool();
        num("temperature", g.temperature);
        num("top_p", g.top_p);
        num("repetition_penalty", g.repetition_penalty);
        num("num_beams", g.num_beams);
        num("length_penalty", g.length_penalty);
        num("num_return_sequences", g.num_return_sequences);
        size_t top_k = 0;
        num("top_k", top_k);
        // ORT GenAI's greedy default is top_k 1; 1 means "keep one", the same as greedy.
        g.top_k = top_k;
        size_t max_length = 0;
        num("max_length", max_length);
        (void)max_length;  // a total length; the pipeline counts new tokens (max_new_tokens)
    }
    return c;
}

// OpenVINO GenAI's layout: openvino_model.xml (stateful, beam_idx), the Hugging Face config.json
// (GPT-2's n_layer/n_head/n_embd/n_positions or Llama's num_hidden_layers/num_attention_heads/
// num_key_value_heads/hidden_size/max_position_embeddings) and, when present,
// generation_config.json (the search defaults, eos_token_id).
ModelConfig parse_openvino_folder(const fs::path& folder) {
    const fs::path path = folder / "config.json";
    const std::string where = path.string();
    const JsonValue hf = JsonValue::parse(read_text(path, "config.json"), where);
    auto first = [&](std::initializer_list<const char*> keys) -> const JsonValue* {
        for (const char* k : keys)
            if (const JsonValue* v = hf.find(k)) return v;
        return nullptr;
    };
    auto need = [&](std::initializer_list<const char*> keys, const char* what) {
        const JsonValue* v = first(keys);
        if (!v) throw_error<InvalidArgument>(where, ": missing ", what);
        return positive(*v, where + ": " + what);
    };
    ModelConfig c;
    c.decoder_file = "openvino_model.xml";
    c.num_layers = need({"num_hidden_layers", "n_layer"}, "num_hidden_layers (or n_layer)");
    const size_t heads = need({"num_attention_heads", "n_head"}, "num_attention_heads (or n_head)");
    const JsonValue* kvh = hf.find("num_key_value_heads");
    c.num_kv_heads = kvh ? positive(*kvh, where + ": num_key_value_heads") : heads;
    c.head_size = need({"hidden_size", "n_embd"}, "hidden_size (or n_embd)") / heads;
    c.context_length = need({"max_position_embeddings", "n_positions", "n_ctx"},
                            "max_position_embeddings (or n_positions)");
    c.vocab_size = need({"vocab_size"}, "vocab_size");
    auto read_eos = [&](const JsonValue& obj) {
        const JsonValue* e = obj.find("eos_token_id");
        if (!e || e->is_null()) return;
        c.eos_ids.clear();
        if (e->is_array()) {
            for (const JsonValue& x : e->as_array())
                c.eos_ids.push_back(static_cast<TokenId>(x.as_int()));
        } else {
            c.eos_ids.push_back(static_cast<TokenId>(e->as_int()));
        }
    };
    read_eos(hf);
    GenerationConfig& g = c.search;
    const fs::path gen_path = folder / "generation_config.json";
    if (fs::exists(gen_path)) {
        const JsonValue gen =
            JsonValue::parse(read_text(gen_path, "generation_config.json"), gen_path.string());
        read_eos(gen);
        auto num = [&](const char* key, auto& field) {
            if (const JsonValue* v = gen.find(key); v && v->is_number())
                field = static_cast<std::remove_reference_t<decltype(field)>>(v->as_number());
        };
        if (const JsonValue* v = gen.find("do_sample"); v && v->is_bool())
            g.do_sample = v->as_bool();
        num("temperature", g.temperature);
        num("top_k", g.top_k);
        num("top_p", g.top_p);
        num("repetition_penalty", g.repetition_penalty);
        num("num_beams", g.num_beams);
        num("length_penalty", g.length_penalty);
        num("num_return_sequences", g.num_return_sequences);
        num("max_new_tokens", g.max_new_tokens);
    }
    if (!c.eos_ids.empty()) g.eos_token_id = c.eos_ids.front();
    for (size_t i = 1; i < c.eos_ids.size(); ++i) g.stop_token_ids.push_back(c.eos_ids[i]);
    return c;
}

}  // namespace

// ---- one generation's state in one infer request ------------------------------------------

class LLMPipeline::Impl {
  public:
    Impl(const fs::path& folder, const std::string& device, const AnyMap& properties,
         const PipelineOptions& options);

    GenerationResult generate(std::vector<TokenId> prompt, const GenerationConfig& config,
                              const StreamerCallback& streamer);

    ModelConfig cfg;
    std::optional<Tokenizer> tokenizer;
    bool stateful = false;

  private:
    InferRequest acquire();
    void release(InferRequest request);

    Core m_core;
    CompiledModel m_compiled;
    bool m_has_mask = false;
    bool m_has_positions = false;
    element::Type m_beam_idx_type = element::i32;
    element::Type m_cache_type = element::f32;
    std::mutex m_mutex;
    std::vector<InferRequest> m_idle;
};

namespace {

// Runs steps of one batch of sequences in one request: the past is either fed back from the
// present outputs (explicit) or kept in the request's variables (stateful).
class Session {
  public:
    Session(const ModelConfig& cfg, InferRequest& request, bool stateful, bool has_mask,
            bool has_positions, element::Type beam_idx_type, element::Type cache_type)
        : m_cfg(cfg),
          m_request(request),
          m_stateful(stateful),
          m_has_mask(has_mask),
          m_has_positions(has_positions),
          m_beam_idx_type(beam_idx_type),
          m_cache_type(cache_type) {
        if (m_stateful) {
            m_request.reset_state();
        } else {
            for (size_t l = 0; l < m_cfg.num_layers; ++l)
                for (int kv = 0; kv < 2; ++kv)
                    m_past.emplace_back(m_cache_type,
                                        Shape{1, m_cfg.num_kv_heads, 0, m_cfg.head_size});
        }
    }

    size_t past_length() const { return m_past_len; }

    /// The next step keeps, for row i, the cache of row parents[i] of the last step.
    void reorder(const std::vector<size_t>& parents) { m_parents = parents; }

    /// Runs `tokens` (batch rows of seq tokens each); returns the last position's logits of each
    /// row, rows one after the other (vocab floats each).
    std::span<const float> step(const std::vector<TokenId>& tokens, size_t batch) {
        const size_t seq = tokens.size() / batch;
        const size_t total = m_past_len + seq;
        Tensor ids(element::i64, Shape{batch, seq});
        std::copy(tokens.begin(), tokens.end(), ids.data<int64_t>());
        m_request.set_tensor(m_cfg.input_ids, ids);
        if (m_has_mask) {
            Tensor mask(element::i64, Shape{batch, total});
            std::fill_n(mask.data<int64_t>(), batch * total, int64_t{1});
            m_request.set_tensor(m_cfg.attention_mask, mask);
        }
        if (m_has_positions) {
            Tensor pos(element::i64, Shape{batch, seq});
            for (size_t b = 0; b < batch; ++b)
                for (size_t s = 0; s < seq; ++s)
                    pos.data<int64_t>()[b * seq + s] = static_cast<int64_t>(m_past_len + s);
            m_request.set_tensor(m_cfg.position_ids, pos);
        }
        std::vector<size_t> parents = m_parents;
        if (parents.empty())
            for (size_t b = 0; b < batch; ++b) parents.push_back(m_past_batch == 1 ? 0 : b);
        if (parents.size() != batch)
            throw_error<InvalidArgument>("LLMPipeline: ", parents.size(),
                                         " beam parents for a batch of ", batch);
        if (m_stateful) {
            Tensor beam_idx(m_beam_idx_type, Shape{batch});
            for (size_t b = 0; b < batch; ++b) {
                if (m_beam_idx_type == element::i64)
                    beam_idx.data<int64_t>()[b] = static_cast<int64_t>(parents[b]);
                else
                    beam_idx.data<int32_t>()[b] = static_cast<int32_t>(parents[b]);
            }
            m_request.set_tensor("beam_idx", beam_idx);
        } else {
            bool identity = m_past_batch == batch;
            for (size_t b = 0; b < batch && identity; ++b) identity = parents[b] == b;
            for (size_t l = 0; l < m_cfg.num_layers; ++l) {
                for (int kv = 0; kv < 2; ++kv) {
                    Tensor& past = m_past[2 * l + kv];
                    Tensor fed = identity ? past : gather_rows(past, parents);
                    m_request.set_tensor(name_for(kv ? m_cfg.past_value : m_cfg.past_key, l), fed);
                }
            }
        }
        // start_async + wait rather than infer(): on CPU the asynchronous path runs the step on
        // the plugin's stream threads, whose parallel_for the reference kernels of a stateful
        // (dynamic) graph use; infer() runs them on this thread alone (1 core at any
        // INFERENCE_NUM_THREADS; measured 14.6 vs 21.3 tokens/s at 2 threads, GPT-2-style).
        m_request.start_async();
        m_request.wait();
        if (!m_stateful) {
            for (size_t l = 0; l < m_cfg.num_layers; ++l) {
                for (int kv = 0; kv < 2; ++kv) {
                    Tensor present = m_request.get_tensor(
                        name_for(kv ? m_cfg.present_value : m_cfg.present_key, l));
                    Tensor copy(present.get_element_type(), present.get_shape());
                    present.copy_to(copy);
                    m_past[2 * l + kv] = copy;
                }
            }
        }
        m_parents.clear();
        m_past_len = total;
        m_past_batch = batch;
        Tensor logits = m_request.get_tensor(m_cfg.logits);
        if (logits.get_element_type() != element::f32)
            throw_error<NotImplemented>("LLMPipeline: output '", m_cfg.logits, "' is ",
                                        logits.get_element_type(), "; only f32 logits are read");
        const Shape& shape = logits.get_shape();
        const size_t vocab = shape.back();
        if (vocab != m_cfg.vocab_size || shape.front() != batch)
            throw_error<InvalidArgument>("LLMPipeline: output '", m_cfg.logits, "' has shape ",
                                         shape, "; expected [", batch, ", ", seq, ", ",
                                         m_cfg.vocab_size, "] (vocab_size of genai_config.json)");
        const size_t rows_per_batch = logits.get_size() / (batch * vocab);
        m_last.resize(batch * vocab);
        const float* p = logits.data<float>();
        for (size_t b = 0; b < batch; ++b)
            std::copy_n(p + (b * rows_per_batch + rows_per_batch - 1) * vocab, vocab,
                        m_last.data() + b * vocab);
        return m_last;
    }

  private:
    static Tensor gather_rows(const Tensor& src, const std::vector<size_t>& parents) {
        Shape shape = src.get_shape();
        const size_t rows = shape[0];
        const size_t row_bytes = rows ? src.get_byte_size() / rows : 0;
        shape[0] = parents.size();
        Tensor out(src.get_element_type(), shape);
        for (size_t i = 0; i < parents.size(); ++i) {
            if (parents[i] >= rows)
                throw_error<InvalidArgument>("LLMPipeline: beam parent ", parents[i],
                                             " outside a cache of ", rows, " rows");
            if (row_bytes)
                std::memcpy(static_cast<char*>(out.data()) + i * row_bytes,
                            static_cast<const char*>(src.data()) + parents[i] * row_bytes,
                            row_bytes);
        }
        return out;
    }

    const ModelConfig& m_cfg;
    InferRequest& m_request;
    bool m_stateful;
    bool m_has_mask;
    bool m_has_positions;
    element::Type m_beam_idx_type;
    element::Type m_cache_type;
    std::vector<Tensor> m_past;
    std::vector<size_t> m_parents;
    size_t m_past_len = 0;
    size_t m_past_batch = 1;
    std::vector<float> m_last;
};

// The pipeline reads only the last position's logits. When the logits come straight from a
// MatMul of a rank-3 [batch, sequence, hidden] input (the LM head), that input is sliced to its
// last position first, so the prompt step computes the head for one row instead of all of them.
// Any other producer is left alone (the pipeline then picks the last row itself).
void slice_logits_to_last_token(Model& model, const std::string& logits_name) {
    for (const NodePtr& result : model.get_results()) {
        if (!result->output(0).get_names().count(logits_name)) continue;
        const Output head = result->input_value(0);
        Node* matmul = head.get_node();
        if (matmul->get_type_name() != "MatMul") return;
        const Output x = matmul->input_value(0);
        const PartialShape& shape = x.get_partial_shape();
        if (shape.rank().is_dynamic() || shape.size() != 3) return;
        if (matmul->has_attribute("transpose_a") && matmul->get_attribute<bool>("transpose_a"))
            return;
        auto last = op::slice(x, op::int64_vector({-1}),
                              op::int64_vector({std::numeric_limits<int64_t>::max()}),
                              op::int64_vector({1}), op::int64_vector({1}));
        last->set_friendly_name(matmul->get_friendly_name() + "/last_token");
        matmul->set_argument(0, last->output(0));
        model.validate();
        return;
    }
}

bool has_input(const std::shared_ptr<Model>& model, const std::string& name) {
    for (const Output& in : model->inputs())
        if (in.get_names().count(name)) return true;
    return false;
}

bool has_output(const std::shared_ptr<Model>& model, const std::string& name) {
    for (const Output& out : model->outputs())
        if (out.get_names().count(name)) return true;
    return false;
}

}  // namespace

LLMPipeline::Impl::Impl(const fs::path& folder, const std::string& device, const AnyMap& properties,
                        const PipelineOptions& options) {
    if (!fs::is_directory(folder))
        throw_error<NotFound>("LLMPipeline: model folder '", folder.string(), "' does not exist");
    fs::path config_path = folder / "genai_config.json";
    if (fs::exists(config_path)) {
        cfg = parse_genai_config(config_path);
    } else if (fs::exists(folder / "openvino_model.xml") && fs::exists(folder / "config.json")) {
        config_path = folder / "config.json";
        cfg = parse_openvino_folder(folder);
    } else {
        throw_error<NotFound>("LLMPipeline: '", folder.string(),
                              "' has neither genai_config.json (ONNX Runtime GenAI) nor "
                              "openvino_model.xml + config.json (OpenVINO GenAI)");
    }
    if (!options.model_file.empty()) cfg.decoder_file = options.model_file;
    if (cfg.decoder_file.empty())
        throw_error<InvalidArgument>(config_path.string(), ": missing model.decoder.filename");
    const fs::path model_path = folder / cfg.decoder_file;
    if (!fs::exists(model_path))
        throw_error<NotFound>("LLMPipeline: decoder '", model_path.string(),
                              "' (model.decoder.filename of genai_config.json) does not exist");
    if (fs::exists(folder / "tokenizer.json") ||
        (fs::exists(folder / "vocab.json") && fs::exists(folder / "merges.txt")) ||
        (fs::exists(folder / "encoder.json") && fs::exists(folder / "vocab.bpe")))
        tokenizer = Tokenizer::from_folder(folder);

    std::shared_ptr<Model> model = m_core.read_model(model_path.string());
    if (!has_input(model, cfg.input_ids))
        throw_error<InvalidArgument>("LLMPipeline: '", model_path.string(), "' has no input '",
                                     cfg.input_ids, "' (model.decoder.inputs.input_ids)");
    if (!has_output(model, cfg.logits))
        throw_error<InvalidArgument>("LLMPipeline: '", model_path.string(), "' has no output '",
                                     cfg.logits, "' (model.decoder.outputs.logits)");
    const std::string first_past = name_for(cfg.past_key, 0);
    if (has_input(model, first_past)) {
        for (size_t l = 0; l < cfg.num_layers; ++l)
            for (const std::string* pattern :
                 {&cfg.past_key, &cfg.past_value, &cfg.present_key, &cfg.present_value}) {
                const std::string n = name_for(*pattern, l);
                const bool found = pattern == &cfg.past_key || pattern == &cfg.past_value
                                       ? has_input(model, n)
                                       : has_output(model, n);
                if (!found)
                    throw_error<InvalidArgument>(
                        "LLMPipeline: '", model_path.string(), "' has no '", n, "' (layer ", l,
                        " of num_hidden_layers ", cfg.num_layers, " in genai_config.json)");
            }
        m_cache_type = model->input(first_past).get_element_type();
        const PartialShape& ps = model->input(first_past).get_partial_shape();
        if (ps.rank().is_static() && ps.size() == 4) {
            if (ps[1].is_static() && static_cast<size_t>(ps[1].get_length()) != cfg.num_kv_heads)
                throw_error<InvalidArgument>(
                    "LLMPipeline: '", first_past, "' has ", ps[1],
                    " heads but genai_config.json says num_key_value_heads ", cfg.num_kv_heads);
            if (ps[3].is_static() && static_cast<size_t>(ps[3].get_length()) != cfg.head_size)
                throw_error<InvalidArgument>("LLMPipeline: '", first_past, "' has head size ",
                                             ps[3], " but genai_config.json says head_size ",
                                             cfg.head_size);
        }
        if (options.stateful) {
            MakeStatefulOptions ms;
            for (size_t l = 0; l < cfg.num_layers; ++l) {
                ms.pairs.push_back({name_for(cfg.past_key, l), name_for(cfg.present_key, l)});
                ms.pairs.push_back({name_for(cfg.past_value, l), name_for(cfg.present_value, l)});
            }
            ms.batch_source = cfg.input_ids;
            make_stateful(model, ms);
            stateful = true;
        }
    } else if (has_input(model, "beam_idx")) {
        stateful = true;
    } else {
        throw_error<InvalidArgument>("LLMPipeline: '", model_path.string(),
                                     "' has neither past inputs ('", first_past,
                                     "', model.decoder.inputs.past_key_names) nor beam_idx "
                                     "(a stateful model)");
    }
    if (stateful) m_beam_idx_type = model->input("beam_idx").get_element_type();
    m_has_mask = has_input(model, cfg.attention_mask);
    m_has_positions = has_input(model, cfg.position_ids);
    if (options.last_token_logits) slice_logits_to_last_token(*model, cfg.logits);
    m_compiled = m_core.compile_model(model, device, properties);
}

InferRequest LLMPipeline::Impl::acquire() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (!m_idle.empty()) {
            InferRequest r = std::move(m_idle.back());
            m_idle.pop_back();
            return r;
        }
    }
    return m_compiled.create_infer_request();
}

void LLMPipeline::Impl::release(InferRequest request) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_idle.push_back(std::move(request));
}

GenerationResult LLMPipeline::Impl::generate(std::vector<TokenId> prompt,
                                             const GenerationConfig& config,
                                             const StreamerCallback& streamer) {
    if (prompt.empty()) throw_error<InvalidArgument>("LLMPipeline::generate: the prompt is empty");
    for (size_t i = 0; i < prompt.size(); ++i)
        if (prompt[i] < 0 || static_cast<size_t>(prompt[i]) >= cfg.vocab_size)
            throw_error<InvalidArgument>("LLMPipeline::generate: prompt token ", i, " is id ",
                                         prompt[i], ", outside the vocabulary [0, ", cfg.vocab_size,
                                         ")");
    if (prompt.size() >= cfg.context_length)
        throw_error<InvalidArgument>("LLMPipeline::generate: a prompt of ", prompt.size(),
                                     " tokens leaves no room in the context length ",
                                     cfg.context_length, " (model.context_length)");
    if (config.num_beams == 0)
        throw_error<InvalidArgument>("generation config: num_beams must be >= 1");
    if (config.num_beams > 1 && config.do_sample)
        throw_error<NotImplemented>("generation config: beam search with do_sample");
    if (config.num_beams > 1 && streamer)
        throw_error<NotImplemented>("LLMPipeline::generate: streaming with beam search");
    if (config.num_return_sequences == 0 || config.num_return_sequences > config.num_beams)
        throw_error<InvalidArgument>("generation config: num_return_sequences (",
                                     config.num_return_sequences,
                                     ") must be in [1, num_beams = ", config.num_beams, "]");
    if (config.repetition_penalty <= 0.0f)
        throw_error<InvalidArgument>("generation config: repetition_penalty must be > 0, not ",
                                     config.repetition_penalty);
    std::vector<TokenId> stops = config.stop_token_ids;
    if (!config.ignore_eos && config.eos_token_id) stops.push_back(*config.eos_token_id);
    auto is_stop = [&](TokenId t) {
        return std::find(stops.begin(), stops.end(), t) != stops.end();
    };
    const size_t room = cfg.context_length - prompt.size();
    const size_t max_new = std::min(config.max_new_tokens, room);

    InferRequest request = acquire();
    struct Releaser {
        Impl* impl;
        InferRequest* r;
        ~Releaser() { impl->release(std::move(*r)); }
    } releaser{this, &request};
    Session session(cfg, request, stateful, m_has_mask, m_has_positions, m_beam_idx_type,
                    m_cache_type);
    GenerationResult result;
    result.perf.num_prompt_tokens = prompt.size();
    const size_t vocab = cfg.vocab_size;
    const auto t0 = Clock::now();
    Clock::time_point t_first = t0;
    if (max_new == 0) {
        result.ids.emplace_back();
        result.scores.push_back(0.f);
        result.texts.emplace_back();
        return result;
    }

    if (config.num_beams == 1) {
        std::mt19937_64 rng(config.rng_seed ? *config.rng_seed : std::random_device{}());
        std::vector<TokenId> seen = prompt;
        std::vector<TokenId> out;
        double score = 0.0;
        std::string text;
        size_t emitted = 0;
        size_t max_stop = 0;
        for (const std::string& s : config.stop_strings) max_stop = std::max(max_stop, s.size());
        bool stop_string_hit = false;
        std::span<const float> logits = session.step(prompt, 1);
        std::vector<float> work;
        for (size_t i = 0; i < max_new; ++i) {
            work.assign(logits.begin(), logits.end());
            detail::apply_repetition_penalty(work, seen, config.repetition_penalty);
            TokenId token;
            double lp = 0.0;
            if (config.do_sample) {
                token =
                    detail::sample(work, config.temperature, config.top_k, config.top_p, rng, &lp);
            } else {
                token = detail::argmax(work);
                lp = work[token] - detail::log_sum_exp(work);
            }
            if (i == 0) {
                t_first = Clock::now();
                result.perf.ttft_ms = ms_since(t0);
            }
            if (is_stop(token)) break;
            out.push_back(token);
            seen.push_back(token);
            score += lp;
            bool user_stop = false;
            if (tokenizer && (streamer || !config.stop_strings.empty())) {
                text = tokenizer->decode(out);
                const size_t from = text.size() > max_stop + 64 ? text.size() - max_stop - 64 : 0;
                size_t cut = std::string::npos;
                for (const std::string& s : config.stop_strings) {
                    if (s.empty()) continue;
                    const size_t at = text.find(s, from);
                    if (at != std::string::npos) cut = std::min(cut, at);
                }
                if (cut != std::string::npos) {
                    text.resize(cut);
                    stop_string_hit = true;
                }
                if (streamer) {
                    size_t safe = text.size();
                    if (!stop_string_hit) {
                        safe -= incomplete_utf8_tail(text);
                        safe = max_stop > 1 && safe >= max_stop - 1 ? safe - (max_stop - 1)
                               : max_stop > 1                       ? 0
                                                                    : safe;
                    }
                    safe = std::max(safe, emitted);
                    user_stop =
                        streamer(token, std::string_view(text).substr(emitted, safe - emitted));
                    emitted = safe;
                }
            } else if (streamer) {
                user_stop = streamer(token, {});
            }
            if (stop_string_hit || user_stop || i + 1 == max_new) break;
            logits = session.step({token}, 1);
        }
        result.perf.num_generated_tokens = out.size();
        if (tokenizer && !stop_string_hit) text = tokenizer->decode(out);
        if (streamer && tokenizer && emitted < text.size())
            streamer(-1, std::string_view(text).substr(emitted));
        result.ids.push_back(std::move(out));
        result.scores.push_back(static_cast<float>(score));
        result.texts.push_back(tokenizer ? text : std::string());
    } else {
        const size_t nb = config.num_beams;
        struct Hyp {
            std::vector<TokenId> ids;
            double score;  // summed log-probabilities
        };
        std::vector<Hyp> alive{{{}, 0.0}};
        std::vector<Hyp> finished;
        auto normalized = [&](const Hyp& h) {
            const double len = std::max<size_t>(1, h.ids.size());
            return h.score / std::pow(len, static_cast<double>(config.length_penalty));
        };
        std::span<const float> logits = session.step(prompt, 1);
        std::vector<float> work;
        for (size_t i = 0; i < max_new; ++i) {
            work.assign(logits.begin(), logits.end());
            std::vector<double> scores;
            for (size_t b = 0; b < alive.size(); ++b) {
                std::vector<TokenId> seen = prompt;
                seen.insert(seen.end(), alive[b].ids.begin(), alive[b].ids.end());
                detail::apply_repetition_penalty(std::span<float>(work).subspan(b * vocab, vocab),
                                                 seen, config.repetition_penalty);
                scores.push_back(alive[b].score);
            }
            if (i == 0) {
                t_first = Clock::now();
                result.perf.ttft_ms = ms_since(t0);
            }
            const auto cands = detail::top_beam_candidates(work, vocab, scores, 2 * nb);
            std::vector<Hyp> next;
            std::vector<size_t> parents;
            std::vector<TokenId> tokens;
            for (size_t r = 0; r < cands.size() && next.size() < nb; ++r) {
                const auto& c = cands[r];
                if (is_stop(c.token)) {
                    if (r < nb) finished.push_back({alive[c.beam].ids, c.score});
                    continue;
                }
                Hyp h{alive[c.beam].ids, c.score};
                h.ids.push_back(c.token);
                next.push_back(std::move(h));
                parents.push_back(c.beam);
                tokens.push_back(c.token);
            }
            alive = std::move(next);
            // Stop when enough hypotheses finished (early stopping) or nothing is left.
            if (alive.empty() || finished.size() >= nb || i + 1 == max_new) break;
            session.reorder(parents);
            logits = session.step(tokens, tokens.size());
        }
        for (Hyp& h : alive) finished.push_back(std::move(h));
        std::stable_sort(finished.begin(), finished.end(),
                         [&](const Hyp& a, const Hyp& b) { return normalized(a) > normalized(b); });
        size_t longest = 0;
        for (size_t r = 0; r < std::min(config.num_return_sequences, finished.size()); ++r) {
            longest = std::max(longest, finished[r].ids.size());
            result.scores.push_back(static_cast<float>(normalized(finished[r])));
            result.texts.push_back(tokenizer ? tokenizer->decode(finished[r].ids) : std::string());
            result.ids.push_back(std::move(finished[r].ids));
        }
        result.perf.num_generated_tokens = longest;
    }
    result.perf.decode_ms = result.perf.num_generated_tokens > 1 ? ms_since(t_first) : 0.0;
    return result;
}

// ---- the public handle ---------------------------------------------------------------------

LLMPipeline::LLMPipeline(const fs::path& folder, const std::string& device,
                         const AnyMap& properties, const PipelineOptions& options)
    : m_impl(std::make_unique<Impl>(folder, device, properties, options)) {}
LLMPipeline::~LLMPipeline() = default;
LLMPipeline::LLMPipeline(LLMPipeline&&) noexcept = default;
LLMPipeline& LLMPipeline::operator=(LLMPipeline&&) noexcept = default;

GenerationResult LLMPipeline::generate(std::string_view prompt, const GenerationConfig& config,
                                       const StreamerCallback& streamer) const {
    if (!m_impl->tokenizer)
        throw_error<InvalidArgument>(
            "LLMPipeline::generate: the model folder has no tokenizer "
            "files (tokenizer.json, vocab.json + merges.txt or "
            "encoder.json + vocab.bpe); pass token ids instead");
    return m_impl->generate(m_impl->tokenizer->encode(prompt), config, streamer);
}

GenerationResult LLMPipeline::generate(std::span<const TokenId> prompt_ids,
                                       const GenerationConfig& config,
                                       const StreamerCallback& streamer) const {
    return m_impl->generate(std::vector<TokenId>(prompt_ids.begin(), prompt_ids.end()), config,
                            streamer);
}

GenerationConfig LLMPipeline::get_generation_config() const {
    return m_impl->cfg.search;
}
const Tokenizer* LLMPipeline::get_tokenizer() const {
    return m_impl->tokenizer ? &*m_impl->tokenizer : nullptr;
}
bool LLMPipeline::is_stateful() const {
    return m_impl->stateful;
}
size_t LLMPipeline::context_length() const {
    return m_impl->cfg.context_length;
}
size_t LLMPipeline::vocab_size() const {
    return m_impl->cfg.vocab_size;
}

}  // namespace vireo::genai
