"""No leaks (issue 8 §5): random games of every game driven through the
services; nothing sent or shown to a seat — its board mails, and on the web its
board and its view JSON — may contain another seat's hidden information, nor
the seed.

What is hidden is taken from the engine itself: a string a seat sees in its
own view but the public (observer) view does not show is that seat's private
information. A mail to another seat may show it only where that seat's own
view does too (e.g. it holds a card of the same name). SURFACES lists what is
checked per seat; the web page joins it when the site lands."""
from __future__ import annotations

import json
import random

import pytest
from sqlmodel import select

from pbem.engine import GAMES, get_game
from pbem.services import accounts, games, notify
from pbem.store.db import unit_of_work
from pbem.store.models import Outbound, Seat, User
from tests.minigame import MINI

ALL = sorted(set(GAMES) | {"mini"})


def _strings(obj, out=None) -> set[str]:
    out = set() if out is None else out
    if isinstance(obj, dict):
        for v in obj.values():
            _strings(v, out)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _strings(v, out)
        if obj and all(isinstance(x, int) and not isinstance(x, bool) for x in obj) and len(obj) >= 2:
            out.add(" ".join(map(str, obj)))  # e.g. a hand of numbered cards as rendered
    elif isinstance(obj, str) and len(obj.strip()) >= 4:
        out.add(obj.strip())
    return out


def _mail_surfaces(row: Outbound) -> list[tuple[str, str]]:
    return [("mail text", row.body_text), ("mail html", row.body_html or "")]


def _web_surfaces(client, gid: int) -> list[tuple[str, str]]:
    # the parts of the site drawn from a view; the move log and thread (notation
    # of moves, public once revealed) are checked by tests/web for secret picks
    out = []
    for url in (f"/games/{gid}/board", f"/games/{gid}/view.json"):
        r = client.get(url)
        assert r.status_code == 200, (url, r.status_code)
        out.append((f"web {url}", r.get_data(as_text=True)))
    return out


SURFACES = [_mail_surfaces]  # per mail row; the web pages are checked once per seat


@pytest.mark.parametrize("name", ALL)
def test_no_mail_or_page_shows_another_seats_secrets(sqlite_cfg, name):
    from pbem.web import create_app

    web = create_app(sqlite_cfg)
    engine = MINI if name == "mini" else get_game(name)
    n = max(engine.min_players, min(3, engine.max_players))
    rng = random.Random(5)
    seed = 987_654_321_123
    with unit_of_work() as s:
        users = [accounts.register(s, f"u{i}@x.test", f"U{i}", confirmed=True)[0] for i in range(n)]
        g = games.create(s, users[0], engine.name, n, {}, seed=seed)
        for u in users[1:]:
            games.join(s, u, g.id)
        gid = g.id
    checked = 0
    for step in range(30):
        with unit_of_work() as s:
            g = games.get(s, gid)
            state = games.state_at(s, g)
            if not engine.to_move(state):
                break
            seat = rng.choice(sorted(engine.to_move(state)))
            move = rng.choice(engine.legal_moves(state, seat))
            games.submit_moves(s, gid, seat, [engine.format_move(state, seat, move)], source="web")
        if step % 3:
            continue
        with unit_of_work() as s:
            g = games.get(s, gid)
            before = len(list(s.exec(select(Outbound.id))))
            notify.queue_boards(s, g, "a move was made")
            s.flush()
            rows = list(s.exec(select(Outbound).order_by(Outbound.id)))[before:]
            seat_of_user = {x.user_id: x.seat for x in s.exec(select(Seat).where(Seat.game_id == gid))}
            state = games.state_at(s, g)
            public = _strings(engine.view(state, None))
            views = {k: engine.view(state, k) for k in range(n)}
            private = {k: _strings(views[k]) - public for k in range(n)}
            by_seat: dict[int, list[tuple[str, str]]] = {k: [] for k in range(n)}
            for row in rows:
                k = seat_of_user[s.exec(select(User.id).where(User.email == row.to_addr)).one()]
                for surface in SURFACES:
                    by_seat[k].extend(surface(row))
        for uid, k in seat_of_user.items():  # outside the transaction: the site opens its own
            client = web.test_client()
            with client.session_transaction() as sess:
                sess["uid"] = uid
            by_seat[k].extend(_web_surfaces(client, gid))
        for k, texts in by_seat.items():
            own = _strings(views[k]) | public
            # what the seat's own board (rendered from its view alone) says is not a leak:
            # a card name in its own hand, a rules word that happens to be a secret's text
            drawn = engine.render_text(views[k]) + engine.render_html(views[k]) + "\n".join(
                engine.format_move(state, k, m) for m in engine.legal_moves(state, k))
            for where, text in texts:
                assert str(seed) not in text, f"{name}: the seed in the {where} to seat {k}"
                assert json.dumps(seed) not in text
                for j in range(n):
                    if j == k:
                        continue
                    for secret in private[j] - own:
                        if secret in drawn:
                            continue
                        assert secret not in text, \
                            f"{name} ply {g.ply}: seat {j}'s {secret!r} in the {where} to seat {k}"
            checked += 1
        observer = engine.view(state, None)  # a visitor who is not logged in sees the public board only
        drawn = engine.render_text(observer) + engine.render_html(observer)
        for where, text in _web_surfaces(web.test_client(), gid):
            assert str(seed) not in text, f"{name}: the seed in the {where} to a visitor"
            for j in range(n):
                for secret in private[j] - public:
                    assert secret in drawn or secret not in text, \
                        f"{name} ply {g.ply}: seat {j}'s {secret!r} in the {where} to a visitor"
    assert checked >= n


def test_the_check_catches_a_leak(sqlite_cfg):
    """The mini game's view shows a seat its own hand only: prove the check
    above would see another seat's hand if a mail showed it."""
    state = MINI.initial_state(2, 3, {"hand": 3})
    public = _strings(MINI.view(state, None))
    private1 = _strings(MINI.view(state, 1)) - public
    leaked_mail = "Your hand: " + " ".join(map(str, state.hands[1]))
    assert any(p in leaked_mail for p in private1 - (_strings(MINI.view(state, 0)) | public)) \
        or state.hands[0] == state.hands[1]
