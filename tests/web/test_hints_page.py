"""Practice games with hints on the web: the lobby's create form makes one (marked in the lobby and
on the game page), the Hint button (a plain form with its CSRF token, no script needed) shows the seat
to move the search's three best moves, the table sees that the seat used a hint but never its moves
while the game runs, everyone sees them once it is over, and a refused hint changes nothing."""
from __future__ import annotations

import re

import pytest
from sqlmodel import select

from pbem.services.core import games
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Hint, Post, Seat, User
from tests.web.conftest import make_user


@pytest.fixture
def people(web):
    ids = {n: make_user(f"{n}@example.org", n.title()) for n in ("ann", "ben", "cat")}
    out = {}
    for n, uid in ids.items():
        out[n] = web()
        out[n].login_as(uid)
    out["visitor"] = web()
    return out


def page(b, url: str) -> str:
    return b.get(url).get_data(as_text=True)


def create(b, hints: bool) -> int:
    form = {"game": "spyrium", "players": "2", "deadline_hours": "48", "policy": "wait", "day_mask": "",
            "access": "public", "password": ""}
    if hints:
        form["hints"] = "on"
    r = b.post("/lobby/new", form, page="/lobby")
    assert r.status_code == 303, r.get_data(as_text=True)
    return int(r.headers["Location"].rsplit("/", 1)[1])


def mover(gid: int) -> str:
    with unit_of_work() as s:
        g = s.get(Game, gid)
        seat = min(games.engine_for(g).to_move(games.state_at(s, g)))
        row = s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == seat)).one()
        return s.get(User, row.user_id).email.split("@")[0]


def state_of(gid: int) -> tuple:
    with unit_of_work() as s:
        g = s.get(Game, gid)
        return (g.ply, g.status, len(s.exec(select(Hint).where(Hint.game_id == gid)).all()),
                len(s.exec(select(Post).where(Post.game_id == gid)).all()))


def hint_moves(html: str) -> list[str]:
    box = html[html.index('id="hint-moves"'):]
    return re.findall(r"<li><code>([^<]+)</code>", box[:box.index("</ol>")])


def test_create_mark_and_the_hint_button(people):
    ann, ben, cat, visitor = people["ann"], people["ben"], people["cat"], people["visitor"]
    gid = create(ann, hints=True)
    lobby = page(visitor, "/lobby")
    row = lobby[lobby.index(f'id="open-{gid}"'):]
    assert "practice game with hints" in row[:row.index("</tr>")]
    assert ben.post(f"/games/{gid}/join", page="/lobby").status_code == 303
    with unit_of_work() as s:
        assert s.get(Game, gid).hints and s.get(Game, gid).status == "running"
    assert "practice game with hints" in page(visitor, f"/games/{gid}")
    who = mover(gid)
    me, other = (ann, ben) if who == "ann" else (ben, ann)
    html = page(me, f"/games/{gid}")
    assert 'id="hint"' in html and f'action="/games/{gid}/hint"' in html
    assert 'id="hint"' not in page(other, f"/games/{gid}")  # not its turn
    assert 'id="hint"' not in page(cat, f"/games/{gid}") and 'id="hint"' not in page(visitor, f"/games/{gid}")
    # the button: a plain POST with the page's CSRF token
    r = me.post(f"/games/{gid}/hint", page=f"/games/{gid}")
    assert r.status_code == 303 and r.headers["Location"].endswith("#hint-box")
    html = page(me, f"/games/{gid}")
    assert "the table is told that you used a hint" in html
    shown = hint_moves(html)
    assert 1 <= len(shown) <= 3 and re.search(r"about \d+% to win, about \d+\.\d points", html)
    with unit_of_work() as s:
        assert [c["move"] for c in s.exec(select(Hint).where(Hint.game_id == gid)).one().choices] == shown
    name = who.title()
    # the others see that it was used, never its moves
    for b in (other, cat, visitor):
        seen = page(b, f"/games/{gid}")
        assert f"{name} used a hint at ply 0" in seen
        assert 'id="hint-moves"' not in seen and "to win" not in seen
        for mv in shown:
            assert f"<code>{mv}</code>" not in seen
    # asked again: the same hint, no new search
    before = state_of(gid)
    me.post(f"/games/{gid}/hint", page=f"/games/{gid}")
    assert "this is the same hint" in page(me, f"/games/{gid}") and state_of(gid) == before
    # refused: not your turn, a visitor, without CSRF -- nothing changes
    r = other.post(f"/games/{gid}/hint", page=f"/games/{gid}")
    assert r.status_code == 303 and "it is not your turn in game" in page(other, f"/games/{gid}")
    assert visitor.post(f"/games/{gid}/hint", page=f"/games/{gid}").status_code in (302, 303, 401, 403)
    assert me.post(f"/games/{gid}/hint", csrf=False).status_code in (400, 403)
    assert state_of(gid) == before
    # over: everyone reads the hint's moves
    with unit_of_work() as s:
        g = s.get(Game, gid)
        g.status = "finished"
        s.add(g)
    seen = page(visitor, f"/games/{gid}")
    assert all(f"<code>{mv}</code>" in seen for mv in shown)


def test_a_game_without_hints_has_no_button_and_refuses(people):
    ann, ben = people["ann"], people["ben"]
    gid = create(ann, hints=False)
    assert ben.post(f"/games/{gid}/join", page="/lobby").status_code == 303
    me = ann if mover(gid) == "ann" else ben
    html = page(me, f"/games/{gid}")
    assert 'id="hint"' not in html and "practice game with hints" not in html
    before = state_of(gid)
    me.post(f"/games/{gid}/hint", page=f"/games/{gid}")
    assert "is not a practice game" in page(me, f"/games/{gid}")
    assert state_of(gid) == before


@pytest.mark.parametrize("lang, mark, button, since", [
    ("ru", "тренировочная партия с подсказками", "Подсказка", "взял(а) подсказку"),
    ("bg", "тренировъчна игра с подсказки", "Подсказка", "взе подсказка"),
    ("it", "partita di allenamento con suggerimenti", "Suggerimento", "ha usato un suggerimento"),
])
def test_the_practice_mark_and_the_hint_in_other_languages(people, lang, mark, button, since):
    ann, ben, visitor = people["ann"], people["ben"], people["visitor"]
    gid = create(ann, hints=True)
    assert ben.post(f"/games/{gid}/join", page="/lobby").status_code == 303
    me = ann if mover(gid) == "ann" else ben
    from pbem.services.core import accounts

    with unit_of_work() as s:  # a player reads the site in their account's language
        for u in s.exec(select(User)):
            accounts.set_language(s, u, lang)
    html = me.get(f"/games/{gid}").get_data(as_text=True)
    assert mark in html and f">{button}</button>" in html
    assert mark in visitor.get("/lobby", headers={"Accept-Language": lang}).get_data(as_text=True)
    me.post(f"/games/{gid}/hint", page=f"/games/{gid}")
    seen = visitor.get(f"/games/{gid}", headers={"Accept-Language": lang}).get_data(as_text=True)
    assert since in seen  # the thread's notice, in the reader's language
