"""The push task in a real Celery worker on Redis: a notification queued in
a transaction arrives at the local receiver after the commit, and the sweep
hands a held notification (and one stuck mid-send) to the worker once due.
Only the worker's own clock is real: the rows are made in the past instead
of waiting."""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import update
from sqlmodel import select

from pbem.services.follow import channels
from pbem.store.db import unit_of_work
from pbem.store.models import Notification, User, utcnow
from pbem.store.pushbox import queue_push
from pbem.tasks import run_sweep
from tests.conftest import celery_worker
from tests.mailtools import PATIENCE, wait_for
from tests.push.conftest import allow_receivers
from tests.push.helpers import note, user


def test_a_notification_queued_in_a_transaction_arrives_after_the_commit(sqlite_cfg, on_redis, receivers):
    """...and, refused once, the task tries again after the backoff by itself."""
    cfg = on_redis(allow_receivers(sqlite_cfg, notify_backoff_s=0.5))
    ann = user()
    receivers.answer("ntfy", 500)
    with celery_worker(cfg):
        with unit_of_work() as s:
            row = channels.add(s, s.get(User, ann), receivers.url("ntfy"))
            test_id = s.exec(select(Notification.id).where(Notification.channel_id == row.id)).one()
            assert receivers.received("ntfy") == []  # nothing before the commit
        [req] = wait_for(lambda: receivers.messages("ntfy"), timeout=PATIENCE)
        assert req.json["title"] == "pbem: a test message"
        assert req.json["message"].startswith("pbem will notify you here: your turn")
        assert wait_for(lambda: note(test_id).status == "sent")
        assert note(test_id).attempts == 1 and [r.status for r in receivers.messages("ntfy", ok=False)] == [500, 200]


def test_the_sweep_delivers_a_held_notification_once_it_is_due(sqlite_cfg, on_redis, receivers):
    cfg = on_redis(allow_receivers(sqlite_cfg))
    ann = user()
    real = utcnow()
    with unit_of_work() as s:
        cid = channels.add(s, s.get(User, ann), receivers.url("json")).id
        # held back by quiet hours that ended an hour ago
        held = queue_push(s, cid, kind="turn", body="Your turn in #7.", link="https://pbem.test/games/7",
                          now=real - timedelta(hours=9), at=real - timedelta(hours=1))
        # claimed by a worker that died mid-send an hour ago
        stuck = queue_push(s, cid, kind="turn", body="Your turn in #8.", link="https://pbem.test/games/8",
                           now=real - timedelta(hours=2), at=real - timedelta(hours=1, minutes=30))
        s.exec(update(Notification).where(Notification.id == stuck)
               .values(status="sending", next_attempt_at=real - timedelta(hours=1)))
    assert run_sweep(now=real - timedelta(hours=3))["notifications"] == 0  # neither is due then
    with celery_worker(cfg):
        wait_for(lambda: receivers.messages("json"), timeout=PATIENCE)  # the channel's test message, after its commit
        assert note(held).status == "queued" and note(stuck).status == "sending"
        assert run_sweep()["notifications"] == 2
        assert wait_for(lambda: note(held).status == "sent" and note(stuck).status == "sent", timeout=PATIENCE)
    texts = [r.json["message"] for r in receivers.messages("json")]
    assert texts[1:] == ["Your turn in #7.\nhttps://pbem.test/games/7\n\nYour turn in #8.\nhttps://pbem.test/games/8"]


def test_the_worker_follows_no_redirect_into_the_server(sqlite_cfg, on_redis, receivers):
    """The push task in a real worker process: a public webhook answers
    ``307 Location: http://127.0.0.1:<port>/...`` -- refused, nothing reaches
    the inner listener (the ``receivers`` fixture checks it too)."""
    cfg = on_redis(allow_receivers(sqlite_cfg))
    ann = user()
    receivers.answer("json", (307, receivers.inner_url("json", "/admin")))
    with celery_worker(cfg):
        with unit_of_work() as s:
            row = channels.add(s, s.get(User, ann), receivers.url("json"))
            test_id = s.exec(select(Notification.id).where(Notification.channel_id == row.id)).one()
        assert wait_for(lambda: note(test_id).attempts == 1, timeout=PATIENCE)
    assert note(test_id).last_error == "127.0.0.2 answered with a redirect (307), and pbem follows none"
    assert [r.status for r in receivers.received("json")] == [307] and receivers.inner_hits() == []
