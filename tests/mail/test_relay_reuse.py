"""Relay connections reused: a worker process keeps its SMTP
connection to the relay between tasks, checks it with RSET before reusing
it, opens a new one when the relay dropped it, and closes it after an idle
time or a number of mails; a mail is never lost nor sent twice. Over a real
aiosmtpd relay on loopback that counts its connections and messages."""
from __future__ import annotations

import threading
import time
from email import message_from_bytes

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP

from pbem import config, tasks
from pbem.bench.env import free_port
from pbem.mail.outbound import POOL
from pbem.store.db import unit_of_work
from pbem.store.models import Outbound
from tests.conftest import celery_worker
from tests.mailtools import PATIENCE


class CountingRelay:
    """An SMTP relay that counts the connections made to it (and those
    still open) and records each message it accepts; ``drop()`` closes every
    connection from its side, as a relay restarting or timing out does."""

    def __init__(self):
        self.port = free_port()
        self.connections = 0
        self.open: set = set()
        self.got: list[str] = []  # Message-IDs, in the order accepted
        self.lock = threading.Lock()
        relay = self

        class Counting(SMTP):
            def connection_made(self, transport):
                with relay.lock:
                    relay.connections += 1
                    relay.open.add(transport)
                super().connection_made(transport)

            def connection_lost(self, error):
                with relay.lock:
                    relay.open.discard(self.transport)
                super().connection_lost(error)

        class Ctl(Controller):
            def factory(self):
                return Counting(self.handler)

        self.controller = Ctl
        self.ctl: Controller | None = None

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.got.append(message_from_bytes(envelope.original_content or envelope.content)["Message-ID"])
        return "250 OK"

    def start(self) -> None:
        """Up; the connection aiosmtpd's controller makes to see it is up is not counted."""
        self.ctl = self.controller(self, hostname="127.0.0.1", port=self.port, ready_timeout=10)
        self.ctl.start()
        _wait(lambda: not self.open)
        with self.lock:
            self.connections = 0

    def stop(self) -> None:
        self.ctl.stop()

    def drop(self) -> None:
        with self.lock:
            transports = list(self.open)
        self.ctl.loop.call_soon_threadsafe(lambda: [t.close() for t in transports])
        _wait(lambda: not self.open)


def _wait(check, timeout: float = PATIENCE) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)


@pytest.fixture
def relay(sqlite_cfg):
    r = CountingRelay()
    r.start()
    POOL.close_all()  # no connection from an earlier test
    cfg = sqlite_cfg.with_(smtp_url=f"smtp://127.0.0.1:{r.port}?timeout=5")
    config.set_settings(cfg)
    try:
        yield r, cfg
    finally:
        POOL.close_all()
        r.stop()
        config.set_settings(sqlite_cfg)


def _queue(n: int, tag: str) -> list[int]:
    with unit_of_work() as s:
        rows = [Outbound(message_id=f"<{tag}.{k}@pbem.test>", to_addr=f"p{k}@x.test", subject=f"mail {k}",
                         body_text="your turn") for k in range(n)]
        s.add_all(rows)
        s.flush()
        return [r.id for r in rows]


def _statuses(ids: list[int]) -> set[str]:
    with unit_of_work() as s:
        return {s.get(Outbound, i).status for i in ids}


def test_twenty_mails_in_twenty_tasks_go_over_one_connection_and_a_dropped_one_is_replaced(relay):
    sink, _ = relay
    ids = _queue(21, "reuse")
    for i in ids[:20]:  # twenty send tasks, one after another, in this process
        assert tasks.send_outbound.run([i]) == "1 sent"
    assert sink.connections == 1 and len(sink.open) == 1  # kept open between the tasks
    assert sink.got == [f"<reuse.{k}@pbem.test>" for k in range(20)]

    sink.drop()  # the relay closes it (a restart, its idle timeout)
    assert tasks.send_outbound.run([ids[20]]) == "1 sent"
    assert sink.connections == 2
    assert sink.got.count("<reuse.20@pbem.test>") == 1 and len(sink.got) == 21  # delivered, once
    assert _statuses(ids) == {"sent"}


def test_a_connection_is_closed_after_its_mails_or_its_idle_time(relay, sqlite_cfg):
    sink, cfg = relay
    config.set_settings(cfg.with_(relay_max_mails=5, relay_idle_s=0.5))
    assert tasks.send_outbound.run(_queue(12, "rotate")) == "12 sent"  # one task, one batch: 5 + 5 + 2
    assert sink.connections == 3 and len(sink.got) == 12
    _wait(lambda: not sink.open)  # idle past relay_idle_s: closed by the worker (QUIT)
    assert tasks.send_outbound.run(_queue(1, "after")) == "1 sent"
    assert sink.connections == 4


def test_a_relay_down_leaves_the_mail_queued_and_the_retry_sends_it_once(relay):
    sink, _ = relay
    first = _queue(1, "before")
    assert tasks.send_outbound.run(first) == "1 sent"
    sink.stop()  # down, with the pool's connection to it
    ids = _queue(1, "during")
    assert tasks.send_outbound.run(ids) == "1 retry"
    assert _statuses(ids) == {"queued"}
    sink.start()
    with unit_of_work() as s:
        s.get(Outbound, ids[0]).next_attempt_at = s.get(Outbound, ids[0]).created_at
    assert tasks.send_outbound.run(ids) == "1 sent"
    assert sink.got == ["<before.0@pbem.test>", "<during.0@pbem.test>"] and sink.connections == 1


def test_a_worker_process_keeps_one_connection_for_all_its_tasks(relay, on_redis):
    """A real Celery worker (one prefork child) on Redis, twenty send tasks: one connection."""
    sink, cfg = relay
    cfg = on_redis(cfg)
    ids = _queue(20, "worker")
    for i in ids:
        tasks.send_outbound.delay([i])
    with celery_worker(cfg, concurrency=1, pool="prefork"):
        _wait(lambda: len(sink.got) == 20)
        time.sleep(0.5)
    assert sink.connections == 1
    assert sorted(sink.got) == sorted(f"<worker.{k}@pbem.test>" for k in range(20))
    assert _statuses(ids) == {"sent"}
