"""The last mail of a game to every player, the one whose move on the game page ended it included:
a web post has no receipt, so its mover gets the final board with the others (the result, who
played, the whole game move by move) -- one mail."""
from __future__ import annotations

from pbem.services.core import games, seating
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import Game, User
from tests.mailtools import after_marker, outbox
from tests.web.conftest import Browser, make_user


def test_the_player_who_ends_the_game_on_the_web_gets_the_final_mail(app):
    ids = [make_user(f"{n.lower()}@x.test", n) for n in ("Ann", "Bob")]
    with unit_of_work() as s:
        g = tables.create(s, s.get(User, ids[0]), "mini", 2, {"hand": "1"}, seed=9)
        tables.join(s, s.get(User, ids[1]), g.id)
        gid = g.id
        holder = {x.seat: x.user_id for x in seating.seats(s, gid)}
    email = {ids[0]: "ann@x.test", ids[1]: "bob@x.test"}
    players = {u: Browser(app) for u in ids}
    for u, b in players.items():
        b.login_as(u)
    last = None
    for _ in range(10):
        with unit_of_work() as s:
            g = games.get(s, gid)
            if g.status == "finished":
                break
            engine, state = games.engine_for(g), games.state_at(s, g)
            last = sorted(engine.to_move(state))[0]
            move, ply = engine.format_move(state, last, engine.legal_moves(state, last)[0]), g.ply
        before = len(outbox(email[holder[last]]))
        r = players[holder[last]].post(f"/games/{gid}/move", {"text": move, "ply": str(ply)}, page=f"/games/{gid}")
        assert r.status_code == 303
    with unit_of_work() as s:
        g = s.get(Game, gid)
        assert g.status == "finished"
        n = g.ply
    mine = outbox(email[holder[last]])[before:]
    assert [o.kind for o in mine] == ["board"]
    text = mine[0].body_text
    assert f"Game #{gid} is over" in after_marker(text).split("\n", 1)[0]
    assert "Who played:" in text and "The whole game, move by move:" in text
    record = text.split("The whole game, move by move:", 1)[1]
    assert all(f"{p:>4}. " in record for p in range(1, n + 1))
