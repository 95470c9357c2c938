"""Players' pages, ratings and reliability on the web: the lobby
shows the seated players' ratings and a game's minimum reliability; a game
created with a minimum refuses JOIN below it through the real form; a
player's page lists their games with results, ratings and reliability; and
in Chromium the page reads, links and passes axe."""
from __future__ import annotations

import re

import pytest
from sqlalchemy import update
from sqlmodel import select

from pbem.services.core import games, seating
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import Game, GameResult, Rating, User
from tests.browser import axe, serving
from tests.mailtools import CMD, process, start_game
from tests.services.test_ratings import _play_to_the_end
from tests.web.conftest import Browser, chromium, make_user  # noqa: F401 (a fixture)


def _finished_game() -> tuple[int, dict[str, int]]:
    """A three-player game played to its end by mail: its id, and the players' ids by name."""
    gid = start_game(3, hand=1)
    _play_to_the_end(gid)
    with unit_of_work() as s:
        return gid, {s.get(User, x.user_id).name: x.user_id for x in seating.seats(s, gid)}


def _flat(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_lobby_create_with_a_minimum_join_refused_below_it_and_the_players_page(app):
    gid, ids = _finished_game()
    with unit_of_work() as s:
        mine = s.exec(select(GameResult).where(GameResult.game_id == gid, GameResult.user_id == ids["Ann"])).one()
        g = s.get(Game, gid)
        winners = [n for n, u in ids.items() if seating.seat_of(s, gid, u).seat in g.outcome["winners"]]
    ann = Browser(app)
    ann.login_as(ids["Ann"])
    r = ann.post("/lobby/new", {"game": "spyrium", "players": "3", "deadline_hours": "48", "policy": "wait",
                                "min_reliability": "90"}, page="/lobby")
    assert r.status_code == 303
    process("ann@x.test", CMD, "NEW mini players=3")  # a game Ann has a rating in
    with unit_of_work() as s:
        new, mini = s.exec(select(Game).where(Game.status == "open").order_by(Game.id)).all()
        assert new.min_reliability == 90 and mini.min_reliability is None
    lobby = ann.get("/lobby").get_data(as_text=True)
    row = _flat(lobby.split(f"#{new.id}</a>", 1)[1].split("</tr>", 1)[0])
    assert "Ann (0.0)" in row and "90%" in row  # not rated in Spyrium yet: the starting rating
    rating = f"{round(mine.mu_after - 3 * mine.sigma_after, 1):.1f}"
    row = _flat(lobby.split(f"#{mini.id}</a>", 1)[1].split("</tr>", 1)[0])
    assert f"Ann ({rating})" in row and "—" in row
    assert f'href="/players/{ids["Ann"]}"' in lobby
    assert f'id="my-page"' in ann.get("/me").get_data(as_text=True).split(f'href="/players/{ids["Ann"]}"', 1)[1][:20]
    # a player below the minimum: refused, told their figure and the game's; nothing changes
    dai = make_user("dai@x.test", "Dai")
    with unit_of_work() as s:
        s.exec(update(User).where(User.id == dai).values(turns_on_time=3, turns_late=3))  # test setup: 50%
    b = Browser(app)
    b.login_as(dai)
    r = b.post(f"/games/{new.id}/join", page=f"/games/{new.id}", follow_redirects=True)
    page = _flat(r.get_data(as_text=True))
    assert f"game #{new.id} asks for a reliability of at least 90%, and yours is 50%" in page
    assert "Players need a reliability of at least 90% to join (new players may join)." in page
    with unit_of_work() as s:
        assert len(seating.seats(s, new.id)) == 1
    # a new player may join
    eve = make_user("eve@x.test", "Eve")
    e = Browser(app)
    e.login_as(eve)
    r = e.post(f"/games/{new.id}/join", page=f"/games/{new.id}", follow_redirects=True)
    assert "You have seat 2" in r.get_data(as_text=True)
    # Ann's page, seen by a visitor: the finished game's result and rating change, the open one, her figures
    page = Browser(app).get(f"/players/{ids['Ann']}")
    assert page.status_code == 200
    text = _flat(page.get_data(as_text=True))
    assert "Ann" in text and "New player" in text and "Games finished 1" in text
    line = text.split(f"Mini (test game) #{gid}", 1)[1]
    assert ("won" if "Ann" in winners else f"place {mine.rank}") in line
    before = f"{round(mine.mu_before - 3 * mine.sigma_before, 1):.1f}"
    assert f"rating {before} → {rating}" in line
    assert f"Spyrium #{new.id}" in text and f"Mini (test game) #{mini.id}" in text
    assert f"Mini (test game) {rating} 1" in text  # the ratings table: game, rating, rated games
    # the game page links its players' pages
    assert f'href="/players/{ids["P1"]}"' in Browser(app).get(f"/games/{gid}").get_data(as_text=True)
    assert Browser(app).get("/players/9999").status_code == 404


def test_a_game_finished_on_the_web_rates_as_openskill_does(app):
    from openskill.models import PlackettLuce

    ids = [make_user(f"{n.lower()}@x.test", n) for n in ("Ann", "Bob", "Cleo")]
    with unit_of_work() as s:
        g = tables.create(s, s.get(User, ids[0]), "mini", 3, {"hand": "2"}, seed=9)
        for u in ids[1:]:
            tables.join(s, s.get(User, u), g.id)
        gid = g.id
        holder = {x.seat: x.user_id for x in seating.seats(s, gid)}
    players = {u: Browser(app) for u in ids}
    for u, b in players.items():
        b.login_as(u)
    for _ in range(20):  # each seat to move plays its first legal move through the game page's form
        with unit_of_work() as s:
            g = games.get(s, gid)
            if g.status == "finished":
                break
            engine, state = games.engine_for(g), games.state_at(s, g)
            seat = sorted(engine.to_move(state))[0]
            move, ply = engine.format_move(state, seat, engine.legal_moves(state, seat)[0]), g.ply
        r = players[holder[seat]].post(f"/games/{gid}/move", {"text": move, "ply": str(ply)}, page=f"/games/{gid}")
        assert r.status_code == 303
    model = PlackettLuce()
    with unit_of_work() as s:
        g = s.get(Game, gid)
        assert g.status == "finished"
        scores = g.outcome["scores"]
        ranks = [1 + sum(1 for o in scores if o > sc) for sc in scores]
        expected = model.rate([[model.rating()] for _ in scores], ranks=ranks)
        rows = {r.user_id: r for r in s.exec(select(Rating))}
        for seat, (new,) in enumerate(expected):
            assert rows[holder[seat]].mu == pytest.approx(new.mu, abs=1e-9)
            assert rows[holder[seat]].sigma == pytest.approx(new.sigma, abs=1e-9)
    # and the player's page shows it, as mu - 3 sigma
    text = _flat(Browser(app).get(f"/players/{holder[0]}").get_data(as_text=True))
    assert f"Mini (test game) {round(expected[0][0].ordinal(), 1):.1f} 1" in text


def test_a_minimum_that_is_no_percent_is_refused_on_the_web(app):
    b = Browser(app)
    b.login_as(make_user("ann@x.test", "Ann"))
    r = b.post("/lobby/new", {"game": "spyrium", "players": "3", "deadline_hours": "48", "policy": "wait",
                              "min_reliability": "150"}, page="/lobby", follow_redirects=True)
    assert "The game was not created: min_reliability is a percent from 0 to 100 (got &#39;150&#39;)" in \
        r.get_data(as_text=True)
    with unit_of_work() as s:
        assert s.exec(select(Game)).first() is None


def test_a_bot_has_no_page(app):
    from pbem.services.turns import bots

    ann = make_user("ann@x.test", "Ann")
    with unit_of_work() as s:
        g = tables.create(s, s.get(User, ann), "mini", 2, {})
        _g, seat, _started = bots.add_bot(s, s.get(User, ann), g.id)
        bot = seat.user_id
    assert Browser(app).get(f"/players/{bot}").status_code == 404


@pytest.mark.browser
def test_the_players_page_in_chromium(sqlite_cfg, chromium):  # noqa: F811
    from playwright.sync_api import expect

    gid, ids = _finished_game()
    with serving(sqlite_cfg) as base:
        page = chromium.new_page()
        page.goto(f"{base}/games/{gid}")
        page.locator(".players a", has_text="P1").first.click()
        expect(page.locator("#player-name")).to_have_text("P1")
        expect(page.locator("#reliability")).to_contain_text("New player")
        expect(page.locator("#ratings")).to_contain_text("Mini (test game)")
        expect(page.locator(f"#game-{gid}")).to_contain_text("rating 0.0 →")
        assert axe(page) == []
        page.locator(f"#game-{gid} a", has_text="Ann").click()  # a fellow player's page
        expect(page.locator("#player-name")).to_have_text("Ann")
        page.locator(f"#game-{gid} a", has_text=f"#{gid}").click()
        expect(page).to_have_url(re.compile(rf"/games/{gid}$"))
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(f"{base}/players/{ids['Ann']}")
        assert axe(page) == []
        page.close()
