"""Doing a thing from several threads at the same moment, as several sweeps or workers would."""
from __future__ import annotations

import threading
from typing import Callable


def at_once(fn: Callable[[], object], n: int = 2, timeout: float = 120.0) -> list:
    """``fn()`` in ``n`` threads released together (a barrier); their results, in the order they
    finished. The first exception a thread raised is raised here, after all have been joined."""
    start, results, errors = threading.Barrier(n), [], []

    def one() -> None:
        try:
            start.wait(timeout=60)
            results.append(fn())
        except Exception as e:  # noqa: BLE001 - raised below, in the test's own thread
            errors.append(e)

    threads = [threading.Thread(target=one) for _ in range(n)]
    for x in threads:
        x.start()
    for x in threads:
        x.join(timeout=timeout)
    if errors:
        raise errors[0]
    return results
