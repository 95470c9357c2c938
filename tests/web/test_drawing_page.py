"""The board drawn on the game page, without a browser: the page
shows the engine's drawing (through services/core/games.drawing_for, the one
door) with its title and description, before the text board; every move an
element of the drawing offers (``data-moves``) is one of the reader's legal
moves the page lists, and a reader with nothing to play (an observer, a
visitor, a player waiting) is offered none; the history's board route gives
the drawing of the ply asked, with nothing to pick; the live page's parts
carry the drawing too."""
from __future__ import annotations

import html
import json
import re

import pytest

from pbem.services.core import games, seating
from pbem.store.db import unit_of_work
from pbem.store.models import Game
from tests.web.gamepage import TITLES, people, played

SVG_RE = re.compile(r"<svg\b.*?</svg>", re.S)
MOVES_RE = re.compile(r'data-moves="([^"]*)"')
LEGAL_RE = re.compile(r'<button class="mv" type="submit" name="pick" value="([^"]*)"')


def _svg(page: str) -> str:
    """The drawing of a page or fragment (the first SVG document in it)."""
    m = SVG_RE.search(page)
    assert m, "no drawing on the page"
    return m.group(0)


def offered(page: str) -> list[str]:
    """Every move the page's drawing offers, from each element's data-moves."""
    out = []
    for raw in MOVES_RE.findall(_svg(page)):
        value = json.loads(html.unescape(raw))
        assert isinstance(value, list) and all(isinstance(m, str) for m in value), raw
        out += value
    return out


def legal(page: str) -> set[str]:
    return {html.unescape(v) for v in LEGAL_RE.findall(page)}


def _mover(gid: int, a: int, b: int) -> tuple[int, int]:
    """The user to move and the one waiting."""
    with unit_of_work() as s:
        g = s.get(Game, gid)
        first = seating.seats(s, gid)[min(games.engine_for(g).to_move(games.state_at(s, g)))].user_id
    return (a, b) if first == a else (b, a)


def _drawn(gid: int, seat, ply=None, moves=()) -> str:
    with unit_of_work() as s:
        return games.drawing_for(s, games.get(s, gid), seat, moves, ply)


@pytest.mark.parametrize("name", TITLES)
def test_the_page_shows_the_drawing_first_then_the_text_board(web, name):
    a, b, _ = people()
    gid, _ = played(name, a, b, plies=4)
    mover, _ = _mover(gid, a, b)
    c = web()
    c.login_as(mover)
    page = c.get(f"/games/{gid}").get_data(as_text=True)
    svg = _svg(page)
    # a picture; a group when it has elements to click (an image's children are hidden from assistive technology)
    assert f'role="{"group" if "data-moves" in svg else "img"}"' in svg.split(">", 1)[0]
    title, desc = re.search(r"<title[^>]*>(.*?)</title>", svg, re.S), re.search(r"<desc[^>]*>(.*?)</desc>", svg, re.S)
    assert title and title.group(1).strip() and desc and desc.group(1).strip()
    # in the drawing's box, before the text board (which keeps its id)
    assert page.index('id="drawing"') < page.index("<svg") < page.index('id="board"')
    # the toggle and the zoom are the script's: hidden without it, so a page without scripts shows both
    assert re.search(r'<div class="board-tools" id="board-tools" hidden>', page)
    assert 'id="board" ' in page and "hidden" not in re.search(r'<div class="board" id="board"[^>]*>', page).group(0)


@pytest.mark.parametrize("name", TITLES)
def test_the_drawing_offers_only_the_readers_legal_moves(web, name):
    a, b, olga = people()
    gid, _ = played(name, a, b, plies=5)
    mover, waiting = _mover(gid, a, b)
    c = web()
    c.login_as(mover)
    page = c.get(f"/games/{gid}").get_data(as_text=True)
    moves = legal(page)
    assert moves, "the player to move has legal moves listed"
    assert set(offered(page)) <= moves, set(offered(page)) - moves
    # nothing to pick for those who may not move now
    for uid in (waiting, olga, None):
        r = web()
        if uid is not None:
            r.login_as(uid)
        other = r.get(f"/games/{gid}").get_data(as_text=True)
        if legal(other):  # a simultaneous step: the other seat moves too, and is offered its own moves only
            assert set(offered(other)) <= legal(other)
        else:
            assert offered(other) == [] and "data-moves" not in other


def test_the_one_door_draws_the_view_with_the_moves_given(web, monkeypatch):
    """The page gives drawing_for exactly the moves it lists; drawing_for draws the seat's view."""
    a, b, _ = people()
    gid, _ = played("spyrium", a, b, plies=3)
    mover, _ = _mover(gid, a, b)
    seen = []
    real = games.drawing_for

    def spy(s, g, seat, moves=(), ply=None, layout="wide"):
        seen.append((seat, tuple(moves), ply, layout))
        return real(s, g, seat, moves, ply, layout)

    monkeypatch.setattr(games, "drawing_for", spy)
    c = web()
    c.login_as(mover)
    page = c.get(f"/games/{gid}").get_data(as_text=True)
    # each layout the game draws (the wide one, and the narrow one of a phone), with the same moves
    assert [x[3] for x in seen] == ["wide", "narrow"][:len(seen)]
    for seat, moves, ply, _layout in seen:
        assert ply is None and set(moves) == legal(page) and len(moves) == len(legal(page))
    with unit_of_work() as s:
        g = games.get(s, gid)
        view = games.view_for(s, g, seat)
        assert real(s, g, seat) == games.engine_for(g).draw_svg(view)


@pytest.mark.parametrize("name", TITLES)
def test_the_board_route_gives_the_drawing_of_a_past_ply_with_nothing_to_pick(web, name):
    a, b, _ = people()
    gid, _ = played(name, a, b, plies=6)
    mover, _ = _mover(gid, a, b)
    c = web()
    c.login_as(mover)
    with unit_of_work() as s:
        seat = seating.seat_of(s, gid, mover).seat
    for ply in (0, 3, 6):
        frag = c.get(f"/games/{gid}/board?ply={ply}").get_data(as_text=True)
        drawing = re.search(r'<div data-part="drawing">(.*?)</div>\n<div data-part="board">', frag, re.S)
        assert drawing, frag[:300]
        assert _drawn(gid, seat, ply) in drawing.group(1)
        assert "data-moves" not in frag
        assert '<div data-part="board">' in frag
    # ply 0 and ply 6 are different boards
    assert _drawn(gid, seat, 0) != _drawn(gid, seat, 6)
    # a visitor gets the public drawing
    public = web().get(f"/games/{gid}/board?ply=2").get_data(as_text=True)
    assert _drawn(gid, None, 2) in public


def test_the_live_parts_carry_the_drawing(web):
    a, b, _ = people()
    gid, _ = played("squire", a, b, plies=3)
    mover, _ = _mover(gid, a, b)
    c = web()
    c.login_as(mover)
    parts = c.get(f"/games/{gid}/thread.json?stamp=0:running:0").get_json()["parts"]
    assert "<svg" in parts["drawing"] and set(offered(parts["drawing"])) <= legal(parts["move"])
    assert "board-drawing" in parts["drawing"] and "board-drawing" not in parts["board"]


def test_a_drawing_that_fails_leaves_the_text_board(web, monkeypatch):
    a, b, _ = people()
    gid, _ = played("iaww", a, b, plies=2)

    def broken(s, g, seat, moves=(), ply=None, layout="wide"):
        raise RuntimeError("a drawing bug")

    monkeypatch.setattr(games, "drawing_for", broken)
    r = web().get(f"/games/{gid}")
    page = r.get_data(as_text=True)
    assert r.status_code == 200 and "<svg" not in page and 'id="board"' in page and "No picture" in page
