"""Every broker URL kombu takes is a broker of its own, never the embedded one: a mail goes through the
receiver and a real worker over Redis Sentinel (a real sentinel in front of the tests' Redis, its
master's name from PBEM_BROKER_TRANSPORT_OPTIONS), and /healthz asks an AMQP broker, not a SQL file.
The embedded broker loses no task when two processes make its tables or a queue's row at once."""
from __future__ import annotations

import shutil
import subprocess
import time
import uuid

import pytest

from pbem import config, tasks
from pbem.bench.env import free_port
from pbem.config import SettingError, load_settings
from pbem.store import health
from tests.conftest import celery_worker, send_mail, smtp_receiver
from tests.mailtools import CMD, mail, wait_for

REDIS_SERVER = shutil.which("redis-server")


@pytest.mark.parametrize("url", ["amqp://guest@127.0.0.1//", "amqps://u:p@rabbit.example.org:5671/pbem",
                                 "pyamqp://guest@127.0.0.1//", "sentinel://127.0.0.1:26379;sentinel://10.0.0.2:26379",
                                 "redis://127.0.0.1:6379/0", "rediss://r.example.org:6380/0"])
def test_every_broker_url_is_a_broker_of_its_own(url, tmp_path):
    from pbem.celery_app import celery_config

    cfg = load_settings({"PBEM_VAR_DIR": str(tmp_path), "PBEM_BROKER_URL": url, "PBEM_BROKER_PREFIX": "p:",
                         "PBEM_BROKER_TRANSPORT_OPTIONS": '{"master_name": "mymaster"}'})
    assert not cfg.is_embedded_broker
    conf = celery_config(cfg)
    assert conf["broker_url"] == url and conf["broker_transport"] is None
    assert conf["broker_transport_options"]["master_name"] == "mymaster"
    redis_like = url.startswith(("redis", "sentinel"))
    assert ("global_keyprefix" in conf["broker_transport_options"]) == redis_like
    assert cfg.is_redis_broker == url.startswith("redis")
    embedded = load_settings({"PBEM_VAR_DIR": str(tmp_path)})
    assert embedded.is_embedded_broker and celery_config(embedded)["broker_transport"] == "pbem.broker:EmbeddedTransport"


def test_transport_options_that_are_not_a_json_object_stop_the_start(tmp_path):
    for bad in ("master_name=mymaster", "[1]", '{"master_name": '):
        with pytest.raises(SettingError, match="PBEM_BROKER_TRANSPORT_OPTIONS=.*a JSON object is needed"):
            load_settings({"PBEM_VAR_DIR": str(tmp_path), "PBEM_BROKER_TRANSPORT_OPTIONS": bad})


def test_healthz_asks_an_amqp_broker(sqlite_cfg):
    port = free_port()  # nothing listens there: the broker is down, and /healthz says so at once
    cfg = sqlite_cfg.with_(broker_url=f"pyamqp://guest:guest@127.0.0.1:{port}//")
    started = time.monotonic()
    h = health.check(cfg)
    assert not h.broker.ok and h.database.ok
    assert time.monotonic() - started < 60


@pytest.mark.redis
@pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed")
def test_a_mail_through_a_worker_on_redis_sentinel(sqlite_cfg, tmp_path):
    port = free_port()
    name = f"pbem-{uuid.uuid4().hex[:8]}"
    conf = tmp_path / "sentinel.conf"  # a sentinel rewrites its file: one of its own
    conf.write_text(f"port {port}\nbind 127.0.0.1\ndaemonize no\nsentinel resolve-hostnames no\n"
                    f"sentinel monitor {name} 127.0.0.1 6379 1\n")
    sentinel = subprocess.Popen([REDIS_SERVER, str(conf), "--sentinel"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    prefix = f"pbem-test-{uuid.uuid4().hex[:10]}:"
    cfg = sqlite_cfg.with_(broker_url=f"sentinel://127.0.0.1:{port}/0", broker_prefix=prefix,
                           broker_transport_options=f'{{"master_name": "{name}"}}', smtpd_port=free_port())
    try:
        import redis

        ask = redis.Redis(host="127.0.0.1", port=port)
        wait_for(lambda: _answers(ask, name), 60)
        config.set_settings(cfg)
        tasks.configure(cfg)
        h = health.check(cfg)
        assert h.broker.ok, h.as_json()
        with smtp_receiver(cfg), celery_worker(cfg):
            assert send_mail(cfg, mail("ann@x.test", CMD, "REGISTER Ann"), "ann@x.test", CMD) == 250
            from pbem.store.db import unit_of_work
            from pbem.store.models import Inbound, User
            from sqlmodel import select

            def done():
                with unit_of_work() as s:
                    return s.exec(select(Inbound.status)).all() == ["done"] and s.exec(select(User)).first()
            assert wait_for(done, 120), "the worker took the mail from the Sentinel's Redis"
    finally:
        sentinel.terminate()
        sentinel.wait(30)
        r = __import__("redis").Redis(host="127.0.0.1", port=6379)
        keys = list(r.scan_iter(match=prefix + "*", count=1000))
        if keys:
            r.delete(*keys)
        tasks.configure(sqlite_cfg)


def _answers(ask, name: str) -> bool:
    try:
        return ask.execute_command("SENTINEL", "get-master-addr-by-name", name) is not None
    except Exception:  # noqa: BLE001 - not up yet
        return False


def _through(conn, payload: dict) -> dict:
    """``payload`` put on the embedded broker's queue "pbem" and taken off it again: what arrived."""
    queue = conn.SimpleQueue("pbem")
    try:
        queue.put(payload)
        message = queue.get(timeout=5)
        message.ack()
        return message.payload
    finally:
        queue.close()


def test_a_queue_another_process_names_meanwhile_still_takes_the_task(tmp_path):
    """The embedded broker's first publish races a worker's start: both find no row for the queue and
    both insert one. The one that loses uses the other's row, and its task is stored and delivered."""
    import sqlite3

    from kombu import Connection
    from sqlalchemy import event

    path = tmp_path / "broker.sqlite3"
    raced: list[str] = []
    with Connection(f"sqlite:///{path}", transport="pbem.broker:EmbeddedTransport") as conn:
        channel = conn.default_channel
        engine, _ = channel._open()

        def the_other_process_first(_conn, _cursor, statement, *_args):
            if statement.startswith("INSERT INTO kombu_queue") and not raced:
                raced.append(statement)
                with sqlite3.connect(path) as other:  # the worker's own connection, its own transaction
                    other.execute("INSERT INTO kombu_queue (name) VALUES ('pbem')")

        event.listen(engine, "before_cursor_execute", the_other_process_first)
        try:
            task = {"task": "pbem.process_inbound", "id": 7}
            assert _through(conn, task) == task
            assert raced, "the publish never inserted the queue's row: the race was not made"
        finally:
            event.remove(engine, "before_cursor_execute", the_other_process_first)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT name FROM kombu_queue").fetchall() == [("pbem",)]


def test_tables_another_process_makes_meanwhile_are_used(tmp_path):
    """Two processes start on a new embedded broker at once: both find no tables, and the other one
    makes them first. This one's CREATE fails; it uses the tables made, and its task is delivered."""
    import sqlite3

    from kombu import Connection
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    path = tmp_path / "broker.sqlite3"
    raced: list[str] = []

    def the_other_process_first(_conn, _cursor, statement, *_args):
        if statement.lstrip().startswith("CREATE TABLE kombu_queue") and not raced:
            raced.append(statement)
            with sqlite3.connect(path) as other:
                other.execute(statement)

    event.listen(Engine, "before_cursor_execute", the_other_process_first)
    try:
        with Connection(f"sqlite:///{path}", transport="pbem.broker:EmbeddedTransport") as conn:
            task = {"task": "pbem.send_outbound", "id": 3}
            assert _through(conn, task) == task
            assert raced, "the broker's tables were not made by this process: the race was not made"
    finally:
        event.remove(Engine, "before_cursor_execute", the_other_process_first)
