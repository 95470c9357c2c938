"""The drawings the one door (services/core/games.drawing_for) keeps in this process: a drawing
found there is the one the engine draws now for the same viewer, moves, layout and language, and
one viewer's drawing is never another's."""
from __future__ import annotations

from pbem.engine.i18n import language
from pbem.services.core import accounts, games, moves
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work


def _fresh(s, g, seat, offered=(), layout="wide") -> str:
    """The engine's own drawing of the same view, drawn now (not through the door)."""
    view = games.view_for(s, g, seat)
    engine = games.engine_for(g)
    return engine.draw_svg(view, tuple(offered)) if layout == "wide" else engine.draw_svg(
        view, tuple(offered), layout=layout)


def test_a_kept_drawing_is_the_one_the_engine_draws_now_for_that_viewer(sqlite_cfg):
    with unit_of_work() as s:
        users = [accounts.register(s, f"d{i}@x.test", f"D{i}", confirmed=True)[0] for i in range(3)]
        g = tables.create(s, users[0], "squire", 3, {}, seed=5)
        for u in users[1:]:
            tables.join(s, u, g.id)
        gid = g.id
    for _ in range(2):  # the same board asked for twice: the same drawing, for each viewer its own
        with unit_of_work() as s:
            g = games.get(s, gid)
            seen = {}
            for seat in (None, 0, 1, 2):
                for layout in ("wide", "narrow"):
                    got = games.drawing_for(s, g, seat, layout=layout)
                    assert got == _fresh(s, g, seat, layout=layout), (seat, layout)
                    seen[seat, layout] = got
            # asked for again, the drawing is the one kept, not drawn anew
            assert games.drawing_for(s, g, 0, layout="narrow") is seen[0, "narrow"]
            # each seat's drawing shows its own hand: no two seats are given one drawing
            assert len({seen[seat, "narrow"] for seat in (0, 1, 2)}) == 3
    with unit_of_work() as s:
        g = games.get(s, gid)
        engine = games.engine_for(g)
        state = games.state_at(s, g)
        seat = sorted(engine.to_move(state))[0]
        offered = [engine.format_move(state, seat, m) for m in engine.legal_moves(state, seat)[:3]]
        # the moves offered are part of what is drawn (data-moves)
        plain, marked = games.drawing_for(s, g, seat), games.drawing_for(s, g, seat, offered)
        assert marked == _fresh(s, g, seat, offered) and marked != plain
        # the language: the same view in Russian is drawn in Russian, not found in English
        english = games.drawing_for(s, g, seat)
        with language("ru"):
            russian = games.drawing_for(s, g, seat)
            assert russian == _fresh(s, g, seat) and russian != english
        # a move changes the view: the next drawing is of the new board
        res = moves.submit_moves(s, gid, seat, [offered[0]], source="web")
        assert res.ok
    with unit_of_work() as s:
        g = games.get(s, gid)
        assert games.drawing_for(s, g, seat) == _fresh(s, g, seat) != english
