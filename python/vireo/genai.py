"""Text generation with decoder language models (libvireo_genai), shaped like OpenVINO GenAI.

    import vireo.genai as genai
    pipe = genai.LLMPipeline("models/gpt2", "CPU")
    print(pipe.generate("The quick brown fox", max_new_tokens=32))
    out = pipe.generate([464, 2068, 318], max_new_tokens=16, num_beams=4)
    out.ids[0], out.perf.ttft_ms, out.perf.decode_tokens_per_s

See docs/llm.md.
"""
from . import _vireo  # noqa: F401  (registers vireo.Error and the translator first)

try:
    from ._vireo_genai import (  # noqa: F401
        GenerationConfig,
        GenerationPerf,
        GenerationResult,
        LLMPipeline,
        Tokenizer,
    )
except ImportError as e:  # built with -DVIREO_BUILD_GENAI=OFF
    raise ImportError("vireo.genai: the _vireo_genai module is missing (Vireo was built without "
                      "genai/, -DVIREO_BUILD_GENAI=OFF)") from e
