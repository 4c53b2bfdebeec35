// The _vireo_genai extension module (vireo.genai): LLMPipeline, GenerationConfig,
// GenerationResult and Tokenizer of libvireo_genai. Generation runs without the GIL; a streamer
// callback takes it for each call. Errors are vireo.Error subclasses (vireo's translator,
// registered by _vireo, which vireo/genai.py imports first).
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "vireo/exception.hpp"
#include "vireo/genai/llm_pipeline.hpp"

namespace py = pybind11;
using namespace vireo::genai;

namespace {

vireo::AnyMap properties_of(const py::dict& d) {
    vireo::AnyMap out;
    for (const auto& [k, v] : d) {
        const std::string key = py::str(k);
        if (py::isinstance<py::bool_>(v))
            out.emplace(key, vireo::Any(v.cast<bool>()));
        else if (py::isinstance<py::int_>(v))
            out.emplace(key, vireo::Any(v.cast<int64_t>()));
        else if (py::isinstance<py::float_>(v))
            out.emplace(key, vireo::Any(v.cast<double>()));
        else
            out.emplace(key, vireo::Any(std::string(py::str(v))));
    }
    return out;
}

// Keyword arguments of generate() applied over a config: the fields of GenerationConfig.
void apply_kwargs(GenerationConfig& c, const py::kwargs& kwargs) {
    py::object obj = py::cast(&c, py::return_value_policy::reference);
    for (const auto& [k, v] : kwargs) {
        const std::string key = py::str(k);
        if (!py::hasattr(obj, key.c_str()))
            vireo::throw_error<vireo::InvalidArgument>("generate: unknown option '", key,
                                                       "' (not a GenerationConfig field)");
        obj.attr(key.c_str()) = v;
    }
}

GenerationResult run(const LLMPipeline& pipe, const py::object& prompt,
                     std::optional<GenerationConfig> config, const py::object& streamer,
                     const py::kwargs& kwargs) {
    GenerationConfig c = config ? *config : pipe.get_generation_config();
    apply_kwargs(c, kwargs);
    StreamerCallback callback;
    if (!streamer.is_none()) {
        py::function f = streamer.cast<py::function>();
        callback = [f](TokenId token, std::string_view text) {
            py::gil_scoped_acquire gil;
            py::object r =
                f(token, py::bytes(text.data(), text.size()).attr("decode")("utf-8", "replace"));
            return !r.is_none() && r.cast<bool>();
        };
    }
    if (py::isinstance<py::str>(prompt)) {
        const std::string text = prompt.cast<std::string>();
        py::gil_scoped_release release;
        return pipe.generate(text, c, callback);
    }
    const std::vector<TokenId> ids = prompt.cast<std::vector<TokenId>>();
    py::gil_scoped_release release;
    return pipe.generate(ids, c, callback);
}

}  // namespace

PYBIND11_MODULE(_vireo_genai, m) {
    m.doc() = "Text generation with decoder LMs (libvireo_genai); see docs/llm.md";

    py::class_<Tokenizer>(m, "Tokenizer",
                          "GPT-2 byte-level or SentencePiece-style BPE from a model folder.")
        .def(py::init([](const std::filesystem::path& folder) {
                 return Tokenizer::from_folder(folder);
             }),
             py::arg("folder"))
        .def(
            "encode", [](const Tokenizer& t, const std::string& text) { return t.encode(text); },
            py::arg("text"))
        .def(
            "decode",
            [](const Tokenizer& t, const std::vector<TokenId>& ids, bool skip_special) {
                DecodeOptions o;
                o.skip_special_tokens = skip_special;
                const std::string s = t.decode(ids, o);
                return py::bytes(s).attr("decode")("utf-8", "replace");
            },
            py::arg("ids"), py::arg("skip_special_tokens") = false)
        .def_property_readonly("vocab_size", &Tokenizer::vocab_size);

    py::class_<GenerationConfig>(m, "GenerationConfig",
                                 "How one generate() call searches (docs/llm.md).")
        .def(py::init<>())
        .def_readwrite("max_new_tokens", &GenerationConfig::max_new_tokens)
        .def_readwrite("do_sample", &GenerationConfig::do_sample)
        .def_readwrite("temperature", &GenerationConfig::temperature)
        .def_readwrite("top_k", &GenerationConfig::top_k)
        .def_readwrite("top_p", &GenerationConfig::top_p)
        .def_readwrite("rng_seed", &GenerationConfig::rng_seed)
        .def_readwrite("repetition_penalty", &GenerationConfig::repetition_penalty)
        .def_readwrite("num_beams", &GenerationConfig::num_beams)
        .def_readwrite("length_penalty", &GenerationConfig::length_penalty)
        .def_readwrite("num_return_sequences", &GenerationConfig::num_return_sequences)
        .def_readwrite("eos_token_id", &GenerationConfig::eos_token_id)
        .def_readwrite("ignore_eos", &GenerationConfig::ignore_eos)
        .def_readwrite("stop_token_ids", &GenerationConfig::stop_token_ids)
        .def_readwrite("stop_strings", &GenerationConfig::stop_strings);

    py::class_<GenerationPerf>(m, "GenerationPerf")
        .def_readonly("ttft_ms", &GenerationPerf::ttft_ms)
        .def_readonly("decode_ms", &GenerationPerf::decode_ms)
        .def_readonly("num_prompt_tokens", &GenerationPerf::num_prompt_tokens)
        .def_readonly("num_generated_tokens", &GenerationPerf::num_generated_tokens)
        .def_property_readonly("decode_tokens_per_s", &GenerationPerf::decode_tokens_per_s);

    py::class_<GenerationResult>(m, "GenerationResult")
        .def_readonly("ids", &GenerationResult::ids)
        .def_readonly("scores", &GenerationResult::scores)
        .def_readonly("texts", &GenerationResult::texts)
        .def_readonly("perf", &GenerationResult::perf)
        .def("__str__", [](const GenerationResult& r) {
            return r.texts.empty() ? std::string() : r.texts[0];
        });

    py::class_<LLMPipeline>(m, "LLMPipeline",
                            "A decoder LM from an ONNX Runtime GenAI-style folder, compiled on "
                            "a device; generate() may run from several threads at once.")
        .def(py::init([](const std::filesystem::path& folder, const std::string& device,
                         const py::dict& properties, bool stateful) {
                 PipelineOptions o;
                 o.stateful = stateful;
                 const vireo::AnyMap props = properties_of(properties);
                 py::gil_scoped_release release;
                 return std::make_unique<LLMPipeline>(folder, device, props, o);
             }),
             py::arg("folder"), py::arg("device") = "CPU", py::arg("properties") = py::dict(),
             py::arg("stateful") = true)
        .def("generate", &run, py::arg("prompt"), py::arg("config") = py::none(),
             py::arg("streamer") = py::none(),
             "prompt: str (needs tokenizer files) or a list of token ids; config: a "
             "GenerationConfig (default: the folder's); streamer(token_id, text) -> True to "
             "stop; keyword arguments override config fields (max_new_tokens=32, ...).")
        .def("get_generation_config", &LLMPipeline::get_generation_config)
        .def_property_readonly("tokenizer",
                               [](const LLMPipeline& p) -> py::object {
                                   return p.get_tokenizer() ? py::cast(*p.get_tokenizer())
                                                            : py::none();
                               })
        .def_property_readonly("is_stateful", &LLMPipeline::is_stateful)
        .def_property_readonly("context_length", &LLMPipeline::context_length)
        .def_property_readonly("vocab_size", &LLMPipeline::vocab_size);
}
