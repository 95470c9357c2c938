"""Delivery's rules (pbem/push/deliver.py), with the clock passed in and
real local receivers: retries with a doubling backoff, the last attempt,
a channel disabled after repeated failures (its owner told by mail, its
waiting notifications dropped), the private-network rule at setting and at
delivery time, the rate limit per channel, and errors kept without the
address's secrets."""
from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import select

from pbem import config
from pbem.push import deliver
from pbem.push.deliver import redact
from pbem.services.follow import channels
from pbem.services.upkeep import sweep
from pbem.services.core.errors import UserError
from pbem.store.db import unit_of_work
from pbem.store.models import Notification, Outbound, User
from tests.push import receivers as rx
from tests.push.conftest import allow_receivers
from tests.push.helpers import T0, aware, chan, channel, note, queue, user

S = timedelta(seconds=1)


def test_a_failed_delivery_is_retried_after_the_backoff(any_push_cfg, receivers):
    cfg = allow_receivers(any_push_cfg, notify_backoff_s=20.0)
    ann = user()
    cid, test_id = channel(ann, receivers.url("ntfy"))
    receivers.answer("ntfy", 500)
    assert deliver([test_id], now=T0) == {test_id: ("retry", 20.0)}
    row = note(test_id)
    assert (row.status, row.attempts, aware(row.next_attempt_at)) == ("queued", 1, T0 + 20 * S)
    assert "500" in row.last_error and chan(cid).failures == 0  # not failed for good: the channel is fine
    assert deliver([test_id], now=T0 + 19 * S) == {test_id: ("queued", 1.0)}  # not due: left alone
    assert deliver([test_id], now=T0 + 20 * S) == {test_id: ("sent", 0.0)}
    assert [r.status for r in receivers.messages("ntfy", ok=False)] == [500, 200]
    assert note(test_id).status == "sent" and aware(note(test_id).sent_at) == T0 + 20 * S
    assert deliver([test_id], now=T0 + 21 * S) == {test_id: ("sent", 0.0)}  # idempotent: not sent twice
    assert len(receivers.messages("ntfy")) == 1
    assert cfg.notify_max_attempts == 6


def test_the_backoff_doubles_up_to_an_hour(push_cfg, receivers):
    allow_receivers(push_cfg, notify_backoff_s=1000.0, notify_max_attempts=10)
    cid, test_id = channel(user(), receivers.url("json"))
    receivers.answer("json", 503, 503, 503)
    now = T0
    delays = []
    for _ in range(3):
        [(status, delay)] = deliver([test_id], now=now).values()
        assert status == "retry"
        delays.append(delay)
        now += timedelta(seconds=delay)
    assert delays == [1000.0, 2000.0, 3600.0]
    assert deliver([test_id], now=now) == {test_id: ("sent", 0.0)}


def test_failures_for_good_disable_the_channel_and_tell_its_owner(push_cfg, receivers):
    """notify_max_attempts failed attempts: the row has failed; after
    notify_disable_after such rows the channel is off, its owner gets a
    mail, and what waited for it is dropped."""
    allow_receivers(push_cfg, notify_max_attempts=2, notify_disable_after=2, notify_backoff_s=10.0)
    ann = user()
    cid, test_id = channel(ann, receivers.url("discord"))
    receivers.answer("discord", *[500] * 4)
    assert deliver([test_id], now=T0) == {test_id: ("retry", 10.0)}
    assert deliver([test_id], now=T0 + 10 * S) == {test_id: ("failed", 0.0)}
    c = chan(cid)
    assert c.failures == 1 and c.disabled_at is None and "500" in c.last_error
    second = queue(cid, "Your turn in #3.", T0 + 60 * S)
    later = queue(cid, "Your turn in #4.", T0 + 60 * S, at=T0 + timedelta(hours=8))  # held: quiet hours
    assert deliver([second], now=T0 + 60 * S) == {second: ("retry", 10.0)}
    assert deliver([second], now=T0 + 70 * S) == {second: ("failed", 0.0)}
    c = chan(cid)
    assert c.failures == 2 and aware(c.disabled_at) == T0 + 70 * S and "500" in c.disabled_reason
    assert note(later).status == "dropped"
    assert len(receivers.messages("discord", ok=False)) == 4
    [mail] = [o for o in _outbox("ann@x.test") if "stopped working" in o.subject]
    assert "switched it off" in mail.body_text and "500" in mail.body_text
    assert rx.DISCORD_TOKEN not in mail.body_text and rx.DISCORD_TOKEN not in (c.disabled_reason or "")
    # a notification queued for the disabled channel anyway is dropped, not sent
    late = queue(cid, "Your turn in #5.", T0 + timedelta(hours=9))
    assert deliver([late], now=T0 + timedelta(hours=9)) == {late: ("dropped", 0.0)}
    assert len(receivers.messages("discord", ok=False)) == 4
    # a channel that works again is counted from zero
    with unit_of_work() as s:
        channels.enable(s, s.get(User, ann), 1, now=T0 + timedelta(hours=10))
        again = s.exec(select(Notification.id).where(Notification.channel_id == cid,
                                                     Notification.status == "queued")).one()
    assert deliver([again], now=T0 + timedelta(hours=10)) == {again: ("sent", 0.0)}
    assert chan(cid).failures == 0 and chan(cid).disabled_at is None


def test_a_removed_channel_takes_its_rows_along(push_cfg, receivers):
    ann = user()
    cid, test_id = channel(ann, receivers.url("json"))
    other = queue(cid, "Your turn.", T0)
    with unit_of_work() as s:  # NOTIFY REMOVE 1: the channel goes with its notifications
        channels.remove(s, s.get(User, ann), 1)
    assert deliver([test_id, other], now=T0) == {test_id: ("missing", 0.0), other: ("missing", 0.0)}
    assert receivers.received("json") == []


def test_private_hosts_are_refused_when_set_and_when_delivered(sqlite_cfg, receivers):
    config.set_settings(sqlite_cfg)  # no allow-list: the receivers' loopback address is private again
    ann = user()
    for kind in ("ntfy", "json", "matrix"):
        with pytest.raises(UserError) as e:
            channels.parse(receivers.url(kind))
        assert e.value.code == "private_host" and rx.PUBLIC in str(e.value)
        assert "private network" in str(e.value)
    # set while allowed (a private installation), then the rule is on: refused at delivery, nothing sent
    allow_receivers(sqlite_cfg, notify_max_attempts=2, notify_backoff_s=5.0)
    cid, test_id = channel(ann, receivers.url("json"))
    config.set_settings(sqlite_cfg.with_(notify_max_attempts=2, notify_backoff_s=5.0))
    assert deliver([test_id], now=T0) == {test_id: ("retry", 5.0)}
    assert note(test_id).last_error == f"pbem does not send to {rx.PUBLIC}: it is on a private network"
    assert deliver([test_id], now=T0 + 5 * S) == {test_id: ("failed", 0.0)}
    assert chan(cid).last_error == f"pbem does not send to {rx.PUBLIC}: it is on a private network"
    assert receivers.received("json") == []
    # the services' own hosts (discord.com, ...) are not the user's to choose: allowed
    assert channels.parse(receivers.url("discord"))[0] == "discord"


def test_the_rate_limit_holds_the_rest_and_sends_them_together(push_cfg, receivers):
    allow_receivers(push_cfg, notify_per_minute=2)
    cid, test_id = channel(user(), receivers.url("json"))
    assert deliver([test_id], now=T0) == {test_id: ("sent", 0.0)}
    a = queue(cid, "a", T0 + 10 * S, title="A", link="https://pbem.test/games/1")
    assert deliver([a], now=T0 + 10 * S) == {a: ("sent", 0.0)}
    # two sent in the last minute: the next ones wait until the first of them is a minute old
    b = queue(cid, "b", T0 + 20 * S, title="B", link="https://pbem.test/games/2")
    assert deliver([b], now=T0 + 20 * S) == {b: ("wait", 40.0)}
    c = queue(cid, "c", T0 + 30 * S, title="C", link="https://pbem.test/games/3")
    assert deliver([c], now=T0 + 30 * S) == {c: ("wait", 30.0)}
    assert aware(note(b).next_attempt_at) == aware(note(c).next_attempt_at) == T0 + 60 * S
    assert note(b).attempts == 0 and note(b).status == "queued"
    assert len(receivers.messages("json")) == 2
    assert deliver([b, c], now=T0 + 60 * S) == {b: ("sent", 0.0), c: ("sent", 0.0)}
    msgs = receivers.messages("json")
    assert len(msgs) == 3
    assert msgs[-1].json["title"] == "pbem: 2 notifications"
    assert msgs[-1].json["message"] == "b\nhttps://pbem.test/games/2\n\nc\nhttps://pbem.test/games/3"
    # the two sent together are one message in the room, counted once: the next waits only for "a"
    d = queue(cid, "d", T0 + 61 * S)
    assert deliver([d], now=T0 + 61 * S) == {d: ("wait", 9.0)}
    assert deliver([d], now=T0 + 70 * S) == {d: ("sent", 0.0)}
    e = queue(cid, "e", T0 + 71 * S)
    assert deliver([e], now=T0 + 71 * S) == {e: ("wait", 49.0)}  # until the message of b and c is a minute old


@pytest.mark.parametrize("kind", ["discord", "slack", "telegram", "matrix"])
def test_the_error_kept_never_holds_the_addresss_secrets(push_cfg, receivers, kind):
    cid, test_id = channel(user(), receivers.url(kind))
    receivers.answer(kind, 500)
    assert deliver([test_id], now=T0)[test_id][0] == "retry"
    error = note(test_id).last_error
    assert error and "500" in error
    assert not [s for s in rx.SECRETS if s in error]


def test_redact_takes_every_secret_out():
    said = (f"POST https://discord.com/api/webhooks/{rx.DISCORD_ID}/{rx.DISCORD_TOKEN} failed; "
            f"token {rx.DISCORD_TOKEN.replace('-', '%2D')}")
    out = redact(f"discord://{rx.DISCORD_ID}/{rx.DISCORD_TOKEN}", said)
    assert rx.DISCORD_TOKEN not in out and rx.DISCORD_ID not in out and "discord.com" in out
    tg = f"tgram://{rx.TELEGRAM_TOKEN}/{rx.TELEGRAM_CHAT}"
    out = redact(tg, f"https://api.telegram.org/bot{rx.TELEGRAM_TOKEN.replace(':', '%3A')}/sendMessage")
    assert rx.TELEGRAM_TOKEN.split(":")[1] not in out
    out = redact("ntfy://tk_abcdefSECRET@ntfy.example/topic?x=1", "Bearer tk_abcdefSECRET refused")
    assert "SECRET" not in out
    out = redact(f"matrix://pbem:{rx.MATRIX_PASSWORD}@m.example/#room", f"password {rx.MATRIX_PASSWORD}")
    assert rx.MATRIX_PASSWORD not in out
    assert "pbem-private-topic" not in redact("ntfy://pbem-private-topic", "ntfy.sh/pbem-private-topic: 429")
    assert "SECRETword" not in redact("json://[::1/SECRETword", "at [::1/SECRETword")  # not even a URL


def test_a_connection_error_is_a_readable_retry(push_cfg, receivers, monkeypatch):
    """No proxy to reach: Apprise's own account of it is kept (no address)."""
    cid, test_id = channel(user(), receivers.url("slack"))
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")  # discard: nothing listens
    assert deliver([test_id], now=T0)[test_id][0] == "retry"
    error = note(test_id).last_error
    assert "Slack" in error and not [s for s in rx.SECRETS if s in error]


def test_the_deadline_sweep_sends_the_channels_digests(push_cfg, receivers):
    """deadlines.run: a digest channel's waiting notifications go as one
    digest at its owner's digest hour (channels.send_digests)."""
    ann = user()
    cid, test_id = channel(ann, receivers.url("ntfy"))
    with unit_of_work() as s:
        channels.set_mode(s, s.get(User, ann), 1, "digest")
        channels.set_digest_hour(s, s.get(User, ann), 8)
    deliver([test_id], now=T0)
    for n in (1, 2):
        with unit_of_work() as s:
            from pbem.store.pushbox import queue_push

            queue_push(s, cid, kind="turn", body=f"Your turn in #{n}.", link=f"https://pbem.test/games/{n}",
                       now=T0, status="digest")
    morning = T0.replace(hour=8) + timedelta(days=1)
    total = sweep.run(morning)
    assert total["channel_digests"] == 1
    with unit_of_work() as s:
        digest = s.exec(select(Notification).where(Notification.kind == "digest")).one()
    assert deliver([digest.id], now=morning) == {digest.id: ("sent", 0.0)}
    [req] = receivers.messages("ntfy")[-1:]
    assert req.json["title"] == "pbem: your daily digest"
    assert "Your turn in #1." in req.json["message"] and "Your turn in #2." in req.json["message"]
    assert sweep.run(morning + timedelta(hours=1))["channel_digests"] == 0


def _outbox(to: str) -> list[Outbound]:
    with unit_of_work() as s:
        return list(s.exec(select(Outbound).where(Outbound.to_addr == to).order_by(Outbound.id)))


def test_a_receiver_that_never_answers_is_given_up_on_after_the_timeout(push_cfg, receivers):
    """settings().notify_timeout_s bounds each request (pbem/net's
    transport: the whole exchange): a server that takes the connection and never
    answers costs one short failed attempt, not a stuck worker."""
    import socket

    allow_receivers(push_cfg, notify_timeout_s=0.3)
    with socket.socket() as silent:  # listens (the kernel completes the connection) and never reads or answers
        silent.bind((rx.PUBLIC, 0))
        silent.listen(4)
        cid, test_id = channel(user(), f"json://{rx.PUBLIC}:{silent.getsockname()[1]}/hook")
        assert deliver([test_id], now=T0) == {test_id: ("retry", 15.0)}
    assert note(test_id).last_error == f"{rx.PUBLIC} did not answer within 0.3 seconds"
