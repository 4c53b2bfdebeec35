"""Integration test of vireo_server's gRPC service with grpcio stubs generated from server/proto:
every RPC, every datatype Vireo has (raw), typed contents, version selection, streaming inference,
validation errors, the repository RPCs (with inline model files), queue full, deadlines,
cancellation, metrics values and a SIGTERM drain. Models are small IRs written by model_ir.py,
run on TEMPLATE."""
import json
import os
import re
import shutil
import struct
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.environ["VIREO_SERVER_PY_STUBS"])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import grpc  # noqa: E402
import grpc_service_pb2 as pb  # noqa: E402
import grpc_service_pb2_grpc as pb_grpc  # noqa: E402
import model_ir  # noqa: E402
from server_harness import Server, error_of  # noqa: E402

# (datatype, struct format, three values) — BF16 as its bit patterns (1.0, -2.0, 3.140625).
VALUES = {
    "BOOL": ("?", [True, False, True]),
    "UINT8": ("B", [0, 255, 7]),
    "UINT16": ("H", [0, 65535, 7]),
    "UINT32": ("I", [0, 2**32 - 1, 7]),
    "UINT64": ("Q", [0, 2**64 - 1, 7]),
    "INT8": ("b", [-128, 127, 0]),
    "INT16": ("h", [-32768, 32767, 0]),
    "INT32": ("i", [-2**31, 2**31 - 1, 0]),
    "INT64": ("q", [-2**63, 2**63 - 1, 0]),
    "FP16": ("e", [1.5, -2.0, 65504.0]),
    "BF16": ("H", [0x3F80, 0xC000, 0x4049]),
    "FP32": ("f", [1.5, -2.25, 3.0e38]),
    "FP64": ("d", [1.5, -2.25, 1.0e300]),
}

WORK = tempfile.mkdtemp(prefix="vireo_server_grpc_")
SERVER = None
STUB = None
SENT = {}  # successful ModelInfer calls to "add" by the version that answered
SENT_LOCK = threading.Lock()
STREAMED = {}  # successful ModelStreamInfer requests to "add" by the version that answered


def pack(datatype, values):
    fmt, _ = VALUES[datatype]
    return struct.pack("<%d%s" % (len(values), fmt), *values)


def count(reply):
    with SENT_LOCK:
        SENT[reply.model_version] = SENT.get(reply.model_version, 0) + 1
    return reply


def add_request(values, version="", raw=True, model="add"):
    req = pb.ModelInferRequest(model_name=model, model_version=version, id="req-1")
    x = req.inputs.add(name="x", datatype="FP32", shape=[1, 4])
    if raw:
        req.raw_input_contents.append(struct.pack("<4f", *values))
    else:
        x.contents.fp32_contents.extend(values)
    return req


def slow_request():
    req = pb.ModelInferRequest(model_name="slow")
    req.inputs.add(name="x", datatype="FP32", shape=[256, 512])
    req.raw_input_contents.append(struct.pack("<%df" % (256 * 512), *([1.0] * (256 * 512))))
    return req


def setUpModule():
    global SERVER, STUB
    repo = os.path.join(WORK, "models")
    model_ir.identity_model(os.path.join(repo, "identity", "1"))
    model_ir.add_model(os.path.join(repo, "add", "1"), 1.0)
    model_ir.add_model(os.path.join(repo, "add", "2"), 2.0)
    model_ir.matmul_model(os.path.join(repo, "slow", "1"))
    model_ir.add_model(os.path.join(repo, "rolling", "1"), 1.0)
    model_ir.add_model(os.path.join(repo, "rolling", "2"), 2.0)
    config = {"model_config_list": [
        {"config": {"name": "identity", "base_path": os.path.join(repo, "identity"), "target_device": "TEMPLATE"}},
        {"config": {"name": "add", "base_path": os.path.join(repo, "add"), "target_device": "TEMPLATE",
                    "nireq": 2, "model_version_policy": {"all": {}}}},
        {"config": {"name": "slow", "base_path": os.path.join(repo, "slow"), "target_device": "TEMPLATE",
                    "nireq": 1, "max_queue_size": 1}},
        # OVMS's default policy (latest 1): a new version replaces the served one.
        {"config": {"name": "rolling", "base_path": os.path.join(repo, "rolling"), "target_device": "TEMPLATE",
                    "nireq": 2}},
        # Batches of 4 items; the delay is long so that a batch starts only when 4 items are queued.
        {"config": {"name": "batched", "base_path": os.path.join(repo, "add"), "target_device": "TEMPLATE",
                    "nireq": 1, "model_version_policy": {"specific": {"versions": [1]}},
                    "dynamic_batching": {"max_batch_size": 4, "max_queue_delay_microseconds": 60000000,
                                         "preferred_batch_size": [4]}}},
    ]}
    path = os.path.join(WORK, "config.json")
    with open(path, "w") as f:
        json.dump(config, f)
    SERVER = Server(["--config_path", path, "--metrics_enable", "--shutdown_grace_seconds", "60"])
    channel = grpc.insecure_channel(SERVER.grpc_address)
    STUB = pb_grpc.GRPCInferenceServiceStub(channel)


def tearDownModule():
    if SERVER and SERVER.proc.poll() is None:
        SERVER.stop()
    shutil.rmtree(WORK, ignore_errors=True)


class A_Health(unittest.TestCase):
    def test_live_ready_metadata(self):
        self.assertTrue(STUB.ServerLive(pb.ServerLiveRequest()).live)
        self.assertTrue(STUB.ServerReady(pb.ServerReadyRequest()).ready)
        meta = STUB.ServerMetadata(pb.ServerMetadataRequest())
        self.assertEqual(meta.name, "vireo_server")
        self.assertIn("model_repository", list(meta.extensions))
        self.assertIn("binary_tensor_data", list(meta.extensions))

    def test_model_ready_per_version(self):
        self.assertTrue(STUB.ModelReady(pb.ModelReadyRequest(name="add")).ready)
        self.assertTrue(STUB.ModelReady(pb.ModelReadyRequest(name="add", version="1")).ready)
        self.assertEqual(error_of(STUB.ModelReady, pb.ModelReadyRequest(name="add", version="3"))[0],
                         grpc.StatusCode.NOT_FOUND)
        self.assertEqual(error_of(STUB.ModelReady, pb.ModelReadyRequest(name="nope"))[0],
                         grpc.StatusCode.NOT_FOUND)

    def test_model_metadata(self):
        meta = STUB.ModelMetadata(pb.ModelMetadataRequest(name="add"))
        self.assertEqual(meta.name, "add")
        self.assertEqual(list(meta.versions), ["2", "1"])
        self.assertEqual([(t.name, t.datatype, list(t.shape)) for t in meta.inputs], [("x", "FP32", [1, 4])])
        self.assertEqual([(t.name, t.datatype, list(t.shape)) for t in meta.outputs], [("y", "FP32", [1, 4])])
        ident = STUB.ModelMetadata(pb.ModelMetadataRequest(name="identity", version="1"))
        self.assertEqual(len(ident.inputs), len(VALUES))
        self.assertEqual(sorted(t.datatype for t in ident.inputs), sorted(VALUES))
        self.assertTrue(all(list(t.shape) == [-1] for t in ident.inputs))

    def test_model_config(self):
        config = STUB.ModelConfig(pb.ModelConfigRequest(name="add")).config
        self.assertEqual(config.name, "add")
        self.assertEqual(config.max_batch_size, 0)
        self.assertEqual(config.input[0].name, "x")
        self.assertEqual(config.input[0].data_type, 11)  # TYPE_FP32
        self.assertEqual(list(config.input[0].dims), [1, 4])
        self.assertEqual(config.instance_group[0].count, 2)
        self.assertTrue(config.version_policy.HasField("all"))
        self.assertEqual(config.parameters["target_device"].string_value, "TEMPLATE")


class B_Infer(unittest.TestCase):
    def test_versions_raw_and_typed(self):
        r = count(STUB.ModelInfer(add_request([1, 2, 3, 4])))
        self.assertEqual((r.model_name, r.model_version, r.id), ("add", "2", "req-1"))
        self.assertEqual(r.outputs[0].name, "y")
        self.assertEqual(list(r.outputs[0].shape), [1, 4])
        self.assertEqual(struct.unpack("<4f", r.raw_output_contents[0]), (3.0, 4.0, 5.0, 6.0))
        r = count(STUB.ModelInfer(add_request([1, 2, 3, 4], version="1")))
        self.assertEqual(r.model_version, "1")
        self.assertEqual(struct.unpack("<4f", r.raw_output_contents[0]), (2.0, 3.0, 4.0, 5.0))
        r = count(STUB.ModelInfer(add_request([0.5, -1, 10, 0], raw=False)))
        self.assertEqual(len(r.raw_output_contents), 0)
        self.assertEqual(list(r.outputs[0].contents.fp32_contents), [2.5, 1.0, 12.0, 2.0])

    def test_every_datatype_raw(self):
        req = pb.ModelInferRequest(model_name="identity")
        for datatype, (_, values) in VALUES.items():
            req.inputs.add(name="in_" + datatype.lower(), datatype=datatype, shape=[3])
            req.raw_input_contents.append(pack(datatype, values))
        r = STUB.ModelInfer(req)
        self.assertEqual(len(r.outputs), len(VALUES))
        by_name = {o.name: (o, raw) for o, raw in zip(r.outputs, r.raw_output_contents)}
        for datatype, (_, values) in VALUES.items():
            out, raw = by_name["out_" + datatype.lower()]
            self.assertEqual(out.datatype, datatype)
            self.assertEqual(list(out.shape), [3])
            self.assertEqual(raw, pack(datatype, values), datatype)

    def test_requested_output_subset(self):
        req = pb.ModelInferRequest(model_name="identity")
        for datatype, (_, values) in VALUES.items():
            req.inputs.add(name="in_" + datatype.lower(), datatype=datatype, shape=[3])
            req.raw_input_contents.append(pack(datatype, values))
        req.outputs.add(name="out_int64")
        req.outputs.add(name="out_bf16")
        r = STUB.ModelInfer(req)
        self.assertEqual([o.name for o in r.outputs], ["out_int64", "out_bf16"])
        self.assertEqual(r.raw_output_contents[1], pack("BF16", VALUES["BF16"][1]))


class B_Stream(unittest.TestCase):
    """ModelStreamInfer (Triton's streaming extension): one response per request, matched by id;
    a failed request is an error_message and the stream goes on."""

    def metric(self, text, method, name, version, kind="success"):
        m = re.search(r'vireo_requests_%s\{api="KServe",interface="gRPC",method="%s",'
                      r'name="%s",version="%s"\} (\d+)' % (kind, method, name, version), text)
        return int(m.group(1)) if m else 0

    def test_every_request_gets_its_response(self):
        before = SERVER.http("GET", "/metrics")[1].decode()
        requests = []
        expected = {}
        for i in range(6):
            version = "1" if i % 3 == 0 else ""
            req = add_request([i, i + 1, i + 2, i + 3], version=version, raw=i % 2 == 0)
            req.id = "s%d" % i
            requests.append(req)
            bias = 1.0 if version == "1" else 2.0
            expected[req.id] = [i + bias, i + 1 + bias, i + 2 + bias, i + 3 + bias]
        bad_model = add_request([0, 0, 0, 0], model="nope")
        bad_model.id = "bad-model"
        bad_shape = add_request([0, 0, 0, 0])
        bad_shape.id = "bad-shape"
        bad_shape.inputs[0].shape[:] = [2, 4]
        requests[2:2] = [bad_model]
        requests.append(bad_shape)
        replies = list(STUB.ModelStreamInfer(iter(requests), timeout=60))
        self.assertEqual(len(replies), len(requests))
        by_id = {r.infer_response.id: r for r in replies}
        self.assertEqual(sorted(by_id), sorted(r.id for r in requests))
        for rid, values in expected.items():
            reply = by_id[rid]
            self.assertEqual(reply.error_message, "", rid)
            out = reply.infer_response
            self.assertEqual(out.model_name, "add")
            self.assertEqual(out.model_version, "1" if values[0] == int(rid[1:]) + 1.0 else "2")
            if out.raw_output_contents:
                got = struct.unpack("<4f", out.raw_output_contents[0])
            else:
                got = tuple(out.outputs[0].contents.fp32_contents)
            self.assertEqual(list(got), values, rid)
        self.assertIn("nope", by_id["bad-model"].error_message)
        self.assertIn("shape", by_id["bad-shape"].error_message)
        self.assertEqual(len(by_id["bad-shape"].infer_response.outputs), 0)
        after = SERVER.http("GET", "/metrics")[1].decode()
        # Version 2 answered i = 1, 2, 4, 5; version 1 answered i = 0, 3; bad-shape failed before
        # it had a version (counted under "0", as ModelInfer counts such requests).
        self.assertEqual(self.metric(after, "ModelStreamInfer", "add", "2")
                         - self.metric(before, "ModelStreamInfer", "add", "2"), 4)
        self.assertEqual(self.metric(after, "ModelStreamInfer", "add", "1")
                         - self.metric(before, "ModelStreamInfer", "add", "1"), 2)
        self.assertEqual(self.metric(after, "ModelStreamInfer", "add", "0", "fail")
                         - self.metric(before, "ModelStreamInfer", "add", "0", "fail"), 1)
        self.assertEqual(self.metric(after, "ModelStreamInfer", "nope", "0", "fail")
                         - self.metric(before, "ModelStreamInfer", "nope", "0", "fail"), 1)
        with SENT_LOCK:
            STREAMED["2"] = STREAMED.get("2", 0) + 4
        # Not counted as ModelInfer calls.
        self.assertEqual(self.metric(after, "ModelInfer", "add", "2"),
                         self.metric(before, "ModelInfer", "add", "2"))

    def test_empty_stream_ends_ok(self):
        self.assertEqual(list(STUB.ModelStreamInfer(iter([]), timeout=30)), [])

    def test_pending_limit_holds_a_client_that_sends_ahead(self):
        # "slow" takes one request running and one queued; a third is refused. Twelve requests
        # sent at once on one stream: with the default limit (64 read and unanswered) the server
        # reads them all and the model's queue refuses some; with --stream_max_pending 1 it reads
        # the next only once the previous answer is sent, so all twelve are served. (With 2, the
        # next can arrive while the finished request still holds its infer request: one running,
        # one queued, one more refused.)
        def run(stub):
            reqs = []
            for i in range(12):
                req = slow_request()
                req.id = "slow-%d" % i
                reqs.append(req)
            replies = list(stub.ModelStreamInfer(iter(reqs), timeout=120))
            self.assertEqual(sorted(r.infer_response.id for r in replies),
                             sorted(r.id for r in reqs))
            refused = [r for r in replies if r.error_message]
            for r in refused:
                self.assertIn("queue of model 'slow' version 1 is full", r.error_message)
            for r in replies:
                if not r.error_message:
                    self.assertEqual(struct.unpack_from("<f", r.infer_response.raw_output_contents[0])[0],
                                     1.0)
            return len(refused)

        self.assertGreaterEqual(run(STUB), 1)
        held = Server(["--model_path", os.path.join(WORK, "models", "slow"), "--model_name", "slow",
                       "--target_device", "TEMPLATE", "--nireq", "1", "--max_queue_size", "1",
                       "--stream_max_pending", "1"])
        try:
            stub = pb_grpc.GRPCInferenceServiceStub(grpc.insecure_channel(held.grpc_address))
            self.assertEqual(run(stub), 0)
        finally:
            held.stop()

    def test_cancelled_stream_cancels_what_it_left(self):
        # A lone request to "batched" waits in its queue for three more items (60 s delay); an
        # "add" request on the same stream is answered meanwhile. The client then cancels the
        # stream: the server takes the queued request out, counts it as cancelled, and the stream
        # ends CANCELLED.
        release = threading.Event()
        queued = pb.ModelInferRequest(model_name="batched", id="queued")
        queued.inputs.add(name="x", datatype="FP32", shape=[1, 4])
        queued.raw_input_contents.append(struct.pack("<4f", 1, 2, 3, 4))
        quick = add_request([1, 1, 1, 1])
        quick.id = "quick"

        def requests():
            yield queued
            yield quick
            release.wait(60)  # the client side stays open

        def metrics():
            return SERVER.http("GET", "/metrics")[1].decode()

        def queue_size():
            m = re.search(r'vireo_infer_req_queue_size\{name="batched",version="1"\} (-?\d+)', metrics())
            return int(m.group(1))

        cancelled_before = self.metric(metrics(), "ModelStreamInfer", "batched", "1", "cancelled")
        call = STUB.ModelStreamInfer(requests(), timeout=120)
        first = next(call)
        self.assertEqual((first.infer_response.id, first.error_message), ("quick", ""))
        with SENT_LOCK:
            STREAMED["2"] = STREAMED.get("2", 0) + 1
        self.assertEqual(queue_size(), 1)
        call.cancel()
        with self.assertRaises(grpc.RpcError) as caught:
            for _ in call:
                pass
        self.assertEqual(caught.exception.code(), grpc.StatusCode.CANCELLED)
        release.set()
        for _ in range(3000):
            if queue_size() == 0:
                break
            time.sleep(0.01)
        self.assertEqual(queue_size(), 0)
        for _ in range(3000):
            if self.metric(metrics(), "ModelStreamInfer", "batched", "1", "cancelled") > cancelled_before:
                break
            time.sleep(0.01)
        self.assertEqual(self.metric(metrics(), "ModelStreamInfer", "batched", "1", "cancelled"),
                         cancelled_before + 1)


class C_Errors(unittest.TestCase):
    def check(self, req, code, text):
        got_code, details = error_of(STUB.ModelInfer, req)
        self.assertEqual(got_code, code, details)
        self.assertIn(text, details)

    def test_validation(self):
        req = add_request([1, 2, 3, 4])
        req.inputs[0].datatype = "FP64"
        self.check(req, grpc.StatusCode.INVALID_ARGUMENT, "datatype FP64 given, the model expects FP32")
        req = add_request([1, 2, 3, 4])
        req.raw_input_contents[0] = b"\0" * 12
        self.check(req, grpc.StatusCode.INVALID_ARGUMENT, "raw_input_contents[0] (input 'x') holds 12 bytes")
        req = add_request([1, 2, 3, 4])
        req.inputs[0].name = "q"
        self.check(req, grpc.StatusCode.INVALID_ARGUMENT, "unknown input 'q'")
        req = pb.ModelInferRequest(model_name="add")
        self.check(req, grpc.StatusCode.INVALID_ARGUMENT, "missing input(s) 'x'")
        req = add_request([1, 2, 3, 4])
        req.inputs[0].datatype = "BYTES"
        self.check(req, grpc.StatusCode.INVALID_ARGUMENT, "BYTES is not supported")
        req = add_request([1, 2, 3, 4])
        req.inputs[0].shape[:] = [2, 2]
        self.check(req, grpc.StatusCode.INVALID_ARGUMENT, "shape [2,2] does not match the model's [1,4]")
        req = pb.ModelInferRequest(model_name="identity")
        for datatype in VALUES:
            req.inputs.add(name="in_" + datatype.lower(), datatype=datatype, shape=[0])
        self.check(req, grpc.StatusCode.INVALID_ARGUMENT, "must be sent in raw_input_contents")
        self.check(add_request([1, 2, 3, 4], model="nope"), grpc.StatusCode.NOT_FOUND, "'nope'")
        self.check(add_request([1, 2, 3, 4], version="9"), grpc.StatusCode.NOT_FOUND, "no version 9")
        # The server still serves after every error.
        self.assertTrue(STUB.ServerLive(pb.ServerLiveRequest()).live)


class D_Scheduling(unittest.TestCase):
    def test_queue_full_is_resource_exhausted(self):
        # slow: one infer request, a queue of one. Twelve requests at once: at most two are taken
        # before the first inference ends, the others are refused.
        futures = [STUB.ModelInfer.future(slow_request(), timeout=120) for _ in range(12)]
        ok, exhausted = 0, 0
        for f in futures:
            try:
                r = f.result()
                self.assertAlmostEqual(struct.unpack_from("<f", r.raw_output_contents[0])[0], 1.0, places=4)
                ok += 1
            except grpc.RpcError as e:
                self.assertEqual(e.code(), grpc.StatusCode.RESOURCE_EXHAUSTED, e.details())
                self.assertIn("queue of model 'slow' version 1 is full", e.details())
                exhausted += 1
        self.assertEqual(ok + exhausted, 12)
        self.assertGreaterEqual(ok, 1)
        self.assertGreaterEqual(exhausted, 1)

    def test_deadlines(self):
        code, _ = error_of(STUB.ModelInfer, slow_request(), timeout=0.001)
        self.assertEqual(code, grpc.StatusCode.DEADLINE_EXCEEDED)
        # The "timeout" parameter (microseconds): a running inference is cancelled at its deadline.
        req = slow_request()
        req.parameters["timeout"].int64_param = 1000
        code, details = error_of(STUB.ModelInfer, req)
        self.assertEqual(code, grpc.StatusCode.DEADLINE_EXCEEDED, details)
        self.assertIn("deadline exceeded", details)

    def test_cancel_then_serve(self):
        f = STUB.ModelInfer.future(slow_request(), timeout=120)
        f.cancel()
        self.assertTrue(f.cancelled() or f.done())
        r = STUB.ModelInfer(slow_request(), timeout=120)
        self.assertEqual(list(r.outputs[0].shape), [256, 512])
        # The server's share of the round trip, in Vireo's own response parameters: the slow
        # model's run (16 MatMuls of 256x512x512) takes far more than a microsecond.
        self.assertEqual(r.parameters["vireo_queue_us"].WhichOneof("parameter_choice"), "int64_param")
        self.assertGreaterEqual(r.parameters["vireo_queue_us"].int64_param, 0)
        self.assertGreater(r.parameters["vireo_compute_us"].int64_param, 0)


class D_Batching(unittest.TestCase):
    def test_four_requests_one_execution(self):
        config = STUB.ModelConfig(pb.ModelConfigRequest(name="batched")).config
        self.assertEqual(config.max_batch_size, 4)
        self.assertEqual(list(config.input[0].dims), [4])
        self.assertEqual(config.dynamic_batching.preferred_batch_size, [4])
        meta = STUB.ModelMetadata(pb.ModelMetadataRequest(name="batched"))
        self.assertEqual(list(meta.inputs[0].shape), [-1, 4])
        futures = []
        for i, rows in enumerate([1, 2, 1]):
            req = pb.ModelInferRequest(model_name="batched")
            req.inputs.add(name="x", datatype="FP32", shape=[rows, 4])
            req.raw_input_contents.append(struct.pack("<%df" % (rows * 4), *([10.0 * i] * (rows * 4))))
            futures.append((i, rows, STUB.ModelInfer.future(req, timeout=120)))
        for i, rows, f in futures:
            r = f.result()
            self.assertEqual(list(r.outputs[0].shape), [rows, 4])
            self.assertEqual(struct.unpack("<%df" % (rows * 4), r.raw_output_contents[0]),
                             tuple([10.0 * i + 1.0] * (rows * 4)))
        stats = STUB.ModelStatistics(pb.ModelStatisticsRequest(name="batched")).model_stats[0]
        self.assertEqual(stats.execution_count, 1)
        self.assertEqual(stats.inference_count, 4)
        self.assertEqual(stats.inference_stats.success.count, 3)
        text = SERVER.http("GET", "/metrics")[1].decode()
        self.assertIn('vireo_batch_size_count{name="batched",version="1"} 1', text)
        self.assertIn('vireo_batch_size_sum{name="batched",version="1"} 4', text)
        self.assertIn('vireo_batch_size_bucket{name="batched",version="1",le="3"} 0', text)
        self.assertIn('vireo_batch_size_bucket{name="batched",version="1",le="4"} 1', text)
        req = pb.ModelInferRequest(model_name="batched")
        req.inputs.add(name="x", datatype="FP32", shape=[5, 4])
        req.raw_input_contents.append(b"\0" * 80)
        code, details = error_of(STUB.ModelInfer, req)
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("batch 5 is outside 1..4", details)


    def test_zz_client_cancel_and_deadline_remove_queued_requests(self):
        # A lone request waits in the batched model's queue for three more items (60 s delay), so
        # it is still queued when the client gives up: the server takes it out of the queue.
        def gauge(name):
            text = SERVER.http("GET", "/metrics")[1].decode()
            m = re.search(r'%s\{name="batched",version="1"\} (-?\d+)' % name, text)
            return int(m.group(1))

        def fails():
            stats = STUB.ModelStatistics(pb.ModelStatisticsRequest(name="batched")).model_stats[0]
            return stats.inference_stats.fail.count

        def wait_for(predicate):
            for _ in range(6000):
                if predicate():
                    return True
                time.sleep(0.01)
            return False

        req = pb.ModelInferRequest(model_name="batched")
        req.inputs.add(name="x", datatype="FP32", shape=[1, 4])
        req.raw_input_contents.append(struct.pack("<4f", 1, 2, 3, 4))
        before = fails()
        f = STUB.ModelInfer.future(req, timeout=120)
        self.assertTrue(wait_for(lambda: gauge("vireo_infer_req_queue_size") == 1))
        f.cancel()
        self.assertTrue(wait_for(lambda: gauge("vireo_infer_req_queue_size") == 0))
        self.assertTrue(wait_for(lambda: fails() == before + 1))
        self.assertEqual(gauge("vireo_current_requests"), 0)
        code, _ = error_of(STUB.ModelInfer, req, timeout=0.5)
        self.assertEqual(code, grpc.StatusCode.DEADLINE_EXCEEDED)
        self.assertTrue(wait_for(lambda: fails() == before + 2))
        self.assertTrue(wait_for(lambda: gauge("vireo_infer_req_queue_size") == 0))


class E_Repository(unittest.TestCase):
    def test_index(self):
        index = STUB.RepositoryIndex(pb.RepositoryIndexRequest())
        entries = {(m.name, m.version): m.state for m in index.models}
        self.assertEqual(entries[("add", "1")], "READY")
        self.assertEqual(entries[("add", "2")], "READY")
        self.assertEqual(entries[("identity", "1")], "READY")
        ready = STUB.RepositoryIndex(pb.RepositoryIndexRequest(ready=True))
        self.assertTrue(all(m.state == "READY" for m in ready.models))

    def test_reload_under_load_loses_no_request(self):
        # Version 3 of "rolling" (policy latest 1) appears while three clients keep sending: it
        # loads beside version 2, takes the traffic, and version 2 is retired; no request fails and
        # every answer comes from version 2 or 3 with that version's values.
        stop = threading.Event()
        failures, answered = [], []

        def client():
            while not stop.is_set():
                try:
                    r = STUB.ModelInfer(add_request([0, 0, 0, 0], model="rolling"), timeout=60)
                    answered.append((r.model_version, struct.unpack("<f", r.raw_output_contents[0][:4])[0]))
                except grpc.RpcError as e:
                    failures.append(e.details())

        threads = [threading.Thread(target=client) for _ in range(3)]
        for t in threads:
            t.start()
        while len(answered) < 10:
            time.sleep(0.01)
        model_ir.add_model(os.path.join(WORK, "models", "rolling", "3"), 3.0)
        STUB.RepositoryModelLoad(pb.RepositoryModelLoadRequest(model_name="rolling"))
        after = len(answered)
        while len(answered) < after + 10:
            time.sleep(0.01)
        stop.set()
        for t in threads:
            t.join()
        self.assertEqual(failures, [])
        self.assertEqual(answered[-1], ("3", 3.0))
        self.assertTrue(all((v, y) in (("2", 2.0), ("3", 3.0)) for v, y in answered), answered)
        self.assertEqual(list(STUB.ModelMetadata(pb.ModelMetadataRequest(name="rolling")).versions), ["3"])

    def test_unload_and_load(self):
        STUB.RepositoryModelUnload(pb.RepositoryModelUnloadRequest(model_name="identity"))
        self.assertFalse(STUB.ModelReady(pb.ModelReadyRequest(name="identity")).ready)
        self.assertFalse(STUB.ServerReady(pb.ServerReadyRequest()).ready)
        code, _ = error_of(STUB.ModelInfer, pb.ModelInferRequest(model_name="identity"))
        self.assertEqual(code, grpc.StatusCode.UNAVAILABLE)
        STUB.RepositoryModelLoad(pb.RepositoryModelLoadRequest(model_name="identity"))
        self.assertTrue(STUB.ModelReady(pb.ModelReadyRequest(name="identity")).ready)
        self.assertTrue(STUB.ServerReady(pb.ServerReadyRequest()).ready)

    def test_load_inline_files(self):
        folder = os.path.join(WORK, "inline_src")
        model_ir.add_model(folder, 5.0)
        req = pb.RepositoryModelLoadRequest(model_name="inline")
        with open(os.path.join(folder, "model.xml"), "rb") as f:
            req.parameters["file:1/model.xml"].bytes_param = f.read()
        with open(os.path.join(folder, "model.bin"), "rb") as f:
            req.parameters["file:1/model.bin"].bytes_param = f.read()
        req.parameters["config"].string_param = json.dumps({"target_device": "TEMPLATE"})
        STUB.RepositoryModelLoad(req)
        r = STUB.ModelInfer(add_request([1, 1, 1, 1], model="inline"))
        self.assertEqual(struct.unpack("<4f", r.raw_output_contents[0]), (6.0, 6.0, 6.0, 6.0))
        bad = pb.RepositoryModelLoadRequest(model_name="inline2")
        bad.parameters["file:../../etc/model.xml"].bytes_param = b"x"
        code, details = error_of(STUB.RepositoryModelLoad, bad)
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("inside the model", details)


class F_Statistics(unittest.TestCase):
    def test_statistics_and_metrics_count_what_was_sent(self):
        before = STUB.ModelStatistics(pb.ModelStatisticsRequest(name="add", version="2")).model_stats[0]
        for i in range(3):
            count(STUB.ModelInfer(add_request([i, i, i, i], version="2")))
        stats = STUB.ModelStatistics(pb.ModelStatisticsRequest(name="add", version="2")).model_stats
        self.assertEqual(len(stats), 1)
        self.assertEqual(stats[0].inference_count, before.inference_count + 3)
        self.assertEqual(stats[0].inference_stats.success.count, before.inference_stats.success.count + 3)
        self.assertEqual(stats[0].execution_count, before.execution_count + 3)
        all_stats = STUB.ModelStatistics(pb.ModelStatisticsRequest()).model_stats
        self.assertGreaterEqual(len(all_stats), 4)
        status, body, _ = SERVER.http("GET", "/metrics")
        self.assertEqual(status, 200)
        text = body.decode()
        m = re.search(r'vireo_requests_success\{api="KServe",interface="gRPC",method="ModelInfer",'
                      r'name="add",version="2"\} (\d+)', text)
        self.assertIsNotNone(m, text)
        self.assertEqual(int(m.group(1)), SENT["2"])
        for version, sent in SENT.items():
            m = re.search(r'vireo_requests_success\{api="KServe",interface="gRPC",method="ModelInfer",'
                          r'name="add",version="%s"\} (\d+)' % version, text)
            self.assertEqual(int(m.group(1)), sent, version)
        # The latency histogram counts every inference over gRPC, unary and streamed.
        m = re.search(r'vireo_request_time_us_count\{interface="gRPC",name="add",version="2"\} (\d+)', text)
        self.assertEqual(int(m.group(1)), SENT["2"] + STREAMED.get("2", 0))
        self.assertIn('vireo_streams{name="slow",version="1"} 1', text)


class Z_Shutdown(unittest.TestCase):
    def test_sigterm_drains_in_flight_requests(self):
        futures = [STUB.ModelInfer.future(slow_request(), timeout=120) for _ in range(2)]
        # Wait until the server holds a request (polling its gauge; no time threshold).
        pattern = re.compile(r'vireo_current_requests\{name="slow",version="1"\} (\d+)')
        for _ in range(6000):
            m = pattern.search(SERVER.http("GET", "/metrics")[1].decode())
            if m and int(m.group(1)) >= 1:
                break
            time.sleep(0.01)
        SERVER.stop(expect_code=0)
        done = 0
        for f in futures:
            try:
                f.result()
                done += 1
            except grpc.RpcError as e:
                # A request that had not reached the queue before draining began is refused.
                self.assertIn(e.code(), (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED))
        self.assertGreaterEqual(done, 1, SERVER.log())
        self.assertIn("drained", SERVER.log())


if __name__ == "__main__":
    unittest.main(verbosity=2)
