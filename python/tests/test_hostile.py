"""Issue 35's second round of hostile inputs, as the Python user meets them: byte order, NUL in
paths, oversized property values, silent dtype conversion, Ctrl-C during a blocking wait,
AsyncInferQueue fed from its own callback, and writers that would destroy their own input."""
import os
import pathlib
import shutil
import signal
import threading
import warnings

import numpy as np
import pytest

import vireo


def test_big_endian_arrays_are_converted_not_reinterpreted(core, tiny_xml):
    compiled = core.compile_model(tiny_xml, "TEMPLATE")
    x = np.arange(10, dtype=">f4").reshape(1, 10)  # y = x + 1
    y = compiled({"x": x})[0]
    np.testing.assert_array_equal(y, np.arange(10, dtype=np.float32).reshape(1, 10) + 1)
    assert vireo.Tensor(np.arange(3, dtype=">i4")).data.tolist() == [0, 1, 2]


def test_paths_with_a_nul_character_are_refused(core, tiny_xml):
    with pytest.raises(ValueError, match="NUL"):
        core.read_model(str(tiny_xml) + "\0.onnx")
    with pytest.raises(ValueError, match="NUL"):
        core.compile_model(str(tiny_xml) + "\0x", "TEMPLATE")


def test_an_integer_property_too_large_names_the_key(core, tiny_xml):
    with pytest.raises(vireo.InvalidArgument, match="NUM_STREAMS.*64-bit"):
        core.compile_model(tiny_xml, "TEMPLATE", {"NUM_STREAMS": 2**70})


def test_dtype_conversion_warns_and_can_be_an_error(core, tiny_xml):
    compiled = core.compile_model(tiny_xml, "TEMPLATE")
    with pytest.warns(vireo.TypeConversionWarning, match="input 'x'.*float64.*f32"):
        y = compiled({"x": np.ones((1, 10), np.float64)})[0]
    np.testing.assert_array_equal(y, np.full((1, 10), 2, np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error", vireo.TypeConversionWarning)
        with pytest.raises(vireo.TypeConversionWarning):
            compiled({"x": np.ones((1, 10), np.uint8)})
        # Lists and scalars are not arrays with a dtype of their own: converted without a word.
        compiled({"x": [[1.0] * 10]})
        compiled({"x": np.ones((1, 10), np.float32)})


def _interrupt_soon(delay=0.3):
    timer = threading.Timer(delay, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    return timer


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                    reason="signals reach only the main thread")
def test_ctrl_c_interrupts_a_blocking_infer_and_wait(core, tiny_xml):
    config = {"MOCK_REMOTE_COMPILE_MS": 0, "MOCK_REMOTE_HANG_NTH": 1}  # the first run hangs
    compiled = core.compile_model(tiny_xml, "MOCK_REMOTE", config)
    request = compiled.create_infer_request()
    timer = _interrupt_soon()
    with pytest.raises(KeyboardInterrupt):
        request.infer(np.zeros((1, 10), np.float32))
    timer.join()
    # infer() cancelled its run: the request is free again and computes.
    assert request.infer(np.zeros((1, 10), np.float32))[0][0, 0] == 1.0

    hanging = core.compile_model(tiny_xml, "MOCK_REMOTE", config).create_infer_request()
    hanging.start_async(np.zeros((1, 10), np.float32))
    timer = _interrupt_soon()
    with pytest.raises(KeyboardInterrupt):
        hanging.wait()
    timer.join()
    assert hanging.wait_for(0) is False  # wait() leaves the run going; the caller decides
    hanging.cancel()
    with pytest.raises(vireo.Cancelled):
        hanging.wait()


def test_queue_callback_that_feeds_its_own_queue_does_not_deadlock(core, tiny_xml):
    compiled = core.compile_model(tiny_xml, "TEMPLATE")
    queue = vireo.AsyncInferQueue(compiled, 2)
    results = {}
    lock = threading.Lock()

    def done(request, userdata):
        with lock:
            results[userdata] = request.results["y"].copy()
        if userdata < 20:  # each job starts the next generation from inside the callback
            queue.start_async({"x": np.full((1, 10), userdata + 2, np.float32)}, userdata + 2)

    queue.set_callback(done)
    queue.start_async({"x": np.full((1, 10), 0, np.float32)}, 0)
    queue.start_async({"x": np.full((1, 10), 1, np.float32)}, 1)
    queue.wait_all()
    assert sorted(results) == list(range(22))
    for userdata, y in results.items():
        np.testing.assert_array_equal(y, np.full((1, 10), userdata + 1, np.float32))
    assert queue.is_ready()


def test_starting_a_queue_request_directly_keeps_the_queue_consistent(core, tiny_xml):
    compiled = core.compile_model(tiny_xml, "TEMPLATE")
    queue = vireo.AsyncInferQueue(compiled, 2)
    seen = []
    queue.set_callback(lambda request, userdata: seen.append(userdata))
    queue[0].start_async({"x": np.zeros((1, 10), np.float32)}, "direct")
    queue[0].wait()
    for i in range(6):
        queue.start_async({"x": np.full((1, 10), i, np.float32)}, i)
    queue.wait_all()
    assert sorted(x for x in seen if x != "direct") == list(range(6))
    # Each request is idle exactly once: a direct start did not add a duplicate index.
    assert sorted(queue._idle) == [0, 1]


def test_serialize_refuses_to_overwrite_the_model_it_came_from(core, tiny_xml, tmp_path):
    xml = tmp_path / "model.xml"
    shutil.copy(tiny_xml, xml)
    shutil.copy(tiny_xml.with_suffix(".bin"), tmp_path / "model.bin")
    model = core.read_model(xml)
    before = (xml.read_bytes(), (tmp_path / "model.bin").read_bytes())
    with pytest.raises(vireo.InvalidArgument, match="read from"):
        vireo.serialize(model, xml)
    with pytest.raises(vireo.InvalidArgument, match="both be written"):
        vireo.serialize(model, tmp_path / "out.bin")
    assert (xml.read_bytes(), (tmp_path / "model.bin").read_bytes()) == before
    vireo.serialize(model, tmp_path / "copy.xml")  # another path: written whole
    y = core.compile_model(tmp_path / "copy.xml", "TEMPLATE")({"x": np.zeros((1, 10), np.float32)})[0]
    np.testing.assert_array_equal(y, np.ones((1, 10), np.float32))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.bin", "copy.xml", "model.bin",
                                                          "model.xml"]


def test_plugins_xml_is_found_beside_libvireo_even_after_chdir(tmp_path):
    """libvireo found through a relative LD_LIBRARY_PATH, then the application changes directory:
    plugins.xml (and the plugins it names) must still come from libvireo's own directory, not
    from the same relative path under the new working directory, where one is planted here."""
    import subprocess
    import sys
    lib_dir = pathlib.Path(vireo.__file__).resolve().parents[2] / "lib"  # <build>/lib
    assert (lib_dir / "plugins.xml").is_file(), lib_dir
    planted = tmp_path / "elsewhere" / lib_dir.name
    planted.mkdir(parents=True)
    (planted / "plugins.xml").write_text(
        '<ie><plugins><plugin name="PLANTED" location="libplanted.so"/></plugins></ie>')
    script = ("import os, sys, vireo\n"
              "os.chdir(sys.argv[1])\n"
              "print(','.join(vireo.Core().available_devices))\n")
    env = dict(os.environ, LD_LIBRARY_PATH=lib_dir.name,  # relative: resolved against cwd
               PYTHONPATH=str(pathlib.Path(vireo.__file__).resolve().parents[1]))
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "elsewhere")],
                          cwd=lib_dir.parent, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    devices = done.stdout.strip().split(",")
    assert "PLANTED" not in devices and "TEMPLATE" in devices, done.stdout + done.stderr
