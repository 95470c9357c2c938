"""The archive: finished games searched by game, player and date (the
service and the page), each game's replay with every seat's view once it is over,
its record as JSON (the page's download, `pbem export`), and `pbem import`, which
replays a record into a fresh database to the same final state on SQLite and on
PostgreSQL, or refuses it and stores nothing."""
from __future__ import annotations

import pytest

from pbem.services.lobby import archive, tables
from pbem.services.core.errors import UserError
from pbem.store.db import unit_of_work
from pbem.web import create_app
from tests.archive.play import finished_game, people, utc
from tests.statements import counted
from tests.web.conftest import Browser

@pytest.fixture
def three(sqlite_cfg):
    """Three finished games a month apart, and one still running."""
    ann, bob, cleo = people("Ann", "Bob", "Cleo")
    ids = {"spyrium": finished_game("spyrium", [ann, bob], talk=False, finished_at=utc(2026, 1, 10, 12)),
           "squire": finished_game("squire", [ann, cleo], talk=False, finished_at=utc(2026, 2, 10, 23, 59)),
           "iaww": finished_game("iaww", [bob, cleo], talk=False, finished_at=utc(2026, 3, 10))}
    with unit_of_work() as s:
        running = tables.create(s, ann, "spyrium", 2, seed=3)
        tables.join(s, bob, running.id)
        ids["running"] = running.id
    return ids


def _ids(page) -> list[int]:
    return [e.id for e in page.entries]


# ---------------------------------------------------------------- search


def test_search_by_game_player_and_date_newest_first(three):
    sp, sq, iw = three["spyrium"], three["squire"], three["iaww"]
    with unit_of_work() as s:
        assert _ids(archive.search(s, None)) == [iw, sq, sp]  # finished only, newest first
        assert _ids(archive.search(s, None, game="squire")) == [sq]
        assert _ids(archive.search(s, None, game="Wonderful-World")) == [iw]  # an alias of the game
        assert _ids(archive.search(s, None, player="ann")) == [sq, sp]  # any case, part of a name
        assert _ids(archive.search(s, None, player="  CLE ")) == [iw, sq]
        assert _ids(archive.search(s, None, player="%")) == []  # a wildcard is a character like any
        assert _ids(archive.search(s, None, game="spyrium", player="cleo")) == []
        assert _ids(archive.search(s, None, since="2026-02-10")) == [iw, sq]  # whole days, both included
        assert _ids(archive.search(s, None, until="2026-02-10")) == [sq, sp]
        assert _ids(archive.search(s, None, since="2026-02-11", until="2026-03-10")) == [iw]
        entry = archive.search(s, None, game="squire").entries[0]
        assert (entry.players, entry.title, entry.finished_at.date().isoformat()) == \
            (("Ann", "Cleo"), "Squire", "2026-02-10")
        assert set(entry.winners) <= {"Ann", "Cleo"} and entry.winners and entry.ply > 0


def test_search_pages_and_one_query_for_all_the_names(three):
    sp, sq, iw = three["spyrium"], three["squire"], three["iaww"]
    with unit_of_work() as s:
        first = archive.search(s, None, per_page=2)
        second = archive.search(s, None, per_page=2, page=2)
        assert (_ids(first), first.more, _ids(second), second.more) == ([iw, sq], True, [sp], False)
        assert _ids(archive.search(s, None, per_page=2, page=3)) == []
    with unit_of_work() as s, counted() as seen:
        archive.search(s, None, per_page=3)
    with unit_of_work() as s, counted() as one:
        archive.search(s, None, per_page=1)
    names = [q for q in seen if "FROM seats" in q]
    assert len(seen) == len(one) and len(names) == 1, seen  # one for the page, one for the names, whatever its size


@pytest.mark.parametrize("kw,code,said", [
    ({"since": "10/02/2026"}, "bad_date", "year-month-day"),
    ({"since": "2026-03-01", "until": "2026-02-01"}, "bad_date", "wrong way round"),
    ({"game": "chess"}, "no_such_game", "no game called 'chess'"),
])
def test_a_bad_search_is_refused_clearly(sqlite_cfg, kw, code, said):
    with unit_of_work() as s, pytest.raises(UserError) as e:
        archive.search(s, None, **kw)
    assert e.value.code == code and said in e.value.message and e.value.example


def test_the_archive_page_searches_and_pages(sqlite_cfg, three, monkeypatch):
    app = create_app(sqlite_cfg)
    app.config["TESTING"] = True
    b = Browser(app)
    home = b.get("/").get_data(as_text=True)
    assert 'href="/archive"' in home  # in the site's navigation
    page = b.get("/archive").get_data(as_text=True)
    for gid in (three["spyrium"], three["squire"], three["iaww"]):
        assert f'href="/games/{gid}"' in page and f'href="/games/{gid}/record.json"' in page
    assert f'href="/games/{three["running"]}"' not in page
    page = b.get("/archive?game=squire&player=ANN&from=2026-02-01&to=2026-02-28").get_data(as_text=True)
    assert f'href="/games/{three["squire"]}"' in page and "Ann, Cleo" in page
    assert f'href="/games/{three["spyrium"]}"' not in page and f'href="/games/{three["iaww"]}"' not in page
    assert 'value="ANN"' in page and '<option value="squire" selected>' in page  # the form keeps the search
    r = b.get("/archive?from=yesterday")
    assert r.status_code == 400 and "year-month-day" in r.get_data(as_text=True)
    assert "2026-11-28" in r.get_data(as_text=True)  # with an example
    assert b.get("/archive?game=chess").status_code == 400
    monkeypatch.setattr(archive, "PER_PAGE", 2)  # the page size: two games a page
    one = b.get("/archive").get_data(as_text=True)
    assert f'href="/games/{three["iaww"]}"' in one and f'href="/games/{three["spyrium"]}"' not in one
    assert 'id="archive-older"' in one and 'id="archive-newer"' not in one
    two = b.get("/archive?page=2").get_data(as_text=True)
    assert f'href="/games/{three["spyrium"]}"' in two and f'href="/games/{three["iaww"]}"' not in two
    assert 'id="archive-newer"' in two and 'id="archive-older"' not in two
    cleo = b.get("/archive?player=c").get_data(as_text=True)  # the search is kept from page to page
    assert 'id="archive-older"' not in cleo and f'href="/games/{three["squire"]}"' in cleo
    assert b.get("/archive?page=x").status_code == 400


def test_a_private_game_is_in_the_archive_only_for_those_who_may_see_it(three):
    """Finished games are public unless private. A private game's search entry, record and
    replay are its players' (and admins'); everyone else is told there is no such game, and a private
    game that still runs says nothing of itself either."""
    from sqlmodel import select

    from pbem.store.models import Game, User

    sq = three["squire"]
    with unit_of_work() as s:
        s.get(Game, sq).access = "private"
        s.get(Game, three["running"]).access = "private"
        ann = s.exec(select(User).where(User.email == "ann@x.test")).one()
        bob = s.exec(select(User).where(User.email == "bob@x.test")).one()
        admin = User(email="", name="operator", is_admin=True)
        assert sq not in _ids(archive.search(s, None)) and sq not in _ids(archive.search(s, bob))
        assert sq in _ids(archive.search(s, ann)) and sq in _ids(archive.search(s, admin))
        for who in (None, bob):
            with pytest.raises(UserError, match=f"there is no finished game #{sq}"):
                archive.record(s, sq, who)
        assert archive.record(s, sq, ann)["game"]["id"] == sq
        with pytest.raises(UserError, match="there is no finished game"):  # not "is running"
            archive.record(s, three["running"], None)
