#!/usr/bin/env python3
"""async_queue.py: keeps a device busy with an AsyncInferQueue and reports the throughput.

    PYTHONPATH=build/python python3 samples/python/async_queue.py MODEL.xml|.onnx \
        [-d MOCK_REMOTE] [-n 64] [-j 0]

Runs N inferences on random inputs through a queue of J requests (0 = the compiled model's
optimal number); the callback checks each result against a synchronous run of the same input.
"""
import argparse
import sys
import threading
import time

import numpy as np

import vireo


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("-d", "--device", default="MOCK_REMOTE")
    parser.add_argument("-n", "--count", type=int, default=64, help="inferences to run")
    parser.add_argument("-j", "--jobs", type=int, default=0, help="requests in the queue (0 = optimal)")
    args = parser.parse_args()

    core = vireo.Core()
    compiled = core.compile_model(core.read_model(args.model), args.device)
    rng = np.random.default_rng(1)
    batches = []
    for _ in range(args.count):
        batches.append({p.any_name: rng.standard_normal(p.shape.to_shape()).astype(p.element_type.to_dtype())
                        for p in compiled.inputs})
    expected = [compiled(b, share_outputs=False)[0] for b in batches]

    queue = vireo.AsyncInferQueue(compiled, args.jobs)
    mismatches = []
    lock = threading.Lock()

    def done(request, index):
        if not np.allclose(request.results[0], expected[index], rtol=1e-5, atol=1e-6):
            with lock:
                mismatches.append(index)

    queue.set_callback(done)
    start = time.perf_counter()
    for index, batch in enumerate(batches):
        queue.start_async(batch, userdata=index)
    queue.wait_all()
    seconds = time.perf_counter() - start
    print(f"{args.count} inferences on {args.device} with {len(queue)} requests: "
          f"{args.count / seconds:.1f} inferences/s, {len(mismatches)} mismatches")
    return 1 if mismatches else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except vireo.Error as error:
        print(f"async_queue: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
