"""A move that cannot follow the ones before it in the same order is refused
with the engine's own reason, never a bare "it is not your turn",
and the engines' "Player N" comes out as the player's name."""
import random

from pbem.engine import get_game
from pbem.services.core import accounts, games, moves
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work


def test_an_exhibit_after_a_sale_in_the_same_mail_gets_the_real_reason(sqlite_cfg):
    engine = get_game("squire")
    with unit_of_work() as s:
        users = [accounts.register(s, f"{n}@x.test", n.title(), confirmed=True)[0] for n in ("ann", "bob", "cleo")]
        g = tables.create(s, users[0], "squire", 3, {}, seed=5)
        for u in users[1:]:
            tables.join(s, u, g.id)
        gid = g.id
    rng = random.Random(2)
    for _ in range(400):
        with unit_of_work() as s:
            g = games.get(s, gid)
            state = games.state_at(s, g)
            seat = sorted(engine.to_move(state))[0]
            legal = [engine.format_move(state, seat, m) for m in engine.legal_moves(state, seat)]
            order = None
            for first in (t for t in legal if t.startswith("move ")):
                after = engine.apply(state, seat, engine.parse_move(state, seat, first))
                if "sell offers none" in [engine.format_move(after, seat, m) for m in engine.legal_moves(after, seat)]:
                    done = engine.apply(after, seat, engine.parse_move(after, seat, "sell offers none"))
                    if seat not in engine.to_move(done) and engine.view(done, None).get("token") != seat:
                        order = [first, "sell offers none", "exhibit painting"]
                        break
            if order is None:
                moves.submit_moves(s, gid, seat, [rng.choice(legal)], source="web")
                continue
            ply = g.ply
            res = moves.submit_moves(s, gid, seat, order, source="web")
            assert res.error is not None and not res.applied and res.failed_text == "exhibit painting"
            reason = res.error.reason
            assert "it is not your turn" not in reason and "NEXT" not in reason, reason
            assert "exhibition token" in reason, reason
            assert "Player " not in reason, reason  # names, not seat numbers
            assert games.get(s, gid).ply == ply  # Squire's orders are all or nothing: nothing applied
            return
    raise AssertionError("no position to try the order in")
