"""Celery workers for the tests, forked from a process that has imported pbem once.

A test's worker is a real Celery worker process on the test's broker and database, started with
the test's settings in its environment, as ``python -m celery -A tests.worker_app worker`` would
be. Started that way, each of the suite's hundred and more workers spent about a second of CPU
importing the same modules (Celery, SQLAlchemy, the models, the services) before doing anything.
So each test process keeps one helper process (the zygote) that imported them once and reads
nothing of any test's settings; a worker is a fork of it that takes the test's environment,
forgets any settings read before, and runs Celery's command line. What the worker then does is
what the command does.

The zygote is single-threaded (a fork copies only the thread that forks), is the parent of the
workers and reaps them, and ends with the test process (``stop``)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.processes import _alive, _stat, end_process

# run by the zygote: imports, then forks one worker per request line (JSON: argv, env, cwd), answering
# each with the worker's pid; "status" asks how a worker ended (its exit code, None while it runs)
_ZYGOTE = r'''
import json, os, signal, sys
reply = os.fdopen(int(sys.argv[1]), "w", buffering=1)
import celery.__main__, celery.bin.celery, celery.worker, celery.apps.worker, kombu.transport.sqlalchemy
import threading, pbem.tasks  # noqa: F401 - what every worker imports
assert threading.active_count() == 1, "a fork copies only the thread that forks: the zygote must have no other"
ended = {}
def reap(*_):
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        ended[pid] = os.waitstatus_to_exitcode(status)
signal.signal(signal.SIGCHLD, reap)
reply.write("ready\n")
for line in sys.stdin:
    ask = json.loads(line)
    if "status" in ask:
        pid = ask["status"]
        if pid not in ended:
            try:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    ended[pid] = os.waitstatus_to_exitcode(status)
            except ChildProcessError:
                pass
        reply.write(json.dumps(ended.get(pid)) + "\n")
        continue
    pid = os.fork()
    if pid:
        reply.write(f"{pid}\n")
        continue
    # the worker: the test's environment and folder, no settings read before, Celery's command line
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    null = os.open(os.devnull, os.O_RDONLY)  # the requests' pipe is the zygote's: the worker reads nothing
    os.dup2(null, 0)
    os.close(null)
    sys.stdin = open(0, closefd=False)
    reply.close()
    os.environ.clear()
    os.environ.update(ask["env"])
    os.chdir(ask["cwd"])
    from pbem import config
    config.get_settings.cache_clear()
    config.set_settings(None)
    sys.argv = ask["argv"]
    code = 1
    try:
        celery.__main__.main()
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
'''


class Worker:
    """A forked worker, as much of ``subprocess.Popen`` as the tests use: pid, poll, wait, signals."""

    def __init__(self, zygote: "Zygote", pid: int, args: list[str]):
        self.zygote, self.pid, self.args, self.returncode = zygote, pid, args, None
        self._started = (_stat(pid) or (0, None))[1]

    def poll(self) -> int | None:
        if self.returncode is None and not _alive(self.pid, self._started):
            self.returncode = self.zygote.status(self.pid)
            if self.returncode is None:  # ended, not reaped yet: asked again in a moment
                return None
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        end = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if end is not None and time.monotonic() > end:
                raise subprocess.TimeoutExpired(self.args, timeout)
            time.sleep(0.02)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class Zygote:
    def __init__(self, cwd: Path):
        self.cwd = cwd
        read, write = os.pipe()
        self.proc = subprocess.Popen([sys.executable, "-c", _ZYGOTE, str(write)], cwd=str(cwd),
                                     stdin=subprocess.PIPE, pass_fds=(write,), text=True)
        os.close(write)
        self.replies = os.fdopen(read, "r")
        self.lock = threading.Lock()
        if self.replies.readline().strip() != "ready":
            raise RuntimeError("the tests' worker zygote did not start")

    def _ask(self, ask: dict) -> str:
        with self.lock:
            self.proc.stdin.write(json.dumps(ask) + "\n")
            self.proc.stdin.flush()
            return self.replies.readline().strip()

    def start(self, args: list[str], env: dict[str, str]) -> Worker:
        return Worker(self, int(self._ask({"argv": args, "env": env, "cwd": str(self.cwd)})), args)

    def status(self, pid: int) -> int | None:
        return json.loads(self._ask({"status": pid}))

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        end_process(self.proc, timeout=10)
        self.replies.close()


_zygote: Zygote | None = None
_zygote_lock = threading.Lock()


def start_worker(args: list[str], env: dict[str, str], cwd: Path) -> Worker:
    """A Celery worker with these command-line arguments (after ``celery``) and environment."""
    global _zygote
    with _zygote_lock:
        if _zygote is None or not _zygote.alive() or _zygote.cwd != cwd:
            if _zygote is not None:
                _zygote.stop()
            _zygote = Zygote(cwd)
        return _zygote.start(["celery", *args], env)


def stop() -> None:
    """The zygote ends with the test process (its workers were ended by their tests)."""
    global _zygote
    with _zygote_lock:
        if _zygote is not None:
            _zygote.stop()
            _zygote = None
