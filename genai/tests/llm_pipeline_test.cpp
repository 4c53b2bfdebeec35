// LLMPipeline on the --tiny GPT-2- and Llama-style decoders that samples/llm/export_decoders.py
// writes (VIREO_LLM_TINY_DIR/{gpt2-tiny,llama-tiny}; skipped when the variable is not set, and
// ctest's vireo_genai_llm_tiny exports them first): greedy and beam search equal PyTorch's
// reference ids, stateful equals explicit past, on CPU and TEMPLATE; sampling with a seed,
// streaming, stop strings, concurrent generations and the errors.
#include "vireo/genai/llm_pipeline.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "json_value.hpp"
#include "vireo/core.hpp"
#include "vireo/exception.hpp"
#include "vireo/ir.hpp"
#include "vireo/transformations.hpp"

namespace {

namespace fs = std::filesystem;
using namespace vireo::genai;

fs::path tiny_dir() {
    const char* env = std::getenv("VIREO_LLM_TINY_DIR");
    return env ? fs::path(env) : fs::path();
}

#define REQUIRE_TINY()                                                          \
    if (tiny_dir().empty() || !fs::exists(tiny_dir() / "gpt2-tiny/model.onnx")) \
    GTEST_SKIP() << "VIREO_LLM_TINY_DIR not set (ctest vireo_genai_llm_tiny sets it)"

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

struct Reference {
    std::vector<TokenId> prompt;
    std::vector<TokenId> generated;
};

Reference reference(const std::string& model, const std::string& file) {
    const fs::path p = tiny_dir() / model / file;
    auto json = vireo::genai::detail::JsonValue::parse(read_text(p), p.string());
    Reference r;
    for (const auto& v : json.find("prompt_ids")->as_array())
        r.prompt.push_back(static_cast<TokenId>(v.as_int()));
    for (const auto& v : json.find("generated_ids")->as_array())
        r.generated.push_back(static_cast<TokenId>(v.as_int()));
    return r;
}

struct Case {
    std::string model;
    std::string device;
    bool stateful;
};

// gtest would otherwise print the struct's bytes, padding included (valgrind: uninitialised).
void PrintTo(const Case& c, std::ostream* os) {
    *os << c.model << " on " << c.device << (c.stateful ? ", stateful" : ", explicit past");
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
    std::string m = info.param.model;
    m.erase(std::remove(m.begin(), m.end(), '-'), m.end());
    return m + "_" + info.param.device + (info.param.stateful ? "_stateful" : "_explicit");
}

class LlmTiny : public ::testing::TestWithParam<Case> {
  protected:
    LLMPipeline make() const {
        PipelineOptions o;
        o.stateful = GetParam().stateful;
        return LLMPipeline(tiny_dir() / GetParam().model, GetParam().device, {}, o);
    }
};

class LlmTinyFast : public LlmTiny {};

bool pipe_loads_stateful_anyway(const fs::path& dir, const PipelineOptions& o) {
    return LLMPipeline(dir, "TEMPLATE", {}, o).is_stateful();
}

TEST_P(LlmTiny, GreedyEqualsPyTorch) {
    REQUIRE_TINY();
    const Reference ref = reference(GetParam().model, "reference_greedy.json");
    LLMPipeline pipe = make();
    EXPECT_EQ(pipe.is_stateful(), GetParam().stateful);
    GenerationConfig c = pipe.get_generation_config();
    c.max_new_tokens = ref.generated.size();
    c.ignore_eos = true;
    std::vector<TokenId> streamed;
    const auto out = pipe.generate(ref.prompt, c, [&](TokenId t, std::string_view) {
        if (t >= 0) streamed.push_back(t);
        return false;
    });
    ASSERT_EQ(out.ids.size(), 1u);
    EXPECT_EQ(out.ids[0], ref.generated);
    EXPECT_EQ(streamed, ref.generated);
    EXPECT_EQ(out.perf.num_generated_tokens, ref.generated.size());
    EXPECT_EQ(out.perf.num_prompt_tokens, ref.prompt.size());
    EXPECT_GT(out.perf.ttft_ms, 0.0);
    // The same request again (a new sequence after reset / fresh past): the same ids. Not on
    // CPU with explicit past, where every token's new input shapes compile a new oneDNN graph
    // (about 0.1 s per token even for these tiny models).
    if (GetParam().stateful || GetParam().device != "CPU") {
        EXPECT_EQ(pipe.generate(ref.prompt, c).ids[0], ref.generated);
    }
}

TEST_P(LlmTinyFast, BeamSearch4EqualsPyTorch) {
    REQUIRE_TINY();
    const Reference ref = reference(GetParam().model, "reference_beam4.json");
    LLMPipeline pipe = make();
    GenerationConfig c = pipe.get_generation_config();
    c.num_beams = 4;
    c.num_return_sequences = 2;
    c.max_new_tokens = ref.generated.size();
    c.ignore_eos = true;
    const auto out = pipe.generate(ref.prompt, c);
    ASSERT_EQ(out.ids.size(), 2u);
    EXPECT_EQ(out.ids[0], ref.generated);
    EXPECT_GE(out.scores[0], out.scores[1]);
}

TEST_P(LlmTinyFast, BeamSearchStopsAtEos) {
    REQUIRE_TINY();
    const Reference ref = reference(GetParam().model, "reference_beam4.json");
    LLMPipeline pipe = make();
    GenerationConfig c = pipe.get_generation_config();
    c.num_beams = 4;
    c.num_return_sequences = 4;
    c.max_new_tokens = 40;
    // The 4th token of PyTorch's best beam as the end token: hypotheses ending there finish
    // early and none of the returned ones contains it. With length_penalty 0 (raw summed
    // log-probabilities) a hypothesis that finished within a few tokens outranks the 40-token
    // ones; a larger penalty can only move longer ones up; scores come best first.
    c.eos_token_id = ref.generated[3];
    c.ignore_eos = false;
    c.length_penalty = 0.0f;
    const auto raw = pipe.generate(ref.prompt, c);
    ASSERT_EQ(raw.ids.size(), 4u);
    EXPECT_LT(raw.ids[0].size(), 40u);
    c.length_penalty = 3.0f;
    const auto long_first = pipe.generate(ref.prompt, c);
    ASSERT_EQ(long_first.ids.size(), 4u);
    EXPECT_GE(long_first.ids[0].size(), raw.ids[0].size());
    for (const auto* out : {&raw, &long_first}) {
        for (size_t i = 0; i < out->ids.size(); ++i) {
            EXPECT_EQ(std::count(out->ids[i].begin(), out->ids[i].end(), *c.eos_token_id), 0);
            EXPECT_LE(out->ids[i].size(), 40u);
            if (i) {
                EXPECT_GE(out->scores[i - 1], out->scores[i]);
            }
        }
    }
}

TEST_P(LlmTinyFast, SamplingIsReproducibleWithASeed) {
    REQUIRE_TINY();
    const Reference ref = reference(GetParam().model, "reference_greedy.json");
    LLMPipeline pipe = make();
    GenerationConfig c = pipe.get_generation_config();
    c.do_sample = true;
    c.temperature = 1.5f;
    c.top_k = 50;
    c.top_p = 0.95f;
    c.repetition_penalty = 1.1f;
    c.max_new_tokens = 24;
    c.ignore_eos = true;
    c.rng_seed = 1234;
    const auto a = pipe.generate(ref.prompt, c).ids[0];
    const auto b = pipe.generate(ref.prompt, c).ids[0];
    EXPECT_EQ(a, b);
    ASSERT_EQ(a.size(), 24u);
    c.rng_seed = 99;
    EXPECT_NE(pipe.generate(ref.prompt, c).ids[0], a);
    EXPECT_NE(a, std::vector<TokenId>(ref.generated.begin(), ref.generated.begin() + 24));
}

TEST_P(LlmTinyFast, StopTokensAndLimits) {
    REQUIRE_TINY();
    const Reference ref = reference(GetParam().model, "reference_greedy.json");
    LLMPipeline pipe = make();
    GenerationConfig c = pipe.get_generation_config();
    c.ignore_eos = true;
    c.max_new_tokens = 64;
    // Stop on the 6th greedy token: 5 tokens come back (the stop token is not part of the output).
    const TokenId stop = ref.generated[5];
    size_t first = 0;
    while (ref.generated[first] != stop) ++first;
    c.stop_token_ids = {stop};
    auto out = pipe.generate(ref.prompt, c);
    EXPECT_EQ(out.ids[0],
              std::vector<TokenId>(ref.generated.begin(), ref.generated.begin() + first));
    // A streamer returning true stops after that token.
    c.stop_token_ids.clear();
    size_t calls = 0;
    out = pipe.generate(ref.prompt, c, [&](TokenId, std::string_view) { return ++calls == 3; });
    EXPECT_EQ(out.ids[0], std::vector<TokenId>(ref.generated.begin(), ref.generated.begin() + 3));
    // max_new_tokens 0 and a context that ends the generation.
    c.max_new_tokens = 0;
    EXPECT_TRUE(pipe.generate(ref.prompt, c).ids[0].empty());
    c.max_new_tokens = 100000;
    std::vector<TokenId> long_prompt(pipe.context_length() - 3, ref.prompt[0]);
    EXPECT_EQ(pipe.generate(long_prompt, c).ids[0].size(), 3u);
}

const std::vector<Case> kCases = {
    {"gpt2-tiny", "CPU", true},       {"gpt2-tiny", "CPU", false},
    {"gpt2-tiny", "TEMPLATE", true},  {"gpt2-tiny", "TEMPLATE", false},
    {"llama-tiny", "CPU", true},      {"llama-tiny", "CPU", false},
    {"llama-tiny", "TEMPLATE", true}, {"llama-tiny", "TEMPLATE", false},
};
// CPU with explicit past compiles every token's shapes (see above): greedy only.
const std::vector<Case> kFastCases = {
    {"gpt2-tiny", "CPU", true},       {"gpt2-tiny", "TEMPLATE", true},
    {"gpt2-tiny", "TEMPLATE", false}, {"llama-tiny", "CPU", true},
    {"llama-tiny", "TEMPLATE", true}, {"llama-tiny", "TEMPLATE", false},
};
INSTANTIATE_TEST_SUITE_P(Models, LlmTiny, ::testing::ValuesIn(kCases), case_name);
INSTANTIATE_TEST_SUITE_P(Models, LlmTinyFast, ::testing::ValuesIn(kFastCases), case_name);

template <typename E>
std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    return "(no exception of the expected type)";
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

TEST(LlmTinyErrors, NameTheFault) {
    REQUIRE_TINY();
    LLMPipeline pipe(tiny_dir() / "gpt2-tiny", "CPU");
    GenerationConfig c = pipe.get_generation_config();
    const std::vector<TokenId> bad{1, 2, 1000};
    EXPECT_TRUE(contains(error_of<vireo::InvalidArgument>([&] { pipe.generate(bad, c); }),
                         "prompt token 2 is id 1000, outside the vocabulary [0, 1000)"));
    const std::vector<TokenId> too_long(pipe.context_length(), 5);
    EXPECT_TRUE(contains(error_of<vireo::InvalidArgument>([&] { pipe.generate(too_long, c); }),
                         "context length 256"));
    EXPECT_TRUE(contains(error_of<vireo::InvalidArgument>([&] { pipe.generate("hello", c); }),
                         "no tokenizer"));
    c.num_beams = 2;
    c.num_return_sequences = 3;
    EXPECT_TRUE(contains(
        error_of<vireo::InvalidArgument>([&] { pipe.generate(std::vector<TokenId>{1}, c); }),
        "num_return_sequences"));
    EXPECT_TRUE(
        contains(error_of<vireo::NotFound>([&] { LLMPipeline(tiny_dir() / "nope"); }), "nope"));
    // A folder whose config is broken or names a missing decoder.
    const fs::path dir =
        fs::temp_directory_path() / ("vireo_llm_bad_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    EXPECT_TRUE(
        contains(error_of<vireo::NotFound>([&] { LLMPipeline p(dir); }), "genai_config.json"));
    std::string cfg = read_text(tiny_dir() / "gpt2-tiny/genai_config.json");
    std::ofstream(dir / "genai_config.json") << cfg;
    EXPECT_TRUE(contains(error_of<vireo::NotFound>([&] { LLMPipeline p(dir); }), "model.onnx"));
    std::ofstream(dir / "genai_config.json") << "{\"model\": {\"decoder\": {}}}";
    EXPECT_TRUE(contains(error_of<vireo::InvalidArgument>([&] { LLMPipeline p(dir); }),
                         "num_hidden_layers"));
    std::ofstream(dir / "genai_config.json") << "{\"model\": ";
    EXPECT_THROW(LLMPipeline p(dir), vireo::Exception);
    // Names in the config that the model does not have.
    fs::copy_file(tiny_dir() / "gpt2-tiny/model.onnx", dir / "model.onnx",
                  fs::copy_options::overwrite_existing);
    std::string renamed = cfg;
    renamed.replace(renamed.find("present.%d.key"), 14, "presnt.%d.key");
    std::ofstream(dir / "genai_config.json") << renamed;
    EXPECT_TRUE(contains(error_of<vireo::Exception>([&] { LLMPipeline p(dir); }), "presnt.0.key"));
    fs::remove_all(dir);
}

// Without slicing the LM head's input to the last position: the full [batch, sequence, vocab]
// logits, the pipeline picks the last row; the same ids.
TEST(LlmTinyIr, FullLogitsGiveTheSameIds) {
    REQUIRE_TINY();
    for (const std::string model : {"gpt2-tiny", "llama-tiny"}) {
        const Reference ref = reference(model, "reference_greedy.json");
        PipelineOptions o;
        o.last_token_logits = false;
        LLMPipeline pipe(tiny_dir() / model, "TEMPLATE", {}, o);
        GenerationConfig c = pipe.get_generation_config();
        c.max_new_tokens = ref.generated.size();
        c.ignore_eos = true;
        EXPECT_EQ(pipe.generate(ref.prompt, c).ids[0], ref.generated) << model;
    }
}

// The decoder as IR: the explicit-past model saved as IR (made stateful at load) and a stateful
// IR written after make_stateful (used as it is: it has beam_idx and no past inputs).
TEST(LlmTinyIr, ExplicitAndStatefulIrFoldersEqualPyTorch) {
    REQUIRE_TINY();
    for (const std::string model : {"gpt2-tiny", "llama-tiny"}) {
        const Reference ref = reference(model, "reference_greedy.json");
        const fs::path dir =
            fs::temp_directory_path() / ("vireo_llm_ir_" + model + std::to_string(::getpid()));
        fs::create_directories(dir);
        fs::copy_file(tiny_dir() / model / "genai_config.json", dir / "genai_config.json",
                      fs::copy_options::overwrite_existing);
        vireo::Core core;
        auto m = core.read_model((tiny_dir() / model / "model.onnx").string());
        vireo::serialize(*m, (dir / "explicit.xml").string());
        vireo::MakeStatefulOptions o;
        for (int l = 0; l < 2; ++l)
            for (const char* kv : {"key", "value"})
                o.pairs.push_back({"past_key_values." + std::to_string(l) + "." + kv,
                                   "present." + std::to_string(l) + "." + kv});
        vireo::make_stateful(m, o);
        vireo::serialize(*m, (dir / "stateful.xml").string());
        for (const std::string file : {"explicit.xml", "stateful.xml"}) {
            PipelineOptions po;
            po.model_file = file;
            LLMPipeline pipe(dir, "CPU", {}, po);
            EXPECT_TRUE(pipe.is_stateful());
            GenerationConfig c = pipe.get_generation_config();
            c.max_new_tokens = ref.generated.size();
            c.ignore_eos = true;
            EXPECT_EQ(pipe.generate(ref.prompt, c).ids[0], ref.generated) << model << " " << file;
        }
        // A stateful IR cannot be loaded "explicit": it has no past inputs to feed.
        PipelineOptions po;
        po.model_file = "stateful.xml";
        po.stateful = false;
        EXPECT_TRUE(pipe_loads_stateful_anyway(dir, po));
        fs::remove_all(dir);
    }
}

// OpenVINO GenAI's layout: a stateful openvino_model.xml, Hugging Face's config.json and
// generation_config.json (its max_new_tokens and eos_token_id become the defaults).
TEST(LlmTinyIr, OpenVinoGenAiFolder) {
    REQUIRE_TINY();
    const Reference ref = reference("llama-tiny", "reference_greedy.json");
    const fs::path dir = fs::temp_directory_path() / ("vireo_llm_ov_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    vireo::Core core;
    auto m = core.read_model((tiny_dir() / "llama-tiny/model.onnx").string());
    vireo::MakeStatefulOptions o;
    for (int l = 0; l < 2; ++l)
        for (const char* kv : {"key", "value"})
            o.pairs.push_back({"past_key_values." + std::to_string(l) + "." + kv,
                               "present." + std::to_string(l) + "." + kv});
    vireo::make_stateful(m, o);
    vireo::serialize(*m, (dir / "openvino_model.xml").string());
    std::ofstream(dir / "config.json")
        << R"({"num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
              "hidden_size": 64, "max_position_embeddings": 256, "vocab_size": 1000,
              "eos_token_id": 2})";
    std::ofstream(dir / "generation_config.json")
        << R"({"max_new_tokens": 12, "eos_token_id": [)" << ref.generated[12] << "]}";
    LLMPipeline pipe(dir, "TEMPLATE");
    EXPECT_TRUE(pipe.is_stateful());
    EXPECT_EQ(pipe.context_length(), 256u);
    const GenerationConfig c = pipe.get_generation_config();
    EXPECT_EQ(c.max_new_tokens, 12u);
    ASSERT_TRUE(c.eos_token_id.has_value());
    size_t first = 0;
    while (first < 12 && ref.generated[first] != *c.eos_token_id) ++first;
    EXPECT_EQ(pipe.generate(ref.prompt, c).ids[0],
              std::vector<TokenId>(ref.generated.begin(), ref.generated.begin() + first));
    std::ofstream(dir / "config.json") << R"({"num_hidden_layers": 2})";
    EXPECT_TRUE(contains(error_of<vireo::InvalidArgument>([&] { LLMPipeline p(dir); }),
                         "num_attention_heads"));
    fs::remove_all(dir);
}

// A byte-level BPE tokenizer.json with exactly 1,000 ids (the tiny models' vocabulary): the 256
// byte symbols of GPT-2's byte-to-unicode map, then merges of two lowercase or uppercase letters.
std::string tiny_tokenizer_json() {
    std::vector<int> bs;
    for (int b = 33; b <= 126; ++b) bs.push_back(b);
    for (int b = 161; b <= 172; ++b) bs.push_back(b);
    for (int b = 174; b <= 255; ++b) bs.push_back(b);
    std::vector<int> cs = bs;
    int n = 0;
    for (int b = 0; b < 256; ++b)
        if (std::find(bs.begin(), bs.end(), b) == bs.end()) {
            bs.push_back(b);
            cs.push_back(256 + n++);
        }
    std::vector<std::string> sym(256);
    for (size_t i = 0; i < bs.size(); ++i) {
        const int c = cs[i];
        std::string u;
        if (c < 0x80) {
            u = std::string(1, static_cast<char>(c));
        } else {
            u += static_cast<char>(0xC0 | (c >> 6));
            u += static_cast<char>(0x80 | (c & 0x3F));
        }
        sym[bs[i]] = u;
    }
    auto esc = [](const std::string& s) {
        std::string o;
        for (char ch : s) {
            if (ch == '"' || ch == '\\') o += '\\';
            o += ch;
        }
        return o;
    };
    std::string vocab, merges;
    for (int b = 0; b < 256; ++b)
        vocab += (b ? "," : "") + std::string("\"") + esc(sym[b]) + "\":" + std::to_string(b);
    int id = 256;
    for (const char* letters : {"abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"})
        for (int i = 0; i < 26 && id < 1000; ++i)
            for (int j = 0; j < 26 && id < 1000; ++j) {
                const std::string a(1, letters[i]), b(1, letters[j]);
                vocab += ",\"" + a + b + "\":" + std::to_string(id++);
                merges += (merges.empty() ? "" : ",") + std::string("\"") + a + " " + b + "\"";
            }
    return "{\"added_tokens\":[],\"normalizer\":null,\"pre_tokenizer\":{\"type\":\"ByteLevel\","
           "\"add_prefix_space\":false},\"decoder\":{\"type\":\"ByteLevel\"},\"model\":{\"type\":"
           "\"BPE\",\"vocab\":{" +
           vocab + "},\"merges\":[" + merges + "]}}";
}

class LlmTinyText : public ::testing::Test {
  protected:
    void SetUp() override {
        REQUIRE_TINY();
        dir = fs::temp_directory_path() / ("vireo_llm_text_" + std::to_string(::getpid()));
        fs::create_directories(dir);
        for (const char* f : {"model.onnx", "genai_config.json"})
            fs::copy_file(tiny_dir() / "gpt2-tiny" / f, dir / f,
                          fs::copy_options::overwrite_existing);
        std::ofstream(dir / "tokenizer.json") << tiny_tokenizer_json();
    }
    void TearDown() override {
        if (!dir.empty()) fs::remove_all(dir);
    }
    fs::path dir;
};

TEST_F(LlmTinyText, StopStringsCutTheTextAndTheStreamerSeesTheSame) {
    LLMPipeline pipe(dir, "CPU");
    ASSERT_NE(pipe.get_tokenizer(), nullptr);
    EXPECT_EQ(pipe.get_tokenizer()->vocab_size(), 1000u);
    GenerationConfig c = pipe.get_generation_config();
    c.ignore_eos = true;
    c.max_new_tokens = 40;
    const auto full = pipe.generate("hello world", c);
    EXPECT_EQ(full.ids[0], pipe.generate(pipe.get_tokenizer()->encode("hello world"), c).ids[0]);
    const std::string text = full.texts[0];
    ASSERT_EQ(text, pipe.get_tokenizer()->decode(full.ids[0]));
    // The text of tokens 10 and 11 as the stop string: the output ends before its first
    // occurrence.
    const std::string stop =
        pipe.get_tokenizer()->decode(std::vector<TokenId>{full.ids[0][10], full.ids[0][11]});
    const size_t at = text.find(stop);
    ASSERT_NE(at, std::string::npos);
    c.stop_strings = {stop, "\x01\x02never"};
    std::string streamed;
    std::vector<TokenId> streamed_ids;
    const auto cut = pipe.generate("hello world", c, [&](TokenId t, std::string_view piece) {
        if (t >= 0) streamed_ids.push_back(t);
        streamed += piece;
        return false;
    });
    EXPECT_EQ(cut.texts[0], text.substr(0, at));
    EXPECT_EQ(streamed, cut.texts[0]);
    EXPECT_LE(cut.ids[0].size(), 12u);
    EXPECT_EQ(cut.ids[0],
              std::vector<TokenId>(full.ids[0].begin(), full.ids[0].begin() + cut.ids[0].size()));
    EXPECT_EQ(streamed_ids, cut.ids[0]);
    // Without stop strings the streamed pieces add up to the whole text.
    c.stop_strings.clear();
    streamed.clear();
    pipe.generate("hello world", c, [&](TokenId, std::string_view piece) {
        streamed += piece;
        return false;
    });
    EXPECT_EQ(streamed, text);
}

TEST_F(LlmTinyText, ConcurrentGenerationsOnOnePipeline) {
    LLMPipeline pipe(dir, "CPU");
    GenerationConfig c = pipe.get_generation_config();
    c.ignore_eos = true;
    c.max_new_tokens = 20;
    const std::vector<std::string> prompts{"one", "two things", "three more things", "four"};
    std::vector<std::vector<TokenId>> expected;
    for (const auto& p : prompts) expected.push_back(pipe.generate(p, c).ids[0]);
    for (size_t i = 1; i < expected.size(); ++i) EXPECT_NE(expected[i], expected[0]);
    std::vector<std::vector<TokenId>> got(prompts.size() * 2);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < got.size(); ++t)
        threads.emplace_back([&, t] {
            for (int rep = 0; rep < 3; ++rep)
                got[t] = pipe.generate(prompts[t % prompts.size()], c).ids[0];
        });
    for (auto& th : threads) th.join();
    for (size_t t = 0; t < got.size(); ++t) EXPECT_EQ(got[t], expected[t % prompts.size()]) << t;
}

}  // namespace
