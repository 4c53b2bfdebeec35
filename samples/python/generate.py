#!/usr/bin/env python3
"""generate.py: text generation with vireo.genai.LLMPipeline from an ONNX Runtime GenAI-style
model folder (genai_config.json, the decoder, tokenizer files).

    PYTHONPATH=build/python python3 samples/python/generate.py -m DIR -p "prompt" -n 64 \
        [-d CPU] [--stream] [--prompt_ids 464,2068,318 --print_ids] [--num_beams 4] \
        [--temperature 0.8 --top_k 50 --top_p 0.95 --seed 1]
"""
import argparse
import sys

import vireo
import vireo.genai as genai


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-m", "--model", required=True, help="model folder")
    parser.add_argument("-p", "--prompt", help="prompt text (needs tokenizer files)")
    parser.add_argument("--prompt_ids", help="prompt as comma-separated token ids")
    parser.add_argument("-n", "--max_new_tokens", type=int, default=64)
    parser.add_argument("-d", "--device", default="CPU")
    parser.add_argument("--stream", action="store_true", help="print text as it comes")
    parser.add_argument("--print_ids", action="store_true",
                        help="print the new ids as one comma-separated line")
    parser.add_argument("--num_beams", type=int, default=1)
    parser.add_argument("--temperature", type=float)
    parser.add_argument("--top_k", type=int)
    parser.add_argument("--top_p", type=float)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--ignore_eos", action="store_true")
    args = parser.parse_args()
    if (args.prompt is None) == (args.prompt_ids is None):
        parser.error("give exactly one of -p and --prompt_ids")

    pipe = genai.LLMPipeline(args.model, args.device)
    config = pipe.get_generation_config()
    config.max_new_tokens = args.max_new_tokens
    config.num_beams = args.num_beams
    config.ignore_eos = args.ignore_eos
    config.do_sample = any(v is not None for v in (args.temperature, args.top_k, args.top_p))
    if not config.do_sample:
        config.top_k, config.top_p = 0, 1.0
    if args.temperature is not None:
        config.temperature = args.temperature
    if args.top_k is not None:
        config.top_k = args.top_k
    if args.top_p is not None:
        config.top_p = args.top_p
    if args.seed is not None:
        config.rng_seed = args.seed
    prompt = args.prompt if args.prompt is not None else [int(x) for x in args.prompt_ids.split(",")]
    streamer = None
    if args.stream and not args.print_ids:
        if args.prompt is not None:
            print(args.prompt, end="", flush=True)
        streamer = lambda token, text: print(text, end="", flush=True)  # noqa: E731
    out = pipe.generate(prompt, config, streamer)
    info = sys.stderr if args.print_ids else sys.stdout
    if args.print_ids:
        print(",".join(str(i) for i in out.ids[0]))
    elif streamer:
        print()
    elif pipe.tokenizer is not None:
        print((args.prompt or "") + out.texts[0])
    print(f"[ INFO ] time to first token: {out.perf.ttft_ms:.2f} ms", file=info)
    print(f"[ INFO ] decode: {out.perf.decode_tokens_per_s:.2f} tokens/s "
          f"({out.perf.num_generated_tokens} tokens)", file=info)


if __name__ == "__main__":
    try:
        main()
    except vireo.Error as e:
        print(f"[ ERROR ] {e}", file=sys.stderr)
        sys.exit(1)
