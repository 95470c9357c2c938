"""A finished game's record (the page's download, `pbem export`) and
`pbem import`, which replays it into a fresh database -- SQLite and PostgreSQL --
to the same final state and outcome, or refuses it and stores nothing; and the
replay's seat views, every seat's once the game is over."""
from __future__ import annotations

import json
from contextlib import contextmanager

import pytest
from click.testing import CliRunner
from sqlalchemy import func
from sqlmodel import select

from pbem.cli import main
from pbem.engine import get_game
from pbem.services.core import games, seating
from pbem.services.lobby import archive, tables
from pbem.store.db import unit_of_work
from pbem.store.models import AuditLog, Game, Move, Post, Seat, User
from pbem.web import create_app
from tests.archive.play import SECRET, finished_game, people, replaced_secret_game
from tests.conftest import installed, make_settings, pg_installed
from tests.web.conftest import Browser, log_in


@contextmanager
def fresh(kind: str, tmp):
    """A fresh database of the same kind, settings and all, for the length of the block."""
    with (installed(make_settings(tmp)) if kind == "sqlite" else pg_installed(tmp)) as cfg:
        yield cfg


def _kind(cfg) -> str:
    return "postgres" if cfg.database_url.startswith("postgresql") else "sqlite"


def _cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _counts() -> dict:
    with unit_of_work() as s:
        return {t.__name__: s.exec(select(func.count()).select_from(t)).one()
                for t in (Game, User, Seat, Move, Post, AuditLog)}


@pytest.mark.parametrize("name", ["spyrium", "squire", "iaww"])
def test_an_exported_record_imports_to_the_same_final_state(any_cfg, tmp_path, name):
    ann, bob = people("Ann", "Bob")
    replaced_ply = None
    if name == "iaww":  # with a secret pick replaced before the reveal: no trace of it goes out
        gid, _replaced = replaced_secret_game([ann, bob])
        with unit_of_work() as s:
            replaced_ply = s.exec(select(Move.ply).where(Move.game_id == gid,
                                                         Move.superseded_by.is_not(None))).first()
        assert replaced_ply is not None
    else:  # with a move taken back: it stays in the log, undone, and in the record
        gid = finished_game(name, [ann, bob], take_back=True)
    path = tmp_path / "record.json"
    res = _cli("export", gid, path)
    assert res.exit_code == 0, res.output
    text = path.read_text(encoding="utf-8")
    rec = json.loads(text)
    with unit_of_work() as s:
        g = games.get(s, gid)
        engine = games.engine_for(g)
        assert rec["final_state_hash"] == archive.state_hash(engine, games.state_at(s, g))
        assert (rec["outcome"], rec["seed"], rec["options"], rec["game"]["name"]) == (g.outcome, g.seed, g.options, name)
        live = [(m.ply, m.seat, m.notation) for m in games._record(s, gid, 0)]
    assert [p["name"] for p in rec["players"]] == ["Ann", "Bob"]
    # the live moves in their order, numbered as readers were shown them: 1, 2, ... with no gap where a
    # secret pick was replaced (a gap would tell that it was)
    assert [(m["seat"], m["notation"]) for m in rec["moves"] if not m["undone"]] == [(x[1], x[2]) for x in live]
    assert [m["ply"] for m in rec["moves"]] == list(range(1, len(rec["moves"]) + 1))
    assert rec["game"]["ply"] == rec["moves"][-1]["ply"]
    if name != "iaww":
        assert [m["undone"] for m in rec["moves"]].count(True) == 1 and all(m["notation"] for m in rec["moves"])
    assert SECRET not in text and "good luck, everyone" in text  # public posts only
    if replaced_ply is not None:
        assert len(rec["moves"]) == len(live) and "(replaced)" not in text

    with fresh(_kind(any_cfg), tmp_path / "fresh"):  # another, empty database
        res = _cli("import", path)
        assert res.exit_code == 0, res.output
        with unit_of_work() as s:
            g = s.exec(select(Game)).one()
            assert res.output.strip() == f"imported as game #{g.id}"
            engine = get_game(name)
            assert (g.status, g.ply, g.outcome, g.seed, g.options) == \
                ("finished", rec["game"]["ply"], rec["outcome"], rec["seed"], rec["options"])
            assert archive.state_hash(engine, games.replay_state(s, g)) == rec["final_state_hash"]  # from the rows
            assert archive.state_hash(engine, games.state_at(s, g)) == rec["final_state_hash"]  # the cache agrees
            assert seating.names(s, g.id) == ["Ann", "Bob"]
            placeholders = list(s.exec(select(User)))
            assert all(u.email.endswith("@" + archive.IMPORTED_DOMAIN) and u.disabled_at is not None
                       and u.name_key is None and not u.confirmed for u in placeholders)
            audit = s.exec(select(AuditLog)).one()
            assert audit.action == "import" and audit.game_id == g.id and f"game #{gid}" in audit.detail
            again = archive.record(s, g.id, None)
        for key in ("options", "seed", "outcome", "final_state_hash", "moves"):
            assert again[key] == rec[key] if key != "moves" else \
                [(m["ply"], m["seat"], m["notation"], m["undone"]) for m in again["moves"]] == \
                [(m["ply"], m["seat"], m["notation"], m["undone"]) for m in rec["moves"]]
        assert [p["body"] for p in again["posts"]] == [p["body"] for p in rec["posts"]]
        # the imported game is in the new archive, with its players' names
        with unit_of_work() as s:
            assert [e.players for e in archive.search(s, None, player="bob").entries] == [("Ann", "Bob")]


def _tamper(rec: dict, how: str) -> str:
    rec = json.loads(json.dumps(rec))
    live = [m for m in rec["moves"] if not m["undone"]]
    if how == "a move":  # another legal move at the same ply: the game goes another way
        engine = get_game(rec["game"]["name"])
        state = engine.initial_state(len(rec["players"]), rec["seed"], rec["options"])
        seat = live[0]["seat"]
        others = (engine.format_move(state, seat, m) for m in engine.legal_moves(state, seat))
        live[0]["notation"] = next(t for t in others if t != live[0]["notation"])
    elif how == "an illegal move":
        live[-1]["notation"] = "no such move"
    elif how == "the outcome":
        rec["outcome"]["scores"][0] += 1
    elif how == "the hash":
        rec["final_state_hash"] = "0" * 64
    elif how == "the seed":
        rec["seed"] += 1
    elif how == "a move cut":
        rec["moves"].remove(live[-1])
    elif how == "the order":
        rec["moves"][0]["ply"], rec["moves"][1]["ply"] = rec["moves"][1]["ply"], rec["moves"][0]["ply"]
    elif how == "the format":
        rec["format"] = "something else"
    return json.dumps(rec)


@pytest.mark.parametrize("how,said", [
    ("a move", "the record's"), ("an illegal move", "refused by the rules"), ("the outcome", "outcome"),
    ("the hash", "another final state"), ("the seed", "the record's"), ("a move cut", "do not finish"),
    ("the order", "not in order"), ("the format", "not a pbem game record"), ("not JSON", "not JSON"),
])
def test_a_tampered_record_is_refused_and_nothing_is_stored(sqlite_cfg, tmp_path, how, said):
    gid = finished_game("spyrium", people("Ann", "Bob"), talk=False)
    with unit_of_work() as s:
        rec = archive.record(s, gid, None)
    path = tmp_path / "tampered.json"
    path.write_text("{not json" if how == "not JSON" else _tamper(rec, how), encoding="utf-8")
    before = _counts()
    res = _cli("import", path)
    assert res.exit_code == 1 and said in res.output, res.output
    assert "e.g. pbem export 12 game-12.json" in res.output  # with a legal example
    assert _counts() == before  # nothing stored, not even a placeholder
    with fresh("sqlite", tmp_path / "fresh"):  # nor in an empty database
        empty = _counts()
        assert _cli("import", path).exit_code == 1
        assert _counts() == empty


def test_the_record_download_and_its_refusals(sqlite_cfg, tmp_path):
    ann, bob, cleo = people("Ann", "Bob", "Cleo")
    gid = finished_game("squire", [ann, bob])
    with unit_of_work() as s:
        running = tables.create(s, ann, "spyrium", 2, seed=3).id
        tables.join(s, cleo, running)
        rec = archive.record(s, gid, None)
    app = create_app(sqlite_cfg)
    app.config["TESTING"] = True
    visitor, bobs = Browser(app), Browser(app)
    log_in(bobs.client, bob.id)  # the private word was to Bob: his download is the public's all the same
    for b in (visitor, bobs):
        r = b.get(f"/games/{gid}/record.json")
        assert r.status_code == 200 and r.mimetype == "application/json"
        assert f'filename="pbem-squire-{gid}.json"' in r.headers["Content-Disposition"]
        assert json.loads(r.get_data(as_text=True)) == rec
        assert SECRET not in r.get_data(as_text=True)
    r = visitor.get(f"/games/{running}/record.json")
    assert r.status_code == 409 and "is running: its record is kept in the archive once the game is over" in \
        r.get_json()["error"]
    assert visitor.get(f"/games/{gid + 100}/record.json").status_code == 404
    page = visitor.get(f"/games/{gid}").get_data(as_text=True)
    assert f'href="/games/{gid}/record.json"' in page
    assert f'href="/games/{running}/record.json"' not in visitor.get(f"/games/{running}").get_data(as_text=True)
    res = _cli("export", running)
    assert res.exit_code == 1 and "is running" in res.output
    res = _cli("export", gid)  # to standard output
    assert res.exit_code == 0 and json.loads(res.output) == rec


def test_a_finished_games_replay_shows_every_seat_and_a_running_one_only_ones_own(sqlite_cfg):
    ann, bob, cleo = people("Ann", "Bob", "Cleo")
    gid = finished_game("iaww", [ann, bob])
    with unit_of_work() as s:
        running = tables.create(s, ann, "squire", 2, seed=3).id
        tables.join(s, cleo, running)
    app = create_app(sqlite_cfg)
    app.config["TESTING"] = True
    visitor, anns = Browser(app), Browser(app)
    log_in(anns.client, ann.id)

    def view(b, game_id, query):
        r = b.get(f"/games/{game_id}/view.json?{query}")
        return r.status_code, (r.get_json() if r.status_code == 200 else r.get_data(as_text=True))

    with unit_of_work() as s:
        g = games.get(s, gid)
        want = {seat: json.loads(json.dumps(games.view_for(s, g, seat, 9))) for seat in (None, 0, 1)}
    for b in (visitor, anns):  # the game is over: each seat's view at every ply, for everyone
        for q, seat in (("seat=1", 0), ("seat=2", 1), ("seat=public", None)):
            status, got = view(b, gid, f"ply=9&{q}")
            assert status == 200 and got.pop("viewer_seat") == seat and got == want[seat], q
            assert b.get(f"/games/{gid}/board?ply=9&{q}").status_code == 200
    assert view(visitor, gid, "ply=9")[1]["viewer_seat"] is None  # a visitor's own view: the public one
    assert view(anns, gid, "ply=9")[1]["viewer_seat"] == 0
    assert view(visitor, gid, "seat=3")[0] == 400 and view(visitor, gid, "seat=x")[0] == 400
    page = visitor.get(f"/games/{gid}").get_data(as_text=True)
    assert 'id="view-seat"' in page and '<option value="1">seat 1: Ann</option>' in page
    assert '<option value="2">seat 2: Bob</option>' in page
    mine = anns.get(f"/games/{gid}").get_data(as_text=True)
    assert '<option value="public">public view</option>' in mine and '<option value="1">seat 1' not in mine

    # a running game: the public view and one's own seat, never another's
    status, text = view(visitor, running, "seat=1")
    assert status == 403 and "every seat&#39;s view is shown once the game is over" in text
    assert view(anns, running, "seat=1")[0] == 200 and view(anns, running, "seat=2")[0] == 403
    assert anns.get(f"/games/{running}/board?ply=0&seat=2").status_code == 403
    with unit_of_work() as s:
        public = json.loads(json.dumps(games.view_for(s, games.get(s, running), None)))
    status, got = view(anns, running, "seat=public")
    assert status == 200 and got.pop("viewer_seat") is None and got == public
    assert 'id="view-seat"' not in anns.get(f"/games/{running}").get_data(as_text=True)
