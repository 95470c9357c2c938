"""Pages and polls whose cost does not grow with what is stored. Each list page
(the lobby, my games, the admin console, a player's page, the archive) sends as many SQL
statements for a site of a few games as for one of many (a page of rows, its per-row data
read at once for the page), every row comes exactly once across its pages, a private game
stays hidden from those who may not see it, and a live game page's unchanged poll costs
one statement besides the session's. On PostgreSQL, with a few thousand games and ANALYZE,
the lobby's and my games' queries are served by indexes, never by a scan of games or seats."""
from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest
from sqlalchemy import insert
from sqlmodel import select

from pbem.engine import get_game
from pbem.services.core import games, moves, seating, thread
from pbem.services.lobby import tables
from pbem.store.db import get_engine, unit_of_work
from pbem.store.models import Game, Inbound, Invitation, Outbound, Seat, User
from pbem.web import create_app
from tests.mailtools import CMD, outbox, process
from tests.statements import counted
from tests.web.conftest import Browser, make_user

MINI = get_game("mini")


@pytest.fixture
def site(any_cfg):
    """The site on SQLite and on PostgreSQL, with me (an admin, to see the console too), Olga
    and Pete (who sees none of the private games), and nothing else yet."""
    app = create_app(any_cfg)
    app.config["TESTING"] = True
    ids = {"me": make_user("me@x.test", "Me", admin=False), "olga": make_user("olga@x.test", "Olga"),
           "pete": make_user("pete@x.test", "Pete"), "root": make_user("root@x.test", "Root", admin=True)}
    return app, ids


def as_user(app, uid: int | None) -> Browser:
    b = Browser(app)
    if uid is not None:
        b.login_as(uid)
    return b


def finish(s, gid: int) -> None:
    """Play a game to its end, each move a legal one of the seat to move."""
    while (g := games.get(s, gid)).status == "running":
        state = games.state_at(s, g)
        seat = min(MINI.to_move(state))
        move = MINI.format_move(state, seat, MINI.legal_moves(state, seat)[0])
        assert moves.submit_moves(s, gid, seat, [move], source="web").ok


def grow(ids: dict, n: int) -> dict[str, list[int]]:
    """``n`` more games of each kind, made through the services: open public ones (Olga's),
    private ones (Olga's, Me invited to one in two), mine where I move first, Olga's where she
    does, finished ones; and as many failed mails. Returns the new games by kind."""
    made: dict[str, list[int]] = {k: [] for k in ("public", "private", "my_turn", "their_turn", "finished")}
    with unit_of_work() as s:
        me, olga = s.get(User, ids["me"]), s.get(User, ids["olga"])
        for i in range(n):
            made["public"].append(tables.create(s, olga, "mini", 3, {"hand": "1"}).id)
            private = tables.create(s, olga, "mini", 3, {"hand": "1"}, access="private")
            made["private"].append(private.id)
            if i % 2:  # an invitation admits (services/lobby/tables)
                s.add(Invitation(game_id=private.id, inviter_id=olga.id, email="me@x.test"))
            mine = tables.create(s, me, "mini", 2, {"hand": "1"})
            tables.join(s, olga, mine.id)
            made["my_turn"].append(mine.id)
            theirs = tables.create(s, olga, "mini", 2, {"hand": "1"})
            tables.join(s, me, theirs.id)
            made["their_turn"].append(theirs.id)
            done = tables.create(s, olga, "mini", 2, {"hand": "1"})
            tables.join(s, me, done.id)
            made["finished"].append(done.id)
            s.add(Inbound(message_id=f"<{done.id}@x.test>", raw=b"x" * 5000, status="failed", error="boom",
                          rcpt_to=CMD))
            for who in ("me@x.test", "olga@x.test"):  # a board mail to each of us
                s.add(Outbound(message_id=f"<board-{done.id}-{who}>", to_addr=who, subject=f"game #{done.id}",
                               body_text="x" * 5000, kind="board", game_id=done.id))
        s.flush()
        for gid in made["finished"]:
            finish(s, gid)
    return made


def count(b: Browser, url: str) -> int:
    b.get(url)  # the first request of a client may set things up (a session's touch): not measured
    with counted() as seen:
        r = b.get(url)
    assert r.status_code == 200, (url, r.status_code)
    return len(seen)


def pages_of(b: Browser, url: str, pattern: str, param: str = "page") -> list[list[int]]:
    """Every page of a list, following its "next" links: the ids ``pattern`` finds on each."""
    out, page = [], 1
    while True:
        sep = "&" if "?" in url else "?"
        html = b.get(f"{url}{sep}{param}={page}").get_data(as_text=True)
        out.append([int(x) for x in re.findall(pattern, html)])
        if not re.search(rf'[?&;]{param}={page + 1}[^0-9][^>]*rel="next"', html):
            return out
        page += 1


def _flat(pages: list[list[int]]) -> list[int]:
    return [x for p in pages for x in p]


def test_every_list_page_costs_the_same_statements_at_any_size(site):
    app, ids = site
    few = grow(ids, 3)
    with unit_of_work() as s:  # a post in my running game, for the poll below
        g = games.get(s, few["my_turn"][0])
        thread.post(s, g, s.get(User, ids["me"]), "hello")
    me, root = as_user(app, ids["me"]), as_user(app, ids["root"])
    stamp = me.get(f"/games/{few['my_turn'][0]}/thread.json").get_json()
    poll = f"/games/{few['my_turn'][0]}/thread.json?after={stamp['posts'][-1]['id']}&stamp={stamp['stamp']}"
    urls = [(me, "/lobby"), (me, "/me"), (me, f"/players/{ids['me']}"), (me, "/archive"), (root, "/admin"),
            (me, "/outbox"), (root, "/outbox?x=1"), (me, poll)]
    small = {url: count(b, url) for b, url in urls}
    grow(ids, 55)  # every list now runs over more than a page (50)
    large = {url: count(b, url) for b, url in urls}
    assert large == small
    # the unchanged poll: the session with its user, and one statement for the game and its thread
    assert small[poll] <= 2 + (2 if get_engine().dialect.name == "sqlite" else 0)  # SQLite counts its BEGINs


def test_lobby_pages_show_each_open_game_once_and_private_ones_only_to_their_people(site):
    app, ids = site
    made = grow(ids, 60)
    with unit_of_work() as s:
        joinable = [g.id for g in s.exec(select(Game).where(Game.status == "open").order_by(Game.id))]
    invited = set(made["private"][1::2])
    row = r'id="open-(\d+)"'
    for who, shown in (("me", [g for g in joinable if g not in set(made["private"]) - invited]),
                       ("pete", [g for g in joinable if g not in set(made["private"])]),
                       (None, [g for g in joinable if g not in set(made["private"])]),
                       ("olga", joinable), ("root", joinable)):
        pages = pages_of(as_user(app, ids.get(who)), "/lobby", row)
        assert _flat(pages) == shown, who  # each once, oldest first, across the pages
        assert len(pages) == -(-len(shown) // tables.LOBBY_PAGE) and all(len(p) == 50 for p in pages[:-1])
    # the next link keeps the page's other arguments
    html = as_user(app, ids["me"]).get("/lobby?q=x&page=2").get_data(as_text=True)
    assert re.search(r'href="/lobby\?q=x&amp;page=1" rel="prev"', html), html[-3000:]


def test_my_games_in_pages_my_turn_first_then_running_then_newest(site):
    app, ids = site
    made = grow(ids, 30)
    with unit_of_work() as s:
        me = s.get(User, ids["me"])
        # the clocks say whose turn it is: a human seat to move has one, and only such a seat
        for gid in made["my_turn"] + made["their_turn"] + made["finished"]:
            g = games.get(s, gid)
            to_move = MINI.to_move(games.state_at(s, g)) if g.status == "running" else set()
            assert {x.seat for x in seating.seats(s, gid) if x.deadline_at is not None} == to_move
        deadlines = {x.game_id: x.deadline_at for x in s.exec(select(Seat).where(Seat.user_id == me.id))}
        updated = {g.id: (g.updated_at, g.id) for g in s.exec(select(Game))}
    pages = pages_of(as_user(app, ids["me"]), "/me", r'<td data-label="Game"><a href="/games/(\d+)">')
    seen = _flat(pages)
    mine = made["my_turn"] + made["their_turn"] + made["finished"]
    assert sorted(seen) == sorted(mine) and len(seen) == len(set(seen)) and len(pages) == 2
    n = len(made["my_turn"])
    assert seen[:n] == sorted(made["my_turn"], key=lambda g: (deadlines[g], -g))  # earliest deadline first
    assert set(seen[n:2 * n]) == set(made["their_turn"])  # then the running games
    assert seen[2 * n:] == sorted(made["finished"], key=lambda g: updated[g], reverse=True)  # then newest first
    assert 'class="act"' in as_user(app, ids["me"]).get("/me").get_data(as_text=True)


def test_admin_lists_in_pages_without_the_raw_mails(site):
    app, ids = site
    grow(ids, 12)  # 60 games, 12 failed mails
    root = as_user(app, ids["root"])
    with unit_of_work() as s:
        for i in range(50):  # more failed mails than a page, and some that did not fail
            s.add(Inbound(message_id=f"<more-{i}@x.test>", raw=b"x", status="failed" if i % 5 else "done",
                          rcpt_to=CMD))
        s.flush()
        every = [g.id for g in s.exec(select(Game).order_by(Game.id.desc()))]
        failed = list(s.exec(select(Inbound.id).where(Inbound.status == "failed").order_by(Inbound.id)))
    assert len(every) > 50 and len(failed) > 50
    assert _flat(pages_of(root, "/admin", r'href="/admin/games/(\d+)"', "games_page")) == every
    assert _flat(pages_of(root, "/admin", r'href="/admin/inbound/(\d+)"', "failed_page")) == failed
    with counted() as seen:
        html = root.get("/admin").get_data(as_text=True)
    assert f"Failed mail ({len(failed)})" in html
    inbound = [q for q in seen if "FROM inbound" in q and q.lstrip().upper().startswith("SELECT")]
    assert inbound and not any("inbound.raw" in q for q in inbound)  # a list never reads a mail's bytes


def test_an_unchanged_poll_answers_from_one_statement_and_hides_what_the_viewer_may_not_read(site):
    app, ids = site
    made = grow(ids, 1)
    gid = made["their_turn"][0]
    me, pete = as_user(app, ids["me"]), as_user(app, None)
    first = me.get(f"/games/{gid}/thread.json").get_json()
    last = first["posts"][-1]["id"] if first["posts"] else 0
    url = f"/games/{gid}/thread.json?after={last}&stamp={first['stamp']}"
    quiet = me.get(url).get_json()
    assert quiet["posts"] == [] and "parts" not in quiet and quiet["stamp"] == first["stamp"]
    with counted() as seen:
        assert me.get(url).get_json() == quiet
    assert sum(1 for q in seen if "FROM games" in q) == 1 and not any("FROM posts" in q and "EXISTS" not in q
                                                                      for q in seen)
    # a private word between Olga and someone else is not news for me, nor for a visitor: the same answer
    with unit_of_work() as s:
        g, olga = games.get(s, gid), s.get(User, ids["olga"])
        thread.post(s, g, olga, "between us", to_seat=0)  # Olga's own seat: nobody else reads it
    assert me.get(url).get_json() == quiet
    assert pete.get(url).get_json()["posts"] == []
    # a public post is news: the full answer brings it
    with unit_of_work() as s:
        thread.post(s, games.get(s, gid), s.get(User, ids["olga"]), "your move soon?")
    assert [p["body"] for p in me.get(url).get_json()["posts"]] == ["your move soon?"]
    # and a move changes the stamp: the page's parts come with the answer
    with unit_of_work() as s:
        state = games.state_at(s, games.get(s, gid))
        seat = min(MINI.to_move(state))
        assert moves.submit_moves(s, gid, seat, [MINI.format_move(state, seat, MINI.legal_moves(state, seat)[0])],
                                  source="web").ok
    moved = me.get(url).get_json()
    assert moved["stamp"] != first["stamp"] and moved.get("parts")


def test_a_private_games_poll_still_refuses_a_stranger(site):
    app, ids = site
    made = grow(ids, 1)
    gid = made["private"][0]
    olga = as_user(app, ids["olga"])
    first = olga.get(f"/games/{gid}/thread.json").get_json()
    url = f"/games/{gid}/thread.json?after=0&stamp={first['stamp']}"
    assert olga.get(url).status_code == 200
    assert as_user(app, ids["pete"]).get(url).status_code == 404 and as_user(app, None).get(url).status_code == 404


def test_the_games_command_lists_a_bounded_number_and_points_to_the_web(site):
    from pbem.mail.commands.games_and_seats import GAMES_SHOWN

    app, ids = site
    grow(ids, GAMES_SHOWN)  # more open games, and more of mine, than a mail lists
    process("me@x.test", CMD, "GAMES")
    answer = [o for o in outbox("me@x.test") if o.kind == "reply"][-1].body_text
    assert len(re.findall(r"^ *(?:OK: )?#\d+ Mini", answer, re.M)) == GAMES_SHOWN
    assert "More open games are in the lobby: http" in answer and "/lobby" in answer
    assert "All your games are on your page: http" in answer
    mine = re.search(r"Your games: (.*)", answer).group(1)
    assert mine.count("#") == GAMES_SHOWN and mine.endswith(", …")


def test_the_outbox_in_pages_each_reader_their_own_mail_without_its_bodies(site):
    app, ids = site
    grow(ids, 30)  # 30 board mails to each of us, and those of the games' own making
    with unit_of_work() as s:
        rows = {who: list(s.exec(select(Outbound.id).where(Outbound.to_addr == who).order_by(Outbound.id.desc())))
                for who in ("me@x.test", "olga@x.test")}
        every = list(s.exec(select(Outbound.id).order_by(Outbound.id.desc())))
    row = r'<td data-label="#"><a href="/outbox/(\d+)">'
    assert _flat(pages_of(as_user(app, ids["me"]), "/outbox", row)) == rows["me@x.test"]
    assert _flat(pages_of(as_user(app, ids["olga"]), "/outbox", row)) == rows["olga@x.test"]
    assert _flat(pages_of(as_user(app, ids["root"]), "/outbox", row)) == every and len(every) > 50
    with counted() as seen:
        as_user(app, ids["me"]).get("/outbox")
    assert not any("body_text" in q for q in seen if "FROM outbound" in q)


def test_a_players_games_in_pages_each_once_newest_first(site):
    app, ids = site
    made = grow(ids, 20)
    mine = sorted(made["my_turn"] + made["their_turn"] + made["finished"], reverse=True)
    pages = pages_of(as_user(app, ids["pete"]), f"/players/{ids['me']}", r'<tr id="game-(\d+)">')
    assert _flat(pages) == mine and len(pages) == 2


# ---------------------------------------------------------------- PostgreSQL's plans


def _bulk(n: int, me: int, olga: int) -> None:
    """``n`` games (60 % finished, then 35 % running, then 5 % open: the oldest are over) with two
    seats each and a started game's state, inserted at once (the shapes of the services' rows: a seat to move has a clock);
    Me sits at one in a hundred (a player plays a small part of all the games)."""
    now = datetime.now(timezone.utc)
    status = ["finished"] * 60 + ["running"] * 35 + ["open"] * 5
    with unit_of_work() as s:
        first = s.exec(select(Game.id).order_by(Game.id.desc())).first() or 0
        s.exec(insert(Game), params=[{"game": "mini", "options": {"hand": "1"}, "players": 2, "seed": i,
                                      "status": status[i * 100 // n], "access": "private" if i % 7 == 0 else "public",
                                      "creator_id": olga, "created_at": now, "updated_at": now, "ply": 0,
                                      "state_ply": -1, "deadline_hours": 48, "day_mask": "", "policy": "wait",
                                      "abandon_after": 3, "bot_level": "normal", "paused": False,
                                      "allow_from_address": False, "shown_ply": 0,
                                      # a started game's cached state: a kilobyte, as small as a real one gets
                                      "state_json": None if status[i * 100 // n] == "open" else {"pad": "x" * 1000}} for i in range(n)])
        ids = list(s.exec(select(Game.id, Game.status).where(Game.id > first)))
        seats = []
        for k, (gid, st) in enumerate(ids):
            for seat, uid in enumerate((olga, me if k % 100 == 0 else olga)):
                seats.append({"game_id": gid, "seat": seat, "user_id": uid, "token": seating.new_token(),
                              "deadline_at": now if st == "running" and seat == k % 2 else None, "joined_at": now,
                              "resigned": False, "is_bot": False, "missed": 0, "abandoned": False,
                              "reminded": 0, "open_for_replacement": False})
        s.exec(insert(Seat), params=seats)


def _plan(statement: str, params) -> str:
    with get_engine().connect() as conn:
        conn.exec_driver_sql("ANALYZE")
        return "\n".join(r[0] for r in conn.exec_driver_sql("EXPLAIN " + statement, params))


@pytest.mark.parametrize("url,table", [("/lobby", "games"), ("/me", "seats")])
def test_postgresql_serves_the_lobby_and_my_games_from_indexes(pg_cfg, url, table):
    app = create_app(pg_cfg)
    app.config["TESTING"] = True
    me, olga = make_user("me@x.test", "Me"), make_user("olga@x.test", "Olga")
    _bulk(6000, me, olga)
    b = as_user(app, me)
    b.get(url)
    with counted() as seen:
        assert b.get(url).status_code == 200
    # the page's own query: the one that reads games with a LIMIT
    at = next(i for i, q in enumerate(seen) if "FROM games" in q and "LIMIT" in q)
    plan = _plan(seen[at], seen.params[at])
    assert "Seq Scan on games" not in plan and "Seq Scan on seats" not in plan, plan
    assert {"/lobby": "ix_games_status_id", "/me": "ix_seats_user_id"}[url] in plan, plan
