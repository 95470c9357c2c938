"""The game thread worth reading, without a browser: the moves of a turn or round folded into one line
(as the one door, services/core/visibility, gives each move its turn), Talk / Moves / All kept with the
account, and notices and private posts marked in the reader's language. The browser's side is
tests/web/test_thread_browser.py."""
from __future__ import annotations

import json
import re
from html import unescape

from pbem.services.core import games, seating, thread
from pbem.store.db import unit_of_work
from pbem.store.models import Game, User
from pbem.web import threadview
from tests.web.gamepage import people, played

FOLD = re.compile(r'<details class="fold" data-turn="([^"]*)"[^>]*>\s*<summary><span class="fold-who">([^<]*)</span> — '
                  r'<span class="fold-count">([^<]*)</span>')
POST = re.compile(r'<div class="post [^"]*" data-id="(\d+)">')


def _thread(html: str) -> str:
    return html.split('id="thread"', 1)[1]


def test_lines_fold_a_run_of_moves_of_one_turn_and_keep_the_talk_in_its_place():
    def mv(i, who, turn):
        return {"id": i, "kind": "move", "author": who, "turn": turn}

    posts = [mv(1, "Ann", "r1"), mv(2, "Bob", "r1"), {"id": 3, "kind": "post", "author": "Bob"}, mv(4, "Ann", "r1"),
             mv(5, "Ann", "r2"), mv(6, "Cat", "r2"), mv(7, "Ann", "r2"), {"id": 8, "kind": "notice", "author": "pbem"}]
    out = threadview.lines(posts)
    assert [("fold" in x, [p["id"] for p in x.get("fold", [x.get("post")])]) for x in out] == [
        (True, [1, 2]), (False, [3]), (True, [4]), (True, [5, 6, 7]), (False, [8])]
    assert out[3]["names"] == ["Ann", "Cat"]


def test_the_moves_of_a_round_make_one_line_and_open_on_the_moves_as_today(web):
    a, b, _ = people()
    gid, _ = played("spyrium", a, b, plies=40, talk=0)
    with unit_of_work() as s:
        g = s.get(Game, gid)
        thread.post(s, g, s.get(User, b), "Good luck!")
    c = web()
    c.login_as(a)
    html = _thread(c.get(f"/games/{gid}").get_data(as_text=True))
    folds = FOLD.findall(html)
    assert 2 <= len(folds) <= 6, folds  # 40 Spyrium moves are a few rounds, not 40 lines
    assert sum(int(re.match(r"\d+", n).group(0)) for _t, _w, n in folds) == 40
    assert {who for _t, who, _n in folds} <= {"Anna", "Boris", "Anna, Boris", "Boris, Anna"}
    assert any(", " in who for _t, who, _n in folds)
    # every move is still there, as today, inside its line; the talk is a line of its own, on top
    assert html.count('<div class="post move') == 40 and html.count("played <code>") == 40
    # each line says which plies it holds: together, every one from 1 to 40 once
    spans = [(int(a), int(b)) for a, b in re.findall(r'data-first="(\d+)" data-last="(\d+)"', html)]
    assert sorted(spans)[0][0] == 1 and max(b for _a, b in spans) == 40
    assert sum(b - a + 1 for a, b in spans) == 40 and "plies %d–%d" % spans[0] in html
    assert POST.search(html).group(0).startswith('<div class="post post talk"')
    # the live page gets each move's turn, the same word the page folded by
    tj = c.get(f"/games/{gid}/thread.json").get_json()
    turns = [p["turn"] for p in tj["posts"] if p["kind"] == "move"]
    assert [t for t, _w, _n in reversed(folds)] == list(dict.fromkeys(turns))


def test_a_finished_solo_game_is_a_handful_of_lines_and_its_talk(web):
    a = people()[0]
    gid = solo_finished(a)
    c = web()
    c.login_as(a)
    html = _thread(c.get(f"/games/{gid}").get_data(as_text=True))
    folds = FOLD.findall(html)
    with unit_of_work() as s:
        plies = s.get(Game, gid).ply
    assert plies >= 40 and 4 <= len(folds) <= 14, (plies, len(folds))
    assert "Off I go" in html and "That was close" in html
    assert 'id="older"' not in html  # the whole game fits the page's lines


def solo_finished(user: int, seed: int = 5) -> int:
    """A solo It's a Wonderful World played to its end by the bot (a few words of talk on the way)."""
    from pbem.engine.bots import choose

    from pbem.services.core import moves
    from pbem.services.lobby import tables

    with unit_of_work() as s:
        g = tables.create(s, s.get(User, user), "iaww", 1, {}, seed=seed)
        gid = g.id
        thread.post(s, g, s.get(User, user), "Off I go")
    engine = games.engine_for(g)
    for i in range(2000):
        with unit_of_work() as s:
            g = games.get(s, gid)
            state = games.state_at(s, g)
            if not engine.to_move(state):
                break
            move = choose(engine, state, 0, seed + i, "easy")
            res = moves.submit_moves(s, gid, 0, [engine.format_move(state, 0, move)], source="web")
            assert res.ok, res.error
            if i == 30:
                thread.post(s, g, s.get(User, user), "That was close")
    with unit_of_work() as s:
        assert s.get(Game, gid).status == "finished"
    return gid


def test_talk_moves_or_all_is_kept_with_the_account(web):
    a, b, _ = people()
    gid, _ = played("squire", a, b, plies=6, talk=2)
    c = web()
    c.login_as(a)
    assert 'data-show="all"' in c.get(f"/games/{gid}").get_data(as_text=True)
    r = c.post(f"/games/{gid}/thread-show", {"show": "talk"}, page=f"/games/{gid}")
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/games/{gid}#thread")
    assert 'data-show="talk"' in c.get(f"/games/{gid}").get_data(as_text=True)
    other = web()  # another device: the choice came with the account
    other.login_as(a)
    html = other.get(f"/games/{gid}").get_data(as_text=True)
    assert 'data-show="talk"' in html and re.search(r'value="talk" aria-pressed="true"', html)
    # the script asks for JSON: no page comes back
    r = other.post(f"/games/{gid}/thread-show", {"show": "moves"}, page=f"/games/{gid}",
                   headers={"Accept": "application/json"})
    assert r.status_code == 200 and r.get_json() == {"ok": True, "show": "moves"}
    with unit_of_work() as s:
        assert s.get(User, a).thread_filter == "moves" and s.get(User, b).thread_filter == "all"
    r = other.post(f"/games/{gid}/thread-show", {"show": "gossip"}, page=f"/games/{gid}",
                   headers={"Accept": "application/json"})
    assert r.status_code == 400
    with unit_of_work() as s:
        assert s.get(User, a).thread_filter == "moves"
    # a visitor chooses in the address; nothing is kept
    visitor = web()
    assert 'data-show="talk"' in visitor.get(f"/games/{gid}?thread=talk").get_data(as_text=True)
    assert 'data-show="all"' in visitor.get(f"/games/{gid}").get_data(as_text=True)
    assert visitor.post(f"/games/{gid}/thread-show", {"show": "talk"}, page="/login").status_code == 302


def test_notices_and_private_posts_are_marked_in_the_readers_language(web):
    a, b, _ = people()
    gid, _ = played("squire", a, b, plies=2, talk=0)
    with unit_of_work() as s:
        g = s.get(Game, gid)
        thread.post(s, g, None, "The tournament director looked at this game.", kind="notice", source="system")
        seat_a = seating.seat_of(s, gid, a).seat
        thread.post(s, g, s.get(User, b), "A word between us", to_seat=seat_a)
        s.get(User, a).language = "ru"
    c = web()
    c.login_as(a)
    html = _thread(c.get(f"/games/{gid}").get_data(as_text=True))
    assert re.search(r'<div class="post notice[^"]*" data-id="\d+">\s*'
                     r'<span class="mark mark-notice">Уведомление</span>', html)
    assert re.search(r'<div class="post post talk private" data-id="\d+">\s*'
                     r'<span class="mark mark-private">Лично</span>', html)
    words = json.loads(unescape(re.search(r"data-thread-words='([^']*)'", html).group(1)))
    assert words["Notice"] == "Уведомление" and words["Private"] == "Лично"
    assert words["moves"] == {"one": "%(num)d ход", "few": "%(num)d хода", "many": "%(num)d ходов"}


def test_a_secret_choice_keeps_its_secret_and_its_step_in_the_fold(web):
    """In a secret step the others see one "made a secret choice" a seat, and its turn is the step's: the
    same for every choice of the step, so the line tells nothing the door does not."""
    a, b, _ = people()
    gid, _ = played("iaww", a, b, plies=0, talk=0)
    with unit_of_work() as s:
        g = s.get(Game, gid)
        engine = games.engine_for(g)
        state = games.state_at(s, g)
        seat_a = seating.seat_of(s, gid, a).seat
        move = engine.format_move(state, seat_a, engine.legal_moves(state, seat_a)[0])
    from pbem.services.core import moves

    with unit_of_work() as s:
        assert moves.submit_moves(s, gid, seat_a, [move], source="web").ok
    c = web()
    c.login_as(b)
    html = _thread(c.get(f"/games/{gid}").get_data(as_text=True))
    assert move not in html and "played <code>" not in html
    assert "made a secret choice" in html
    folds = FOLD.findall(html)
    assert len(folds) == 1 and folds[0][1] == "Anna"
    tj = c.get(f"/games/{gid}/thread.json").get_json()
    (mine,) = [p for p in tj["posts"] if p["kind"] == "move"]
    assert mine["hidden"] and mine["turn"] == folds[0][0]
