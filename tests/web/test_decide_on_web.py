"""The game page carries what a decision needs: what the others
did since your last move, your deadline and the no-move policy, your options
explained in words; the record in words; each game's cards."""
from __future__ import annotations

import html
import re

from markupsafe import escape

from pbem.engine import get_game
from pbem.services.core import games, moves, visibility
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import User
from tests.web.conftest import make_user


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def _iaww_table() -> tuple[int, list[int]]:
    uids = [make_user(f"{n}@x.test", n.title()) for n in ("ann", "bob", "cleo")]
    with unit_of_work() as s:
        g = tables.create(s, s.get(User, uids[0]), "iaww", 3, {}, seed=4, policy="abandon")
        for uid in uids[1:]:
            tables.join(s, s.get(User, uid), g.id)
        return g.id, uids


def _pick(gid: int, seat: int) -> str:
    with unit_of_work() as s:
        g = games.get(s, gid)
        engine, state = games.engine_for(g), games.state_at(s, g)
        text = engine.format_move(state, seat, engine.legal_moves(state, seat)[0])
        assert moves.submit_moves(s, gid, seat, [text], source="web").applied
        return text


def test_the_game_page_says_what_happened_the_deadline_and_the_options_in_words(web):
    gid, uids = _iaww_table()
    b = web()
    b.login_as(uids[2])
    _pick(gid, 0)
    _pick(gid, 1)
    page = b.get(f"/games/{gid}").get_data(as_text=True)
    since = re.search(r'<div id="since">(.*?)</div>', page, re.S).group(1)
    assert _text(since).split() == _text(
        f"Since your last move: Ann {visibility.SECRET_POST} Bob {visibility.SECRET_POST}").split()
    deadline = _text(re.search(r'<p class="muted" id="deadline">(.*?)</p>', page, re.S).group(1))
    assert deadline.startswith("Your move is due by ") and "(UTC)" in deadline
    assert "after 3 missed deadlines the seat is abandoned" in deadline
    # each legal move with its explanation, from the engine
    with unit_of_work() as s:
        g = games.get(s, gid)
        engine, state = games.engine_for(g), games.state_at(s, g)
        first = engine.legal_moves(state, 2)[0]
        words = engine.explain_move(state, 2, first)
    assert html.escape(words, quote=False) in page or html.escape(words) in page
    assert 'id="options"' in page and "Your options, in words" in page
    # once Cleo picks, the step is revealed: Ann's page names the others' picks
    _pick(gid, 2)
    a = web()
    a.login_as(uids[0])
    since = _text(re.search(r'<div id="since">(.*?)</div>', a.get(f"/games/{gid}").get_data(as_text=True),
                            re.S).group(1))
    assert visibility.SECRET_POST not in since and "Bob picked" in since and "Cleo picked" in since


def test_the_history_page_tells_the_game_in_words_as_the_reader_may_read_it(web):
    gid, uids = _iaww_table()
    ann_pick = _pick(gid, 0)
    ann, cleo = web(), web()
    ann.login_as(uids[0])
    cleo.login_as(uids[2])
    card = ann_pick.split()[-1]
    mine = _text(ann.get(f"/games/{gid}/history").get_data(as_text=True))
    theirs = _text(cleo.get(f"/games/{gid}/history").get_data(as_text=True))
    visitor = _text(web().get(f"/games/{gid}/history").get_data(as_text=True))
    assert "1. Ann picked" in mine
    for other in (theirs, visitor):
        # numbered as the step's start, 0: a secret choice's own ply would count the choices before it
        assert f"0. Ann {visibility.SECRET_POST}" in other and card not in other.replace("_", " ")


def test_the_cards_page_shows_every_card_and_finds_one(web):
    b = web()
    engine = get_game("spyrium")
    page = b.get("/rules/spyrium/cards").get_data(as_text=True)
    assert all(str(escape(c.name)) in page for c in engine.cards())
    card = engine.cards()[3]
    found = b.get(f"/rules/spyrium/cards?q={card.name.lower()}").get_data(as_text=True)
    assert f'id="card-{card.key}"' in found and found.count('class="cardtext"') < len(engine.cards())
    none = b.get("/rules/spyrium/cards?q=no-such-card-at-all").get_data(as_text=True)
    assert 'id="no-card"' in none
    assert b.get("/rules/nope/cards").status_code == 404
