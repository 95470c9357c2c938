"""What every service-level benchmark needs: a fresh PostgreSQL database (and
a Redis key prefix of its own) with the schema applied, installed as the
settings in force, and removed afterwards; players and games made through the
services; random legal playouts computed with the real engine."""
from __future__ import annotations

import random
import socket
import statistics
import os
import sys
import tempfile
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from pbem import config

PG_ADMIN = "postgresql+psycopg://root@127.0.0.1:5432/test"
REDIS_URL = "redis://127.0.0.1:6379/0"


@contextmanager
def bench_settings(pg_admin: str = PG_ADMIN, redis_url: str | None = REDIS_URL,
                   var_dir: Path | None = None, *, name: str | None = None,
                   keep: bool = False, settings: dict[str, str] | None = None) -> Iterator[config.Settings]:
    """Fresh database ``pbem_bench_<hex>`` (or ``name``, made if it does not
    exist) next to ``pg_admin``'s, migrated, installed as the settings (``settings``: PBEM_* values
    over the bench's); dropped at the end unless ``keep`` (the Redis keys are deleted either way)."""
    import sqlalchemy as sa

    from pbem.store import db

    name = name or "pbem_bench_" + uuid.uuid4().hex[:10]
    admin = sa.create_engine(pg_admin, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        if not c.exec_driver_sql("SELECT 1 FROM pg_database WHERE datname = %(n)s", {"n": name}).first():
            c.exec_driver_sql(f'CREATE DATABASE "{name}"')
    prefix = f"{name}:"
    tmp = tempfile.TemporaryDirectory(prefix="pbem-bench-") if var_dir is None else None
    try:
        env = {
            "PBEM_VAR_DIR": str(var_dir or Path(tmp.name) / "var"),
            "PBEM_DATABASE_URL": pg_admin.rsplit("/", 1)[0] + "/" + name,
            "PBEM_DOMAIN": "pbem.bench",
            "PBEM_SECRET_KEY": "bench-secret",
            # the load comes from one client address and a few senders: the
            # receiver's and the pipeline's courtesy limits would measure themselves
            "PBEM_SMTPD_RATE_PER_IP": "0", "PBEM_SMTPD_RATE_PER_SENDER": "0", "PBEM_INBOUND_RATE": "100000000",
        }
        if redis_url:
            env.update(PBEM_BROKER_URL=redis_url, PBEM_BROKER_PREFIX=prefix)
        # the board pictures in the mail are measured as the caller sets them: on (the
        # default), off (PBEM_MAIL_PICTURES=0), or never shed (PBEM_PICTURE_BACKLOG large)
        env.update({k: os.environ[k] for k in ("PBEM_MAIL_PICTURES", "PBEM_PICTURE_WIDTH", "PBEM_PICTURE_BACKLOG",
                                                   "PBEM_PICTURE_QUEUE", "PBEM_PICTURE_WAIT_S")
                    if k in os.environ})
        env.update(settings or {})
        yield install(config.load_settings(env))
    finally:
        db.dispose_engines()
        config.set_settings(None)
        try:
            if not keep:
                with admin.connect() as c:
                    c.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        except Exception as e:  # noqa: BLE001 - the server went away: the measurement's own error matters more
            print(f"could not drop the bench database {name}: {e!r}"[:300], file=sys.stderr)
        admin.dispose()
        if redis_url:
            import redis

            r = redis.Redis.from_url(redis_url)
            keys = list(r.scan_iter(match=prefix + "*", count=1000))
            if keys:
                r.delete(*keys)
        if tmp is not None:
            tmp.cleanup()


def install(cfg: config.Settings, *, migrate: bool = True) -> config.Settings:
    """Make ``cfg`` the settings in force: its var dir made, the database
    engines dropped and the schema migrated (unless ``migrate`` is false: the
    caller brings a database already at the newest migration, as the tests'
    copies of one migrated database), Celery pointed at its broker.
    The caller undoes it (``db.dispose_engines``, ``config.set_settings(None)``)."""
    from pbem import tasks
    from pbem.store import db

    cfg.var_dir.mkdir(parents=True, exist_ok=True)
    config.set_settings(cfg)
    db.dispose_engines()
    if migrate:
        db.upgrade()
    tasks.configure(cfg)
    return cfg


def free_port() -> int:
    """A TCP port free on loopback right now (for a server the caller starts)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_games(game: str, players: int, count: int, *, first_seed: int = 1,
               languages: tuple[str, ...] = ("en",)) -> list[int]:
    """``count`` running games of ``game``, each with its own ``players``
    registered users, made through the services, seat k speaking
    ``languages[k % len(languages)]``. Returns the game ids."""
    from pbem.services.core import accounts
    from pbem.services.lobby import tables
    from pbem.store.db import unit_of_work

    ids = []
    with unit_of_work() as s:
        for i in range(count):
            users = [accounts.register(s, f"p{i}-{k}@players.bench", f"Player {i}.{k}", confirmed=True,
                                       language=languages[k % len(languages)] if languages else None)[0]
                     for k in range(players)]
            g = tables.create(s, users[0], game, players, seed=first_seed + i)
            for u in users[1:]:
                tables.join(s, u, g.id)
            ids.append(g.id)
    return ids


def playout(game_id: int, plies: int | None = None, seed: int = 0) -> list[tuple[int, str]]:
    """A random legal continuation of a stored game from its latest state, as
    (seat, canonical notation), computed by the engine alone (no writes)."""
    from pbem.services.core import games
    from pbem.store.db import unit_of_work

    with unit_of_work() as s:
        g = games.get(s, game_id)
        engine = games.engine_for(g)
        state = games.state_at(s, g)
    rng = random.Random(seed * 1_000_003 + game_id)
    out: list[tuple[int, str]] = []
    while plies is None or len(out) < plies:
        to_move = engine.to_move(state)
        if not to_move:
            break
        seat = min(to_move)  # a fixed order keeps the record valid whatever arrives first
        legal = engine.legal_moves(state, seat)
        move = legal[rng.randrange(len(legal))]
        out.append((seat, engine.format_move(state, seat, move)))
        state = engine.apply(state, seat, move)
    return out


def pct(xs: list[float], q: float) -> float:
    """The q-quantile (nearest rank) of ``xs``; 0 when empty."""
    if not xs:
        return 0.0
    ys = sorted(xs)
    return ys[min(len(ys) - 1, max(0, int(round(q * len(ys) + 0.5)) - 1))]


def summary_ms(xs_s: list[float]) -> dict:
    """Median, p95, p99 and max of durations in seconds, in milliseconds."""
    ms = [x * 1000 for x in xs_s]
    return {"p50 ms": round(statistics.median(ms), 2) if ms else 0.0, "p95 ms": round(pct(ms, 0.95), 2),
            "p99 ms": round(pct(ms, 0.99), 2), "max ms": round(max(ms), 2) if ms else 0.0}


def stop_server(proc, timeout: float = 30) -> None:
    """Ask a server process to stop (SIGTERM), and kill it if it has not
    within ``timeout`` seconds."""
    import subprocess

    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def gunicorn_command(*args: str) -> list[str]:
    """``python -m gunicorn`` with ``args``, without the control socket where
    this gunicorn has one: recent releases open it at one fixed path in
    $HOME, which two servers started at once (a benchmark beside a test)
    would share."""
    import subprocess

    cmd = [sys.executable, "-m", "gunicorn"]
    helptext = subprocess.run([*cmd, "--help"], capture_output=True, text=True).stdout
    return [*cmd, *(["--no-control-socket"] if "--no-control-socket" in helptext else []), *args]

