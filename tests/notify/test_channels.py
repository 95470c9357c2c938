"""What pbem tells a player's chat channels and a game's table
channel, and when (quiet hours, the daily digest), with the clock passed in.
Delivery itself is tests/push's; here, the notifications queued through the
real front doors (mail commands through the pipeline, moves, talk)."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from sqlmodel import select

from pbem import config
from pbem.services.core import games
from pbem.services.follow import channels, notifications
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Notification, NotifyChannel, Seat, User
from tests.mailtools import CMD, outbox, process, seat_addr, start_game

UTC = timezone.utc
HOOK = "json://127.0.0.1:9/hook"  # nothing is delivered here: the rows queued are read


@pytest.fixture
def cfg(sqlite_cfg):
    c = sqlite_cfg.with_(http_allow=("127.0.0.1/32",))
    config.set_settings(c)
    yield c


def user(email: str) -> User:
    with unit_of_work() as s:
        return s.exec(select(User).where(User.email == email)).one()


def rows(kind: str | None = None) -> list[Notification]:
    with unit_of_work() as s:
        q = select(Notification).order_by(Notification.id)
        if kind:
            q = q.where(Notification.kind == kind)
        return list(s.exec(q))


def reply(email: str) -> str:
    return outbox(email)[-1].body_text


def to_move(gid: int) -> set[int]:
    with unit_of_work() as s:
        g = s.get(Game, gid)
        return set(games.engine_for(g).to_move(games.state_at(s, g)))


def play_one(gid: int) -> int:
    """The seat to move plays its first legal move by mail; returns that seat."""
    seat = min(to_move(gid))
    with unit_of_work() as s:
        g = s.get(Game, gid)
        engine = games.engine_for(g)
        state = games.state_at(s, g)
        move = engine.format_move(state, seat, engine.legal_moves(state, seat)[0])
        email = s.get(User, s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == seat)).one().user_id).email
    process(email, seat_addr(gid, seat), move)
    return seat


# ---------------------------------------------------------------- quiet hours and the digest, by the clock


def test_quiet_hours_end_in_the_users_time_zone_across_midnight():
    u = User(email="a@x", name="A", timezone="Europe/Moscow", quiet_from=22, quiet_until=7)
    at = lambda *a: datetime(*a, tzinfo=UTC)  # noqa: E731
    assert notifications.quiet_until(u, at(2026, 11, 25, 20, 30)) == at(2026, 11, 26, 4, 0)  # 23:30 MSK
    assert notifications.quiet_until(u, at(2026, 11, 26, 3, 0)) == at(2026, 11, 26, 4, 0)  # 06:00 MSK
    assert notifications.quiet_until(u, at(2026, 11, 26, 4, 0)) is None  # 07:00 MSK: over
    assert notifications.quiet_until(u, at(2026, 11, 25, 18, 59)) is None  # 21:59 MSK
    u.quiet_from, u.quiet_until = 13, 15  # a nap, within one day
    assert notifications.quiet_until(u, at(2026, 11, 25, 10, 30)) == at(2026, 11, 25, 12, 0)
    assert notifications.quiet_until(u, at(2026, 11, 25, 12, 0)) is None
    u.quiet_from = u.quiet_until = None
    assert notifications.quiet_until(u, at(2026, 11, 25, 20, 30)) is None


def test_quiet_hours_across_a_daylight_saving_change():
    """New York leaves summer time on 2026-11-01: quiet until 07:00 local is 12:00 UTC that morning."""
    u = User(email="a@x", name="A", timezone="America/New_York", quiet_from=23, quiet_until=7)
    assert notifications.quiet_until(u, datetime(2026, 11, 1, 4, 30, tzinfo=UTC)) == datetime(2026, 11, 1, 12, 0,
                                                                                         tzinfo=UTC)


def test_the_digest_is_due_once_a_day_at_the_chosen_hour():
    u = User(email="a@x", name="A", timezone="Asia/Tokyo", digest_hour=8)  # 08:00 JST = 23:00 UTC
    at = lambda *a: datetime(*a, tzinfo=UTC)  # noqa: E731
    assert notifications.digest_due(u, None, at(2026, 11, 25, 23, 10))  # the first: in the hour chosen
    assert not notifications.digest_due(u, None, at(2026, 11, 25, 12))
    assert not notifications.digest_due(u, at(2026, 11, 24, 23, 1), at(2026, 11, 25, 22, 59))
    assert notifications.digest_due(u, at(2026, 11, 24, 23, 1), at(2026, 11, 25, 23, 0))
    u.digest_hour = None  # no hour: a day after the last
    assert not notifications.digest_due(u, at(2026, 11, 25, 10), at(2026, 11, 26, 9, 59))
    assert notifications.digest_due(u, at(2026, 11, 25, 10), at(2026, 11, 26, 10))


# ---------------------------------------------------------------- NOTIFY by mail


def test_notify_add_list_test_remove_by_mail(cfg):
    process("ann@x.test", CMD, "REGISTER Ann")
    process("ann@x.test", CMD, f"NOTIFY ADD {HOOK} My Hook")
    assert "channel 1 added (JSON webhook)" in reply("ann@x.test")
    test_rows = rows("test")
    assert len(test_rows) == 1 and "your turn" in test_rows[0].body
    process("ann@x.test", CMD, "NOTIFY LIST")
    listed = reply("ann@x.test")
    assert "1. JSON webhook «My Hook» json://127.0.0.1:9/hook: your turn, deadline reminders" in listed
    process("ann@x.test", CMD, "NOTIFY 1 OFF reminder\nNOTIFY 1 ON talk\nNOTIFY QUIET 22-07\nNOTIFY HOUR 8")
    with unit_of_work() as s:
        ch = s.exec(select(NotifyChannel)).one()
        assert ch.events == ["turn", "start", "end", "talk"]
        u = s.exec(select(User).where(User.email == "ann@x.test")).one()
        assert (u.quiet_from, u.quiet_until, u.digest_hour) == (22, 7, 8)
    process("ann@x.test", CMD, "NOTIFY TEST 1")
    assert len(rows("test")) == 2
    process("ann@x.test", CMD, "NOTIFY REMOVE 1")
    with unit_of_work() as s:
        assert s.exec(select(NotifyChannel)).all() == []
        assert s.exec(select(Notification)).all() == []  # the secret address is kept nowhere


@pytest.mark.parametrize("line, expected, example", [
    ("NOTIFY ADD mailto://me@example.com", "pbem cannot send to mailto://example.com/...", "NOTIFY ADD ntfy://"),
    ("NOTIFY ADD", "NOTIFY ADD needs the address", "NOTIFY ADD ntfy://"),
    ("NOTIFY REMOVE 3", "you have no notification channel yet", "NOTIFY ADD ntfy://"),
    ("NOTIFY 1 OFF sleep", "you have no notification channel yet", "NOTIFY ADD ntfy://"),
    ("NOTIFY QUIET 25-07", "is not an hour of the day", "NOTIFY QUIET 22-07"),
    ("NOTIFY QUIET 7-7", "end at another hour", "NOTIFY QUIET 22-07"),
    ("NOTIFY sometimes", "NOTIFY does not know sometimes", "NOTIFY LIST"),
])
def test_a_wrong_notify_says_what_was_wrong_with_an_example_and_changes_nothing(cfg, line, expected, example):
    process("ann@x.test", CMD, "REGISTER Ann")
    before = user("ann@x.test")
    process("ann@x.test", CMD, line)
    text = reply("ann@x.test")
    assert expected in text and example in text, text
    after = user("ann@x.test")
    assert (after.quiet_from, after.quiet_until, after.notify) == (before.quiet_from, before.quiet_until,
                                                                   before.notify)
    with unit_of_work() as s:
        assert s.exec(select(NotifyChannel)).all() == []


def test_an_address_on_a_private_network_is_refused(sqlite_cfg):
    """Carrier-grade NAT (100.64.0.0/10: Tailscale, and one cloud's metadata
    service at 100.100.100.200) and 192.0.0.0/24 too: pbem/net's rule asks
    whether an address is reachable from the whole Internet."""
    process("ann@x.test", CMD, "REGISTER Ann")
    for url in ("json://127.0.0.1:9/hook", "ntfy://10.1.2.3/topic", "json://[::1]:80/x",
                "matrix://u:p@169.254.169.254/#room", "ntfy://100.100.100.200/topic", "json://100.64.0.1/hook",
                "json://192.0.0.192/hook", "json://[::ffff:7f00:1]:80/x"):
        process("ann@x.test", CMD, f"NOTIFY ADD {url}")
        assert "it is on a private network" in reply("ann@x.test"), url
    process("ann@x.test", CMD, "NOTIFY ADD json://2130706433:80/hook")
    assert "an address is written as four numbers from 0 to 255, such as 203.0.113.7" in reply("ann@x.test")
    process("ann@x.test", CMD, "LANGUAGE ru")
    process("ann@x.test", CMD, "NOTIFY ADD ntfy://100.100.100.200/topic")
    assert "pbem не отправляет на 100.100.100.200: он находится в частной сети" in reply("ann@x.test")
    with unit_of_work() as s:
        assert s.exec(select(NotifyChannel)).all() == []


def test_a_token_keeps_its_case_and_characters(cfg):
    process("ann@x.test", CMD, "REGISTER Ann")
    process("ann@x.test", CMD, "notify add discord://1234/AbC-dEf_GhI")
    with unit_of_work() as s:
        ch = s.exec(select(NotifyChannel)).one()
    assert (ch.kind, ch.url) == ("discord", "discord://1234/AbC-dEf_GhI")
    process("ann@x.test", CMD, "NOTIFY LIST")
    assert "AbC-dEf_GhI" not in reply("ann@x.test")  # listed with its secret masked


# ---------------------------------------------------------------- what is told


def test_your_turn_once_per_turn_with_the_deadline_and_the_games_link_never_a_reply_address(cfg):
    gid = start_game(2)
    process("p1@x.test", CMD, f"NOTIFY ADD {HOOK}")
    process("ann@x.test", CMD, f"NOTIFY ADD {HOOK}")
    for _ in range(4):
        play_one(gid)
    turns = rows("turn")
    assert turns, "no 'your turn' notification"
    with unit_of_work() as s:
        tokens = [x.token for x in s.exec(select(Seat).where(Seat.game_id == gid))]
    for n in turns:
        assert n.body.startswith(f"Your turn in #{gid} (")
        assert "deadline in 4" in n.body  # 48 h per move
        assert n.link == f"{cfg.base_url}/games/{gid}"
        assert not any(t in n.body + n.title + n.link for t in tokens)
    assert len({n.dedupe for n in turns}) == len(turns)  # one per turn


def test_quiet_hours_hold_a_notification_until_they_end(cfg):
    process("ann@x.test", CMD, "REGISTER Ann")
    process("ann@x.test", CMD, f"NOTIFY ADD {HOOK}\nNOTIFY QUIET 0-0:00")  # refused: nothing changes
    now = datetime(2026, 11, 25, 23, 30, tzinfo=UTC)
    with unit_of_work() as s:
        u = s.exec(select(User).where(User.email == "ann@x.test")).one()
        channels.set_quiet(s, u, 22, 7)
        ch = channels.mine(s, u)[0]
        ch_id = ch.id
        notifications._push(s, ch, u, kind="turn", title="t", body="b", link="", game_id=None, dedupe="x", now=now)
    held = [n for n in rows("turn") if n.channel_id == ch_id][0]
    assert held.status == "queued"
    assert held.next_attempt_at.replace(tzinfo=UTC) == datetime(2026, 11, 26, 7, 0, tzinfo=UTC)


def test_a_digest_channel_gets_one_message_at_the_digest_hour(cfg):
    gid = start_game(2)
    process("ann@x.test", CMD, f"NOTIFY ADD {HOOK}\nNOTIFY 1 digest\nNOTIFY HOUR 9")
    process("p1@x.test", CMD, f"NOTIFY ADD {HOOK}\nNOTIFY 1 digest\nNOTIFY HOUR 9")
    for _ in range(3):
        play_one(gid)
    waiting = rows("turn")
    assert waiting and all(n.status == "digest" for n in waiting)
    with unit_of_work() as s:
        made = max(c.created_at for c in s.exec(select(NotifyChannel))).replace(tzinfo=UTC)
    first = made.replace(hour=9, minute=0, second=0, microsecond=0)
    first += timedelta(days=1) if first <= made else timedelta(0)  # the first 09:00 UTC after the channels
    with unit_of_work() as s:
        assert notifications.send_digests(s, first - timedelta(minutes=1)) == 0  # 08:59: not yet
    with unit_of_work() as s:
        assert notifications.send_digests(s, first) == 2
    digests = rows("digest")
    assert len(digests) == 2 and all(n.status == "queued" for n in digests)
    assert all(f"Your turn in #{gid}" in n.body for n in digests)
    assert all(n.status == "digested" for n in rows("turn"))
    with unit_of_work() as s:  # once a day
        assert notifications.send_digests(s, first + timedelta(hours=3)) == 0


def test_the_table_channel_gets_the_public_summary_and_the_table_talk_never_private_words(cfg):
    gid = start_game(3)
    process("p1@x.test", CMD, f"NOTIFY TABLE {gid} {HOOK}")
    assert f"only the creator of game #{gid}" in reply("p1@x.test")
    process("ann@x.test", CMD, f"NOTIFY TABLE {gid} {HOOK}")
    assert f"game #{gid} is posted to its table channel" in reply("ann@x.test")
    play_one(gid)
    boards = rows("board")
    assert boards and "played:" in boards[-1].body
    process("ann@x.test", seat_addr(gid, 0), "SAY all: good luck")
    process("ann@x.test", seat_addr(gid, 0), "SAY P1: a secret plan")
    talk = rows("talk")
    assert [n.body for n in talk if n.channel_id == boards[-1].channel_id] == ["Ann: good luck"]
    assert not any("a secret plan" in n.body for n in rows())
    process("ann@x.test", CMD, f"NOTIFY TABLE {gid} OFF")
    assert f"game #{gid} has no table channel any more" in reply("ann@x.test")


def test_a_private_message_reaches_only_its_addressees_channels(cfg):
    gid = start_game(3)
    for who in ("ann", "p1", "p2"):
        process(f"{who}@x.test", CMD, f"NOTIFY ADD {HOOK}\nNOTIFY 1 ON talk")
    process("ann@x.test", seat_addr(gid, 0), "SAY P1: meet me at the market")
    talk = rows("talk")
    with unit_of_work() as s:
        owner = {c.id: s.get(User, c.user_id).email for c in s.exec(select(NotifyChannel))}
    assert [owner[n.channel_id] for n in talk] == ["p1@x.test"]
    assert talk[0].body.startswith(f"Ann wrote to you privately in #{gid} (")
    assert talk[0].body.endswith("): meet me at the market")


def test_a_channel_that_keeps_failing_is_disabled_and_its_owner_told(cfg):
    process("ann@x.test", CMD, "REGISTER Ann")
    process("ann@x.test", CMD, f"NOTIFY ADD {HOOK}")
    now = datetime(2026, 11, 25, 12, tzinfo=UTC)
    for i in range(cfg.notify_disable_after):
        with unit_of_work() as s:
            ch = s.exec(select(NotifyChannel)).one()
            off = channels.failed(s, ch, "HTTP 404 from the webhook", now)
        assert off == (i == cfg.notify_disable_after - 1)
    told = outbox("ann@x.test")[-1]
    assert "could not deliver to your notification channel 1" in told.body_text
    assert "NOTIFY 1 ON" in told.body_text
    with unit_of_work() as s:
        ch = s.exec(select(NotifyChannel)).one()
        assert ch.disabled_at is not None
        assert "off after repeated failures: HTTP 404" in channels.status(ch)
    process("ann@x.test", CMD, "NOTIFY 1 ON")
    with unit_of_work() as s:
        ch = s.exec(select(NotifyChannel)).one()
        assert ch.disabled_at is None and ch.failures == 0


def test_a_kind_that_does_not_exist_is_named_in_the_refusal(cfg):
    process("ann@x.test", CMD, "REGISTER Ann")
    process("ann@x.test", CMD, f"NOTIFY ADD {HOOK}")
    process("ann@x.test", CMD, "NOTIFY 1 OFF sleep")
    text = reply("ann@x.test")
    assert "sleep is not one of the kinds of notification: turn, reminder, start, end, talk" in text
    assert "NOTIFY 1 OFF talk" in text
    with unit_of_work() as s:
        assert s.exec(select(NotifyChannel)).one().events == list(channels.DEFAULT_EVENTS)


def test_table_talk_cannot_ping_the_whole_chat_room(cfg):
    gid = start_game(2)
    process("ann@x.test", CMD, f"NOTIFY TABLE {gid} {HOOK}")
    process("ann@x.test", seat_addr(gid, 0), "SAY all: @everyone @here <@123> <!channel> look at this")
    said = [n.body for n in rows("talk")][-1]
    for ping in ("@everyone", "@here", "<@123>", "<!channel>"):
        assert ping not in said
    assert said.replace("\u200b", "") == "Ann: @everyone @here <@123> <!channel> look at this"


def test_the_mail_digest_comes_at_the_chosen_hour_of_the_readers_time_zone(cfg):
    from pbem.services.follow import messages

    gid = start_game(2)
    process("ann@x.test", CMD, "NOTIFY digest 9")
    assert "you get one digest mail a day, at 09:00 (UTC)" in reply("ann@x.test")
    with unit_of_work() as s:
        u = s.exec(select(User).where(User.email == "ann@x.test")).one()
        u.timezone = "Europe/Rome"  # 09:00 in Rome is 08:00 UTC in November
    play_one(gid)
    day = datetime.now(UTC).date() + timedelta(days=1)
    at = lambda h, m=0: datetime(day.year, day.month, day.day, h, m, tzinfo=UTC)  # noqa: E731
    digests = lambda: [o for o in outbox("ann@x.test") if "your daily digest" in o.subject]  # noqa: E731
    with unit_of_work() as s:
        messages.send_digests(s, at(7, 59))
    assert digests() == []
    with unit_of_work() as s:
        messages.send_digests(s, at(8, 0))
    assert len(digests()) == 1 and f"Game #{gid}" in digests()[0].body_text
    with unit_of_work() as s:
        messages.send_digests(s, at(20, 0))  # once a day
    assert len(digests()) == 1
