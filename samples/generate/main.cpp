// vireo_generate: generates text with a decoder LM from an ONNX Runtime GenAI-style folder
// (genai_config.json, the decoder, tokenizer files) through vireo::genai::LLMPipeline and prints
// the text, the time to first token and the decode rate.
//   vireo_generate -m DIR -p "prompt" -n 64 [-d CPU] [--stream]
//   vireo_generate -m DIR --prompt_ids 464,2068,318 --print_ids     (ids in, ids out)
#include <gflags/gflags.h>
#include <glog/logging.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "sample_utils.hpp"
#include "vireo/exception.hpp"
#include "vireo/genai/llm_pipeline.hpp"
#include "vireo/properties.hpp"

DEFINE_string(m, "", "Required. The model folder (genai_config.json, decoder, tokenizer files).");
DEFINE_string(p, "", "The prompt text (needs tokenizer files in the folder).");
DEFINE_string(prompt_ids, "", "The prompt as comma-separated token ids instead of -p.");
DEFINE_uint32(n, 64, "New tokens at most.");
DEFINE_string(d, "CPU", "Device to run on.");
DEFINE_bool(stream, false, "Print the text as it is generated.");
DEFINE_bool(print_ids, false,
            "Print the generated ids as one comma-separated line on stdout (the figures go to "
            "stderr).");
DEFINE_uint32(num_beams, 1, "Beam search with this many beams (1: greedy or sampling).");
DEFINE_double(length_penalty, 1.0, "Beam search: score / length^length_penalty.");
DEFINE_bool(do_sample, false, "Sample (also implied by --temperature, --top_k or --top_p).");
DEFINE_double(temperature, 0.0, "Sampling temperature (implies --do_sample).");
DEFINE_uint32(top_k, 0, "Sampling: keep the k most likely tokens (implies --do_sample).");
DEFINE_double(top_p, 0.0, "Sampling: nucleus probability (implies --do_sample).");
DEFINE_uint64(seed, 0, "Sampling seed (0: random).");
DEFINE_double(repetition_penalty, 1.0, "Repetition penalty (> 1 discourages repeats).");
DEFINE_string(stop, "", "Stop strings, separated by '|'.");
DEFINE_bool(ignore_eos, false, "Do not stop at the end-of-sequence token.");
DEFINE_bool(explicit_past, false,
            "Keep past/present as inputs and outputs fed back by the host (default: make the "
            "model stateful at load).");
DEFINE_int32(threads, 0, "INFERENCE_NUM_THREADS for the device (0: the device's default).");
DEFINE_string(property, "",
              "Device properties KEY=VALUE[,KEY=VALUE] (e.g. CPU_SHAPE_CACHE_SIZE=0); values are "
              "passed as strings.");
DEFINE_uint32(reps, 1,
              "Measure: a 4-token warm-up, then this many generations; prints the median and best "
              "time to first token and decode rate (the output shown is the last run's).");

namespace {

std::vector<vireo::genai::TokenId> parse_ids(const std::string& text) {
    std::vector<vireo::genai::TokenId> ids;
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t comma = text.find(',', pos);
        if (comma == std::string::npos) comma = text.size();
        const std::string item = text.substr(pos, comma - pos);
        size_t used = 0;
        long long v = 0;
        try {
            v = std::stoll(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (item.empty() || used != item.size() || v < 0 || v > INT32_MAX)
            vireo::throw_error<vireo::InvalidArgument>("--prompt_ids: '", item,
                                                       "' is not a token id");
        ids.push_back(static_cast<vireo::genai::TokenId>(v));
        pos = comma + 1;
    }
    return ids;
}

int body(int argc, char** argv) {
    if (FLAGS_m.empty())
        vireo::throw_error<vireo::InvalidArgument>("-m (the model folder) is required");
    if (FLAGS_p.empty() == FLAGS_prompt_ids.empty())
        vireo::throw_error<vireo::InvalidArgument>("give exactly one of -p and --prompt_ids");
    vireo::AnyMap properties;
    if (FLAGS_threads > 0) properties.emplace(vireo::inference_num_threads(FLAGS_threads));
    for (size_t pos = 0; !FLAGS_property.empty() && pos <= FLAGS_property.size();) {
        size_t comma = FLAGS_property.find(',', pos);
        if (comma == std::string::npos) comma = FLAGS_property.size();
        const std::string item = FLAGS_property.substr(pos, comma - pos);
        const size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            vireo::throw_error<vireo::InvalidArgument>("--property: '", item, "' is not KEY=VALUE");
        properties[item.substr(0, eq)] = vireo::Any(item.substr(eq + 1));
        pos = comma + 1;
    }
    vireo::genai::PipelineOptions options;
    options.stateful = !FLAGS_explicit_past;
    vireo::genai::LLMPipeline pipe(FLAGS_m, FLAGS_d, properties, options);
    vireo::genai::GenerationConfig c = pipe.get_generation_config();
    c.max_new_tokens = FLAGS_n;
    c.num_beams = FLAGS_num_beams;
    c.length_penalty = static_cast<float>(FLAGS_length_penalty);
    c.do_sample = FLAGS_do_sample || FLAGS_temperature > 0 || FLAGS_top_k > 0 || FLAGS_top_p > 0;
    if (!c.do_sample) {
        c.top_k = 0;
        c.top_p = 1.0f;
    }
    if (FLAGS_temperature > 0) c.temperature = static_cast<float>(FLAGS_temperature);
    if (FLAGS_top_k > 0) c.top_k = FLAGS_top_k;
    if (FLAGS_top_p > 0) c.top_p = static_cast<float>(FLAGS_top_p);
    if (FLAGS_seed != 0) c.rng_seed = FLAGS_seed;
    c.repetition_penalty = static_cast<float>(FLAGS_repetition_penalty);
    c.ignore_eos = FLAGS_ignore_eos;
    for (size_t pos = 0; !FLAGS_stop.empty() && pos <= FLAGS_stop.size();) {
        size_t bar = FLAGS_stop.find('|', pos);
        if (bar == std::string::npos) bar = FLAGS_stop.size();
        if (bar > pos) c.stop_strings.push_back(FLAGS_stop.substr(pos, bar - pos));
        pos = bar + 1;
    }
    std::ostream& info = FLAGS_print_ids ? std::cerr : std::cout;
    vireo::genai::StreamerCallback streamer;
    if (FLAGS_stream && !FLAGS_print_ids)
        streamer = [](vireo::genai::TokenId, std::string_view text) {
            std::cout << text << std::flush;
            return false;
        };
    auto run = [&](const vireo::genai::GenerationConfig& config,
                   const vireo::genai::StreamerCallback& s) {
        return FLAGS_prompt_ids.empty() ? pipe.generate(FLAGS_p, config, s)
                                        : pipe.generate(parse_ids(FLAGS_prompt_ids), config, s);
    };
    std::vector<double> ttft, rate;
    if (FLAGS_reps > 1) {
        vireo::genai::GenerationConfig warm = c;
        warm.max_new_tokens = std::min<size_t>(4, c.max_new_tokens);
        run(warm, {});
        for (uint32_t r = 0; r + 1 < FLAGS_reps; ++r) {
            const auto o = run(c, {});
            ttft.push_back(o.perf.ttft_ms);
            rate.push_back(o.perf.decode_tokens_per_s());
        }
    }
    const vireo::genai::GenerationResult out = run(c, streamer);
    if (FLAGS_print_ids) {
        std::string line;
        for (size_t i = 0; i < out.ids[0].size(); ++i)
            line += (i ? "," : "") + std::to_string(out.ids[0][i]);
        std::cout << line << "\n";
    } else if (streamer) {
        std::cout << "\n";
    } else if (pipe.get_tokenizer()) {
        if (!FLAGS_p.empty()) std::cout << FLAGS_p;
        std::cout << out.texts[0] << "\n";
    }
    info << "[ INFO ] device " << FLAGS_d << ", "
         << (pipe.is_stateful() ? "stateful" : "explicit past") << "\n";
    info << "[ INFO ] prompt tokens: " << out.perf.num_prompt_tokens
         << ", generated tokens: " << out.perf.num_generated_tokens << "\n";
    char line[160];
    std::snprintf(line, sizeof line, "[ INFO ] time to first token: %.2f ms\n", out.perf.ttft_ms);
    info << line;
    std::snprintf(line, sizeof line,
                  "[ INFO ] decode: %.2f tokens/s (%zu tokens after the first in %.1f ms)\n",
                  out.perf.decode_tokens_per_s(),
                  out.perf.num_generated_tokens ? out.perf.num_generated_tokens - 1 : 0,
                  out.perf.decode_ms);
    info << line;
    if (!ttft.empty()) {
        ttft.push_back(out.perf.ttft_ms);
        rate.push_back(out.perf.decode_tokens_per_s());
        std::sort(ttft.begin(), ttft.end());
        std::sort(rate.begin(), rate.end());
        // An even count's median is the mean of its two middle values (with --reps 2 the upper
        // one was the best decode rate and the worst first token).
        auto median = [](const std::vector<double>& sorted) {
            const size_t m = sorted.size() / 2;
            return sorted.size() % 2 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
        };
        std::snprintf(line, sizeof line,
                      "[ INFO ] %zu runs: time to first token median %.2f ms, best %.2f ms; decode "
                      "median %.2f tokens/s, best %.2f tokens/s\n",
                      ttft.size(), median(ttft), ttft.front(), median(rate), rate.back());
        info << line;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    gflags::SetUsageMessage(
        "vireo_generate -m DIR (-p \"prompt\" | --prompt_ids 464,2068,318) [-n 64] [-d CPU] "
        "[--stream] [--print_ids] [--num_beams N] [--temperature T --top_k K --top_p P --seed S]");
    if (vireo::samples::show_help_if_asked(argc, argv, "generate/main.cpp")) return 0;
    gflags::ParseCommandLineFlags(&argc, &argv, true);
    return vireo::samples::run_main(body, argc, argv);
}
