"""/metrics through the real path: mails over SMTP into the real
receiver (this process), a real Celery worker (another process) processes
them and delivers the replies, and the web's /metrics adds up what each
process counted (prometheus-client's multiprocess files) with the gauges
read at scrape time. Each counter moved by exactly what happened."""
from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families
from sqlmodel import select

from pbem.services.core import games
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Inbound, Move, Outbound
from pbem.web import create_app
from tests.conftest import celery_worker, free_port, send_mail, smtp_receiver
from tests.mailtools import PATIENCE, mail, outbox, wait_for

CMD = "pbem@pbem.test"


def scrape(cfg) -> dict[tuple[str, tuple], float]:
    r = create_app(cfg).test_client().get("/metrics")
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/plain")
    out = {}
    for family in text_string_to_metric_families(r.get_data(as_text=True)):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(m: dict, name: str, **labels) -> float:
    return m.get((name, tuple(sorted(labels.items()))), 0.0)


def _one(q):
    with unit_of_work() as s:
        return s.exec(q).first()


def _all_done(n: int) -> bool:
    with unit_of_work() as s:
        rows = list(s.exec(select(Inbound.status)))
    return len(rows) == n and all(st in ("done", "ignored") for st in rows)


def test_counters_move_by_what_the_mails_did(pg_cfg, on_redis):
    cfg = on_redis(pg_cfg)
    with smtp_receiver(cfg), celery_worker(cfg):
        assert send_mail(cfg, mail("ann@x.test", CMD, "REGISTER Ann\nNEW mini players=2"), "ann@x.test", CMD) == 250
        gid = wait_for(lambda: _one(select(Game.id)))
        assert send_mail(cfg, mail("bob@x.test", CMD, f"REGISTER Bob\nJOIN {gid}"), "bob@x.test", CMD) == 250
        wait_for(lambda: _one(select(Game).where(Game.status == "running")))
        boards = wait_for(lambda: (lambda b: b if len(b) == 2 else None)(
            [o for o in outbox() if o.kind == "board" and o.status == "sent"]))
        ann = next(b for b in boards if b.to_addr == "ann@x.test")
        with unit_of_work() as s:
            card = games.state_at(s, games.get(s, gid)).hands[0][0]
        seat = ann.headers["Reply-To"]
        assert send_mail(cfg, mail("ann@x.test", seat, f"play {card}", subject=f"Re: {ann.subject}"),
                         "ann@x.test", seat) == 250
        # an automatic reply: taken, read, ignored (no answer)
        assert send_mail(cfg, mail("ann@x.test", CMD, "away", headers={"Auto-Submitted": "auto-replied"}),
                         "ann@x.test", CMD) == 250
        wait_for(lambda: _one(select(Move)))
        wait_for(lambda: _all_done(4))
        wait_for(lambda: all(o.status == "sent" for o in outbox()))
        m = scrape(cfg)
    sent = len(outbox())
    assert value(m, "pbem_mails_received_total") == 4
    assert value(m, "pbem_mails_processed_total", status="done") == 3
    assert value(m, "pbem_mails_processed_total", status="ignored") == 1
    assert value(m, "pbem_mails_failed_total", reason="error") == 0
    assert value(m, "pbem_moves_applied_total", source="mail") == 1
    assert value(m, "pbem_mail_latency_seconds_count") == 4
    assert 0 < value(m, "pbem_mail_latency_seconds_sum") < 60
    assert value(m, "pbem_mail_latency_seconds_bucket", le="+Inf") == 4
    assert value(m, "pbem_outbound_sent_total") == sent >= 5
    assert value(m, "pbem_outbound_delivery_failures_total", outcome="retry") == 0
    # the gauges read at scrape time: nothing waits
    assert value(m, "pbem_outbox_unsent") == 0 and value(m, "pbem_inbound_waiting") == 0
    assert value(m, "pbem_queue_depth") == 0
    assert value(m, "pbem_check_ok", check="database") == 1 and value(m, "pbem_check_ok", check="broker") == 1
    assert value(m, "pbem_check_ok", check="beat") == 0  # no beat ran
    assert value(m, "pbem_up") == 0


def test_a_relay_that_refuses_shows_as_delivery_failures_and_backlog(sqlite_cfg):
    from pbem import config

    cfg = sqlite_cfg.with_(smtp_url=f"smtp://127.0.0.1:{free_port()}")  # nothing listens there
    config.set_settings(cfg)
    with smtp_receiver(cfg), celery_worker(cfg):
        for who in ("ann", "bob"):
            assert send_mail(cfg, mail(f"{who}@x.test", CMD, f"REGISTER {who.title()}"), f"{who}@x.test", CMD) == 250
        wait_for(lambda: _all_done(2), timeout=PATIENCE)
        wait_for(lambda: len(outbox()) == 2 and all(o.attempts >= 1 for o in outbox()), timeout=PATIENCE)
        m = scrape(cfg)
        with unit_of_work() as s:
            attempts = sum(s.exec(select(Outbound.attempts)))
    assert value(m, "pbem_mails_received_total") == 2
    assert value(m, "pbem_outbound_sent_total") == 0
    assert value(m, "pbem_outbound_delivery_failures_total", outcome="retry") == attempts == 2
    assert value(m, "pbem_outbox_unsent") == 2 and value(m, "pbem_outbox_oldest_age_seconds") >= 0


def test_a_delivery_given_up_on_is_counted_failed_and_leaves_the_backlog(sqlite_cfg):
    """The last attempt refused by the relay (in this process: the send task's own code)."""
    from pbem import config, tasks
    from tests.mailtools import process

    cfg = sqlite_cfg.with_(smtp_url=f"smtp://127.0.0.1:{free_port()}", outbound_max_attempts=1)
    config.set_settings(cfg)
    process("ann@x.test", CMD, "REGISTER Ann")  # its answer queued (the send task waits: no worker)
    [row] = outbox()
    assert tasks.deliver_batch([row.id]) == {row.id: ("failed", 0.0)}
    m = scrape(cfg)
    assert value(m, "pbem_outbound_delivery_failures_total", outcome="failed") == 1
    assert value(m, "pbem_outbound_delivery_failures_total", outcome="retry") == 0
    assert value(m, "pbem_outbox_unsent") == 0  # failed for good is no backlog: the admins' outbox shows it


def test_a_mail_that_crashes_the_pipeline_is_counted_failed_not_processed(sqlite_cfg, monkeypatch):
    """A system error in a step (injected, as tests/mail/test_pipeline.py does): kept as failed, counted
    so, and counted processed once a re-drive gets it done."""
    from pbem.mail import pipeline
    from tests.mailtools import start_game, store_inbound, seat_addr

    gid = start_game(1)  # two mails through the pipeline, in this process (REGISTER, NEW)
    m0 = scrape(sqlite_cfg)

    def crash(ctx):
        raise RuntimeError("simulated crash in a step")

    monkeypatch.setattr(pipeline, "STEPS", [pipeline.parse_mime, crash])
    iid = store_inbound(mail("ann@x.test", seat_addr(gid, 0), "wait"), seat_addr(gid, 0), "ann@x.test")
    assert pipeline.process_inbound(iid) == "failed"
    assert pipeline.process_inbound(iid) == "failed"  # already failed: not counted again
    m1 = scrape(sqlite_cfg)
    monkeypatch.undo()
    assert pipeline.process_inbound(iid, redrive=True) == "done"
    m2 = scrape(sqlite_cfg)
    assert value(m0, "pbem_mails_processed_total", status="done") == 2
    assert value(m1, "pbem_mails_failed_total", reason="error") == 1
    assert value(m1, "pbem_mails_processed_total", status="done") == 2
    assert value(m2, "pbem_mails_processed_total", status="done") == 3
    assert value(m2, "pbem_moves_applied_total", source="mail") == 1
    assert value(m2, "pbem_mail_latency_seconds_count") == 3
