"""A tournament's page, the list and the standings CSV (pbem/web/tournaments.py), as each viewer
may see them: a private tournament is nobody else's business (404), a table's game is linked only
for whoever may see it, and the CSV's names cannot become spreadsheet formulas."""
import csv
import io

from pbem.services.core import accounts, games, moves as moves_service
from pbem.services.lobby.tournaments import season
from pbem.store.db import unit_of_work
from pbem.engine import get_game
from pbem.web import create_app
from tests.web.conftest import log_in


def _finish(gid: int, plies: int = 50) -> None:
    """The test game played to its end (or ``plies`` moves of it), each seat's first card played."""
    engine = get_game("mini")
    for _ in range(plies):
        with unit_of_work() as s:
            g = games.get(s, gid)
            if g.status != "running":
                return
            state = games.state_at(s, g)
            seat = min(engine.to_move(state))
            moves = [m for m in engine.legal_moves(state, seat) if "play" in engine.format_move(state, seat, m)]
            text = engine.format_move(state, seat, (moves or engine.legal_moves(state, seat))[0])
            moves_service.submit_moves(s, gid, seat, [text], source="web")


def test_the_tournament_pages_as_each_viewer_may_see_them(sqlite_cfg):
    app = create_app(sqlite_cfg)
    app.config["TESTING"] = True
    with unit_of_work() as s:
        people = [accounts.register(s, f"w{i}@x.test", n, confirmed=True)[0]
                  for i, n in enumerate(["Dora", "Ed", "=SUM(A1)", "Flo"])]
        ids = [u.id for u in people]
        public = season.create(s, people[0], "mini", name="Open league", table_size=3, options={"hand": "1"},
                               rounds=2, seed=4)
        private = season.create(s, people[0], "mini", name="Club only", table_size=2, access="private",
                                invited=["w1@x.test"])
        for u in people[:3]:
            season.join(s, u, public.id)
        pid, xid = public.id, private.id
    with unit_of_work() as s:
        _t, _r, made = season.start_round(s, s.get(type(people[0]), ids[0]), pid)
        gid = made[0].id
    _finish(gid)

    visitor = app.test_client()
    listed = visitor.get("/tournaments").get_data(as_text=True)
    assert "Open league" in listed and "Club only" not in listed
    r = visitor.get(f"/tournaments/{pid}")
    html = r.get_data(as_text=True)
    assert r.status_code == 200 and 'id="standings"' in html and "Round 1" in html
    assert f'href="/games/{gid}"' in html and "(1.)" in html  # the finished game's result is public
    assert visitor.get(f"/tournaments/{xid}").status_code == 404
    assert visitor.get(f"/tournaments/{xid}/standings.csv").status_code == 404
    assert visitor.get("/tournaments/99999").status_code == 404

    invited = app.test_client()
    log_in(invited, ids[1])
    assert invited.get(f"/tournaments/{xid}").status_code == 200
    stranger = app.test_client()
    log_in(stranger, ids[3])
    assert stranger.get(f"/tournaments/{xid}").status_code == 404

    r = visitor.get(f"/tournaments/{pid}/standings.csv")
    assert r.status_code == 200 and r.mimetype == "text/csv"
    assert f"pbem-tournament-{pid}-standings.csv" in r.headers["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(r.get_data(as_text=True))))
    assert rows[0] == ["place", "player", "points", "played", "wins", "byes", "wins", "opponents", "score", "left",
                       "adjusted"]
    assert sorted(row[1] for row in rows[1:]) == ["'=SUM(A1)", "Dora", "Ed"]
    assert sorted(float(row[2]) for row in rows[1:]) == [0.0, 1.0, 3.0]  # 3-1-0 at a table of three
