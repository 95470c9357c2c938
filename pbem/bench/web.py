"""The web site under load: ``wrk`` (Debian package) against the production
server setup, ``gunicorn -w 2 'pbem.web:create_app()'``, on PostgreSQL, for
the game page and the JSON view of a game in progress. A path that answers
404 (the page does not exist in this build) is replaced by its fallback and
the table says so."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

from .env import free_port, gunicorn_command, make_games, playout, stop_server

DEFAULT_PATHS = ("/games/{id}", "/games/{id}/view.json")
FALLBACKS = ("/outbox", "/healthz")
_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1000.0}


@dataclass
class WebFigures:
    path: str
    asked: str
    requests_per_s: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    requests: int
    errors: str

    def row(self) -> dict:
        shown = self.path if self.path == self.asked else f"{self.path} (instead of {self.asked}: 404)"
        return {"path": shown, "requests/s": round(self.requests_per_s), "p50 ms": self.p50_ms,
                "p90 ms": self.p90_ms, "p99 ms": self.p99_ms, "requests": self.requests, "errors": self.errors}


def ensure_wrk() -> str:
    path = shutil.which("wrk")
    if path:
        return path
    if os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["apt-get", "update", "-qq"], check=False, stdout=subprocess.DEVNULL)
        subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=True, stdout=subprocess.DEVNULL)
        path = shutil.which("wrk")
    if not path:
        raise RuntimeError("wrk is not installed: apt-get install wrk")
    return path


def parse_wrk(out: str) -> dict:
    def ms(text: str) -> float:
        m = re.match(r"([\d.]+)(us|ms|s)", text)
        return round(float(m.group(1)) * _UNITS[m.group(2)], 2) if m else 0.0

    pcts = {int(p): ms(v) for p, v in re.findall(r"^\s+(\d+)%\s+(\S+)", out, re.M)}
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    total = re.search(r"(\d+) requests in", out)
    errs = re.search(r"Socket errors:.*|Non-2xx or 3xx responses: \d+", out)
    return {"rps": float(rps.group(1)) if rps else 0.0, "p50": pcts.get(50, 0.0), "p90": pcts.get(90, 0.0),
            "p99": pcts.get(99, 0.0), "requests": int(total.group(1)) if total else 0,
            "errors": errs.group(0).strip() if errs else "none"}


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def run_web(paths: tuple[str, ...] = DEFAULT_PATHS, *, game: str = "spyrium", players: int = 4, plies: int = 40,
            duration: int = 10, connections: int = 16, threads: int = 2, gunicorn_workers: int = 2) -> list[WebFigures]:
    """Needs the settings installed (env.bench_settings)."""
    from pbem.config import ROOT, settings
    from pbem.services.core import moves
    from pbem.store.db import unit_of_work

    cfg = settings()
    wrk = ensure_wrk()
    gid = make_games(game, players, 1)[0]
    for seat, notation in playout(gid, plies):
        with unit_of_work() as s:
            moves.submit_moves(s, gid, seat, [notation], source="bench")

    port = free_port()
    env = dict(os.environ, **cfg.to_env())
    log = open(cfg.var_dir / "gunicorn.log", "ab") if cfg.var_dir.exists() else subprocess.DEVNULL
    server = subprocess.Popen(gunicorn_command("-w", str(gunicorn_workers), "-b", f"127.0.0.1:{port}",
                                               "--log-level", "warning", "pbem.web:create_app()"),
                              cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        end = time.monotonic() + 60
        while True:
            try:
                _status(base + "/healthz")
                break
            except OSError:
                if time.monotonic() > end or server.poll() is not None:
                    raise RuntimeError("gunicorn did not start (see gunicorn.log in the var dir)")
                time.sleep(0.1)
        out = []
        for i, asked in enumerate(paths):
            path = asked.format(id=gid)
            if _status(base + path) == 404:
                path = FALLBACKS[min(i, len(FALLBACKS) - 1)]
            _status(base + path)  # warm every gunicorn worker's first request path once
            res = subprocess.run([wrk, f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--latency",
                                  base + path], capture_output=True, text=True, check=True)
            f = parse_wrk(res.stdout)
            out.append(WebFigures(path, asked.format(id=gid), f["rps"], f["p50"], f["p90"], f["p99"],
                                  f["requests"], f["errors"]))
        return out
    finally:
        stop_server(server)
        if log is not subprocess.DEVNULL:
            log.close()
