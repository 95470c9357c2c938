"""Backups. SQLite: the sqlite3 online backup API copies the
database in one step under a read transaction -- in WAL mode the service
keeps writing meanwhile, and the copy is the database as of one commit.
PostgreSQL: pg_dump (custom format, a consistent snapshot of its own) and
pg_restore, the tools made for it (docs/operators.md).

A backup holds every seat token, login link and mail: it is written mode
0600 from its first byte (the file is made so before anything is written
into it), in a folder made 0700 when pbem makes it."""
from __future__ import annotations

import os
import re
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


def _private_file(path: Path) -> None:
    """An empty file only its owner may read, made before the copy goes into it (a file made by the
    copy would have the umask's mode, usually world-readable, until a chmod)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    os.chmod(path, 0o600)  # whatever the umask took away, nothing more than the owner's


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
    tmp = dest.with_name(dest.name + ".part")
    _private_file(tmp)  # SQLite writes a new database into an empty file, keeping its mode
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


_HOST_PORT = re.compile(r"\[(?P<v6>[^\]]+)\](?::(?P<p6>\d*))?|(?P<host>[^:]*)(?::(?P<port>\d*))?")


def _quote(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def libpq(url: str) -> tuple[str, dict[str, str]]:
    """The connection string of pg_dump and pg_restore for a database URL the services accept, and the
    environment it needs: every host of a multi-host URL (SQLAlchemy's ``?host=h1:5432&host=h2:5433``, or
    libpq's own ``h1,h2`` with ``?port=``), socket folders, and every other parameter (``sslmode``,
    ``target_session_attrs``, ...) as libpq keywords; the password goes by PGPASSWORD, never on a command
    line that ``ps`` shows."""
    u = make_url(url)
    query = {k: (v[-1] if isinstance(v, tuple) else v) for k, v in u.query.items() if k not in ("host", "port")}
    hosts = u.query.get("host")
    words: dict[str, str] = {}
    if hosts:
        names, ports = [], []
        for h in ([hosts] if isinstance(hosts, str) else hosts):
            m = _HOST_PORT.fullmatch(h) if not h.startswith("/") else None
            names.append(h if m is None else (m["v6"] or m["host"]))
            ports.append("" if m is None else (m["p6"] or m["port"] or ""))
        words["host"] = ",".join(names)
        if any(ports):
            words["port"] = ",".join(ports)
    elif u.host:
        words["host"] = u.host
    port = u.query.get("port") or (str(u.port) if u.port else "")
    if port and "port" not in words:
        words["port"] = port if isinstance(port, str) else ",".join(port)
    if u.username:
        words["user"] = u.username
    if u.database:
        words["dbname"] = u.database
    words.update(query)
    env = {"PGPASSWORD": u.password} if u.password else {}
    return " ".join(f"{k}={_quote(str(v))}" for k, v in words.items()), env


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise BackupError(f"{name} is not installed; it comes with PostgreSQL's client tools "
                          f"(e.g. apt-get install postgresql-client)")
    return path


def _run(args: list[str], url: str | None) -> subprocess.CompletedProcess:
    conninfo, env = libpq(url or settings().database_url)
    return subprocess.run([*args, f"--dbname={conninfo}"], capture_output=True, text=True,
                          env={**os.environ, **env})


def backup_pg(dest: Path, url: str | None = None) -> Copied:
    dest = Path(dest)
    tmp = dest.with_name(dest.name + ".part")
    _private_file(tmp)  # pg_dump writes into it, keeping its mode
    run = _run([_tool("pg_dump"), "--format=custom", "--no-owner", f"--file={tmp}"], url)
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
    run = _run([_tool("pg_restore"), "--clean", "--if-exists", "--no-owner", "--single-transaction", str(source)], url)
    if run.returncode:
        raise BackupError(f"pg_restore failed (the database is as it was: one transaction): "
                          f"{run.stderr.strip()[:2000]}")
    return Copied(source, source.stat().st_size, {})


def backup(dest: Path, url: str | None = None) -> Copied:
    return backup_sqlite(dest, url) if backend(url) == "sqlite" else backup_pg(dest, url)


def restore(source: Path, url: str | None = None) -> Copied:
    return restore_sqlite(source, url) if backend(url) == "sqlite" else restore_pg(source, url)
