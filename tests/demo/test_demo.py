"""`pbem demo` on the embedded default (SQLite, kombu's SQLAlchemy broker,
maildir): the players' moves travel as real mail over SMTP into the
receiver, a real Celery worker processes them, boards are delivered to the
maildir, and the demo reads them back as a mail client would.

A full game is played with the test-only mini game (a dozen plies: a whole game
with final scores mailed, in about twenty seconds); Spyrium runs a bounded
number of plies (a full 2-player Spyrium game over the embedded broker takes
about two minutes at ~2.3 s per ply, too long for the suite)."""
from __future__ import annotations

import email
import email.policy
import mailbox
import urllib.request

from sqlmodel import select

from pbem import demo
from pbem.store.db import unit_of_work
from pbem.store.models import Inbound, Move, Outbound
from tests.mailtools import after_marker


def _plain(m: mailbox.MaildirMessage) -> str:
    """The text part, decoded, as a mail client shows it."""
    parsed = email.message_from_bytes(m.as_bytes(), policy=email.policy.default)
    body = parsed.get_body(preferencelist=("plain",))
    return body.get_content() if body else ""


def _lines(out: list[str]) -> str:
    return "\n".join(out)


def test_demo_plays_a_whole_game_by_mail(sqlite_cfg):
    out: list[str] = []
    res = demo.run("mini", 2, seed=4, progress=False, echo=out.append, worker_app="tests.worker_app")
    assert res.finished and res.scores and res.winners
    text = _lines(out)
    assert f"/games/{res.game_id}" in text and "/outbox" in text
    assert "Final scores (mailed to every player)" in text
    with unit_of_work() as s:
        moves = list(s.exec(select(Move).where(Move.game_id == res.game_id).order_by(Move.ply)))
        inbound = list(s.exec(select(Inbound)))
        sent = list(s.exec(select(Outbound).where(Outbound.game_id == res.game_id)))
    # every move came in by mail, through the receiver, as its own message
    assert len(moves) == res.plies and {m.source for m in moves} == {"mail"}
    assert {m.inbound_id for m in moves} <= {i.id for i in inbound}
    assert all(i.status == "done" for i in inbound) and len(inbound) == res.mails_sent == res.plies
    # the final scores reached every player's mailbox
    box = mailbox.Maildir(str(sqlite_cfg.maildir), create=False)
    finals = [m for m in box if f"[pbem #{res.game_id}]" in m["Subject"]
              and f".{res.game_id}.{res.plies}." in m["Message-ID"]]
    assert {m["To"] for m in finals} >= {p for p in {o.to_addr for o in sent} if p.endswith(demo.PLAYER_DOMAIN)}
    # the demo's table speaks several languages: each final board in its reader's
    by_lang = {m["Content-Language"]: _plain(m) for m in finals}
    assert set(by_lang) == {"en", "ru"}
    assert after_marker(by_lang["en"]).startswith(f"Game #{res.game_id} is over: ")
    assert after_marker(by_lang["ru"]).startswith(f"Партия №{res.game_id} окончена")
    for score in res.scores:
        assert str(score) in text


def test_demo_spyrium_over_the_real_loop(sqlite_cfg):
    out: list[str] = []
    res = demo.run("spyrium", 2, seed=9, max_plies=5, progress=False, echo=out.append)
    assert res.plies >= 5 and not res.finished
    assert f"Stopped after {res.plies} plies" in _lines(out)
    with unit_of_work() as s:
        moves = list(s.exec(select(Move).where(Move.game_id == res.game_id).order_by(Move.ply)))
    assert len(moves) >= 5 and all(m.source == "mail" for m in moves)
    # the moves are the bot's own choices for this seed, in the engine's notation
    from pbem.engine import bots, get_game

    game = get_game("spyrium")
    state = game.initial_state(2, 9, {})
    for m in moves:
        chosen = bots.choose(game, state, m.seat, demo.bot_seed(9, m.ply - 1, m.seat))
        assert game.format_move(state, m.seat, chosen) == m.notation
        state = game.apply(state, m.seat, chosen)


def test_demo_command_rejects_bad_arguments():
    from click.testing import CliRunner

    from pbem.cli import main

    res = CliRunner().invoke(main, ["demo", "chess"])
    assert res.exit_code == 2 and "no game called 'chess'" in res.output
    res = CliRunner().invoke(main, ["demo", "squire", "--players", "9"])
    assert res.exit_code == 2 and "the Squire demo is for 2 to 4 players, not 9" in res.output


def test_web_serves_while_the_demo_runs(sqlite_cfg):
    """The service is up once the demo prints its addresses: the game page answers, and the
    outbox asks a visitor to log in (it holds every seat's board and reply address)."""
    import re

    seen: list[tuple[str, int, str]] = []

    def progress(line: str) -> None:
        if "watch it" in line:
            for url in re.findall(r"http://\S+/(?:games/\d+|outbox)", line):
                with urllib.request.urlopen(url, timeout=10) as r:  # redirects followed
                    seen.append((url.rsplit("/", 1)[1], r.status, r.url))

    demo.run("mini", 2, seed=5, max_plies=1, progress=False, echo=progress, worker_app="tests.worker_app")
    assert [(what, status) for what, status, _ in seen] == [(seen[0][0], 200), ("outbox", 200)], seen
    assert "/login?next=/outbox" in seen[1][2]


def test_demo_simultaneous_steps_send_no_stale_mail(sqlite_cfg):
    """iaww drafts simultaneously: the demo players write one at a time, so
    no mail is refused as stale and every mail moves the game on."""
    res = demo.run("iaww", 3, seed=2, max_plies=6, progress=False, echo=lambda _l: None)
    assert res.plies >= 6
    with unit_of_work() as s:
        inbound = list(s.exec(select(Inbound)))
    assert len(inbound) == res.mails_sent == res.plies
    assert not [i.result for i in inbound if "ERROR" in (i.result or "")]
