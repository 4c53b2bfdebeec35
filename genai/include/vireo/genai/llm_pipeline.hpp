// Declares vireo::genai::LLMPipeline: text generation with a decoder language model loaded from
// an ONNX Runtime GenAI-style folder (genai_config.json, the decoder, tokenizer files), run by
// Vireo on any device, with a KV cache (explicit past tensors or the model made stateful).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vireo/any.hpp"
#include "vireo/genai/tokenizer.hpp"

namespace vireo::genai {

/// How one generate() call searches. Defaults come from genai_config.json's "search" block
/// (LLMPipeline::get_generation_config()); every field may be changed per call.
struct GenerationConfig {
    /// New tokens at most; generation also stops at the model's context length.
    size_t max_new_tokens = 64;
    /// Sampling (temperature, top_k, top_p) instead of greedy/beam search.
    bool do_sample = false;
    float temperature = 1.0f;
    /// 0 keeps every token.
    size_t top_k = 0;
    /// Nucleus sampling: the smallest set of tokens whose probabilities reach top_p.
    float top_p = 1.0f;
    /// Seed of the sampler; equal seeds give equal sequences. Without one, a random seed.
    std::optional<uint64_t> rng_seed;
    /// > 1 makes tokens already in the prompt or the output less likely (CTRL's penalty: positive
    /// logits divided, negative multiplied).
    float repetition_penalty = 1.0f;
    /// Beam search when > 1 (greedy expansion of num_beams hypotheses, summed log-probabilities).
    size_t num_beams = 1;
    /// Finished beams are ranked by score / length^length_penalty.
    float length_penalty = 1.0f;
    /// Beam search: how many of the best hypotheses to return (<= num_beams).
    size_t num_return_sequences = 1;
    /// The end-of-sequence token; from genai_config.json when not set. Generation stops on it
    /// (it is not part of the output) unless ignore_eos.
    std::optional<TokenId> eos_token_id;
    bool ignore_eos = false;
    /// More tokens that end a sequence (kept out of the output like eos).
    std::vector<TokenId> stop_token_ids;
    /// Greedy and sampling: generation stops once the decoded output contains one of these; the
    /// text is cut before it (the ids keep every token generated).
    std::vector<std::string> stop_strings;
};

/// Called with every new token (greedy and sampling; not beam search) and the text it completes
/// (may be empty while a UTF-8 character or a possible stop string is incomplete). Returning
/// true stops the generation.
using StreamerCallback = std::function<bool(TokenId token, std::string_view text)>;

struct GenerationPerf {
    double ttft_ms = 0.0;    ///< prompt step until the first new token is chosen
    double decode_ms = 0.0;  ///< the later tokens together
    size_t num_prompt_tokens = 0;
    size_t num_generated_tokens = 0;
    /// Tokens after the first per second of decode time (0 with fewer than two tokens).
    double decode_tokens_per_s() const {
        return num_generated_tokens > 1 && decode_ms > 0.0
                   ? (num_generated_tokens - 1) * 1000.0 / decode_ms
                   : 0.0;
    }
};

struct GenerationResult {
    /// One sequence (greedy, sampling) or num_return_sequences best beams, best first; the new
    /// tokens only.
    std::vector<std::vector<TokenId>> ids;
    /// Sum of log-probabilities / length^length_penalty (beam search), or the sum of the chosen
    /// tokens' log-probabilities (greedy, sampling, after the logit processors).
    std::vector<float> scores;
    /// Decoded ids (empty strings when the folder has no tokenizer); cut at a stop string.
    std::vector<std::string> texts;
    GenerationPerf perf;
};

struct PipelineOptions {
    /// Make an explicit-past decoder stateful at load (make_stateful: caches as variables,
    /// beam_idx reorder). False keeps past/present as inputs and outputs fed back by the host.
    bool stateful = true;
    /// The decoder file; genai_config.json's model.decoder.filename when empty.
    std::string model_file;
    /// When the logits output is a MatMul of a [batch, sequence, hidden] input (the LM head),
    /// slice that input to the last position at load: the prompt step then computes the head
    /// for one position, the only one generation reads. False keeps the model's logits as is.
    bool last_token_logits = true;
};

/// A decoder LM ready to generate. Loads `folder`:
/// - genai_config.json (ONNX Runtime GenAI's layout: model.decoder.filename, head counts,
///   inputs/outputs name templates past_key_values.%d.key / present.%d.key, eos/bos/pad ids,
///   context_length, vocab_size, the "search" defaults);
/// - the decoder (ONNX or IR, explicit past or already stateful with beam_idx);
/// - a tokenizer when tokenizer.json, vocab.json + merges.txt or encoder.json + vocab.bpe is there
///   (without one, only token-id prompts work).
///
///     vireo::genai::LLMPipeline pipe("models/gpt2", "CPU");
///     auto config = pipe.get_generation_config();
///     config.max_new_tokens = 32;
///     auto out = pipe.generate("The quick brown fox", config);
///     std::cout << out.texts[0];
///
/// Thread safety: generate() may run from several threads at once; each call uses its own infer
/// request of the one compiled model (idle requests are kept for later calls).
class LLMPipeline {
  public:
    LLMPipeline(const std::filesystem::path& folder, const std::string& device = "CPU",
                const AnyMap& properties = {}, const PipelineOptions& options = {});
    ~LLMPipeline();
    LLMPipeline(LLMPipeline&&) noexcept;
    LLMPipeline& operator=(LLMPipeline&&) noexcept;

    GenerationResult generate(std::string_view prompt, const GenerationConfig& config,
                              const StreamerCallback& streamer = {}) const;
    GenerationResult generate(std::span<const TokenId> prompt_ids, const GenerationConfig& config,
                              const StreamerCallback& streamer = {}) const;

    GenerationConfig get_generation_config() const;
    /// nullptr when the folder has no tokenizer files.
    const Tokenizer* get_tokenizer() const;
    bool is_stateful() const;
    size_t context_length() const;
    size_t vocab_size() const;

    class Impl;

  private:
    std::unique_ptr<Impl> m_impl;
};

}  // namespace vireo::genai
