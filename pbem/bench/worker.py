"""One worker's cost per move mail, in this process: the mails are stored as
the receiver stores them, then each goes through ``process_inbound`` exactly
as the Celery task runs it (PostgreSQL, replies delivered inline to the
maildir), without Celery, SMTP or other processes around it. CPU time per
mail, SQL statements per mail (every statement the engine sends, counted by
SQLAlchemy's ``before_cursor_execute``), and a loop that
``valgrind --tool=callgrind --toggle-collect=functools_reduce`` counts
instructions in: a figure that does not move with the load on the machine, to
compare two versions of the code.

The budget (``budget``): the figures for 2, 4 and 5 players of every game that
seats them, with the board pictures off and on, held against the figures of
the version before (``baseline.json`` beside this file) and the targets kept
in that file. A statement count does not depend on the machine; CPU time
does, so it is also given scaled to the baseline machine's speed by the
yardstick (pbem.bench.report.yardstick), and that scaled figure is the one
held against the budget."""
from __future__ import annotations

import dataclasses
import functools
import json
import statistics
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from .env import free_port, make_games, pct


@dataclass
class WorkerFigures:
    game: str
    players: int
    mails: int
    cpu_s: list[float]
    wall_s: float
    statements: list[int] = field(default_factory=list)  # per mail, in the order processed

    @property
    def cpu_ms(self) -> float:
        return round(1000 * sum(self.cpu_s) / len(self.cpu_s), 2)

    @property
    def statements_per_mail(self) -> float:
        return round(sum(self.statements) / len(self.statements), 2) if self.statements else 0.0

    def row(self) -> dict:
        n = len(self.cpu_s)
        return {"game": self.game, "players": self.players, "mails": n,
                "cpu ms/mail": self.cpu_ms,
                "cpu median ms": round(1000 * statistics.median(self.cpu_s), 2),
                "cpu p95 ms": round(1000 * pct(self.cpu_s, 0.95), 2),
                "statements/mail": self.statements_per_mail,
                "statements max": max(self.statements, default=0),
                "wall ms/mail": round(1000 * self.wall_s / n, 2)}


def run_worker(mails: int = 300, games: int = 40, game: str = "spyrium", players: int = 2,
               warm: int = 20, seed: int = 5, languages: tuple[str, ...] = ("en",)) -> WorkerFigures:
    """Needs the settings installed (env.bench_settings). ``warm`` mails are
    processed before the measured ones."""
    from pbem.config import settings
    from pbem.mail.inbound import make_controller
    from pbem.mail.pipeline import process_inbound
    from pbem.tasks import deliver_inline

    from .pipeline import _letters

    handler = make_controller(settings(), host="127.0.0.1", port=free_port()).handler  # not started
    gids = make_games(game, players, games, first_seed=seed * 1000 + 500, languages=languages)
    total = mails + warm
    per_game = -(-total // games)
    plan = _letters(gids, per_game, uuid.uuid4().hex[:8], seed)
    letters = [ls[k] for k in range(per_game) for ls in plan if k < len(ls)][:total]
    ids = [i for L in letters for i in handler.store(L.raw, L.mail_from, [L.rcpt])]
    for i in ids[:warm]:
        process_inbound(i, deliver=deliver_inline)
    cpu: list[float] = []
    counts: list[int] = []
    sent = [0]

    def count(*_a) -> None:
        sent[0] += 1

    def one(_, inbound_id: int) -> None:
        before = sent[0]
        c0 = time.process_time()
        status = process_inbound(inbound_id, deliver=deliver_inline)
        cpu.append(time.process_time() - c0)
        counts.append(sent[0] - before)
        if status != "done":
            raise RuntimeError(f"inbound {inbound_id} ended {status}")

    from sqlalchemy import event

    from pbem.store.db import get_engine

    engine = get_engine()
    event.listen(engine, "before_cursor_execute", count)  # the engine the pipeline uses: every statement it sends
    try:
        t0 = time.perf_counter()
        functools.reduce(one, ids[warm:], None)  # the one C frame callgrind's --toggle-collect can name
        wall = time.perf_counter() - t0
    finally:
        event.remove(engine, "before_cursor_execute", count)
    return WorkerFigures(game, players, len(ids) - warm, cpu, wall, counts)


# ---------------------------------------------------------------- the budget

BASELINE = Path(__file__).with_name("baseline.json")
BUDGET_PLAYERS = (2, 4, 5)


def budget_cases(games: tuple[str, ...] = (), players: tuple[int, ...] = BUDGET_PLAYERS,
                 pictures: tuple[bool, ...] = (False, True)) -> list[tuple[str, int, bool]]:
    """(game, players, pictures) for each game (all when none is named) and each of ``players``
    that the game seats."""
    from pbem.engine import get_game, playable_games

    out = []
    for name in games or sorted(g.name for g in playable_games()):
        engine = get_game(name)
        out += [(engine.name, n, p) for n in players if engine.min_players <= n <= engine.max_players
                for p in pictures]
    return out


def key(game: str, players: int, pictures: bool) -> str:
    """How baseline.json names a case: "spyrium 4p pictures off"."""
    return f"{game} {players}p pictures {'on' if pictures else 'off'}"


def run_case(game: str, players: int, pictures: bool, *, mails: int, games: int, warm: int,
             seed: int = 5, languages: tuple[str, ...] = ("en",)) -> WorkerFigures:
    """One case of the budget, in the installed bench database: pictures on means each board mail's
    picture drawn and rendered at its delivery, inline (never shed for a backlog: the bench stores
    every mail before it processes the first), off means none (PBEM_MAIL_PICTURES=0)."""
    from pbem import config

    cfg = config.settings()
    config.set_settings(dataclasses.replace(cfg, mail_pictures=pictures, picture_queue="",
                                            picture_backlog=10**9 if pictures else cfg.picture_backlog))
    try:
        return run_worker(mails=mails, games=games, game=game, players=players, warm=warm, seed=seed,
                          languages=languages)
    finally:
        config.set_settings(cfg)


def cpu_yardstick(n: int = 2_000_000) -> float:
    """CPU seconds (of this process: other processes sharing the core do not count, as they do in
    pbem.bench.report.yardstick's wall time) for a fixed pure-Python loop, best of five: how fast a
    core runs Python here now, to hold CPU figures against a baseline measured elsewhere or at
    another load."""
    best = float("inf")
    for _ in range(5):
        c0 = time.process_time()
        total = 0
        for i in range(n):
            total += i
        best = min(best, time.process_time() - c0)
    return round(best, 4)


def load_baseline(path: Path = BASELINE) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@dataclass
class Verdict:
    case: str
    what: str
    figure: float
    limit: float
    enforced: bool = True

    @property
    def ok(self) -> bool:
        return self.figure <= self.limit

    def line(self) -> str:
        mark = "ok  " if self.ok else ("OVER" if self.enforced else "over (reported, not enforced)")
        return f"{mark} {self.case}: {self.what} {self.figure:g} (limit {self.limit:g})"


def judge(figs: list[tuple[tuple[str, int, bool], WorkerFigures]], baseline: dict, speed: float,
          cpu_ratio: float, statements_ratio: float) -> list[Verdict]:
    """Each case against the baseline's figure times the ratio, and against the targets.
    ``speed``: this machine's yardstick over the baseline's (CPU ms are divided by it)."""
    out = []
    cases = baseline.get("cases", {})
    for (game, players, pictures), fig in figs:
        k = key(game, players, pictures)
        cpu = round(fig.cpu_ms / speed, 2)
        base = cases.get(k)
        if base:
            out.append(Verdict(k, f"CPU ms/mail (scaled) vs baseline {base['cpu_ms']} x {cpu_ratio}", cpu,
                               round(base["cpu_ms"] * cpu_ratio, 2)))
            out.append(Verdict(k, f"statements/mail vs baseline {base['statements']} x {statements_ratio}",
                               fig.statements_per_mail, round(base["statements"] * statements_ratio, 2)))
        for t in baseline.get("targets", []):
            if (t["game"], t["players"], t["pictures"]) != (game, players, pictures):
                continue
            enforced = t.get("enforced", True)
            if "cpu_ms" in t:
                out.append(Verdict(k, "CPU ms/mail (scaled) vs target", cpu, t["cpu_ms"], enforced))
            if "cpu_vs_baseline" in t and base:  # a target given as the baseline's own figure (times this)
                out.append(Verdict(k, f"CPU ms/mail (scaled) vs target: the baseline's x {t['cpu_vs_baseline']}",
                                   cpu, round(base["cpu_ms"] * t["cpu_vs_baseline"], 2), enforced))
            if "statements" in t:
                out.append(Verdict(k, "statements/mail vs target", fig.statements_per_mail, t["statements"],
                                   enforced))
    return out


def baseline_json(figs: list[tuple[tuple[str, int, bool], WorkerFigures]], yard: float, old: dict,
                  note: str) -> dict:
    """A new baseline file: these figures (CPU as measured, with this machine's yardstick), the targets kept."""
    return {"note": note, "yardstick_s": yard, "targets": old.get("targets", []),
            "cases": {key(*c): {"cpu_ms": f.cpu_ms, "statements": f.statements_per_mail} for c, f in figs}}
