"""Starts vireo_server for a test on 127.0.0.1 with ports chosen by the server (-1: any free port,
read back from its log), waits for readiness, and stops it with SIGTERM, checking it exits 0."""
import os
import re
import signal
import subprocess
import threading
import time
import urllib.request


class Server:
    def __init__(self, args, wait_ready=True):
        binary = os.environ["VIREO_SERVER"]
        cmd = [binary, "--port", "-1", "--rest_port", "-1", "--grpc_bind_address", "127.0.0.1",
               "--rest_bind_address", "127.0.0.1"] + list(args)
        env = dict(os.environ)
        if "ASAN_OPTIONS" in env:
            # Under ./test.sh --sanitize: memory errors still fail the server (exit code), but
            # LeakSanitizer's exit scan is left to the gtest binary, which runs the same model and
            # scheduler code in-process without the system gRPC library's process-lifetime state.
            env["ASAN_OPTIONS"] += ":detect_leaks=0"
        self.proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        self.lines = []
        self._cv = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.grpc_port = int(self.wait_for_line(r"gRPC listening on [\d.]+:(\d+)").group(1))
        self.rest_port = int(self.wait_for_line(r"REST listening on [\d.]+:(\d+)").group(1))
        self.grpc_address = f"127.0.0.1:{self.grpc_port}"
        self.rest_url = f"http://127.0.0.1:{self.rest_port}"
        if wait_ready:
            self.wait_for_line(r"\[info\] (ready|not ready)")

    def _read(self):
        for line in self.proc.stderr:
            with self._cv:
                self.lines.append(line.rstrip("\n"))
                self._cv.notify_all()
        with self._cv:
            self.lines.append(None)  # end of output
            self._cv.notify_all()

    def wait_for_line(self, pattern, timeout=120):
        regex = re.compile(pattern)
        deadline = time.time() + timeout
        with self._cv:
            seen = 0
            while True:
                while seen < len(self.lines):
                    line = self.lines[seen]
                    seen += 1
                    if line is None:
                        raise AssertionError(f"server exited before '{pattern}':\n" + self.log())
                    m = regex.search(line)
                    if m:
                        return m
                left = deadline - time.time()
                if left <= 0:
                    raise AssertionError(f"no '{pattern}' in the server log:\n" + self.log())
                self._cv.wait(left)

    def log(self):
        with self._cv:
            return "\n".join(l for l in self.lines if l is not None)

    def http(self, method, path, body=None, headers=None):
        request = urllib.request.Request(self.rest_url + path, data=body, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=60) as r:
                return r.status, r.read(), dict(r.headers)
        except urllib.error.HTTPError as e:
            return e.code, e.read(), dict(e.headers)

    def stop(self, expect_code=0):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=120)
        self._reader.join(timeout=10)
        self.proc.stdout.close()
        self.proc.stderr.close()
        assert code == expect_code, f"server exited with {code}, expected {expect_code}:\n" + self.log()
        return code


def error_of(call, *args, **kwargs):
    """The (code, details) of the gRPC error `call(*args, **kwargs)` raises; fails if it succeeds."""
    import grpc  # only the gRPC tests need it

    try:
        call(*args, **kwargs)
    except grpc.RpcError as e:
        return e.code(), e.details()
    raise AssertionError("the call succeeded, an error was expected")
