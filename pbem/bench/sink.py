"""The SMTP relay the pipeline bench delivers to with ``--relay``:
aiosmtpd on loopback, accepting every mail and discarding it, in a process
of its own, so that its CPU is neither the receiver's (which shares the
driver's process) nor the workers'. It counts, since the driver's last
:meth:`RelaySink.mark`, the connections opened to it, the connections that
carried a mail (a worker's kept connection, opened before the mark, counts
there) and the mails accepted; the counters are in shared memory, read by
the driver without a round trip to the sink."""
from __future__ import annotations

import multiprocessing

from .env import free_port

# slots of the shared counters
_GENERATION, _OPENED, _USED, _MAILS = range(4)


class RelaySink:
    """``start()``, then point ``smtp_url`` at :attr:`url`; ``stop()`` at the end."""

    def __init__(self):
        # spawn, not fork: the driver has threads (the receiver's event loop) and database connections
        ctx = multiprocessing.get_context("spawn")
        self.port = free_port()
        self._counts = ctx.Array("q", 4)
        self._ready, self._stop = ctx.Event(), ctx.Event()
        self.process = ctx.Process(target=_serve, args=(self.port, self._counts, self._ready, self._stop),
                                   name="pbem-bench-relay", daemon=True)

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def start(self) -> None:
        self.process.start()
        if not self._ready.wait(60):
            self.stop()
            raise RuntimeError(f"the bench's relay sink did not start on 127.0.0.1:{self.port}")

    def mark(self) -> None:
        """Count from now on (the connections already open count again at their next mail)."""
        with self._counts.get_lock():
            self._counts[_GENERATION] += 1
            self._counts[_OPENED] = self._counts[_USED] = self._counts[_MAILS] = 0

    def counts(self) -> dict[str, int]:
        """Since the last mark: connections opened, connections that carried a mail, mails accepted."""
        with self._counts.get_lock():
            return {"opened": self._counts[_OPENED], "used": self._counts[_USED], "mails": self._counts[_MAILS]}

    def stop(self) -> None:
        self._stop.set()
        self.process.join(30)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


def _serve(port: int, counts, ready, stop) -> None:
    """The sink's process: aiosmtpd's controller (its own thread) until ``stop`` is set."""
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import SMTP

    class Counting(SMTP):
        counted_in = -1  # the generation in which this connection last counted as used

        def connection_made(self, transport):
            with counts.get_lock():
                counts[_OPENED] += 1
            super().connection_made(transport)

    class Discard:
        async def handle_DATA(self, server, session, envelope):
            with counts.get_lock():  # counted before the 250: a row the worker marks sent is counted here
                counts[_MAILS] += 1
                if server.counted_in != counts[_GENERATION]:
                    server.counted_in = counts[_GENERATION]
                    counts[_USED] += 1
            return "250 OK"

    class Sink(Controller):
        def factory(self):
            return Counting(self.handler)

    ctl = Sink(Discard(), hostname="127.0.0.1", port=port, ready_timeout=30)
    ctl.start()
    ready.set()
    try:
        stop.wait()
    finally:
        ctl.stop()
