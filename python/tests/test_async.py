"""Asynchronous requests, AsyncInferQueue, callbacks (raising ones too), threads and the GIL."""
import gc
import threading
import time
import weakref

import numpy as np
import pytest

import vireo
from conftest import FAST_REMOTE


@pytest.mark.parametrize("device", ["TEMPLATE", "MOCK_REMOTE"])
def test_queue_sees_every_userdata_once_with_right_results(core, tiny_xml, device):
    compiled = core.compile_model(tiny_xml, device, FAST_REMOTE if device == "MOCK_REMOTE" else None)
    queue = vireo.AsyncInferQueue(compiled, 4)
    assert len(queue) == 4
    seen = []
    lock = threading.Lock()

    def done(request, userdata):
        value = request.results["y"].copy()
        with lock:
            seen.append((userdata, value))

    queue.set_callback(done)
    count = 64
    for i in range(count):
        queue.start_async({"x": np.full((1, 10), i, np.float32)}, userdata=i, share_inputs=False)
    queue.wait_all()
    assert queue.is_ready()
    assert sorted(u for u, _ in seen) == list(range(count))
    for userdata, value in seen:
        np.testing.assert_array_equal(value, np.full((1, 10), userdata + 1, np.float32))


def test_queue_jobs_zero_uses_optimal_number(core, tiny_xml):
    compiled = core.compile_model(tiny_xml, "MOCK_REMOTE", FAST_REMOTE)
    optimal = int(compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS"))
    queue = vireo.AsyncInferQueue(compiled)
    assert len(queue) == optimal and isinstance(queue[0], vireo.InferRequest)


def test_queue_is_garbage_collected(core, tiny_xml):
    compiled = core.compile_model(tiny_xml, "TEMPLATE")
    queue = vireo.AsyncInferQueue(compiled, 2)
    queue.set_callback(lambda request, userdata: None)
    queue.start_async(np.zeros((1, 10), np.float32), 0)
    queue.wait_all()
    ref = weakref.ref(queue)
    del queue
    gc.collect()
    assert ref() is None


def test_request_callback_gets_userdata(core, tiny_xml):
    request = core.compile_model(tiny_xml, "MOCK_REMOTE", FAST_REMOTE).create_infer_request()
    got = []
    request.set_callback(lambda userdata: got.append(userdata))
    for i in range(3):
        request.start_async(np.zeros((1, 10), np.float32), userdata=("run", i))
        request.wait()
    assert got == [("run", 0), ("run", 1), ("run", 2)]
    assert request.wait_for(0) is True


def test_raising_callback_is_printed_and_reraised_once(core, tiny_xml, capfd):
    request = core.compile_model(tiny_xml, "MOCK_REMOTE", FAST_REMOTE).create_infer_request()

    def bad(userdata):
        raise ValueError(f"callback failed for {userdata}")

    request.set_callback(bad)
    request.start_async(np.zeros((1, 10), np.float32), userdata=7)
    with pytest.raises(ValueError, match="callback failed for 7"):
        request.wait()
    assert "callback failed for 7" in capfd.readouterr().err
    request.wait()  # raised once only
    request.set_callback(None)
    request.start_async(np.zeros((1, 10), np.float32))
    request.wait()
    assert request.results[0][0, 0] == 1.0


def test_queue_raising_callback_surfaces_in_wait_all(core, tiny_xml, capfd):
    compiled = core.compile_model(tiny_xml, "MOCK_REMOTE", FAST_REMOTE)
    queue = vireo.AsyncInferQueue(compiled, 2)
    seen = []

    def done(request, userdata):
        seen.append(userdata)
        if userdata == 3:
            raise KeyError("three")

    queue.set_callback(done)
    for i in range(8):
        queue.start_async(np.zeros((1, 10), np.float32), i)
    with pytest.raises(KeyError, match="three"):
        queue.wait_all()
    assert sorted(seen) == list(range(8))
    assert "three" in capfd.readouterr().err
    queue.wait_all()  # the error was reported once


def test_threads_infer_on_separate_requests(core, tiny_xml):
    compiled = core.compile_model(tiny_xml, "TEMPLATE")
    errors = []

    def worker(k):
        try:
            request = compiled.create_infer_request()
            for i in range(50):
                x = np.full((1, 10), k * 1000 + i, np.float32)
                y = request.infer({"x": x})["y"]
                if not np.array_equal(y, x + 1):
                    errors.append((k, i, y))
        except Exception as error:  # reported below
            errors.append((k, error))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


@pytest.mark.parametrize("mode", ["infer", "wait"])
def test_gil_released_during_infer_and_wait(core, tiny_xml, mode):
    # MOCK_REMOTE_HANG_NTH=1: the first execution never ends until cancelled. Only another Python
    # thread can cancel it, which it can do only if infer() (or wait()) released the GIL; if not,
    # the test hangs and conftest's faulthandler ends the run with every thread's stack.
    config = {"MOCK_REMOTE_COMPILE_MS": 0, "MOCK_REMOTE_HANG_NTH": 1}
    request = core.compile_model(tiny_xml, "MOCK_REMOTE", config).create_infer_request()
    ticks = []

    def canceller():
        for i in range(5):
            ticks.append(i)  # Python code running while the main thread waits in native code
            time.sleep(0.01)
        request.cancel()

    thread = threading.Thread(target=canceller)
    x = np.zeros((1, 10), np.float32)
    with pytest.raises(vireo.Cancelled):
        if mode == "infer":
            thread.start()
            request.infer(x)
        else:
            request.start_async(x)
            thread.start()
            request.wait()
    thread.join()
    assert ticks == [0, 1, 2, 3, 4]
    assert request.infer(x)[0][0, 0] == 1.0  # the second execution does not hang


def test_threads_share_one_compiled_call(core, tiny_xml):
    compiled = core.compile_model(tiny_xml, "TEMPLATE")
    wrong = []

    def worker(k):
        for i in range(50):
            x = np.full((1, 10), k * 100 + i, np.float32)
            if not np.array_equal(compiled(x)[0], x + 1):
                wrong.append((k, i))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []


def test_wait_for_times_out_while_running(core, tiny_xml):
    config = {"MOCK_REMOTE_COMPILE_MS": 0, "MOCK_REMOTE_HANG_NTH": 1}
    request = core.compile_model(tiny_xml, "MOCK_REMOTE", config).create_infer_request()
    request.start_async(np.zeros((1, 10), np.float32))
    assert request.wait_for(20) is False
    request.cancel()
    with pytest.raises(vireo.Cancelled):
        request.wait()
    assert request.infer(np.zeros((1, 10), np.float32))[0][0, 0] == 1.0


@pytest.mark.parametrize("device", ["CPU", "TEMPLATE", "MOCK_REMOTE"])
def test_blocking_runs_give_each_call_its_own_result(core, tiny_xml, device):
    """infer() and CompiledModel.__call__ run on the calling thread or through the device's stream
    (each way timed, the other tried again every 32nd run; a remote device always through the
    stream): over enough calls to switch ways several times, mixed with start_async runs on the
    same request, every result is its own call's."""
    compiled = core.compile_model(tiny_xml, device, FAST_REMOTE if device == "MOCK_REMOTE" else {})
    request = compiled.create_infer_request()
    for i in range(130):
        x = np.full((1, 10), float(i), np.float32)
        if i % 10 == 3:
            request.start_async(x)
            request.wait()
            y = request.get_output_tensor(0).data
        elif i % 10 == 7:
            y = compiled(x)[0]
        else:
            y = request.infer(x)[0]
        np.testing.assert_array_equal(y, np.full((1, 10), i + 1.0, np.float32), err_msg=f"call {i}")
