"""AsyncInferQueue: a pool of infer requests fed by start_async, with one callback for all."""
import threading
import weakref


class AsyncInferQueue:
    """A pool of `jobs` requests of one compiled model (0 = its OPTIMAL_NUMBER_OF_INFER_REQUESTS).

    start_async(inputs, userdata) waits (GIL released) for an idle request and starts it; the
    callback set with set_callback(fn) is called as fn(request, userdata) on a plugin thread
    once per start_async. An exception raised by the callback is printed and raised again by
    wait_all(). Thread safety: the methods may be called from several threads.
    """

    def __init__(self, compiled_model, jobs=0):
        if jobs < 0:
            raise ValueError(f"jobs must be >= 0, got {jobs}")
        if jobs == 0:
            jobs = int(compiled_model.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS"))
        self._requests = [compiled_model.create_infer_request() for _ in range(max(1, jobs))]
        self._idle = list(range(len(self._requests)))
        self._cond = threading.Condition()
        self._callback = None
        for index, request in enumerate(self._requests):
            request.set_callback(self._make_done(index))

    def _make_done(self, index):
        # The request's native callback holds this closure, and the queue holds the request:
        # a strong reference back to the queue would be a cycle the garbage collector cannot
        # see through the native request, so the queue is reached through a weak reference.
        queue_ref = weakref.ref(self)

        def done(userdata):
            queue = queue_ref()
            if queue is None:
                return
            try:
                if queue._callback is not None:
                    queue._callback(queue._requests[index], userdata)
            finally:
                with queue._cond:
                    queue._idle.append(index)
                    queue._cond.notify()
        return done

    def set_callback(self, callback):
        """callback(request, userdata), or None; not while requests are running."""
        if callback is not None and not callable(callback):
            raise TypeError("the callback must be callable or None")
        self._callback = callback

    def start_async(self, inputs=None, userdata=None, share_inputs=True):
        """Starts inputs on the next idle request (waiting for one); returns its index."""
        with self._cond:
            while not self._idle:
                self._cond.wait()
            index = self._idle.pop(0)
        try:
            self._requests[index].start_async(inputs, userdata, share_inputs)
        except BaseException:
            with self._cond:
                self._idle.append(index)
                self._cond.notify()
            raise
        return index

    def wait_all(self):
        """Waits for every request; raises the first error (a run's or a callback's)."""
        first = None
        for request in self._requests:
            try:
                request.wait()
            except BaseException as error:  # keep waiting for the others first
                if first is None:
                    first = error
        if first is not None:
            raise first

    def is_ready(self):
        """True when a request is idle (start_async would not wait)."""
        with self._cond:
            return bool(self._idle)

    def get_idle_request_id(self):
        """The index of an idle request, waiting for one."""
        with self._cond:
            while not self._idle:
                self._cond.wait()
            return self._idle[0]

    def __len__(self):
        return len(self._requests)

    def __getitem__(self, index):
        return self._requests[index]

    def __iter__(self):
        return iter(self._requests)
