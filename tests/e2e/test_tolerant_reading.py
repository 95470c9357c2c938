"""Moves read however people write them, as the Diplomacy judges read
orders, through the real SMTP receiver and a real Celery worker, in answers
to the boards pbem really sent: a numbered list (typed, or Outlook on the
web's AutoFormat <ol>), bold text (Gmail's *...*, Markdown's **...**),
commas between steps, each a whole Squire turn; a refusal that a separator
could explain says so; a signature under a complete turn (Place Bellecour 3)
is listed as not read, never an error."""
from __future__ import annotations

import pytest
from sqlmodel import select

from pbem.engine import get_game
from pbem.services.core import games
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Move, Seat, User
from tests import mailclients as mc
from tests.clientcorpus import with_closing
from tests.e2e.test_foreign_clients import loop  # noqa: F401 - the fixture: a receiver and a worker
from tests.e2e.test_reading_e2e import WHEN, _latest, _receipt, _send
from tests.mailtools import CMD, process, seat_addr

TURN = ["start London", "buy", "cell F1C1"]  # seat 1's first Squire turn at seed 2202 (3 players)


def _table(n: int, game: str, seed: int) -> tuple[int, dict[int, str]]:
    """Three players by mail, the game's seed fixed right after NEW (by mail it is drawn at random)."""
    emails = [f"{nm}.{n}@x.test" for nm in ("ann", "bob", "cy")]
    for email, nm in zip(emails, ("Ann", "Bob", "Cy")):
        process(email, CMD, f"REGISTER {nm}{n}")
    process(emails[0], CMD, f"NEW {game} players=3")
    with unit_of_work() as s:
        g = s.exec(select(Game).order_by(Game.id.desc())).first()
        g.seed = seed
        s.add(g)
        gid = g.id
    for email in emails[1:]:
        process(email, CMD, f"JOIN {gid}")
    with unit_of_work() as s:
        rows = s.exec(select(Seat.seat, User.email).join(User, User.id == Seat.user_id).where(Seat.game_id == gid))
        return gid, dict(rows.all())


def _state(gid: int):
    with unit_of_work() as s:
        g = games.get(s, gid)
        return get_game(g.game), games.state_at(s, g)


def _squire_first_turn(n: int) -> tuple[int, str, object]:
    """A Squire game whose three boards are chosen (by mail): seat 1 is at its first turn."""
    gid, seats = _table(n, "squire", 2202)
    engine, st = _state(gid)
    while 0 not in engine.to_move(st) or not any(engine.format_move(st, 0, m).startswith("start")
                                                 for m in engine.legal_moves(st, 0)):
        seat = sorted(engine.to_move(st))[0]
        process(seats[seat], seat_addr(gid, seat), engine.format_move(st, seat, engine.legal_moves(st, seat)[0]))
        engine, st = _state(gid)
    return gid, seats[0], st


def _moves_since(gid: int, ply: int) -> list[str]:
    with unit_of_work() as s:
        return [m.notation for m in s.exec(select(Move).where(Move.game_id == gid, Move.ply > ply)
                                           .order_by(Move.ply))]


def _errors(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if ln.strip().startswith("ERROR")]


WAYS = {
    "typed numbered list (Thunderbird)": lambda o, p: mc.thunderbird(
        o, p, mc.Answer(["Hi all,", "", "1. start London", "2) buy", "3. cell F1C1", "", "Ann"]), loc="en-GB"),
    "AutoFormat numbered list (Outlook on the web, HTML only)": lambda o, p: mc.outlook_html(
        o, p, mc.Answer(["Hi all,", "1. start London", "2. buy", "3. cell F1C1", "Thanks!"]), variant="owa",
        charset="utf-8", smart=False),
    "commas between steps (Gmail)": lambda o, p: mc.gmail(o, p, mc.Answer(["start London, buy, cell F1C1", "",
                                                                             "Thanks!"])),
    "bold steps (Gmail: *...* in its text part, <b> in HTML)": lambda o, p: mc.gmail(
        o, p, mc.Answer(["*start London*", "*buy*", "*cell F1C1*"])),
    "Markdown bold and bullets (neomutt)": lambda o, p: mc.neomutt(
        o, p, mc.Answer(["- **start London**", "- **buy**", "- **cell F1C1**"]), style="top"),
    "bullets and a semicolon (Proton)": lambda o, p: mc.proton(o, p, mc.Answer(["• start London; buy", "• cell F1C1"])),
}


@pytest.mark.parametrize("way", list(WAYS))
def test_a_whole_squire_turn_written_as_people_write_it(loop, way):  # noqa: F811
    gid, who, st = _squire_first_turn(list(WAYS).index(way))
    board = _latest(who, "board", gid)
    engine, _ = _state(gid)
    want = with_closing(engine, st, 0, TURN)
    with unit_of_work() as s:
        ply = games.get(s, gid).ply
    orig = mc.Original.from_outbound(board, CMD, sent=WHEN)
    _send(loop, WAYS[way](orig, mc.Player(f"Ann{list(WAYS).index(way)}", who)), who, board.headers["Reply-To"])
    receipt = _receipt(who)
    assert [m.lower() for m in _moves_since(gid, ply)] == [m.lower() for m in want], receipt.body_text
    assert not _errors(receipt.body_text), receipt.body_text


def test_a_refusal_a_separator_could_explain_says_so(loop):  # noqa: F811
    gid, who, st = _squire_first_turn(20)
    board = _latest(who, "board", gid)
    process(who, CMD, "LANGUAGE ru")
    orig = mc.Original.from_outbound(board, CMD, sent=WHEN)
    _send(loop, mc.gmail(orig, mc.Player("Ann20", who), mc.Answer(["start London, then buy"])), who,
          board.headers["Reply-To"])
    receipt = _receipt(who)
    assert "(разделяйте шаги знаком ; или новыми строками)" in receipt.body_text, receipt.body_text


@pytest.mark.parametrize("game, seed", [("spyrium", 1101), ("squire", 2202)])
def test_a_signature_under_a_complete_turn_is_not_read_and_no_error(loop, game, seed):  # noqa: F811
    """Ann's address under her name: "Place Bellecour 3" starts with a word of the notation; her turn was
    complete before it, and it is no move now: listed as not read, the receipt has no error."""
    n = 30 + (game == "squire")
    if game == "squire":
        gid, who, st = _squire_first_turn(n)
        turn = TURN
    else:
        gid, seats = _table(n, game, seed)
        engine, st = _state(gid)
        seat = min(engine.to_move(st))
        who = seats[seat]
        turn = next([engine.format_move(st, seat, m)] for m in engine.legal_moves(st, seat)
                    if seat not in engine.to_move(engine.apply(st, seat, m)))
    board = _latest(who, "board", gid)
    with unit_of_work() as s:
        ply = games.get(s, gid).ply
    orig = mc.Original.from_outbound(board, CMD, sent=WHEN)
    answer = mc.Answer(turn + ["", "Ann", "Place Bellecour 3", "69002 Lyon"])
    _send(loop, mc.apple(orig, mc.Player(f"Ann{n}", who), answer, loc="fr", smart=False), who,
          board.headers["Reply-To"])
    receipt = _receipt(who)
    assert len(_moves_since(gid, ply)) >= len(turn), receipt.body_text
    assert not _errors(receipt.body_text), receipt.body_text
    assert "| Place Bellecour 3" in receipt.body_text and "Your turn was complete before" in receipt.body_text
