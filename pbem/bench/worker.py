"""One worker's cost per move mail, in this process: the mails are stored as
the receiver stores them, then each goes through ``process_inbound`` exactly
as the Celery task runs it (PostgreSQL, replies delivered inline to the
maildir), without Celery, SMTP or other processes around it. CPU time per
mail, and a loop that ``valgrind --tool=callgrind --toggle-collect=functools_reduce``
counts instructions in: a figure that does not move with the load on the
machine, to compare two versions of the code."""
from __future__ import annotations

import functools
import statistics
import time
import uuid
from dataclasses import dataclass

from .env import free_port, make_games, pct


@dataclass
class WorkerFigures:
    game: str
    players: int
    mails: int
    cpu_s: list[float]
    wall_s: float

    def row(self) -> dict:
        n = len(self.cpu_s)
        return {"game": self.game, "players": self.players, "mails": n,
                "cpu ms/mail": round(1000 * sum(self.cpu_s) / n, 2),
                "cpu median ms": round(1000 * statistics.median(self.cpu_s), 2),
                "cpu p95 ms": round(1000 * pct(self.cpu_s, 0.95), 2),
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

    def one(_, inbound_id: int) -> None:
        c0 = time.process_time()
        status = process_inbound(inbound_id, deliver=deliver_inline)
        cpu.append(time.process_time() - c0)
        if status != "done":
            raise RuntimeError(f"inbound {inbound_id} ended {status}")

    t0 = time.perf_counter()
    functools.reduce(one, ids[warm:], None)  # the one C frame callgrind's --toggle-collect can name
    return WorkerFigures(game, players, len(ids) - warm, cpu, time.perf_counter() - t0)
