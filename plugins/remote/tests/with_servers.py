"""Runs a command against fresh vireo_server processes: starts N servers on free loopback ports
(server/tests/server_harness.py), sets VIREO_REMOTE_URLS to their gRPC addresses (REMOTE.0 is
the first), runs the command, stops the servers and exits with the command's code.

    with_servers.py [--servers N] -- command args...
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "server", "tests"))
from server_harness import Server  # noqa: E402


def main():
    args = sys.argv[1:]
    count = 1
    if args[:1] == ["--servers"]:
        count = int(args[1])
        args = args[2:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        sys.exit("usage: with_servers.py [--servers N] -- command args...")
    servers = [Server([]) for _ in range(count)]
    try:
        env = dict(os.environ)
        env["VIREO_REMOTE_URLS"] = ",".join(s.grpc_address for s in servers)
        code = subprocess.call(args, env=env)
    finally:
        for s in servers:
            s.stop()
    sys.exit(code)


if __name__ == "__main__":
    main()
