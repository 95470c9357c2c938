"""Hints, in the services: a practice game is recorded, never rated; a hint is read from the seat's
own view only (two states the seat cannot tell apart give the same hint, in every title); its moves
are that seat's alone while the game runs, everyone's once it is over; a game without a search bot
takes no hints."""
from __future__ import annotations

import pytest
from sqlmodel import select

from pbem.engine import get_game
from pbem.services.core import accounts, games, visibility
from pbem.services.core.errors import UserError
from pbem.services.lobby import ratings, tables
from pbem.services.turns import hints
from pbem.store.db import unit_of_work
from pbem.store.models import Game, GameResult, Rating, User
from tests.bots.test_search_secrecy import _positions, _twin

GAMES = ("spyrium", "squire", "iaww")


def _two(name: str = "spyrium", *, practice: bool = True) -> int:
    with unit_of_work() as s:
        ann = accounts.find_user(s, "ann@x.test") or accounts.register(s, "ann@x.test", "Ann", confirmed=True)[0]
        bob = accounts.find_user(s, "bob@x.test") or accounts.register(s, "bob@x.test", "Bob", confirmed=True)[0]
        g = tables.create(s, ann, name, 2, {}, seed=9, hints=practice)
        tables.join(s, bob, g.id)
        return g.id


def _finish(gid: int) -> None:
    with unit_of_work() as s:
        g = games.get(s, gid, lock=True)
        g.status, g.outcome = "finished", {"scores": [30, 20], "winners": [0]}
        s.add(g)
        ratings.finished(s, g)


def test_a_practice_game_is_recorded_and_never_rated(sqlite_cfg):
    gid = _two(practice=True)
    _finish(gid)
    with unit_of_work() as s:
        results = s.exec(select(GameResult).where(GameResult.game_id == gid)).all()
        assert len(results) == 2 and all(r.mu_before == r.mu_after for r in results)
        assert s.exec(select(Rating)).all() == []
    rated = _two(practice=False)  # the same game without hints is rated
    _finish(rated)
    with unit_of_work() as s:
        assert len(s.exec(select(Rating)).all()) == 2


@pytest.mark.parametrize("name", GAMES)
def test_a_hint_depends_on_the_seats_view_and_the_seed_only(name):
    game = get_game(name)
    checked = 0
    for k, (state, seat) in enumerate(_positions(name, 3, seed=13, every=7)):
        twin = _twin(name, state, seat, k)
        assert game.view(twin, seat) == game.view(state, seat)
        a = hints.compute(game, state, seat, 500 + k)
        b = hints.compute(game, twin, seat, 500 + k)
        assert a == b, f"{name}, position {k}: the hint read something seat {seat + 1} cannot see"
        assert 1 <= len(a) <= hints.SHOWN and all(set(c["explain"]) == {"en", "ru", "bg", "it"} for c in a)
        checked += 1
        if checked >= 2:
            break
    assert checked == 2


def test_the_moves_are_the_seats_alone_until_the_game_is_over(sqlite_cfg):
    gid = _two("squire")
    with unit_of_work() as s:
        g = s.get(Game, gid)
        seat = min(games.engine_for(g).to_move(games.state_at(s, g)))
        me = s.get(User, [x for x in games.seating.seats(s, gid) if x.seat == seat][0].user_id)
        asked = hints.ask(s, g, me)
        assert asked.fresh and hints.ask(s, g, me).fresh is False  # one per position
        mine = visibility.hints(s, g, visibility.Viewer(me.id, seat))
        theirs = visibility.hints(s, g, visibility.Viewer(None, 1 - seat))
        public = visibility.hints(s, g, visibility.Viewer())
        assert [c.move for c in mine[0].choices] == [c["move"] for c in asked.hint.choices]
        assert theirs[0].choices is None and public[0].choices is None
        assert visibility.hint_lines(s, g, 1 - seat, 0) == [f"{mine[0].who} used a hint at ply 0"]
        assert visibility.hint_lines(s, g, seat, 0) == []  # one's own is no news
        g.status = "finished"
        s.add(g)
        assert visibility.hints(s, g, visibility.Viewer())[0].choices == mine[0].choices


def test_a_game_without_a_search_bot_takes_no_hints(sqlite_cfg):
    with unit_of_work() as s:
        ann = accounts.register(s, "ann@x.test", "Ann", confirmed=True)[0]
        with pytest.raises(UserError) as e:
            tables.create(s, ann, "mini", 2, {}, hints=True)
        assert "no search bot to give hints" in e.value.message and e.value.example
        assert s.exec(select(Game)).all() == []


def test_the_final_mail_gives_every_hints_moves_to_everyone(sqlite_cfg):
    from pbem.services.core import notify
    from pbem.store.models import Outbound

    gid = _two("squire")
    with unit_of_work() as s:
        g = s.get(Game, gid)
        seat = min(games.engine_for(g).to_move(games.state_at(s, g)))
        me = s.get(User, [x for x in games.seating.seats(s, gid) if x.seat == seat][0].user_id)
        moves_ = [c["move"] for c in hints.ask(s, g, me).hint.choices]
        g.status, g.outcome = "finished", {"scores": [3, 1], "winners": [0]}
        s.add(g)
        notify.queue_boards(s, g, "The game is over.")
    with unit_of_work() as s:
        finals = [o for o in s.exec(select(Outbound)) if o.kind == "board"]
    assert {o.to_addr for o in finals} == {"ann@x.test", "bob@x.test"}
    for o in finals:
        assert f"{me.name} used a hint at ply 0: " in o.body_text and all(m in o.body_text for m in moves_)
