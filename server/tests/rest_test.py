"""Integration test of vireo_server's REST endpoints driven with curl: health, metadata, JSON
inference for every datatype, the binary tensor extension, validation errors (including a body
nested to exhaust a parser and one over the size limit), version selection, POST
/v1/config/reload picking up a new version, /metrics values, a client that closes its connection
mid-request (its running and queued inferences cancelled) and SIGTERM."""
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import model_ir  # noqa: E402
from server_harness import Server  # noqa: E402

CURL = os.environ.get("VIREO_CURL", "curl")
WORK = tempfile.mkdtemp(prefix="vireo_server_rest_")
SERVER = None
SENT_OK = {"1": 0, "2": 0, "3": 0}
SLOW_US = 4000000

# JSON values per datatype, chosen to survive the round trip exactly.
JSON_VALUES = {
    "BOOL": [True, False, True],
    "UINT8": [0, 255, 7], "UINT16": [0, 65535, 7], "UINT32": [0, 4294967295, 7],
    "UINT64": [0, 18446744073709551615, 7],
    "INT8": [-128, 127, 0], "INT16": [-32768, 32767, 0], "INT32": [-2147483648, 2147483647, 0],
    "INT64": [-9223372036854775808, 9223372036854775807, 0],
    "FP16": [1.5, -2.0, 65504.0], "BF16": [1.0, -2.0, 3.140625],
    "FP32": [1.5, -2.25, 0.125], "FP64": [1.5, -2.25, 1e300],
}


def curl(method, path, body=None, headers=(), max_time=60):
    """Returns (status, body bytes, headers dict lower-cased)."""
    out = os.path.join(WORK, "out.bin")
    head = os.path.join(WORK, "head.txt")
    cmd = [CURL, "-s", "-S", "-X", method, "-o", out, "-D", head, "-w", "%{http_code}",
           "--max-time", str(max_time), SERVER.rest_url + path]
    if body is None and method == "POST":
        body = b""  # cpp-httplib 0.11 waits for the end of a POST body without Content-Length
    if body is not None and not any(h.lower().startswith("content-type") for h in headers):
        # curl's default (form-urlencoded) makes cpp-httplib parse the body as a form (8 KiB limit)
        headers = list(headers) + ["Content-Type: application/json"]
    for h in headers:
        cmd += ["-H", h]
    if body is not None:
        src = os.path.join(WORK, "body.bin")
        with open(src, "wb") as f:
            f.write(body if isinstance(body, bytes) else body.encode())
        cmd += ["--data-binary", "@" + src]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        # curl could not finish the exchange (the server may close a connection whose body it
        # refused while curl still sends): status 0, and what curl said.
        return 0, run.stderr.encode(), {}
    status = run.stdout
    with open(out, "rb") as f:
        data = f.read()
    parsed = {}
    with open(head) as f:
        for line in f:
            if ":" in line:
                k, v = line.split(":", 1)
                parsed[k.strip().lower()] = v.strip()
    return int(status), data, parsed


def add_body(values, extra=None):
    body = {"id": "r7", "inputs": [{"name": "x", "shape": [1, 4], "datatype": "FP32", "data": values}]}
    body.update(extra or {})
    return json.dumps(body)


def setUpModule():
    global SERVER
    repo = os.path.join(WORK, "models")
    model_ir.add_model(os.path.join(repo, "add", "1"), 1.0)
    model_ir.add_model(os.path.join(repo, "add", "2"), 2.0)
    model_ir.identity_model(os.path.join(repo, "identity", "1"))
    config = {"model_config_list": [
        {"config": {"name": "add", "base_path": os.path.join(repo, "add"), "target_device": "TEMPLATE",
                    "model_version_policy": {"all": {}}}},
        {"config": {"name": "identity", "base_path": os.path.join(repo, "identity"), "target_device": "TEMPLATE"}},
        # y = x + 1 on MOCK_REMOTE, whose modelled device time makes every inference last 4 s (a
        # cancel ends that wait at once); one infer request, so a second request queues.
        {"config": {"name": "slow", "base_path": os.path.join(repo, "add"), "target_device": "MOCK_REMOTE",
                    "nireq": 1, "model_version_policy": {"specific": {"versions": [1]}},
                    "plugin_config": {"MOCK_REMOTE_LATENCY_US": SLOW_US}}},
    ]}
    path = os.path.join(WORK, "config.json")
    with open(path, "w") as f:
        json.dump(config, f)
    SERVER = Server(["--config_path", path, "--metrics_enable", "--max_request_bytes", "1048576"])


def tearDownModule():
    if SERVER and SERVER.proc.poll() is None:
        SERVER.stop()
    shutil.rmtree(WORK, ignore_errors=True)


class A_Endpoints(unittest.TestCase):
    def test_health_and_metadata(self):
        self.assertEqual(curl("GET", "/v2/health/live")[0], 200)
        self.assertEqual(curl("GET", "/v2/health/ready")[0], 200)
        status, body, _ = curl("GET", "/v2")
        self.assertEqual(status, 200)
        meta = json.loads(body)
        self.assertEqual(meta["name"], "vireo_server")
        self.assertIn("binary_tensor_data", meta["extensions"])
        status, body, _ = curl("GET", "/v2/models/add")
        meta = json.loads(body)
        self.assertEqual(meta["versions"], ["2", "1"])
        self.assertEqual(meta["inputs"], [{"name": "x", "datatype": "FP32", "shape": [1, 4]}])
        status, body, _ = curl("GET", "/v2/models/add/versions/1")
        self.assertEqual(status, 200)
        self.assertEqual(curl("GET", "/v2/models/add/ready")[0], 200)
        self.assertEqual(curl("GET", "/v2/models/add/versions/1/ready")[0], 200)
        self.assertEqual(curl("GET", "/v2/models/add/versions/7/ready")[0], 404)
        status, body, _ = curl("GET", "/v2/models/add/config")
        self.assertEqual(status, 200, body)
        config = json.loads(body)
        self.assertEqual(config["name"], "add")
        self.assertEqual(config["input"][0]["data_type"], "TYPE_FP32")
        self.assertEqual(config["input"][0]["dims"], ["1", "4"])  # int64 as JSON strings (proto3 JSON)
        self.assertIn("all", config["version_policy"])
        status, body, _ = curl("GET", "/v2/models/add/versions/1/stats")
        self.assertEqual(status, 200, body)
        stats = json.loads(body)["model_stats"]
        self.assertEqual([(m["name"], m["version"]) for m in stats], [("add", "1")])
        self.assertEqual(curl("GET", "/v2/models/nope/config")[0], 404)
        status, body, _ = curl("GET", "/v2/models/nope/ready")
        self.assertEqual(status, 404)
        self.assertIn("'nope'", json.loads(body)["error"])


class B_Infer(unittest.TestCase):
    def test_json_versions(self):
        status, body, headers = curl("POST", "/v2/models/add/infer", add_body([1, 2, 3, 4]))
        self.assertEqual(status, 200, body)
        SENT_OK["2"] += 1
        reply = json.loads(body)
        self.assertEqual(reply["model_name"], "add")
        self.assertEqual(reply["model_version"], "2")
        self.assertEqual(reply["id"], "r7")
        self.assertEqual(reply["outputs"], [{"name": "y", "datatype": "FP32", "shape": [1, 4], "data": [3.0, 4.0, 5.0, 6.0]}])
        # The server's share of the request, as in gRPC replies: whole microseconds.
        self.assertEqual(sorted(reply["parameters"]), ["vireo_compute_us", "vireo_queue_us"])
        self.assertTrue(all(isinstance(v, int) and v >= 0 for v in reply["parameters"].values()))
        status, body, _ = curl("POST", "/v2/models/add/versions/1/infer", add_body([[1, 2, 3, 4]]))
        self.assertEqual(status, 200, body)
        SENT_OK["1"] += 1
        self.assertEqual(json.loads(body)["outputs"][0]["data"], [2.0, 3.0, 4.0, 5.0])

    def test_every_datatype_json(self):
        inputs = [{"name": "in_" + t.lower(), "shape": [3], "datatype": t, "data": v} for t, v in JSON_VALUES.items()]
        status, body, _ = curl("POST", "/v2/models/identity/infer", json.dumps({"inputs": inputs}))
        self.assertEqual(status, 200, body)
        outputs = {o["name"]: o for o in json.loads(body)["outputs"]}
        self.assertEqual(len(outputs), len(JSON_VALUES))
        for t, values in JSON_VALUES.items():
            out = outputs["out_" + t.lower()]
            self.assertEqual(out["datatype"], t)
            self.assertEqual(out["shape"], [3])
            self.assertEqual(out["data"], values, t)

    def test_binary_tensor_extension(self):
        header = json.dumps({"inputs": [{"name": "x", "shape": [1, 4], "datatype": "FP32",
                                         "parameters": {"binary_data_size": 16}}],
                             "outputs": [{"name": "y", "parameters": {"binary_data": True}}]})
        body = header.encode() + struct.pack("<4f", 0.5, 1.5, 2.5, 3.5)
        status, reply, headers = curl("POST", "/v2/models/add/infer", body,
                                      headers=[f"Inference-Header-Content-Length: {len(header)}",
                                               "Content-Type: application/octet-stream"])
        self.assertEqual(status, 200, reply)
        SENT_OK["2"] += 1
        json_length = int(headers["inference-header-content-length"])
        meta = json.loads(reply[:json_length])
        self.assertEqual(meta["outputs"][0]["parameters"]["binary_data_size"], 16)
        self.assertNotIn("data", meta["outputs"][0])
        self.assertEqual(struct.unpack("<4f", reply[json_length:]), (2.5, 3.5, 4.5, 5.5))


class C_Errors(unittest.TestCase):
    def check(self, body, status, text, headers=(), path="/v2/models/add/infer"):
        got, reply, _ = curl("POST", path, body, headers=headers)
        self.assertEqual(got, status, reply)
        if text is not None:
            self.assertIn(text, json.loads(reply)["error"])

    def test_validation_errors(self):
        self.check(add_body([1, 2, 3]), 400, "inputs[0].data holds 3 values, the shape needs 4")
        self.check(json.dumps({"inputs": [{"name": "x", "shape": [1, 4], "datatype": "INT32", "data": [1, 2, 3, 4]}]}),
                   400, "datatype INT32 given, the model expects FP32")
        self.check(json.dumps({"inputs": [{"name": "w", "shape": [1, 4], "datatype": "FP32", "data": [1, 2, 3, 4]}]}),
                   400, "unknown input 'w'")
        self.check(json.dumps({"inputs": []}), 400, "missing input(s) 'x'")
        self.check(json.dumps({"inputs": [{"name": "x", "shape": [1, 4], "datatype": "BYTES", "data": ["a"]}]}),
                   400, "BYTES is not supported")
        self.check("{not json", 400, "not valid JSON")
        self.check('{"inputs": ' + "[" * 200000 + "]" * 200000 + "}", 400, "nested deeper than 32 levels")
        header = add_body([1, 2, 3, 4])
        self.check(header, 400, "Inference-Header-Content-Length",
                   headers=["Inference-Header-Content-Length: 99999"])
        self.check(header, 400, "Inference-Header-Content-Length", headers=["Inference-Header-Content-Length: x"])
        self.check(add_body([1, 2, 3, 4]), 404, "'nope'", path="/v2/models/nope/infer")
        # Over --max_request_bytes (1 MiB): refused by the HTTP layer before parsing, with 413
        # (or the connection closed while curl still sends the body).
        got, reply, _ = curl("POST", "/v2/models/add/infer", add_body([0.0] * 300000))
        self.assertIn(got, (413, 0), reply)
        self.assertEqual(curl("GET", "/v2/health/live")[0], 200)


class D_Reload(unittest.TestCase):
    def test_reload_picks_up_a_new_version(self):
        model_ir.add_model(os.path.join(WORK, "models", "add", "3"), 3.0)
        status, body, _ = curl("POST", "/v1/config/reload")
        self.assertEqual(status, 200, body)
        self.assertEqual(json.loads(curl("GET", "/v2/models/add")[1])["versions"], ["3", "2", "1"])
        status, body, _ = curl("POST", "/v2/models/add/infer", add_body([0, 0, 0, 0]))
        self.assertEqual(status, 200, body)
        SENT_OK["3"] += 1
        reply = json.loads(body)
        self.assertEqual(reply["model_version"], "3")
        self.assertEqual(reply["outputs"][0]["data"], [3.0, 3.0, 3.0, 3.0])


class E_Metrics(unittest.TestCase):
    def test_rest_counters_match_requests(self):
        status, body, headers = curl("GET", "/metrics")
        self.assertEqual(status, 200)
        self.assertTrue(headers["content-type"].startswith("text/plain"))
        text = body.decode()
        for version, count in SENT_OK.items():
            m = re.search(r'vireo_requests_success\{api="KServe",interface="REST",method="ModelInfer",'
                          r'name="add",version="%s"\} (\d+)' % version, text)
            self.assertIsNotNone(m, version)
            self.assertEqual(int(m.group(1)), count, version)
        m = re.search(r'vireo_requests_fail\{api="KServe",interface="REST",method="ModelInfer",'
                      r'name="add",version="2"\} (\d+)', text)
        # The errors of C_Errors that reached version 2: nine, less the malformed
        # Inference-Header-Content-Length, refused before a version is resolved (version 0).
        self.assertEqual(int(m.group(1)), 8)


class F_Polling(unittest.TestCase):
    def test_poll_finds_a_new_version(self):
        base = os.path.join(WORK, "polled")
        model_ir.add_model(os.path.join(base, "1"), 1.0)
        polled = Server(["--model_path", base, "--model_name", "polled", "--target_device", "TEMPLATE",
                         "--file_system_poll_wait_seconds", "1"])
        try:
            model_ir.add_model(os.path.join(base, "2"), 2.0)
            polled.wait_for_line(r"loaded model 'polled' version 2")
            # The log line comes before the swap; poll the metadata (bounded, no time threshold).
            versions = None
            for _ in range(6000):
                versions = json.loads(polled.http("GET", "/v2/models/polled")[1])["versions"]
                if versions == ["2"]:
                    break
                time.sleep(0.01)
            self.assertEqual(versions, ["2"])  # latest 1: version 1 retired
        finally:
            polled.stop()


class G_Readiness(unittest.TestCase):
    def test_live_but_not_ready_until_every_model_has_a_version(self):
        # "empty" has no version folder yet: the process is live, not ready, and the model's
        # index entry says why; once a version appears and is loaded, the server is ready.
        good = os.path.join(WORK, "ready_good")
        empty = os.path.join(WORK, "ready_empty")
        model_ir.add_model(os.path.join(good, "1"), 1.0)
        os.makedirs(empty, exist_ok=True)
        config = {"model_config_list": [
            {"config": {"name": "good", "base_path": good, "target_device": "TEMPLATE"}},
            {"config": {"name": "empty", "base_path": empty, "target_device": "TEMPLATE"}}]}
        path = os.path.join(WORK, "ready.json")
        with open(path, "w") as f:
            json.dump(config, f)
        server = Server(["--config_path", path])
        try:
            self.assertIn("not ready", server.log())
            self.assertEqual(server.http("GET", "/v2/health/live")[0], 200)
            self.assertEqual(server.http("GET", "/v2/health/ready")[0], 400)
            self.assertEqual(server.http("GET", "/v2/models/good/ready")[0], 200)
            self.assertEqual(server.http("GET", "/v2/models/empty/ready")[0], 400)
            index = json.loads(server.http("POST", "/v2/repository/index", b"")[1])
            entry = [e for e in index if e["name"] == "empty"][0]
            self.assertEqual(entry["state"], "UNAVAILABLE")
            self.assertIn("no version folder with a model file", entry["reason"])
            model_ir.add_model(os.path.join(empty, "1"), 1.0)
            status, body, _ = server.http("POST", "/v2/repository/models/empty/load", b"")
            self.assertEqual(status, 200, body)
            self.assertEqual(server.http("GET", "/v2/health/ready")[0], 200)
        finally:
            server.stop()


class H_Disconnect(unittest.TestCase):
    def metric(self, name, labels):
        text = SERVER.http("GET", "/metrics")[1].decode()
        m = re.search(r"%s\{%s\} (-?\d+)" % (name, re.escape(labels)), text)
        return int(m.group(1)) if m else None

    def wait_for(self, predicate, seconds=30):
        # Bounded by far more than the server needs (20 ms checks), far less than a hang.
        for _ in range(int(seconds / 0.01)):
            if predicate():
                return True
            time.sleep(0.01)
        return False

    def open_infer(self, model, values):
        """Sends a JSON infer request on a new connection and returns the socket, unread."""
        body = add_body(values).encode()
        sock = socket.create_connection(("127.0.0.1", SERVER.rest_port))
        sock.sendall(f"POST /v2/models/{model}/infer HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
        return sock

    def test_closed_connection_cancels_running_and_queued_requests(self):
        version = 'name="slow",version="1"'
        rest = 'api="KServe",interface="REST",method="ModelInfer",' + version
        running = self.open_infer("slow", [1, 2, 3, 4])
        self.assertTrue(self.wait_for(lambda: self.metric("vireo_infer_req_active", version) == 1))
        queued = self.open_infer("slow", [5, 6, 7, 8])
        self.assertTrue(self.wait_for(lambda: self.metric("vireo_infer_req_queue_size", version) == 1))
        # Both clients give up well before the 4 s inference could end.
        queued.close()
        running.close()
        self.assertTrue(self.wait_for(lambda: self.metric("vireo_requests_cancelled", rest) == 2),
                        SERVER.log() + "\n" + SERVER.http("GET", "/metrics")[1].decode())
        self.assertEqual(self.metric("vireo_requests_fail", rest), 2)
        self.assertEqual(self.metric("vireo_requests_success", rest), 0)  # neither completed
        self.assertEqual(SERVER.log().count("closed its connection: inference of model 'slow'"), 2)
        # The queue is empty and the infer request back in the pool once the device's callback
        # came; the statistics count two failures and no success.
        self.assertTrue(self.wait_for(lambda: self.metric("vireo_current_requests", version) == 0))
        self.assertEqual(self.metric("vireo_infer_req_active", version), 0)
        self.assertEqual(self.metric("vireo_infer_req_queue_size", version), 0)
        stats = json.loads(curl("GET", "/v2/models/slow/stats")[1])["model_stats"][0]["inference_stats"]
        self.assertEqual(stats["fail"]["count"], "2")
        self.assertNotIn("count", stats["success"])  # proto3 JSON leaves a zero out
        # The next request on the same (only) infer request is served, with the right values.
        status, body, _ = curl("POST", "/v2/models/slow/infer", add_body([1, 2, 3, 4]))
        self.assertEqual(status, 200, body)
        self.assertEqual(json.loads(body)["outputs"][0]["data"], [2.0, 3.0, 4.0, 5.0])
        self.assertEqual(self.metric("vireo_requests_success", rest), 1)
        self.assertEqual(self.metric("vireo_requests_cancelled", rest), 2)
        # A request answered before its client leaves is not counted as cancelled.
        status, body, _ = curl("POST", "/v2/models/add/infer", add_body([0, 0, 0, 0]))
        self.assertEqual(status, 200, body)
        self.assertIsNone(self.metric("vireo_requests_cancelled",
                                      'api="KServe",interface="REST",method="ModelInfer",name="add",version="3"'))


class Z_Shutdown(unittest.TestCase):
    def test_sigterm_exits_zero(self):
        SERVER.stop(expect_code=0)
        self.assertIn("drained", SERVER.log())


if __name__ == "__main__":
    unittest.main(verbosity=2)
