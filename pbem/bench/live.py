"""Live pages held open against one real web process: ``pbem bench live``.

One gunicorn process (gthread, one thread per open stream plus a few), on PostgreSQL, with the events
on the real Redis; the bench opens ``pages`` event streams of one game (``…/live``, as a visitor's
page opens it) from one client thread over non-blocking sockets on loopback, then measures:

* the database's work while every page is open and nothing happens (PostgreSQL's own count of the
  bench database's transactions and rows read: pg_stat_database), which should be none;
* the web process's memory (RSS) before the pages and with them open, per page;
* for each of a few moves made through the services (committed, then published on Redis), the
  delay from just before its commit to each page receiving its ``news`` event (the streams stay open,
  as the page's do; the page's own fetch of what changed, thread.json, is not part of it)."""
from __future__ import annotations

import os
import selectors
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

from .env import free_port, gunicorn_command, make_games, pct, playout, stop_server

EXTRA_THREADS = 16  # for the other requests (the bench's own thread.json and health checks)


@dataclass
class LiveFigures:
    pages: int
    opened: int
    idle_s: float
    idle_transactions: int
    idle_rows_read: int
    rss_before_kb: int
    rss_open_kb: int
    delays_ms: list[float] = field(default_factory=list)
    missed: int = 0
    open_after: list[int] = field(default_factory=list)

    def format(self) -> str:
        per_page = (self.rss_open_kb - self.rss_before_kb) / max(self.opened, 1)
        d = self.delays_ms
        lines = [
            f"open pages (event streams held by one gunicorn process): {self.opened} of {self.pages}",
            f"idle {self.idle_s:.0f} s with all open: {self.idle_transactions} database transactions, "
            f"{self.idle_rows_read} rows read ({self.idle_transactions / self.idle_s:.2f} transactions/s)",
            f"web process RSS: {self.rss_before_kb / 1024:.1f} MiB before, {self.rss_open_kb / 1024:.1f} MiB open: "
            f"{per_page:.1f} KiB a page",
            f"move commit -> news event at every page ({len(d)} deliveries, {self.missed} missed): "
            f"p50 {pct(d, 0.5):.1f} ms, p90 {pct(d, 0.9):.1f} ms, p99 {pct(d, 0.99):.1f} ms, max {max(d or [0]):.1f} ms",
            "streams still open after each move (a page keeps its stream): " + ", ".join(map(str, self.open_after)),
        ]
        return "\n".join(lines)


def _rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _worker_pid(master: int) -> int:
    end = time.monotonic() + 30
    while time.monotonic() < end:
        try:
            with open(f"/proc/{master}/task/{master}/children") as f:
                kids = f.read().split()
            if kids:
                return int(kids[0])
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError("gunicorn started no worker")


class Pages:
    """``n`` event streams of one game, read from one thread with a selector."""

    def __init__(self, port: int, n: int):
        self.port, self.n = port, n
        self.sel = selectors.DefaultSelector()
        self.socks: list[socket.socket] = []
        self.buf: dict[int, bytes] = {}
        self.ended: set[int] = set()

    def open(self, path: str, timeout: float = 120) -> int:
        """Open every stream and wait for each one's first line (``retry:``): how many opened."""
        self.close()
        request = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nAccept: text/event-stream\r\n"
                   f"Connection: keep-alive\r\n\r\n").encode()
        for _ in range(self.n):
            s = socket.create_connection(("127.0.0.1", self.port), timeout=30)
            s.sendall(request)
            s.setblocking(False)
            self.socks.append(s)
            self.buf[s.fileno()] = b""
            self.sel.register(s, selectors.EVENT_READ)
        opened = self.until(b"retry:", timeout)
        return len(opened)

    def until(self, word: bytes, timeout: float) -> dict[int, float]:
        """Read until each stream's answer holds ``word``: when each did (monotonic seconds)."""
        seen: dict[int, float] = {fd: 0.0 for fd, b in self.buf.items() if word in b}
        end = time.monotonic() + timeout
        while len(seen) < len(self.socks) and time.monotonic() < end:
            for key, _ in self.sel.select(timeout=0.5):
                now = time.monotonic()
                try:
                    data = key.fileobj.recv(65536)
                except BlockingIOError:
                    continue
                fd = key.fileobj.fileno()
                if not data:
                    self.sel.unregister(key.fileobj)
                    self.ended.add(fd)
                    continue
                self.buf[fd] += data
                if fd not in seen and word in self.buf[fd]:
                    seen[fd] = now
        return seen

    def forget(self) -> None:
        """Forget what the streams said so far (the next ``until`` waits for new words)."""
        self.buf = {fd: b"" for fd in self.buf}

    def close(self) -> None:
        for s in self.socks:
            try:
                self.sel.unregister(s)
            except (KeyError, ValueError):
                pass
            s.close()
        self.socks, self.buf, self.ended = [], {}, set()


def _idle_counts(admin_url: str, dbname: str) -> tuple[int, int]:
    import sqlalchemy as sa

    eng = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        with eng.connect() as c:
            row = c.exec_driver_sql("SELECT xact_commit + xact_rollback, tup_returned + tup_fetched "
                                    "FROM pg_stat_database WHERE datname = %(n)s", {"n": dbname}).first()
            return int(row[0]), int(row[1])
    finally:
        eng.dispose()


def run_live(pg_admin: str, *, pages: int = 1000, moves: int = 5, idle_s: float = 10.0, game: str = "squire",
             players: int = 3) -> LiveFigures:
    """Needs the settings installed (env.bench_settings, with Redis)."""
    import resource

    from pbem.config import ROOT, settings
    from pbem.services.core import moves as moves_svc
    from pbem.store.db import unit_of_work

    cfg = settings()
    if not cfg.is_redis_broker:
        raise RuntimeError("pbem bench live measures the production path: a Redis broker is needed")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < pages + 256:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, pages + 1024), hard))
    gid = make_games(game, players, 1)[0]
    plan = playout(gid, 10 + moves)
    for seat, notation in plan[:10]:
        with unit_of_work() as s:
            moves_svc.submit_moves(s, gid, seat, [notation], source="bench")

    port = free_port()
    env = {**os.environ, **cfg.to_env(), "PBEM_LIVE_STREAMS": str(pages)}
    log = open(cfg.var_dir / "gunicorn.log", "ab") if cfg.var_dir.exists() else subprocess.DEVNULL
    threads = pages + EXTRA_THREADS
    server = subprocess.Popen(gunicorn_command("-w", "1", "-k", "gthread", "--threads", str(threads),
                                               "--worker-connections", str(threads + 64), "--graceful-timeout", "2",
                                               "-b", f"127.0.0.1:{port}", "--log-level", "warning",
                                               "pbem.web:create_app()"),
                              cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    dbname = cfg.database_url.rsplit("/", 1)[1]
    client = Pages(port, pages)
    try:
        end = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(base + "/healthz", timeout=10)
                break
            except urllib.error.HTTPError:
                break
            except OSError:
                if time.monotonic() > end or server.poll() is not None:
                    raise RuntimeError("gunicorn did not start (see gunicorn.log in the var dir)")
                time.sleep(0.1)
        worker = _worker_pid(server.pid)

        def page_path() -> str:
            import json

            with urllib.request.urlopen(f"{base}/games/{gid}/thread.json", timeout=30) as r:
                data = json.loads(r.read())
            last = max((p["id"] for p in data["posts"]), default=0)
            return f"/games/{gid}/live?after={last}&" + urllib.parse.urlencode({"stamp": data["stamp"]})

        path = page_path()
        rss_before = _rss_kb(worker)
        opened = client.open(path)
        # PostgreSQL counts a backend's statements when it reports them: at most once a second, and an idle
        # one's within PGSTAT_IDLE_INTERVAL (10 s): the streams' opening is counted before the idle time starts
        time.sleep(11)
        rss_open = _rss_kb(worker)
        before = _idle_counts(pg_admin, dbname)
        time.sleep(idle_s)
        time.sleep(11)  # what the idle time did is reported by now
        after = _idle_counts(pg_admin, dbname)
        figs = LiveFigures(pages, opened, idle_s, after[0] - before[0], after[1] - before[1], rss_before, rss_open)
        for seat, notation in plan[10:]:
            client.forget()
            with unit_of_work() as s:
                moves_svc.submit_moves(s, gid, seat, [notation], source="bench")
                t0 = time.monotonic()  # the commit (and the publish after it) follow
            got = client.until(b"event: news", 60)
            figs.delays_ms += [(t - t0) * 1000 for t in got.values()]
            figs.missed += len(client.socks) - len(got)
            figs.open_after.append(len(client.socks) - len(client.ended))
        return figs
    finally:
        client.close()
        stop_server(server)
