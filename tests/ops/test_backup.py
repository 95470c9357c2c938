"""Backups: a SQLite backup taken while games are being played is
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


def test_a_backup_is_for_its_owner_alone(sqlite_cfg, tmp_path):
    """Every seat token, login link and mail is in it: mode 0600 from its first byte, whatever the umask,
    and a folder pbem makes for it is 0700."""
    import os
    import stat

    from pbem.bench.env import make_games
    from pbem.cli import main

    make_games("spyrium", 2, 1)
    old = os.umask(0o022)
    try:
        out = tmp_path / "new-folder" / "pbem.backup"
        res = CliRunner().invoke(main, ["backup", str(out)])
    finally:
        os.umask(old)
    assert res.exit_code == 0, res.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert stat.S_IMODE(out.parent.stat().st_mode) == 0o700
    assert not list(out.parent.glob("*.part"))


def test_backup_and_restore_take_a_multi_host_url_as_the_services_do(pg_cfg, tmp_path):
    """A URL naming several hosts (SQLAlchemy's form, with libpq's target_session_attrs) and a password:
    the services connect with it, and so do pg_dump and pg_restore; the password is never on their
    command line."""
    import os
    import stat

    import sqlalchemy as sa
    from sqlalchemy.engine import make_url

    from pbem.bench.env import make_games
    from pbem.store import backup
    from pbem.store.db import dispose_engines, unit_of_work
    from pbem.store.models import Game

    u = make_url(pg_cfg.database_url)
    multi = (f"postgresql+psycopg://{u.username}:not-needed@/{u.database}?host=127.0.0.1:{u.port or 5432}"
             f"&host=localhost:{u.port or 5432}&target_session_attrs=read-write&connect_timeout=10")
    eng = sa.create_engine(multi)  # what the services do with PBEM_DATABASE_URL
    with eng.connect() as c:
        assert c.execute(sa.text("select current_database()")).scalar() == u.database
    eng.dispose()
    conninfo, env = backup.libpq(multi)
    assert "not-needed" not in conninfo and env == {"PGPASSWORD": "not-needed"}
    assert "host='127.0.0.1,localhost'" in conninfo and "target_session_attrs='read-write'" in conninfo

    make_games("spyrium", 2, 2)
    old = os.umask(0o022)
    try:
        copy = backup.backup(tmp_path / "pbem.dump", multi)
    finally:
        os.umask(old)
    assert copy.path.read_bytes()[:5] == b"PGDMP" and stat.S_IMODE(copy.path.stat().st_mode) == 0o600
    with unit_of_work() as s:
        s.add(Game(game="spyrium", players=2, seed=9))
    backup.restore(copy.path, multi)
    dispose_engines()
    with unit_of_work() as s:
        assert s.exec(select(func.count()).select_from(Game)).one() == 2
