"""AsyncInferQueue: a pool of infer requests fed by start_async, with one callback for all."""
import collections
import threading
import weakref


class AsyncInferQueue:
    """A pool of `jobs` requests of one compiled model (0 = its OPTIMAL_NUMBER_OF_INFER_REQUESTS).

    start_async(inputs, userdata) waits (GIL released) for an idle request and starts it; the
    callback set with set_callback(fn) is called as fn(request, userdata) on a plugin thread
    once per start_async. An exception raised by the callback is printed and raised again by
    wait_all(). Thread safety: the methods may be called from several threads.

    start_async called from inside the queue's own callback never waits: when no request is idle
    the job is kept and started on the first request that finishes (start_async then returns
    None instead of an index), so a callback that feeds the queue cannot deadlock it. Requests
    the queue hands out through queue[i] belong to it: starting one directly raises vireo.Busy
    from the queue's next start_async on it rather than corrupting the queue's bookkeeping.
    """

    def __init__(self, compiled_model, jobs=0):
        if jobs < 0:
            raise ValueError(f"jobs must be >= 0, got {jobs}")
        if jobs == 0:
            jobs = int(compiled_model.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS"))
        self._requests = [compiled_model.create_infer_request() for _ in range(max(1, jobs))]
        self._idle = collections.deque(range(len(self._requests)))
        self._busy = set()  # indices the queue started whose callback has not finished
        self._pending = collections.deque()  # jobs started from a callback with none idle
        self._errors = []  # a deferred job that failed to start: raised by wait_all()
        self._cond = threading.Condition()
        self._in_callback = threading.local()
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
            queue._in_callback.active = True
            try:
                if queue._callback is not None:
                    queue._callback(queue._requests[index], userdata)
            finally:
                queue._in_callback.active = False
                queue._finish(index)
        return done

    def _finish(self, index):
        """Gives request `index` back, or starts the oldest deferred job on it."""
        with self._cond:
            if index not in self._busy:
                return  # started directly, not by the queue: not the queue's to give back
            job = self._pending.popleft() if self._pending else None
            if job is None:
                self._busy.discard(index)
                self._idle.append(index)
                self._cond.notify_all()
                return
        try:
            # Inside the request's own callback: the request is already idle (the SDK marks it
            # so before calling back), so it may be started again from here.
            self._requests[index].start_async(*job)
        except BaseException as error:  # noqa: B902 - kept for wait_all(), never lost
            with self._cond:
                self._errors.append(error)
                self._busy.discard(index)
                self._idle.append(index)
                self._cond.notify_all()

    def set_callback(self, callback):
        """callback(request, userdata), or None; not while requests are running."""
        if callback is not None and not callable(callback):
            raise TypeError("the callback must be callable or None")
        self._callback = callback

    def start_async(self, inputs=None, userdata=None, share_inputs=True):
        """Starts inputs on the next idle request (waiting for one); returns its index.

        From inside the queue's callback with no request idle, the job is deferred (see the
        class documentation) and None is returned. share_inputs is then ignored: the inputs
        are copied, since the caller's arrays may change before the job starts.
        """
        with self._cond:
            if not self._idle and getattr(self._in_callback, "active", False):
                self._pending.append((inputs, userdata, False))
                return None
            while not self._idle:
                self._cond.wait()
            index = self._idle.popleft()
            self._busy.add(index)
        try:
            self._requests[index].start_async(inputs, userdata, share_inputs)
        except BaseException:
            with self._cond:
                self._busy.discard(index)
                self._idle.append(index)
                self._cond.notify_all()
            raise
        return index

    def wait_all(self):
        """Waits for every request and deferred job; raises the first error (a run's, a
        callback's, or a deferred job's that could not start)."""
        with self._cond:
            while self._busy or self._pending:
                self._cond.wait(0.1)  # a timeout, so Ctrl-C is seen while waiting
        first = None
        for request in self._requests:
            try:
                request.wait()
            except BaseException as error:  # keep waiting for the others first
                if first is None:
                    first = error
        with self._cond:
            errors, self._errors = self._errors, []
        if first is None and errors:
            first = errors[0]
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
