"""Backups. SQLite: the sqlite3 online backup API copies the
database in one step under a read transaction -- in WAL mode the service
keeps writing meanwhile, and the copy is the database as of one commit.
PostgreSQL: pg_dump (custom format, a consistent snapshot of its own) and
pg_restore, the tools made for it (docs/operators.md)."""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url

from pbem.config import settings


class BackupError(Exception):
    """What went wrong, said for the operator, with what to do."""


@dataclass
class Copied:
    path: Path
    bytes: int
    tables: dict[str, int]


def backend(url: str | None = None) -> str:
    return make_url(url or settings().database_url).get_backend_name()


def sqlite_path(url: str | None = None) -> Path:
    u = make_url(url or settings().database_url)
    if u.get_backend_name() != "sqlite" or not u.database or u.database == ":memory:":
        raise BackupError(f"not a SQLite database file: {u.render_as_string(hide_password=True)}")
    return Path(u.database)


def _counts(conn: sqlite3.Connection) -> dict[str, int]:
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
    return {n: conn.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}


def check_sqlite(path: Path) -> dict[str, int]:
    """That ``path`` is a sound pbem database: its rows per table, or a BackupError."""
    if not path.is_file():
        raise BackupError(f"there is no file {path}")
    with path.open("rb") as f:
        if f.read(16) != b"SQLite format 3\x00":
            raise BackupError(f"{path} is not a SQLite database (a pbem backup is one: `pbem backup <file>`)")
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        ok = conn.execute("PRAGMA quick_check").fetchone()[0]
        if ok != "ok":
            raise BackupError(f"{path} is damaged (quick_check: {ok})")
        counts = _counts(conn)
    finally:
        conn.close()
    if "alembic_version" not in counts or "games" not in counts:
        raise BackupError(f"{path} is a SQLite database but not pbem's (no games, no alembic_version)")
    return counts


def backup_sqlite(dest: Path, url: str | None = None) -> Copied:
    """Copy the live database to ``dest`` (written beside it, then renamed: never half a file)."""
    src_path = sqlite_path(url)
    if not src_path.exists():
        raise BackupError(f"there is no database at {src_path} yet (pbem db upgrade makes it)")
    dest = Path(dest)
    if dest.resolve() == src_path.resolve():
        raise BackupError("the backup cannot be the database itself; e.g. pbem backup /var/backups/pbem.sqlite3")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    tmp.unlink(missing_ok=True)
    src = sqlite3.connect(str(src_path), timeout=30)
    dst = sqlite3.connect(str(tmp))
    try:
        src.execute("PRAGMA busy_timeout=30000")
        # pages=-1: one step, under one read transaction (WAL: writers go on); a copy by steps would be
        # restarted by every write of another connection and might never end while games are played
        src.backup(dst, pages=-1)
        dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
    finally:
        dst.close()
        src.close()
    counts = check_sqlite(tmp)
    os.replace(tmp, dest)
    return Copied(dest, dest.stat().st_size, counts)


def restore_sqlite(source: Path, url: str | None = None) -> Copied:
    """Replace the database with the backup ``source`` (checked first: a bad file changes nothing).
    The services must be stopped: their open connections would go on with what they had read."""
    source = Path(source)
    counts = check_sqlite(source)
    dest_path = sqlite_path(url)
    dest_path.parent.mkdir(parents=True, exist_ok=True)
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    dst = sqlite3.connect(str(dest_path), timeout=30)
    try:
        dst.execute("PRAGMA busy_timeout=30000")
        src.backup(dst, pages=-1)  # through SQLite: the live file's WAL and locks are honoured
    finally:
        dst.close()
        src.close()
    return Copied(dest_path, dest_path.stat().st_size, counts)


def _libpq_url(url: str) -> str:
    u = make_url(url)
    return u.set(drivername="postgresql").render_as_string(hide_password=False)


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise BackupError(f"{name} is not installed; it comes with PostgreSQL's client tools "
                          f"(e.g. apt-get install postgresql-client)")
    return path


def backup_pg(dest: Path, url: str | None = None) -> Copied:
    dest = Path(dest)
    tmp = dest.with_name(dest.name + ".part")
    dest.parent.mkdir(parents=True, exist_ok=True)
    run = subprocess.run([_tool("pg_dump"), "--format=custom", "--no-owner", f"--file={tmp}",
                          f"--dbname={_libpq_url(url or settings().database_url)}"], capture_output=True, text=True)
    if run.returncode:
        tmp.unlink(missing_ok=True)
        raise BackupError(f"pg_dump failed: {run.stderr.strip()[:2000]}")
    os.replace(tmp, dest)
    return Copied(dest, dest.stat().st_size, {})


def restore_pg(source: Path, url: str | None = None) -> Copied:
    source = Path(source)
    if not source.is_file():
        raise BackupError(f"there is no file {source}")
    with source.open("rb") as f:
        if f.read(5) != b"PGDMP":
            raise BackupError(f"{source} is not a pg_dump archive in the custom format (`pbem backup <file>` "
                              f"on PostgreSQL makes one)")
    run = subprocess.run([_tool("pg_restore"), "--clean", "--if-exists", "--no-owner", "--single-transaction",
                          f"--dbname={_libpq_url(url or settings().database_url)}", str(source)],
                         capture_output=True, text=True)
    if run.returncode:
        raise BackupError(f"pg_restore failed (the database is as it was: one transaction): "
                          f"{run.stderr.strip()[:2000]}")
    return Copied(source, source.stat().st_size, {})


def backup(dest: Path, url: str | None = None) -> Copied:
    return backup_sqlite(dest, url) if backend(url) == "sqlite" else backup_pg(dest, url)


def restore(source: Path, url: str | None = None) -> Copied:
    return restore_sqlite(source, url) if backend(url) == "sqlite" else restore_pg(source, url)
