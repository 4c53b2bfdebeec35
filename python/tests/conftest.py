"""Shared fixtures of the vireo Python tests: the test data folder, a Core, the golden models.

Run with PYTHONPATH=<build>/python and VIREO_TEST_DATA=<source>/tests/data (ctest sets both).
A session that collects no test fails (pytest's exit code 5 would otherwise be easy to miss).
"""
import faulthandler
import os
import pathlib

import numpy as np
import pytest

import vireo  # an import error fails the run: the package must be built


DATA = pathlib.Path(os.environ.get("VIREO_TEST_DATA", pathlib.Path(__file__).resolve().parents[2] / "tests" / "data"))
GOLDEN = DATA / "models" / "golden"

# MOCK_REMOTE settings that keep the simulated device fast: no modelled compile time.
FAST_REMOTE = {"MOCK_REMOTE_COMPILE_MS": 0, "MOCK_REMOTE_LATENCY_US": 200}


def pytest_sessionfinish(session, exitstatus):
    if session.testscollected == 0:
        session.exitstatus = 1


@pytest.fixture(autouse=True)
def hang_watchdog():
    """A test that hangs (a GIL deadlock) dumps every thread's stack and ends the process after
    120 s instead of blocking ctest until its timeout."""
    faulthandler.dump_traceback_later(120, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope="session")
def core():
    return vireo.Core()


@pytest.fixture(scope="session")
def tiny_xml():
    path = GOLDEN / "tiny" / "model.xml"
    assert path.is_file(), f"missing golden model {path}"
    return path


def golden(name):
    """(input, expected output) of a golden model, as ONNX Runtime computed them."""
    return np.load(GOLDEN / name / "input_x.npy"), np.load(GOLDEN / name / "output_y.npy")
