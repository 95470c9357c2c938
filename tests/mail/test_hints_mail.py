"""Practice games with hints, by mail, through the whole pipeline: NEW ... hints=on makes one; HINT
on the seat to move's address answers the search's three best moves (notation, value, points, what
the move does) in the player's language, records the hint, and tells the table that the seat used
one -- never its moves while the game runs; asking again at the same ply gives the recorded hint
back. Every refusal says why, shows an example, and changes nothing."""
from __future__ import annotations

import re

import pytest
from sqlmodel import select

from pbem.engine import get_game
from pbem.services.core import accounts, games
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Hint, Outbound, Post
from tests.mailtools import CMD, process, seat_addr

GAMES = ("spyrium", "squire", "iaww")


def _users(lang_bob: str = "en"):
    with unit_of_work() as s:
        ann = accounts.find_user(s, "ann@x.test") or accounts.register(s, "ann@x.test", "Ann", confirmed=True)[0]
        bob = accounts.find_user(s, "bob@x.test") or accounts.register(s, "bob@x.test", "Bob", confirmed=True,
                                                                       language=lang_bob)[0]
        if lang_bob != "en":
            accounts.set_language(s, bob, lang_bob)
        return ann.id, bob.id


def practice(name: str, *, hints: bool = True, lang_bob: str = "en") -> int:
    """A started two-seat practice game of ``name`` for Ann (seat 1) and Bob."""
    _users(lang_bob)
    with unit_of_work() as s:
        ann = accounts.find_user(s, "ann@x.test")
        bob = accounts.find_user(s, "bob@x.test")
        g = tables.create(s, ann, name, 2, {}, seed=5, hints=hints)
        tables.join(s, bob, g.id)
        return g.id


def to_move(gid: int) -> list[int]:
    with unit_of_work() as s:
        g = s.get(Game, gid)
        return sorted(games.engine_for(g).to_move(games.state_at(s, g)))


def holder(gid: int, seat: int) -> tuple[str, str]:
    """The address of the player of ``seat`` and the seat's reply address (Squire draws the seating)."""
    from pbem.store.models import Seat, User

    with unit_of_work() as s:
        row = s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == seat)).one()
        email = s.get(User, row.user_id).email
    return email, seat_addr(gid, seat)


def mark() -> int:
    with unit_of_work() as s:
        return s.exec(select(Outbound.id).order_by(Outbound.id.desc())).first() or 0


def mails(since: int, to: str) -> list[Outbound]:
    with unit_of_work() as s:
        return list(s.exec(select(Outbound).where(Outbound.id > since, Outbound.to_addr == to).order_by(Outbound.id)))


def reply(since: int, to: str) -> str:
    (r,) = [o for o in mails(since, to) if o.kind == "reply"]
    return r.body_text


def snapshot(gid: int) -> tuple:
    """What a refused HINT must leave as it was."""
    with unit_of_work() as s:
        g = s.get(Game, gid)
        return (g.ply, g.status, len(list(s.exec(select(Hint).where(Hint.game_id == gid)))),
                len(list(s.exec(select(Post).where(Post.game_id == gid)))))


def hint_moves(text: str) -> list[str]:
    return re.findall(r"^\d\. (\S.*?)  ", text, re.M)


@pytest.mark.parametrize("name", GAMES)
def test_hint_by_mail_in_every_title(sqlite_cfg, name):
    gid = practice(name)
    seat = to_move(gid)[0]
    who, addr = holder(gid, seat)
    other = "bob@x.test" if who == "ann@x.test" else "ann@x.test"
    m = mark()
    iid, status = process(who, addr, "HINT")
    assert status == "done"
    text = reply(m, who)
    assert "the search's best moves for you in game #%d are below" % gid in " ".join(text.split())
    assert f"Hint for game #{gid}, ply 0" in text
    shown = hint_moves(text)
    assert 1 <= len(shown) <= 3
    assert re.search(r"about \d+% to win, about \d+\.\d points", text)
    with unit_of_work() as s:
        (row,) = s.exec(select(Hint).where(Hint.game_id == gid)).all()
        assert row.seat == seat and row.ply == 0 and [c["move"] for c in row.choices] == shown
        assert all(set(c["explain"]) == {"en", "ru", "bg", "it"} for c in row.choices)
        notes = [p.body for p in s.exec(select(Post).where(Post.game_id == gid, Post.kind == "notice"))]
        assert any("used a hint at ply 0" in n for n in notes)
        engine = get_game(name)
        state = games.state_at(s, s.get(Game, gid))
        assert all(engine.parse_move(state, seat, mv) is not None for mv in shown)  # legal, as written
    assert mails(m, other) == []  # nobody else is mailed for a hint
    # asked again at the same ply: the recorded hint, no new search, no second notice
    m = mark()
    assert process(who, addr, "hint")[1] == "done"
    again = reply(m, who)
    assert "you asked at this ply already" in " ".join(again.split()) and hint_moves(again) == shown
    with unit_of_work() as s:
        assert len(s.exec(select(Hint).where(Hint.game_id == gid)).all()) == 1


def a_legal_move(gid: int, seat: int) -> str:
    with unit_of_work() as s:
        g = s.get(Game, gid)
        engine = games.engine_for(g)
        state = games.state_at(s, g)
        return engine.format_move(state, seat, engine.legal_moves(state, seat)[0])


def test_hint_in_russian_and_the_table_hears_of_it_without_its_moves(sqlite_cfg):
    gid = practice("spyrium")
    seat = to_move(gid)[0]
    who, addr = holder(gid, seat)
    other = "bob@x.test" if who == "ann@x.test" else "ann@x.test"
    with unit_of_work() as s:
        accounts.set_language(s, accounts.find_user(s, who), "ru")
    m = mark()
    assert process(who, addr, "HINT")[1] == "done"
    text = reply(m, who)
    assert "Подсказка к партии" in text and "очк" in text, text  # the hint in Russian
    shown = hint_moves(text)
    assert shown
    with unit_of_work() as s:
        (row,) = s.exec(select(Hint).where(Hint.game_id == gid)).all()
        ru = [c["explain"]["ru"] for c in row.choices]
    assert any(ru) and all(r in " ".join(text.split()) for r in ru if r and len(r) < 60)
    # the seat plays: the other's board says that it used a hint, and nothing of the hint's moves
    m = mark()
    assert process(who, addr, shown[0])[1] == "done"
    while to_move(gid) == [seat]:
        assert process(who, addr, a_legal_move(gid, seat))[1] == "done"
    boards = [o for o in mails(m, other) if o.kind == "board"]
    assert boards
    body = boards[-1].body_text
    name = "Ann" if who == "ann@x.test" else "Bob"
    assert f"{name} used a hint at ply 0" in body
    assert "practice game with hints" in body
    assert "to win" not in body and "Hint for game" not in body


@pytest.mark.parametrize("case", ["no_hints", "over", "paused", "not_your_turn", "observer", "stranger", "no_game"])
def test_refusals_say_why_and_change_nothing(sqlite_cfg, case):
    gid = practice("squire", hints=case != "no_hints")
    seat = to_move(gid)[0]
    frm, to = holder(gid, seat)
    body = "HINT"
    if case == "over":
        with unit_of_work() as s:
            g = s.get(Game, gid)
            g.status = "finished"
            s.add(g)
    elif case == "paused":
        with unit_of_work() as s:
            g = s.get(Game, gid)
            g.paused = True
            s.add(g)
    elif case == "not_your_turn":
        frm, to = holder(gid, 1 - seat)
    elif case in ("observer", "stranger"):
        with unit_of_work() as s:
            cleo = accounts.register(s, "cleo@x.test", "Cleo", confirmed=True)[0]
            if case == "observer":
                from pbem.services.follow import messages

                messages.observe(s, cleo, s.get(Game, gid))
        frm, to, body = "cleo@x.test", CMD, f"HINT {gid}"
    elif case == "no_game":
        to, body = CMD, "HINT 99999"
    before = snapshot(gid)
    m = mark()
    assert process(frm, to, body)[1] == "done"
    text = " ".join(reply(m, frm).split())
    expected = {"no_hints": ("is not a practice game", "NEW squire players=2 hints=on"), "over": ("is over", f"HISTORY {gid}"), "paused": ("is paused", f"STATUS {gid}"),
                "not_your_turn": ("it is not your turn", f"STATUS {gid}"),
                "observer": ("you have no seat in game", f"STATUS {gid}"),
                "stranger": ("you have no seat in game", f"STATUS {gid}"),
                "no_game": ("there is no game #99999", "GAMES")}[case]
    assert expected[0] in text and "e.g. " + expected[1] in text, text
    assert snapshot(gid) == before


def test_new_by_mail_with_hints_on(sqlite_cfg):
    _users()
    m = mark()
    assert process("ann@x.test", CMD, "NEW squire players=2 hints=on")[1] == "done"
    text = " ".join(reply(m, "ann@x.test").split())
    assert "practice game with hints (never rated)" in text
    with unit_of_work() as s:
        g = s.exec(select(Game).order_by(Game.id.desc())).first()
        assert g.hints and g.game == "squire"
    m = mark()
    assert process("ann@x.test", CMD, "NEW squire players=2 hints=maybe")[1] == "done"
    text = " ".join(reply(m, "ann@x.test").split())
    assert "hints is on or off" in text and "e.g. NEW squire players=2 hints=on" in text
    with unit_of_work() as s:
        assert len(s.exec(select(Game)).all()) == 1
    # a tournament takes no hints: its tables are rated games
    m = mark()
    assert process("ann@x.test", CMD, "TOURNAMENT NEW squire players=2 hints=on")[1] == "done"
    text = " ".join(reply(m, "ann@x.test").split())
    assert "ERROR" in text and "tables are rated games and give no hints" in text  # refused: nothing is made
    assert "NEW squire hints=on" in text
    with unit_of_work() as s:
        from pbem.store.models import Tournament

        assert s.exec(select(Tournament)).all() == []


def test_a_solo_practice_game_answers_hint_too(sqlite_cfg):
    """It's a Wonderful World alone: the search weighs the seat's own score (no other seat to lead)."""
    _users()
    with unit_of_work() as s:
        g = tables.create(s, accounts.find_user(s, "ann@x.test"), "iaww", 1, {}, seed=3, hints=True)
        gid = g.id
    m = mark()
    assert process("ann@x.test", seat_addr(gid, 0), "HINT")[1] == "done"
    text = reply(m, "ann@x.test")
    assert f"Hint for game #{gid}, ply 0" in text and 1 <= len(hint_moves(text)) <= 3


def test_games_lists_a_practice_game_as_one(sqlite_cfg):
    _users()
    with unit_of_work() as s:
        g = tables.create(s, accounts.find_user(s, "ann@x.test"), "squire", 3, {}, hints=True)
        gid = g.id
    m = mark()
    assert process("bob@x.test", CMD, "GAMES")[1] == "done"
    text = reply(m, "bob@x.test")
    line = text[text.index(f"#{gid} Squire"):]
    assert "a practice game with hints (HINT): never rated" in line[:300]
