"""/healthz: the database, the broker, the beat's last sweep, the
outbox and the inbound mail waiting; 200 when all is well, 503 when not;
public, so only booleans, counts and ages. On SQLite with the embedded
broker and on PostgreSQL, and on Redis (up, and a port nothing listens on)."""
from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import select

from pbem.store.db import unit_of_work
from pbem.store.models import Inbound, Outbound, SweepState, utcnow
from pbem.web import create_app
from tests.conftest import free_port


def _get(cfg):
    client = create_app(cfg).test_client()
    r = client.get("/healthz")
    assert r.headers["Content-Type"] == "application/json"
    assert r.headers["Cache-Control"] == "no-store"
    _only_figures(r.json)
    return r.status_code, r.json


def _only_figures(value, where="healthz"):
    """Nothing but booleans, numbers and nulls, under fixed names: no text that could say more."""
    if isinstance(value, dict):
        for k, v in value.items():
            assert k in ("ok", "database", "broker", "beat", "outbox", "inbound", "age_s", "stale_after_s",
                         "unsent", "oldest_age_s", "waiting", "queue_depth", "unacked", "pipeline", "failed",
                         "finished", "window_s"), (where, k)
            _only_figures(v, f"{where}.{k}")
    else:
        assert value is None or isinstance(value, (bool, int, float)), (where, value)


def _beat(ago_s: float) -> None:
    with unit_of_work() as s:
        row = s.get(SweepState, "deadlines") or SweepState(name="deadlines", last_run_at=utcnow())
        row.last_run_at = utcnow() - timedelta(seconds=ago_s)
        s.add(row)


def _outbound(ago_s: float, status: str = "queued") -> int:
    with unit_of_work() as s:
        row = Outbound(message_id=f"<h{ago_s}.{status}.{utcnow().timestamp()}@pbem.test>", to_addr="ann@x.test",
                       subject="s", body_text="t", status=status, created_at=utcnow() - timedelta(seconds=ago_s))
        s.add(row)
        s.flush()
        return row.id


def test_each_check_decides_and_says_its_figures(any_cfg):
    cfg = any_cfg
    # a fresh installation: the beat never ran
    status, body = _get(cfg)
    assert status == 503 and body["ok"] is False
    assert body["database"] == {"ok": True} and body["broker"]["ok"] is True
    assert body["beat"] == {"ok": False, "age_s": None, "stale_after_s": 300}
    assert body["outbox"] == {"ok": True, "unsent": 0, "oldest_age_s": None, "stale_after_s": 900}
    assert body["inbound"] == {"ok": True, "waiting": 0, "oldest_age_s": None, "stale_after_s": 900}

    _beat(10)
    status, body = _get(cfg)
    assert status == 200 and body["ok"] is True and 10 <= body["beat"]["age_s"] < 60

    _beat(301)  # stale: the beat (or the worker running its sweeps) is gone
    status, body = _get(cfg)
    assert status == 503 and body["beat"]["ok"] is False and body["beat"]["age_s"] >= 301
    _beat(0)

    # the outbox: young unsent rows are a backlog, not a fault; the oldest past the limit is
    fresh = _outbound(5)
    _outbound(50, status="sent")  # sent and failed rows are no backlog
    _outbound(5000, status="failed")
    status, body = _get(cfg)
    assert status == 200 and body["outbox"]["unsent"] == 1 and 5 <= body["outbox"]["oldest_age_s"] < 60
    old = _outbound(901, status="sending")
    status, body = _get(cfg)
    assert status == 503 and body["outbox"] == {"ok": False, "unsent": 2, "oldest_age_s": body["outbox"]["oldest_age_s"],
                                                "stale_after_s": 900}
    assert body["outbox"]["oldest_age_s"] >= 901
    with unit_of_work() as s:
        for i in (fresh, old):
            s.get(Outbound, i).status = "sent"

    # mail received and never processed (no worker)
    with unit_of_work() as s:
        s.add(Inbound(message_id="<old@x.test>", raw=b"x", rcpt_to="pbem@pbem.test",
                      received_at=utcnow() - timedelta(seconds=1000)))
    status, body = _get(cfg)
    assert status == 503 and body["inbound"]["ok"] is False and body["inbound"]["waiting"] == 1
    with unit_of_work() as s:
        for row in s.exec(select(Inbound)):
            row.status = "done"
    assert _get(cfg)[0] == 200


def test_the_broker_is_pinged_and_its_queue_measured(sqlite_cfg, on_redis):
    from pbem import tasks

    cfg = on_redis(sqlite_cfg)
    _beat(0)
    status, body = _get(cfg)
    assert status == 200 and body["broker"] == {"ok": True, "queue_depth": 0, "unacked": 0}
    for _ in range(3):  # no worker runs: they wait in the queue
        tasks.app.send_task("pbem.sweep")
    status, body = _get(cfg)
    assert status == 200 and body["broker"]["queue_depth"] == 3


def test_a_broker_that_does_not_answer_is_unhealthy(sqlite_cfg):
    from pbem import config

    cfg = sqlite_cfg.with_(broker_url=f"redis://127.0.0.1:{free_port()}/0")
    config.set_settings(cfg)
    _beat(0)
    status, body = _get(cfg)
    assert status == 503 and body["broker"] == {"ok": False} and body["database"]["ok"] is True


def test_a_database_that_does_not_answer_is_unhealthy(tmp_path, sqlite_cfg):
    cfg = sqlite_cfg.with_(database_url=f"postgresql+psycopg://nobody@127.0.0.1:{free_port()}/none")
    status, body = _get(cfg)
    assert status == 503
    assert body["database"] == {"ok": False} and body["beat"] == {"ok": False}
    assert body["outbox"] == {"ok": False} and body["broker"]["ok"] is True


@pytest.mark.parametrize("path", ["/healthz", "/metrics"])
def test_nothing_secret_in_the_answers(sqlite_cfg, path):
    """No setting (the secret key, the database's or relay's password) is ever shown."""
    cfg = sqlite_cfg.with_(smtp_url="smtp://user:relay-password@127.0.0.1:1",
                           metrics_token="")
    text = create_app(cfg).test_client().get(path).get_data(as_text=True)
    for secret in ("relay-password", cfg.secret_key, str(cfg.var_dir), "sqlite:"):
        assert secret not in text
