"""Replay: the cost of rebuilding a long game's state from its record, with
and without snapshots, and of loading the latest state as the game grows.

A whole random game is played through ``services.games.submit_moves`` (one
transaction per move, as a mail would), on the real database. While it grows,
at each checkpoint the latest state is loaded the way every mail and page
does (``games.get`` + ``games.state_at``: the cached state). When it is over,
the state at each checkpoint ply is rebuilt twice: from the nearest snapshot
(``state_at(ply=k)``) and from the bare record (``replay_state(upto=k)``)."""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field

from .env import make_games, playout


@dataclass
class ReplayFigures:
    game: str
    players: int
    plies: int
    snapshot_every: int
    latest_ms: dict[int, float] = field(default_factory=dict)  # ply -> median ms
    snapshot_ms: dict[int, float] = field(default_factory=dict)
    record_ms: dict[int, float] = field(default_factory=dict)
    play_s: float = 0.0

    def rows(self) -> list[dict]:
        out = []
        for k in sorted(self.record_ms):
            out.append({"ply": k, "latest state (cached) ms": self.latest_ms.get(k, ""),
                        "from snapshot ms": self.snapshot_ms[k], "from record only ms": self.record_ms[k]})
        return out


def _median_ms(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return round(statistics.median(times) * 1000, 2)


def run_replay(game: str = "iaww", players: int = 5, checkpoints: int = 8, reps: int = 15,
               seed: int = 3) -> ReplayFigures:
    """Needs the settings installed (see env.bench_settings)."""
    from pbem.config import settings
    from pbem.services.core import games, moves as moves_service
    from pbem.store.db import unit_of_work

    gid = make_games(game, players, 1, first_seed=seed)[0]
    moves = playout(gid, seed=seed)
    n = len(moves)
    marks = sorted({max(1, round(n * i / checkpoints)) for i in range(1, checkpoints + 1)})
    fig = ReplayFigures(game, players, n, settings().snapshot_every)

    def load_latest():
        with unit_of_work() as s:
            games.state_at(s, games.get(s, gid))

    t0 = time.perf_counter()
    for i, (seat, notation) in enumerate(moves, start=1):
        with unit_of_work() as s:
            res = moves_service.submit_moves(s, gid, seat, [notation], source="bench")
            if not res.ok:
                raise RuntimeError(f"the bench's own move {notation!r} was refused at ply {i}: {res.error}")
        if i in marks:
            fig.latest_ms[i] = _median_ms(load_latest, reps)
    fig.play_s = time.perf_counter() - t0

    for k in marks:
        def from_snapshot(k=k):
            with unit_of_work() as s:
                games.state_at(s, games.get(s, gid), k)

        def from_record(k=k):
            with unit_of_work() as s:
                games.replay_state(s, games.get(s, gid), upto=k)

        fig.snapshot_ms[k] = _median_ms(from_snapshot, reps)
        fig.record_ms[k] = _median_ms(from_record, max(3, reps // 3))
    # the record and the caches must agree, or the figures mean nothing
    with unit_of_work() as s:
        g = games.get(s, gid)
        engine = games.engine_for(g)
        assert engine.to_json(games.replay_state(s, g)) == engine.to_json(games.state_at(s, g))
    return fig
