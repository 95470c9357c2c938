"""Every process a test starts is ended by the test, whatever happens: asked
to stop first (a Celery worker's warm shutdown on SIGTERM, ``pbem up`` on
SIGINT), killed when it has not within the timeout, and the processes it
started with it (a worker's pool, ``pbem up``'s receiver and worker) too."""
from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path


def _stat(pid: int) -> tuple[int, str] | None:
    """(parent pid, start time) of a live process; None when it is gone (or a zombie)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    if fields[0] == "Z":
        return None
    return int(fields[1]), fields[19]


def descendants(pid: int) -> dict[int, str]:
    """The processes under ``pid`` (children, their children …), each with its start time, so that
    a number the system gives to a new process later is never taken for one of them."""
    parents: dict[int, list[tuple[int, str]]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            st = _stat(int(entry.name))
            if st is not None:
                parents.setdefault(st[0], []).append((int(entry.name), st[1]))
    out: dict[int, str] = {}
    todo = [pid]
    while todo:
        for child, started in parents.get(todo.pop(), []):
            if child not in out:
                out[child] = started
                todo.append(child)
    return out


def _alive(pid: int, started: str) -> bool:
    st = _stat(pid)
    return st is not None and st[1] == started


def end_pids(pids: dict[int, str], timeout: float = 10.0) -> None:
    """Wait up to ``timeout`` for the processes (pid: start time) to end, then kill those left."""
    end = time.monotonic() + timeout
    while any(_alive(p, s) for p, s in pids.items()) and time.monotonic() < end:
        time.sleep(0.05)
    for p, s in pids.items():
        if _alive(p, s):
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass


def end_process(proc: subprocess.Popen, sig: int = signal.SIGTERM, timeout: float = 30.0) -> None:
    """Stop ``proc`` with ``sig``, kill it if it has not ended within ``timeout``, and end every
    process it had started (given ``timeout`` to end with it, then killed)."""
    under = descendants(proc.pid) if proc.poll() is None else {}
    try:
        if proc.poll() is None:
            proc.send_signal(sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            under.update(descendants(proc.pid))
            proc.kill()
            proc.wait()
    finally:
        end_pids(under, timeout)
