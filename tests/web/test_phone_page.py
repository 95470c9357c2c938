"""The game page on a phone and the tab's signals, without a browser: a game that draws the
narrow layout has both drawings on the page, each in its box (the CSS shows one), the narrow one's ids
its own (no id twice on a page), in the live parts and the history's board route too; a game that draws
only the wide one gets that one alone. The tab's title says "Your turn" in the reader's language while it
is the reader's turn, and its icon has a dot; a poll says when that changes. The winner's trophy is a
drawing, no emoji; a refused password reads as one sentence that says what to do, in every language.
(tests/web/test_phone_browser.py: the same in Chromium.)"""
from __future__ import annotations

import html
import json
import re

import pytest

from pbem.engine import get_game
from pbem.services.core import games, seating
from pbem.store.db import unit_of_work
from pbem.store.models import Game, User
from pbem.web.games import own_ids
from tests.web.gamepage import people, played
from tests.web.test_drawing_browser import tiny

ID_RE = re.compile(r'(?<=\s)id="([^"]+)"')


@pytest.fixture
def tiny_spyrium(monkeypatch):
    monkeypatch.setattr(get_game("spyrium"), "draw_svg", tiny)


def _mover(gid: int, a: int, b: int) -> tuple[int, int]:
    with unit_of_work() as s:
        g = s.get(Game, gid)
        first = seating.seats(s, gid)[min(games.engine_for(g).to_move(games.state_at(s, g)))].user_id
    return (a, b) if first == a else (b, a)


def _boxes(fragment: str) -> list[tuple[str, str]]:
    """The drawing's boxes of a page or part: (class, the SVG's viewBox)."""
    return re.findall(r'<div class="(lay[^"]*)"><svg [^>]*viewBox="([^"]+)"', fragment)


def test_both_layouts_each_in_its_box_with_ids_of_its_own(web, tiny_spyrium):
    a, b, _ = people()
    gid, _ = played("spyrium", a, b, plies=2)
    mover, _ = _mover(gid, a, b)
    c = web()
    c.login_as(mover)
    page = c.get(f"/games/{gid}").get_data(as_text=True)
    boxes = _boxes(page)
    assert [x[0] for x in boxes] == ["lay lay-wide", "lay lay-narrow"], boxes
    assert boxes[1][1] == "0 0 340 420" and boxes[0][1] != boxes[1][1]
    ids = ID_RE.findall(page)
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})
    narrow = page[page.index('<div class="lay lay-narrow">'):]
    narrow = narrow[:narrow.index("</svg>")]
    assert 'aria-labelledby="n-b-title n-b-desc"' in narrow and 'id="n-b-title"' in narrow
    # the same moves to pick in both
    picks = [json.loads(html.unescape(x)) for x in re.findall(r'data-moves="([^"]*)"', page)]
    assert len(picks) == 4 and picks[:2] == picks[2:]
    # the live parts and the history's board route carry both, or the one a page shows when it says which
    for asked, boxes in (("", ["lay lay-wide", "lay lay-narrow"]), ("&layout=wide", ["lay lay-wide"]),
                         ("&layout=narrow", ["lay lay-narrow"]), ("&layout=other", ["lay lay-wide", "lay lay-narrow"])):
        parts = c.get(f"/games/{gid}/thread.json?stamp=0:running:0{asked}").get_json()["parts"]
        assert [x[0] for x in _boxes(parts["drawing"])] == boxes, asked
        assert parts["drawing"].count("data-moves") == 2 * len(boxes)
        frag = c.get(f"/games/{gid}/board?ply=1{asked}").get_data(as_text=True)
        assert [x[0] for x in _boxes(frag)] == boxes and "data-moves" not in frag, asked


def test_a_game_that_draws_only_the_wide_layout_gets_it_alone(web, monkeypatch):
    def wide_only(view, moves=()):
        return tiny(view, moves)

    monkeypatch.setattr(get_game("spyrium"), "draw_svg", wide_only)
    a, b, _ = people()
    gid, _ = played("spyrium", a, b, plies=2)
    page = web().get(f"/games/{gid}").get_data(as_text=True)
    assert [x[0] for x in _boxes(page)] == ["lay"]
    frag = web().get(f"/games/{gid}/board?ply=1&layout=narrow").get_data(as_text=True)
    assert [x[0] for x in _boxes(frag)] == ["lay"]
    with unit_of_work() as s:
        g = games.get(s, gid)
        assert not games.draws(games.engine_for(g), "narrow") and games.draws(games.engine_for(g), "wide")
        with pytest.raises(ValueError):
            games.drawing_for(s, g, 0, layout="narrow")


def test_a_narrow_drawing_that_fails_leaves_the_wide_one(web, monkeypatch, caplog):
    def half_broken(view, moves=(), layout="wide"):
        if layout == "narrow":
            raise RuntimeError("a narrow drawing bug")
        return tiny(view, moves)

    monkeypatch.setattr(get_game("spyrium"), "draw_svg", half_broken)
    a, b, _ = people()
    gid, _ = played("spyrium", a, b, plies=2)
    r = web().get(f"/games/{gid}")
    assert r.status_code == 200 and [x[0] for x in _boxes(r.get_data(as_text=True))] == ["lay"]
    assert "narrow board" in caplog.text
    # a page that shows the narrow one, asking again, gets the wide one
    frag = web().get(f"/games/{gid}/board?ply=1&layout=narrow").get_data(as_text=True)
    assert [x[0] for x in _boxes(frag)] == ["lay lay-wide"]


def test_own_ids_renames_every_id_and_reference():
    svg = ('<svg aria-labelledby="x-title x-desc" role="img"><title id="x-title">T</title><desc id="x-desc">D</desc>'
           '<defs><symbol id="x-icon" viewBox="0 0 2 2"/><clipPath id="x-clip"/></defs>'
           '<g data-id="keep" clip-path="url(#x-clip)"><use href="#x-icon"/><use xlink:href="#x-icon"/>'
           '<a href="#elsewhere">a</a></g></svg>')
    out = own_ids(svg, "n-")
    assert ID_RE.findall(out) == ["n-x-title", "n-x-desc", "n-x-icon", "n-x-clip"]
    assert 'aria-labelledby="n-x-title n-x-desc"' in out and 'url(#n-x-clip)' in out
    assert out.count('href="#n-x-icon"') == 2 and 'href="#elsewhere"' in out and 'data-id="keep"' in out


# ---------------------------------------------------------------- the tab: title and icon


def _title(page: str) -> str:
    return re.search(r"<title>(.*?)</title>", page, re.S).group(1)


def _icon(page: str) -> str:
    return re.search(r'<link rel="icon" id="favicon" type="image/svg\+xml" href="([^"]+)"', page).group(1)


def test_the_tab_says_your_turn_to_the_player_to_move_only(web):
    a, b, olga = people()
    gid, _ = played("squire", a, b, plies=2)
    mover, waiting = _mover(gid, a, b)
    seen = {}
    for uid in (mover, waiting, olga, None):
        c = web()
        if uid is not None:
            c.login_as(uid)
        page = c.get(f"/games/{gid}").get_data(as_text=True)
        seen[uid] = (_title(page), _icon(page))
        script = re.search(r'<script [^>]*id="game-js"[^>]*>', page).group(0)
        assert f'data-title="Squire #{gid} · pbem"' in script
        assert f'data-title-turn="Your turn — Squire #{gid} · pbem"' in script
    assert seen[mover] == (f"Your turn — Squire #{gid} · pbem", "/static/icon-turn.svg")
    for uid in (waiting, olga, None):
        assert seen[uid] == (f"Squire #{gid} · pbem", "/static/icon.svg")
    for name in ("icon.svg", "icon-turn.svg"):
        r = web().get(f"/static/{name}")
        assert r.status_code == 200 and r.get_data(as_text=True).startswith("<svg")


@pytest.mark.parametrize("lang,words", [("ru", "Ваш ход — "), ("bg", "Ваш ход — "), ("it", "Tocca a te — ")])
def test_the_tab_says_your_turn_in_the_readers_language(web, lang, words):
    a, b, _ = people()
    gid, _ = played("iaww", a, b, plies=0)
    with unit_of_work() as s:
        for uid in (a, b):
            s.get(User, uid).language = lang
    c = web()
    c.login_as(_mover(gid, a, b)[0])
    page = c.get(f"/games/{gid}").get_data(as_text=True)
    assert _title(page).startswith(words) and _title(page).endswith(f"#{gid} · pbem"), _title(page)
    assert f'data-title-turn="{words}' in page


def test_a_poll_says_whose_turn_it_is_when_the_board_changed(web):
    from pbem.services.core import moves

    a, b, _ = people()
    gid, _ = played("squire", a, b, plies=2)
    mover, waiting = _mover(gid, a, b)
    c = web()
    c.login_as(waiting)
    stamp = c.get(f"/games/{gid}/thread.json").get_json()["stamp"]
    with unit_of_work() as s:
        g = games.get(s, gid)
        engine = games.engine_for(g)
        state = games.state_at(s, g)
        seat = min(engine.to_move(state))
        move = engine.format_move(state, seat, engine.legal_moves(state, seat)[0])
        assert moves.submit_moves(s, gid, seat, [move], source="web").ok
    answer = c.get(f"/games/{gid}/thread.json?stamp={stamp}").get_json()
    with unit_of_work() as s:
        g = games.get(s, gid)
        now = seating.seats(s, gid)[min(games.engine_for(g).to_move(games.state_at(s, g)))].user_id
    assert answer["parts"] and answer["your_turn"] is (now == waiting)
    quiet = c.get(f"/games/{gid}/thread.json?stamp={answer['stamp']}").get_json()
    assert "your_turn" not in quiet  # nothing changed: the page keeps what it shows


# ---------------------------------------------------------------- the trophy


def test_the_winners_trophy_is_a_drawing_not_an_emoji(web):
    a, b, _ = people()
    gid, _ = played("mini", a, b, plies=10, options={"hand": 1})
    with unit_of_work() as s:
        assert games.get(s, gid).status == "finished"
    page = web().get(f"/games/{gid}").get_data(as_text=True)
    assert "🏆" not in page
    trophies = re.findall(r'<svg class="trophy"[^>]*>', page)
    assert trophies and all('aria-hidden="true"' in x for x in trophies)
    assert re.search(r'<svg class="trophy".*?</svg> winner', page, re.S)


# ---------------------------------------------------------------- a refused password


SENTENCES = {
    "en": ("Game #{id} needs a password to join: type it in the Password field next to Join, and ask the "
           "game's creator for it if you do not have it.",
           "That is not the password of game #{id}, so you have not joined: type it again in the Password field "
           "next to Join, minding its capital letters, or ask the game's creator for it."),
    "ru": ("Чтобы присоединиться к партии №{id}, нужен пароль: введите его в поле «Пароль»",
           "Это не пароль партии №{id}, поэтому вы не присоединились:"),
    "bg": ("За да се присъедините към игра №{id}, трябва парола: въведете я в полето „Парола“",
           "Това не е паролата на игра №{id}, затова не сте се присъединили:"),
    "it": ("Per unirti alla partita #{id} serve una password: scrivila nel campo Password accanto a Unisciti",
           "Questa non è la password della partita #{id}, quindi non hai preso posto:"),
}


@pytest.mark.parametrize("lang", SENTENCES)
def test_a_refused_password_is_one_sentence_that_says_what_to_do(web, lang):
    from tests.web.conftest import make_user
    from tests.web.test_private_games import create

    ann = web()
    ann.login_as(make_user("ann@example.org", "Ann"))
    gid = create(ann, "password", "heron7")
    ben_id = make_user("ben@example.org", "Ben")
    with unit_of_work() as s:
        s.get(User, ben_id).language = lang
    ben = web()
    ben.login_as(ben_id)
    for password, sentence in zip(("", "Heron7"), SENTENCES[lang]):
        ben.post(f"/games/{gid}/join", {"password": password} if password else {}, page="/lobby")
        page = html.unescape(ben.get(f"/games/{gid}").get_data(as_text=True))  # (the page escapes quotes)
        flash = re.search(r'<div class="flash error"[^>]*>(.*?)</div>', page, re.S).group(1)
        assert flash.startswith(sentence.format(id=gid)), flash
        # one sentence: no hint in brackets after it, a capital letter first and a full stop last
        assert "(" not in flash and flash.endswith(".") and flash[0].isupper(), flash
