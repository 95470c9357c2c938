"""Backups (issue 21): a SQLite backup taken while games are being played is
the database as of one commit; restored, every game replays from its record
to the state it has cached."""
from __future__ import annotations

import json
import threading
import time

import pytest
from click.testing import CliRunner
from sqlmodel import func, select


def _play(stop: threading.Event, game_ids: list[int], played: list[int]) -> None:
    from pbem.bench.env import playout
    from pbem.services.core import moves
    from pbem.store.db import unit_of_work

    while not stop.is_set():
        moved = False
        for gid in game_ids:
            nxt = playout(gid, 1, seed=len(played))
            if not nxt:
                continue
            seat, text = nxt[0]
            with unit_of_work() as s:
                moves.submit_moves(s, gid, seat, [text], source="bench")
            played.append(gid)
            moved = True
        if not moved:
            return


def _check_replays(url: str) -> tuple[int, int]:
    """Every started game of the database at ``url``: its cached state == its replay. (games, moves)"""
    from pbem.services.core import games
    from pbem.store.db import unit_of_work
    from pbem.store.models import Game, Move

    with unit_of_work(url) as s:
        rows = list(s.exec(select(Game).where(Game.status.in_(("running", "finished")))))
        for g in rows:
            engine = games.engine_for(g)
            assert g.state_ply == g.ply
            cached = engine.to_json(games.state_at(s, g))
            replayed = engine.to_json(games.replay_state(s, g))
            assert json.dumps(cached, sort_keys=True) == json.dumps(replayed, sort_keys=True), g.id
        moves = s.exec(select(func.count()).select_from(Move)).one()
    return len(rows), moves


def test_a_backup_taken_while_games_are_played_restores_and_replays(sqlite_cfg, tmp_path):
    from pbem.bench.env import make_games
    from pbem.store import backup
    from pbem.store.db import dispose_engines
    from pbem.store.models import Move

    ids = make_games("spyrium", 3, 6)
    stop, played = threading.Event(), []
    player = threading.Thread(target=_play, args=(stop, ids, played), daemon=True)
    player.start()
    try:
        while len(played) < 30:
            time.sleep(0.05)
        copies = []
        for i in range(3):  # while moves go on being committed
            copies.append(backup.backup_sqlite(tmp_path / f"backup-{i}.sqlite3"))
            time.sleep(0.3)
    finally:
        stop.set()
        player.join(60)
    assert len(played) > copies[0].tables["moves"], "moves were played during the backups"
    assert copies[-1].tables["moves"] > copies[0].tables["moves"]
    for i, copy in enumerate(copies):
        url = f"sqlite:///{tmp_path / f'restored-{i}.sqlite3'}"
        backup.restore_sqlite(copy.path, url)
        n_games, n_moves = _check_replays(url)
        assert n_games == 6 and n_moves == copy.tables["moves"]
    # and the live database itself replays too
    _check_replays(sqlite_cfg.database_url)
    dispose_engines()


def test_restore_refuses_a_file_that_is_not_a_pbem_backup_and_changes_nothing(sqlite_cfg, tmp_path):
    from pbem.cli import main
    from pbem.store.db import upgrade

    upgrade()
    bad = tmp_path / "notes.txt"
    bad.write_text("not a database")
    before = (sqlite_cfg.var_dir / "pbem.sqlite3").read_bytes()
    res = CliRunner().invoke(main, ["restore", str(bad), "--yes"], env=sqlite_cfg.to_env())
    assert res.exit_code == 1 and "is not a SQLite database" in res.output
    assert (sqlite_cfg.var_dir / "pbem.sqlite3").read_bytes() == before
    res = CliRunner().invoke(main, ["restore", str(tmp_path / "nothing.sqlite3"), "--yes"], env=sqlite_cfg.to_env())
    assert res.exit_code == 1 and "there is no file" in res.output


def test_backup_and_restore_on_postgresql(pg_cfg, tmp_path):
    from pbem.bench.env import make_games
    from pbem.store import backup
    from pbem.store.db import unit_of_work
    from pbem.store.models import Game

    make_games("spyrium", 2, 2)
    copy = backup.backup_pg(tmp_path / "pbem.dump")
    assert copy.path.read_bytes()[:5] == b"PGDMP"
    with unit_of_work() as s:
        s.add(Game(game="spyrium", players=2, seed=9))
    backup.restore_pg(copy.path)
    from pbem.store.db import dispose_engines

    dispose_engines()
    with unit_of_work() as s:
        assert s.exec(select(func.count()).select_from(Game)).one() == 2
    _check_replays(pg_cfg.database_url)


def test_the_backup_and_restore_commands(sqlite_cfg, tmp_path):
    from pbem.bench.env import make_games
    from pbem.cli import main
    from pbem.store.db import unit_of_work
    from pbem.store.models import Game

    make_games("spyrium", 2, 3)
    out = tmp_path / "b" / "pbem.sqlite3"
    res = CliRunner().invoke(main, ["backup", str(out)])
    assert res.exit_code == 0 and "(3 games, 0 moves)" in res.output and out.exists()
    res = CliRunner().invoke(main, ["backup", str(sqlite_cfg.var_dir / "pbem.sqlite3")])
    assert res.exit_code == 1 and "cannot be the database itself" in res.output
    make_games("spyrium", 2, 1, first_seed=50)
    res = CliRunner().invoke(main, ["restore", str(out)], input="n\n")
    assert res.exit_code == 1  # asked, and told no: nothing changed
    with unit_of_work() as s:
        assert s.exec(select(func.count()).select_from(Game)).one() == 4
    res = CliRunner().invoke(main, ["restore", str(out), "--yes"])
    assert res.exit_code == 0 and "restored" in res.output
    with unit_of_work() as s:
        assert s.exec(select(func.count()).select_from(Game)).one() == 3
    res = CliRunner().invoke(main, ["prune"])
    assert res.exit_code == 0 and "inbound deleted: 0" in res.output
