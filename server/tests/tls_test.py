"""TLS on both transports: vireo_server with --tls_cert/--tls_key (a self-signed certificate made
with openssl for 127.0.0.1) answers gRPC over TLS and HTTPS, refuses plain-text clients, and with
--tls_client_ca refuses a client without a certificate and serves one with a certificate the CA
signed (mutual TLS)."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.environ["VIREO_SERVER_PY_STUBS"])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import grpc  # noqa: E402
import grpc_service_pb2 as pb  # noqa: E402
import grpc_service_pb2_grpc as pb_grpc  # noqa: E402
import model_ir  # noqa: E402
from server_harness import Server  # noqa: E402

CURL = os.environ.get("VIREO_CURL", "curl")
WORK = tempfile.mkdtemp(prefix="vireo_server_tls_")


def openssl(*args):
    subprocess.run(["openssl"] + list(args), check=True, capture_output=True)


def make_certificates():
    p = lambda name: os.path.join(WORK, name)  # noqa: E731
    with open(p("san.cnf"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", p("ca.key"), "-out", p("ca.pem"),
            "-days", "2", "-subj", "/CN=vireo test CA")
    for name in ("server", "client"):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", p(name + ".key"), "-out", p(name + ".csr"),
                "-subj", "/CN=localhost")
        openssl("x509", "-req", "-in", p(name + ".csr"), "-CA", p("ca.pem"), "-CAkey", p("ca.key"),
                "-CAcreateserial", "-out", p(name + ".pem"), "-days", "2", "-extfile", p("san.cnf"))
    return p


def read(path):
    with open(path, "rb") as f:
        return f.read()


def curl_status(url, *extra):
    r = subprocess.run([CURL, "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "30", url] + list(extra),
                       capture_output=True, text=True)
    return r.stdout.strip()


class Tls(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.p = staticmethod(make_certificates())
        model_ir.add_model(os.path.join(WORK, "models", "add", "1"), 1.0)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(WORK, ignore_errors=True)

    def start(self, *extra):
        return Server(["--model_path", os.path.join(WORK, "models", "add"), "--model_name", "add",
                       "--target_device", "TEMPLATE", "--tls_cert", self.p("server.pem"),
                       "--tls_key", self.p("server.key")] + list(extra))

    def test_server_tls(self):
        server = self.start()
        try:
            creds = grpc.ssl_channel_credentials(root_certificates=read(self.p("ca.pem")))
            stub = pb_grpc.GRPCInferenceServiceStub(grpc.secure_channel(server.grpc_address, creds))
            self.assertTrue(stub.ServerReady(pb.ServerReadyRequest(), timeout=30).ready)
            plain = pb_grpc.GRPCInferenceServiceStub(grpc.insecure_channel(server.grpc_address))
            with self.assertRaises(grpc.RpcError):
                plain.ServerLive(pb.ServerLiveRequest(), timeout=5)
            https = f"https://127.0.0.1:{server.rest_port}/v2/health/ready"
            self.assertEqual(curl_status(https, "--cacert", self.p("ca.pem")), "200")
            self.assertNotEqual(curl_status(f"http://127.0.0.1:{server.rest_port}/v2/health/ready"), "200")
        finally:
            server.stop()

    def test_mutual_tls(self):
        server = self.start("--tls_client_ca", self.p("ca.pem"))
        try:
            ca = read(self.p("ca.pem"))
            anonymous = grpc.ssl_channel_credentials(root_certificates=ca)
            stub = pb_grpc.GRPCInferenceServiceStub(grpc.secure_channel(server.grpc_address, anonymous))
            with self.assertRaises(grpc.RpcError):
                stub.ServerLive(pb.ServerLiveRequest(), timeout=5)
            client = grpc.ssl_channel_credentials(root_certificates=ca, private_key=read(self.p("client.key")),
                                                  certificate_chain=read(self.p("client.pem")))
            stub = pb_grpc.GRPCInferenceServiceStub(grpc.secure_channel(server.grpc_address, client))
            self.assertTrue(stub.ServerLive(pb.ServerLiveRequest(), timeout=30).live)
            https = f"https://127.0.0.1:{server.rest_port}/v2/health/live"
            self.assertNotEqual(curl_status(https, "--cacert", self.p("ca.pem")), "200")
            self.assertEqual(curl_status(https, "--cacert", self.p("ca.pem"), "--cert", self.p("client.pem"),
                                         "--key", self.p("client.key")), "200")
        finally:
            server.stop()


if __name__ == "__main__":
    unittest.main(verbosity=2)
