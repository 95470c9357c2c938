"""The lobby lists the games being played too, newest first, so a newcomer finds one to watch (the
demo's among them) from the front page; a private one only to those who may see it."""
from __future__ import annotations

from pbem.bench.env import make_games
from pbem.store.db import unit_of_work
from pbem.store.models import Game


def test_the_lobby_lists_running_games(sqlite_cfg):
    from pbem.web import create_app

    first, second, hidden = make_games("spyrium", 2, 3)
    with unit_of_work() as s:
        g = s.get(Game, hidden)
        g.access = "private"
        s.add(g)
    client = create_app(sqlite_cfg).test_client()
    html = client.get("/lobby").get_data(as_text=True)
    assert 'id="running"' in html and "Games being played" in html
    assert html.index(f'id="running-{second}"') < html.index(f'id="running-{first}"')  # newest first
    assert "Player 0.0, Player 0.1" in html
    assert f'id="running-{hidden}"' not in html  # a private game: not to a visitor
    ru = client.get("/lobby", headers={"Accept-Language": "ru"}).get_data(as_text=True)
    assert "Идущие партии" in ru


def test_an_empty_lobby_says_no_game_is_played(sqlite_cfg):
    from pbem.web import create_app

    html = create_app(sqlite_cfg).test_client().get("/lobby").get_data(as_text=True)
    assert "No game is being played right now." in html
