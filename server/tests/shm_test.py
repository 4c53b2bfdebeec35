"""Integration test of vireo_server's system shared memory extension (Triton's), over gRPC (grpcio
stubs generated from server/proto) and REST: register, status, unregister; inference with inputs
and outputs in shared memory checked against the same inference in-band; raw contents mixed with
shared memory inputs the way tritonclient sends them; the error cases (an object too small for the
declared window, a wrong input byte size, an offset past the region, a key that does not exist, a
name in use, an output that does not fit, an unregistered region); unregister while a request uses
the region; a region whose object its creator already unlinked. Regions are files in /dev/shm,
which is where glibc's shm_open keeps POSIX shared memory objects."""
import itertools
import json
import mmap
import os
import shutil
import struct
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.environ["VIREO_SERVER_PY_STUBS"])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import grpc  # noqa: E402
import grpc_service_pb2 as pb  # noqa: E402
import grpc_service_pb2_grpc as pb_grpc  # noqa: E402
import model_ir  # noqa: E402
from server_harness import Server, error_of  # noqa: E402

WORK = tempfile.mkdtemp(prefix="vireo_server_shm_")
SERVER = None
STUB = None
_SEQUENCE = itertools.count()


class ShmObject:
    """A POSIX shared memory object of `size` bytes, created as /dev/shm/<name> and mapped here."""

    def __init__(self, size):
        self.name = f"vireo_shm_test_{os.getpid()}_{next(_SEQUENCE)}"
        self.key = "/" + self.name
        self.path = "/dev/shm/" + self.name
        self.size = size
        with open(self.path, "w+b") as f:
            f.truncate(size)
            self.map = mmap.mmap(f.fileno(), size)

    def put(self, offset, data):
        self.map[offset:offset + len(data)] = data

    def get(self, offset, size):
        return bytes(self.map[offset:offset + size])

    def unlink(self):
        if os.path.exists(self.path):
            os.unlink(self.path)

    def close(self):
        self.map.close()
        self.unlink()


def floats(values):
    return struct.pack("<%df" % len(values), *values)


def set_shm(parameters, region, byte_size, offset=None):
    parameters["shared_memory_region"].string_param = region
    parameters["shared_memory_byte_size"].int64_param = byte_size
    if offset is not None:
        parameters["shared_memory_offset"].int64_param = offset


def add_request(x_region=None, x_size=16, x_offset=None, y_region=None, y_size=16, y_offset=None,
                values=(1.0, 2.0, 3.0, 4.0)):
    """A request to model "add" (y = x + 1, [1,4] FP32) with x and/or y in shared memory."""
    req = pb.ModelInferRequest(model_name="add")
    x = req.inputs.add(name="x", datatype="FP32", shape=[1, 4])
    if x_region is None:
        req.raw_input_contents.append(floats(values))
    else:
        set_shm(x.parameters, x_region, x_size, x_offset)
    if y_region is not None:
        y = req.outputs.add(name="y")
        set_shm(y.parameters, y_region, y_size, y_offset)
    return req


def register(name, obj, offset=0, byte_size=None):
    STUB.SystemSharedMemoryRegister(pb.SystemSharedMemoryRegisterRequest(
        name=name, key=obj.key, offset=offset, byte_size=obj.size - offset if byte_size is None else byte_size))


def setUpModule():
    global SERVER, STUB
    repo = os.path.join(WORK, "models")
    model_ir.add_model(os.path.join(repo, "add", "1"), 1.0)
    model_ir.identity_model(os.path.join(repo, "identity", "1"))
    config = {"model_config_list": [
        {"config": {"name": name, "base_path": os.path.join(repo, name), "target_device": "TEMPLATE",
                    "nireq": 1}} for name in ("add", "identity")]}
    # Batches of 4 rows, with a delay long enough that a batch starts only when 4 rows are queued.
    config["model_config_list"].append(
        {"config": {"name": "batched", "base_path": os.path.join(repo, "add"), "target_device": "TEMPLATE",
                    "nireq": 1, "dynamic_batching": {"max_batch_size": 4,
                                                     "max_queue_delay_microseconds": 60000000,
                                                     "preferred_batch_size": [4]}}})
    path = os.path.join(WORK, "config.json")
    with open(path, "w") as f:
        json.dump(config, f)
    SERVER = Server(["--config_path", path, "--allow_client_shm"])
    STUB = pb_grpc.GRPCInferenceServiceStub(grpc.insecure_channel(SERVER.grpc_address))


def tearDownModule():
    if SERVER and SERVER.proc.poll() is None:
        SERVER.stop()
    shutil.rmtree(WORK, ignore_errors=True)


class ShmTestCase(unittest.TestCase):
    def setUp(self):
        self.objects = []

    def tearDown(self):
        STUB.SystemSharedMemoryUnregister(pb.SystemSharedMemoryUnregisterRequest())
        for obj in self.objects:
            obj.close()

    def shm(self, size):
        obj = ShmObject(size)
        self.objects.append(obj)
        return obj


class A_Grpc(ShmTestCase):
    def test_extension_listed(self):
        meta = STUB.ServerMetadata(pb.ServerMetadataRequest())
        self.assertIn("system_shared_memory", list(meta.extensions))

    def test_register_infer_status_unregister(self):
        inp, out = self.shm(64), self.shm(64)
        register("in", inp)
        register("out", out, offset=16, byte_size=32)
        status = STUB.SystemSharedMemoryStatus(pb.SystemSharedMemoryStatusRequest())
        self.assertEqual(sorted(status.regions), ["in", "out"])
        r = status.regions["out"]
        self.assertEqual((r.name, r.key, r.offset, r.byte_size), ("out", out.key, 16, 32))
        one = STUB.SystemSharedMemoryStatus(pb.SystemSharedMemoryStatusRequest(name="in"))
        self.assertEqual(list(one.regions), ["in"])

        values = [0.5, -1.25, 10.0, 3.0]
        inp.put(8, floats(values))
        reply = STUB.ModelInfer(add_request("in", 16, 8, "out", 16, 4, values=values))
        in_band = STUB.ModelInfer(add_request(values=values))
        self.assertEqual(struct.unpack("<4f", in_band.raw_output_contents[0]), (1.5, -0.25, 11.0, 4.0))
        # The output is in the region (offset 4 into it: object byte 20), not in the reply.
        self.assertEqual(out.get(20, 16), in_band.raw_output_contents[0])
        self.assertEqual(list(reply.raw_output_contents), [b""])
        p = reply.outputs[0].parameters
        self.assertEqual(p["shared_memory_region"].string_param, "out")
        self.assertEqual(p["shared_memory_byte_size"].int64_param, 16)
        self.assertEqual(p["shared_memory_offset"].int64_param, 4)
        self.assertEqual(list(reply.outputs[0].shape), [1, 4])

        STUB.SystemSharedMemoryUnregister(pb.SystemSharedMemoryUnregisterRequest(name="in"))
        status = STUB.SystemSharedMemoryStatus(pb.SystemSharedMemoryStatusRequest())
        self.assertEqual(list(status.regions), ["out"])
        code, details = error_of(STUB.ModelInfer, add_request("in", 16, 8))
        self.assertEqual(code, grpc.StatusCode.NOT_FOUND, details)
        self.assertIn("input 'x': shared memory region 'in' is not registered", details)
        code, details = error_of(STUB.SystemSharedMemoryStatus, pb.SystemSharedMemoryStatusRequest(name="in"))
        self.assertEqual(code, grpc.StatusCode.NOT_FOUND)
        self.assertIn("'in'", details)

    def test_raw_inputs_beside_shm_inputs(self):
        # tritonclient leaves a shared memory input out of raw_input_contents: the entries belong
        # to the other inputs in order, and the reply keeps one (empty) entry per shm output.
        obj = self.shm(64)
        register("r", obj)
        obj.put(0, floats([1.0, 2.0, 3.0]))
        req = pb.ModelInferRequest(model_name="identity")
        req.inputs.add(name="in_int32", datatype="INT32", shape=[2])
        fp32 = req.inputs.add(name="in_fp32", datatype="FP32", shape=[3])
        set_shm(fp32.parameters, "r", 12)
        req.inputs.add(name="in_uint8", datatype="UINT8", shape=[3])
        others = [n for n in ("bool", "uint16", "uint32", "uint64", "int8", "int16", "int64", "fp16",
                              "bf16", "fp64")]
        for n in others:
            req.inputs.add(name="in_" + n, datatype=n.upper(), shape=[0])
        req.raw_input_contents.append(struct.pack("<2i", 7, -8))
        req.raw_input_contents.append(bytes([1, 2, 3]))
        for _ in others:
            req.raw_input_contents.append(b"")
        req.outputs.add(name="out_int32")
        set_shm(req.outputs.add(name="out_fp32").parameters, "r", 12, 32)
        req.outputs.add(name="out_uint8")
        reply = STUB.ModelInfer(req)
        self.assertEqual([o.name for o in reply.outputs], ["out_int32", "out_fp32", "out_uint8"])
        self.assertEqual(list(reply.raw_output_contents), [struct.pack("<2i", 7, -8), b"", bytes([1, 2, 3])])
        self.assertEqual(obj.get(32, 12), floats([1.0, 2.0, 3.0]))
        del req.raw_input_contents[-1]
        code, details = error_of(STUB.ModelInfer, req)
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("12 inputs not in shared memory", details)

    def test_register_errors(self):
        small = self.shm(64)
        code, details = error_of(register, "r", small, 0, 65)
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("runs past the end of shared memory object '%s' (64 bytes)" % small.key, details)
        code, details = error_of(STUB.SystemSharedMemoryRegister, pb.SystemSharedMemoryRegisterRequest(
            name="r", key="/vireo_shm_test_no_such_key", byte_size=4))
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("'/vireo_shm_test_no_such_key'", details)
        register("r", small)
        code, details = error_of(register, "r", small)
        self.assertEqual(code, grpc.StatusCode.ALREADY_EXISTS)
        self.assertIn("'r' is already registered", details)
        status = STUB.SystemSharedMemoryStatus(pb.SystemSharedMemoryStatusRequest())
        self.assertEqual(list(status.regions), ["r"])

    def test_infer_errors(self):
        obj = self.shm(64)
        register("r", obj, offset=0, byte_size=32)
        # Input byte size not the shape's (12 for 16).
        code, details = error_of(STUB.ModelInfer, add_request("r", 12))
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("input 'x' in shared memory region 'r'", details)
        self.assertIn("holds 12 bytes, the shape and datatype need 16", details)
        # Offset past the region (32 bytes registered).
        code, details = error_of(STUB.ModelInfer, add_request("r", 16, 20))
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("input 'x'", details)
        self.assertIn("runs past the end of shared memory region 'r' (32 bytes)", details)
        code, details = error_of(STUB.ModelInfer, add_request(y_region="r", y_size=16, y_offset=40))
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("output 'y'", details)
        # An output too small for the result: an error, and nothing written.
        obj.put(0, b"\xAB" * 32)
        code, details = error_of(STUB.ModelInfer, add_request(y_region="r", y_size=8))
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("output 'y' needs 16 bytes, its shared_memory_byte_size in region 'r' is 8", details)
        self.assertEqual(obj.get(0, 64), b"\xAB" * 32 + b"\0" * 32)
        # Only one of region / byte size.
        req = add_request()
        req.outputs.add(name="y").parameters["shared_memory_region"].string_param = "r"
        code, details = error_of(STUB.ModelInfer, req)
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("must be given together", details)
        self.assertTrue(STUB.ServerLive(pb.ServerLiveRequest()).live)

    def test_unregister_during_inference(self):
        # "batched" starts a batch only when 4 rows are queued: the first call waits in the queue
        # holding its output region while the region is unregistered and its object unlinked;
        # three more rows then start the batch, and the output still lands in the mapping.
        out = self.shm(16)
        register("out", out)
        req = pb.ModelInferRequest(model_name="batched")
        req.inputs.add(name="x", datatype="FP32", shape=[1, 4])
        req.raw_input_contents.append(floats([1.0, 2.0, 3.0, 4.0]))
        set_shm(req.outputs.add(name="y").parameters, "out", 16)
        held = STUB.ModelInfer.future(req, timeout=120)
        time.sleep(0.3)
        self.assertFalse(held.done())
        STUB.SystemSharedMemoryUnregister(pb.SystemSharedMemoryUnregisterRequest(name="out"))
        out.unlink()
        self.assertEqual(len(STUB.SystemSharedMemoryStatus(pb.SystemSharedMemoryStatusRequest()).regions), 0)
        rest = pb.ModelInferRequest(model_name="batched")
        rest.inputs.add(name="x", datatype="FP32", shape=[3, 4])
        rest.raw_input_contents.append(floats([0.0] * 12))
        STUB.ModelInfer(rest, timeout=120)
        reply = held.result()
        self.assertEqual(reply.outputs[0].parameters["shared_memory_byte_size"].int64_param, 16)
        self.assertEqual(out.get(0, 16), floats([2.0, 3.0, 4.0, 5.0]))
        self.assertTrue(STUB.ServerLive(pb.ServerLiveRequest()).live)

    def test_unlinked_object_stays_usable(self):
        obj = self.shm(32)
        register("r", obj)
        obj.unlink()
        obj.put(0, floats([1.0, 1.0, 1.0, 1.0]))
        STUB.ModelInfer(add_request("r", 16, 0, "r", 16, 16))
        self.assertEqual(obj.get(16, 16), floats([2.0, 2.0, 2.0, 2.0]))


class B_Rest(ShmTestCase):
    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
        if data is None and method == "POST":
            data = b""
        status, text, _ = SERVER.http(method, path, data, {"Content-Type": "application/json"})
        return status, (json.loads(text) if text else None)

    def test_register_infer_status_unregister(self):
        status, meta = self.call("GET", "/v2")
        self.assertIn("system_shared_memory", meta["extensions"])
        obj = self.shm(64)
        status, body = self.call("POST", "/v2/systemsharedmemory/region/io/register",
                                 {"key": obj.key, "offset": 0, "byte_size": 64})
        self.assertEqual(status, 200, body)
        status, body = self.call("GET", "/v2/systemsharedmemory/status")
        self.assertEqual((status, body), (200, [{"name": "io", "key": obj.key, "offset": 0, "byte_size": 64}]))
        status, body = self.call("GET", "/v2/systemsharedmemory/region/io/status")
        self.assertEqual(body[0]["name"], "io")

        values = [2.0, 4.0, -6.0, 0.25]
        obj.put(0, floats(values))
        request = {"inputs": [{"name": "x", "shape": [1, 4], "datatype": "FP32",
                               "parameters": {"shared_memory_region": "io", "shared_memory_byte_size": 16}}],
                   "outputs": [{"name": "y", "parameters": {"shared_memory_region": "io",
                                                            "shared_memory_byte_size": 16,
                                                            "shared_memory_offset": 32}}]}
        status, reply = self.call("POST", "/v2/models/add/infer", request)
        self.assertEqual(status, 200, reply)
        out = reply["outputs"][0]
        self.assertNotIn("data", out)
        self.assertEqual(out["parameters"], {"shared_memory_region": "io", "shared_memory_offset": 32,
                                             "shared_memory_byte_size": 16})
        status, in_band = self.call("POST", "/v2/models/add/infer", {
            "inputs": [{"name": "x", "shape": [1, 4], "datatype": "FP32", "data": values}]})
        self.assertEqual(list(struct.unpack("<4f", obj.get(32, 16))), in_band["outputs"][0]["data"])

        status, body = self.call("POST", "/v2/systemsharedmemory/region/io/unregister")
        self.assertEqual(status, 200)
        status, body = self.call("GET", "/v2/systemsharedmemory/status")
        self.assertEqual(body, [])
        status, body = self.call("POST", "/v2/models/add/infer", request)
        self.assertEqual(status, 404, body)
        self.assertIn("shared memory region 'io' is not registered", body["error"])
        status, body = self.call("GET", "/v2/systemsharedmemory/region/io/status")
        self.assertEqual(status, 404)
        self.assertIn("'io'", body["error"])

    def test_errors(self):
        obj = self.shm(64)
        status, body = self.call("POST", "/v2/systemsharedmemory/region/r/register",
                                 {"key": obj.key, "offset": 32, "byte_size": 64})
        self.assertEqual(status, 400)
        self.assertIn("runs past the end", body["error"])
        status, body = self.call("POST", "/v2/systemsharedmemory/region/r/register",
                                 {"key": "/vireo_shm_test_no_such_key", "byte_size": 8})
        self.assertEqual(status, 400)
        self.assertIn("'/vireo_shm_test_no_such_key'", body["error"])
        status, body = self.call("POST", "/v2/systemsharedmemory/region/r/register", {"key": obj.key})
        self.assertEqual(status, 400)
        self.assertIn("byte_size", body["error"])
        status, body = self.call("POST", "/v2/systemsharedmemory/region/r/register", b"{not json")
        self.assertEqual(status, 400)
        status, _ = self.call("POST", "/v2/systemsharedmemory/region/r/register", {"key": obj.key, "byte_size": 32})
        self.assertEqual(status, 200)
        status, body = self.call("POST", "/v2/systemsharedmemory/region/r/register", {"key": obj.key, "byte_size": 32})
        self.assertEqual(status, 400)
        self.assertIn("'r' is already registered", body["error"])

        def infer(x_params, y_params=None, data=None):
            x = {"name": "x", "shape": [1, 4], "datatype": "FP32", "parameters": x_params}
            if data is not None:
                x["data"] = data
            request = {"inputs": [x]}
            if y_params is not None:
                request["outputs"] = [{"name": "y", "parameters": y_params}]
            return self.call("POST", "/v2/models/add/infer", request)

        status, body = infer({"shared_memory_region": "r", "shared_memory_byte_size": 8})
        self.assertEqual(status, 400)
        self.assertIn("input 'x' in shared memory region 'r'", body["error"])
        status, body = infer({"shared_memory_region": "r", "shared_memory_byte_size": 16,
                              "shared_memory_offset": 24})
        self.assertEqual(status, 400)
        self.assertIn("runs past the end of shared memory region 'r' (32 bytes)", body["error"])
        status, body = infer({"shared_memory_region": "r", "shared_memory_byte_size": 16}, data=[1, 2, 3, 4])
        self.assertEqual(status, 400)
        self.assertIn("inputs[0]", body["error"])
        status, body = infer({"shared_memory_region": "r", "shared_memory_byte_size": 16},
                             {"shared_memory_region": "r", "shared_memory_byte_size": 4})
        self.assertEqual(status, 400)
        self.assertIn("output 'y' needs 16 bytes", body["error"])
        status, body = infer({"shared_memory_region": "r", "shared_memory_byte_size": "16"})
        self.assertEqual(status, 400)
        self.assertIn("shared_memory_byte_size must be an integer", body["error"])
        status, body = self.call("POST", "/v2/systemsharedmemory/unregister")
        self.assertEqual(status, 200)
        status, body = self.call("GET", "/v2/systemsharedmemory/status")
        self.assertEqual(body, [])


class D_Off(unittest.TestCase):
    """A server started without --allow_client_shm: no region can be registered or used."""

    def test_everything_refused_and_not_listed(self):
        path = os.path.join(WORK, "config.json")
        server = Server(["--config_path", path])
        try:
            stub = pb_grpc.GRPCInferenceServiceStub(grpc.insecure_channel(server.grpc_address))
            meta = stub.ServerMetadata(pb.ServerMetadataRequest())
            self.assertNotIn("system_shared_memory", meta.extensions)
            self.assertIn("model_repository", meta.extensions)
            obj = ShmObject(32)
            try:
                code, details = error_of(stub.SystemSharedMemoryRegister,
                                         pb.SystemSharedMemoryRegisterRequest(
                                             name="r", key=obj.key, offset=0, byte_size=32))
                self.assertEqual(code, grpc.StatusCode.UNAVAILABLE)
                self.assertIn("shared memory region 'r'", details)
                self.assertIn("--allow_client_shm", details)
                code, details = error_of(stub.ModelInfer, add_request(x_region="r"))
                self.assertEqual(code, grpc.StatusCode.UNAVAILABLE)
                self.assertIn("input 'x'", details)
                self.assertIn("--allow_client_shm", details)
                status = stub.SystemSharedMemoryStatus(pb.SystemSharedMemoryStatusRequest())
                self.assertEqual(len(status.regions), 0)
                # In-band inference is unaffected.
                reply = stub.ModelInfer(add_request())
                self.assertEqual(struct.unpack("<4f", reply.raw_output_contents[0]),
                                 (2.0, 3.0, 4.0, 5.0))
                # REST: the same refusal, as 503.
                status, body, _ = server.http(
                    "POST", "/v2/systemsharedmemory/region/r/register",
                    json.dumps({"key": obj.key, "offset": 0, "byte_size": 32}).encode(),
                    {"Content-Type": "application/json"})
                self.assertEqual(status, 503, body)
                self.assertIn("--allow_client_shm", body.decode())
                status, body, _ = server.http("GET", "/v2", None, {})
                self.assertEqual(status, 200, body)
                self.assertNotIn("system_shared_memory", json.loads(body)["extensions"])
            finally:
                obj.close()
        finally:
            server.stop()


class C_Stop(unittest.TestCase):
    def test_sigterm_with_regions_registered(self):
        obj = ShmObject(16)
        try:
            register("left", obj)
            SERVER.stop()
        finally:
            obj.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
