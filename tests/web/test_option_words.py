"""The lobby's create form offers each game's options in words, with a short explanation each, in
the reader's language (never the codes a mail writes: british/world, choose/random, S1, empire ids);
the game page says the chosen options the same way; an option only a site admin may set (Squire's
replacement data) is neither shown to a player nor taken from one."""
from __future__ import annotations

import re
from html import unescape

import pytest
from sqlmodel import select

from pbem.engine import get_game
from pbem.store.db import unit_of_work
from pbem.store.models import Game, User
from tests.web.conftest import make_user

CODES = ("british", "world", "choose", "random", "auto", "none") + tuple(f"S{n}" for n in range(1, 7)) + \
    get_game("iaww").options[3].choices[1:]


def _choices_shown(html: str) -> list[str]:
    """The words of every option of the games' own selects (name="opt_...")."""
    out = []
    for select_html in re.findall(r'<select name="opt_[^"]+">(.*?)</select>', html, re.S):
        out += [unescape(x).strip() for x in re.findall(r"<option[^>]*>([^<]*)</option>", select_html)]
    return out


def _set_language(uid: int, code: str) -> None:
    with unit_of_work() as s:
        u = s.get(User, uid)
        u.language, u.language_chosen = code, True
        s.add(u)


@pytest.mark.parametrize("code", ["en", "ru", "bg", "it"])
def test_the_create_form_offers_words_and_hides_admin_options(web, code):
    uid = make_user("ann@example.org", "Ann")
    _set_language(uid, code)
    ann = web()
    ann.login_as(uid)
    html = ann.get("/lobby").get_data(as_text=True)
    shown = _choices_shown(html)
    assert len(shown) > 20, shown
    for word in shown:
        assert word not in CODES, (code, word)
        assert len(word) > 5 or code == "en", (code, word)
    assert "(D12)" not in html and "§" not in html
    assert 'name="opt_data"' not in html  # the admin's option
    if code != "en":
        assert not [w for w in shown if re.fullmatch(r"[\x00-\x7f]+", w) and code != "it"], shown


def test_an_admin_sees_the_data_option_and_a_player_cannot_set_it(web):
    admin, player = make_user("ada@example.org", "Ada", admin=True), make_user("bo@example.org", "Bo")
    root, bo = web(), web()
    root.login_as(admin)
    bo.login_as(player)
    assert 'name="opt_data"' in root.get("/lobby").get_data(as_text=True)
    bo.post("/lobby/new", {"game": "squire", "players": "2", "opt_data": "[rules]\nx = 1\n", "deadline_hours": "24"},
            page="/lobby")
    assert "was not created" in bo.get("/lobby").get_data(as_text=True)
    with unit_of_work() as s:
        assert not list(s.exec(select(Game)))


def test_the_game_page_says_the_options_in_words(web):
    uid = make_user("ann@example.org", "Ann")
    _set_language(uid, "ru")
    ann = web()
    ann.login_as(uid)
    r = ann.post("/lobby/new", {"game": "squire", "players": "2", "opt_side": "world", "deadline_hours": "24"},
                 page="/lobby")
    gid = int(r.headers["Location"].rsplit("/", 1)[1])
    html = unescape(ann.get(f"/games/{gid}").get_data(as_text=True))
    line = re.search(r"Параметры:?[^<]*|Настройки:?[^<]*|Опции:?[^<]*", html)
    assert "Сторона поля: Карта мира" in html and "side=world" not in html and "boards=choose" not in html, \
        line.group(0) if line else html[:500]
