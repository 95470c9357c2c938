"""A Russian, Bulgarian or Italian player meets no English game name: for each game, a board mail
(its text, its HTML and the SVG its PNG is rendered from), the game page (the players strip, the
board, the drawing, the move log, the options, the thread with a dispute and an admin's notices)
and the lobby's create form, each in the reader's language, hold no word of the game's English
names (data/names.csv: every name a language does not write as English does), apart from the
notation the player types (the moves of the record, the legal moves offered, the help's examples).
"""
from __future__ import annotations

import json
import random

import pytest
from sqlmodel import select

from pbem import i18n
from pbem.engine import get_game
from pbem.mail import pictures
from pbem.services.core import accounts, games, moves, notify
from pbem.services.lobby import tables
from pbem.services.referee import disputes
from pbem.store.db import unit_of_work
from pbem.store.models import Move, Outbound, Picture, User
from tests.english import LANGS, english_names, leaks, visible_text

GAMES = [("spyrium", {}), ("squire", {"side": "world"}), ("iaww", {})]
PLIES = {"spyrium": 14, "squire": 12, "iaww": 12}


def _table(game: str, options: dict, lang: str) -> tuple[int, list[int], int]:
    """A two-player game a few plies in, its players reading ``lang``, a dispute opened, paused and
    rejected by an admin: (game id, the players' ids, the admin's id)."""
    with unit_of_work() as s:
        people = []
        for email, name in (("vova@x.test", "Vova"), ("katya@x.test", "Katya"), ("ada@x.test", "Ada")):
            u, _ = accounts.register(s, email, name, confirmed=True)
            u.language, u.language_chosen = lang, True
            people.append(u)
        people[2].is_admin = True
        g = tables.create(s, people[0], game, 2, dict(options), seed=11)
        tables.join(s, people[1], g.id)
        gid, ids = g.id, [u.id for u in people]
    rng = random.Random(3)
    for _ in range(PLIES[game]):
        with unit_of_work() as s:
            g = games.get(s, gid)
            engine, state = games.engine_for(g), games.state_at(s, g)
            if not engine.to_move(state):
                break
            seat = sorted(engine.to_move(state))[0]
            move = engine.format_move(state, seat, rng.choice(engine.legal_moves(state, seat)))
            assert moves.submit_moves(s, gid, seat, [move], source="web").ok
    with unit_of_work() as s:
        admin = s.get(User, ids[2])
        d = disputes.open_dispute(s, s.get(User, ids[0]), gid, 2, "this was not what I wanted")
        disputes.set_pause(s, admin, d.id, True, "looking into it")
        disputes.reject(s, admin, d.id, "the move was legal")
        notify.queue_boards(s, games.get(s, gid), notify.started_headline(s, games.get(s, gid)))
    return gid, ids[:2], ids[2]


def _typed(gid: int) -> list[str]:
    """Every notation the pages may show: the record's moves and each seat's legal moves now."""
    with unit_of_work() as s:
        g = games.get(s, gid)
        engine, state = games.engine_for(g), games.state_at(s, g)
        out = list(s.exec(select(Move.notation).where(Move.game_id == gid)))
        for seat in range(g.players):
            out += [engine.format_move(state, seat, m) for m in engine.legal_moves(state, seat)]
    return [x for x in out if x]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game,options", GAMES, ids=[g for g, _o in GAMES])
def test_no_english_name_reaches_the_reader(web, sqlite_cfg, game, options, lang):
    gid, players, admin = _table(game, options, lang)
    names = english_names(game, lang)
    typed = _typed(gid)
    found: dict[str, list[str]] = {}
    with unit_of_work() as s:
        for uid in players:
            user = s.get(User, uid)
            board = s.exec(select(Outbound).where(Outbound.to_addr == user.email, Outbound.kind == "board")
                           .order_by(Outbound.id.desc())).first()
            assert board is not None and board.headers.get("Content-Language") == lang
            found[f"{user.name}'s mail, text"] = leaks(board.body_text, names, typed, lang)
            found[f"{user.name}'s mail, HTML"] = leaks(visible_text(board.body_html), names, typed, lang)
            found[f"{user.name}'s mail, subject"] = leaks(board.subject, names, typed, lang)
            pic = s.get(Picture, board.picture_key)
            assert pic is not None and pic.lang == lang
            svg = pictures.draw(pic.game, pic.view, pic.lang)  # the source of the PNG the mail carries
            found[f"{user.name}'s mail, picture"] = leaks(visible_text(svg), names, typed, lang)
    for uid in players:
        b = web()
        b.login_as(uid)
        page = b.get(f"/games/{gid}").get_data(as_text=True)
        assert f'lang="{lang}"' in page
        found[f"game page of seat {players.index(uid) + 1}"] = leaks(visible_text(page), names, typed, lang)
        thread = visible_text(page)
        assert "An admin" not in thread and "disputes ply" not in thread, "the thread's notices speak English"
    b = web()
    b.login_as(players[0])
    lobby = b.get("/lobby").get_data(as_text=True)
    found["lobby"] = leaks(visible_text(lobby), names, typed, lang)
    found = {k: v for k, v in found.items() if v}
    assert not found, json.dumps(found, ensure_ascii=False, indent=1)
