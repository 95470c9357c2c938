"""`pbem admin`: admins made without SQL, accounts found and
disabled, a game's seats shown; every change in the audit log."""
from __future__ import annotations

from datetime import timedelta

import pytest
from click.testing import CliRunner
from sqlmodel import select

from pbem.cli import main
from pbem.services.core import accounts
from pbem.services.identity import auth
from pbem.services.core.errors import UserError
from pbem.store.db import unit_of_work
from pbem.store.models import AuditLog, Inbound, Seat, User, WebSession
from tests.mailtools import CMD, ann_and_bob, outbox, process


def run(cfg, *args):
    res = CliRunner().invoke(main, ["admin", *args], env=cfg.to_env())
    return res.exit_code, res.output


def _audit(action):
    with unit_of_work() as s:
        return list(s.exec(select(AuditLog).where(AuditLog.action == action)))


def _user(email) -> User:
    with unit_of_work() as s:
        return accounts.find_user(s, email)


def test_grant_revoke_find_and_list_are_audited(sqlite_cfg):
    ann_and_bob()
    code, out = run(sqlite_cfg, "grant", "ANN@x.test")
    assert code == 0 and "Ann <ann@x.test> is an administrator" in out
    assert _user("ann@x.test").is_admin
    assert len(_audit("admin_grant")) == 1 and "ann@x.test" in _audit("admin_grant")[0].detail
    run(sqlite_cfg, "grant", "ann@x.test")  # already one: nothing to audit
    assert len(_audit("admin_grant")) == 1
    # the older form, `pbem admin <email> --revoke`, still works
    code, out = run(sqlite_cfg, "ann@x.test", "--revoke")
    assert code == 0 and "no longer an administrator" in out and not _user("ann@x.test").is_admin
    assert len(_audit("admin_revoke")) == 1
    code, out = run(sqlite_cfg, "bob@x.test")
    assert code == 0 and _user("bob@x.test").is_admin
    code, out = run(sqlite_cfg, "find", "BO")
    assert "bob@x.test  Bob  [admin]" in out and "ann@" not in out
    code, out = run(sqlite_cfg, "list", "--admins")
    assert "bob@x.test" in out and "ann@x.test" not in out
    code, out = run(sqlite_cfg, "find", "%")
    assert "no account's address or name contains '%'" in out


def test_an_unknown_account_is_a_clear_error_that_changes_nothing(sqlite_cfg):
    ann_and_bob()
    code, out = run(sqlite_cfg, "grant", "nobody@x.test")
    assert code == 1 and "no account has the address 'nobody@x.test'" in out and "pbem admin find" in out
    code, out = run(sqlite_cfg, "disable", "bob@x.test", "--reason", "  ")
    assert code == 1 and "needs a reason" in out and 'e.g. pbem admin disable ann@example.org --reason' in out
    assert _user("bob@x.test").disabled_at is None
    code, out = run(sqlite_cfg, "seats", "999")
    assert code == 1 and "there is no game #999" in out
    with unit_of_work() as s:
        assert not list(s.exec(select(AuditLog)))


def test_a_disabled_account_gets_one_polite_refusal_a_day_and_cannot_log_in(sqlite_cfg):
    gid, ann_seat = ann_and_bob()
    with unit_of_work() as s:
        from pbem.services.core import sessions

        sessions.start(s, accounts.find_user(s, "ann@x.test"))
        token = auth.mail_link(s, "ann@x.test")
    code, out = run(sqlite_cfg, "disable", "ann@x.test", "--reason", "abusive table talk")
    assert code == 0 and "is disabled" in out
    assert "abusive table talk" in _audit("account_disable")[0].detail
    with unit_of_work() as s:  # her sessions ended; her login link is refused, kindly
        assert all(w.ended_at for w in s.exec(select(WebSession)))
    with unit_of_work() as s, pytest.raises(UserError) as e:
        auth.redeem(s, auth.mail_link(s, "ann@x.test") or token)
    assert e.value.code == "account_disabled" and "disabled by pbem's administrators" in e.value.describe()

    before = len(outbox("ann@x.test"))
    _, status = process("ann@x.test", CMD, "GAMES")
    assert status == "ignored"
    refusals = outbox("ann@x.test")[before:]
    assert len(refusals) == 1 and "has been disabled" in refusals[0].body_text
    # more mail that day, to the command address or her seat's: no reply storm
    for to in (CMD, ann_seat, CMD):
        _, status = process("ann@x.test", to, "SAY hello")
        assert status == "ignored"
    assert len(outbox("ann@x.test")) == before + 1
    with unit_of_work() as s:
        assert "not answered again" in s.exec(select(Inbound).order_by(Inbound.id.desc())).first().result
    # a day later, one answer again
    with unit_of_work() as s:
        u = accounts.find_user(s, "ann@x.test")
        u.disabled_told_at = u.disabled_told_at - timedelta(days=1, minutes=1)
        s.add(u)
    process("ann@x.test", CMD, "GAMES")
    assert len(outbox("ann@x.test")) == before + 2
    # Bob plays on
    _, status = process("bob@x.test", CMD, "GAMES")
    assert status == "done"

    code, out = run(sqlite_cfg, "enable", "ann@x.test")
    assert code == 0 and "is enabled" in out and len(_audit("account_enable")) == 1
    _, status = process("ann@x.test", CMD, "GAMES")
    assert status == "done" and "has been disabled" not in outbox("ann@x.test")[-1].body_text
    with unit_of_work() as s:
        assert auth.redeem(s, auth.mail_link(s, "ann@x.test")).email == "ann@x.test"


def test_seats_shows_token_prefixes_never_a_whole_token(sqlite_cfg):
    gid, _ = ann_and_bob()
    run(sqlite_cfg, "disable", "bob@x.test", "--reason", "gone quiet, asked us to")
    code, out = run(sqlite_cfg, "seats", str(gid))
    assert code == 0, out
    with unit_of_work() as s:
        seats = list(s.exec(select(Seat).where(Seat.game_id == gid).order_by(Seat.seat)))
    for seat in seats:
        assert seat.token not in out and seat.token[:6] + "..." in out
    assert "Ann <ann@x.test>; token" in out and "valid, but its account is disabled" in out


def test_the_web_refuses_a_disabled_account_kindly(sqlite_cfg):
    from urllib.parse import urlparse

    from pbem.web import create_app
    from tests.web.conftest import Browser, last_link, make_user

    app = create_app(sqlite_cfg)
    app.config["TESTING"] = True
    uid = make_user("cat@x.test", "Cat")
    logged_in = Browser(app)
    logged_in.login_as(uid)
    assert logged_in.get("/profile").status_code == 200
    run(sqlite_cfg, "disable", "cat@x.test", "--reason", "asked to leave")
    assert logged_in.get("/profile").status_code in (302, 401, 403)  # the session ended
    b = Browser(app)
    assert b.post("/login", {"email": "cat@x.test"}).status_code == 200  # the same answer as for anyone
    path = urlparse(last_link("cat@x.test")).path
    r = b.post(path, page=path)
    assert r.status_code == 400 and "has been disabled by pbem" in r.get_data(as_text=True)
    run(sqlite_cfg, "enable", "cat@x.test")
    b.post("/login", {"email": "cat@x.test"})
    path = urlparse(last_link("cat@x.test")).path
    assert b.post(path, page=path).status_code == 302


def test_seats_shows_that_a_seat_address_was_renewed(sqlite_cfg):
    from tests.mailtools import confirm
    from tests.ops.test_retention import play_by_mail

    gid, _ = ann_and_bob()
    play_by_mail(gid, 2)  # a move of each seat, by their addresses
    with unit_of_work() as s:
        old = s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == 0)).one().token
    process("ann@x.test", CMD, f"NEWADDRESS {gid}")
    confirm("ann@x.test")
    code, out = run(sqlite_cfg, "seats", str(gid))
    ann = next(line for line in out.splitlines() if "Ann <" in line)
    bob = next(line for line in out.splitlines() if "Bob <" in line)
    assert f"rotated: moves came from 1 earlier address(es) of this seat ({old[:6]}...)" in ann
    assert "rotated" not in bob and old not in out


def test_a_disabled_players_seat_is_played_by_the_no_move_policy(sqlite_cfg):
    """Bob is disabled: his mail is refused, his deadline passes, and the game's policy (a bot) plays his
    seat; the game goes on for Ann."""
    from pbem.services.core import clocks, games, moves
    from pbem.services.upkeep import sweep
    from pbem.store.models import Move
    from tests.manage.helpers import no_outage_check, running, seat_row
    from tests.mailtools import seat_addr

    no_outage_check(sqlite_cfg)
    gid, uids = running(players=2, seed=11, options={"hand": "3"}, policy="bot", deadline_hours=24)
    with unit_of_work() as s:
        bob = s.get(User, uids[1]).email
    code, _ = run(sqlite_cfg, "disable", bob, "--reason", "left the club")
    assert code == 0
    with unit_of_work() as s:
        state = games.state_at(s, games.get(s, gid))
        engine = games.engine_for(games.get(s, gid))
    if 0 in engine.to_move(state):
        with unit_of_work() as s:
            assert moves.submit_moves(s, gid, 0, [f"play {state.hands[0][0]}"], source="web").ok
    _, status = process(bob, seat_addr(gid, 1), "play 1")
    assert status == "ignored"  # his move by mail is not read
    deadline = seat_row(gid, 1).deadline_at
    done = sweep.run(clocks.aware(deadline) + timedelta(minutes=61))
    assert done["bot_moves"] == 1
    with unit_of_work() as s:
        assert [m.source for m in s.exec(select(Move).where(Move.game_id == gid, Move.seat == 1))] == ["bot"]
