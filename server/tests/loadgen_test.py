"""vireo_loadgen, the C++ client, against a running vireo_server: a short concurrency sweep over
gRPC (unary and streaming) and over REST (binary and JSON) must see no error, and the server's success counters must
equal the requests the client counted as answered."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import model_ir  # noqa: E402
from server_harness import Server  # noqa: E402

LOADGEN = os.environ["VIREO_LOADGEN"]


def sweep(args, env=None):
    out = subprocess.run([LOADGEN] + args + ["--concurrency", "1,4", "--seconds", "0.5"], check=True,
                         capture_output=True, text=True, env=env).stdout
    rows = [line.split() for line in out.splitlines()[1:] if line.strip()]
    return [(int(r[0]), float(r[1]), int(r[5]), int(r[6])) for r in rows]


class Loadgen(unittest.TestCase):
    def test_sweeps_match_the_server_counters(self):
        work = tempfile.mkdtemp(prefix="vireo_loadgen_")
        model_ir.add_model(os.path.join(work, "add", "1"), 1.0)
        server = Server(["--model_path", os.path.join(work, "add"), "--model_name", "add",
                         "--target_device", "TEMPLATE", "--metrics_enable", "--max_queue_size", "64"])
        try:
            answered = {"gRPC": 0, "REST": 0, "stream": 0}
            for transport, args in (("gRPC", ["--grpc", server.grpc_address]),
                                    ("stream", ["--grpc", server.grpc_address, "--streaming", "1"]),
                                    ("REST", ["--rest", f"127.0.0.1:{server.rest_port}"]),
                                    ("REST", ["--rest", f"127.0.0.1:{server.rest_port}", "--json", "1"])):
                env = dict(os.environ, VIREO_LOADGEN_GRPC=server.grpc_address)
                rows = sweep(args + ["--model", "add"], env)
                self.assertEqual([r[0] for r in rows], [1, 4])
                for concurrency, rate, errors, requests in rows:
                    self.assertEqual(errors, 0, (transport, concurrency))
                    self.assertGreater(requests, 0, (transport, concurrency))
                    self.assertGreater(rate, 0)
                    answered[transport] += requests
            text = server.http("GET", "/metrics")[1].decode()
            for transport, count in answered.items():
                interface, method = ("gRPC", "ModelStreamInfer") if transport == "stream" else (transport, "ModelInfer")
                m = re.search(r'vireo_requests_success\{api="KServe",interface="%s",method="%s",'
                              r'name="add",version="1"\} (\d+)' % (interface, method), text)
                self.assertEqual(int(m.group(1)), count, transport)
        finally:
            server.stop()
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
