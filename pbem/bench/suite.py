"""`pbem bench all`: every part in turn, then docs/PERFORMANCE.md."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .env import PG_ADMIN, REDIS_URL, bench_settings
from .report import load, machine, render


@dataclass
class Sizes:
    engine_games: int = 200
    replay_checkpoints: int = 8
    replay_reps: int = 15
    pipeline_mails: int = 600
    pipeline_games: int = 60
    one_game_mails: int = 100
    web_duration: int = 10
    replay_game: tuple[str, int] = ("iaww", 5)
    worker_counts: tuple[int, ...] = (1, 2)

    @classmethod
    def quick(cls) -> "Sizes":
        return cls(engine_games=1, replay_checkpoints=2, replay_reps=2, pipeline_mails=8, pipeline_games=4,
                   one_game_mails=3, web_duration=1, replay_game=("spyrium", 2), worker_counts=(2,))


def run_all(out: Path | None, sizes: Sizes, *, pg_admin: str = PG_ADMIN, redis_url: str = REDIS_URL,
            parts: tuple[str, ...] = ("engine", "replay", "pipeline", "web"),
            echo: Callable[[str], None] = print) -> dict:
    from pbem.engine import GAMES, get_game

    from .engine import run_games
    from .pipeline import rig, run_pipeline
    from .replay import run_replay
    from .web import run_web

    results: dict = {"machine": machine()}
    if "engine" in parts:
        rows, at = [], load()
        for name in sorted(GAMES):
            g = get_game(name)
            for n in range(g.min_players, g.max_players + 1):
                rows.append(run_games(name, n, sizes.engine_games).row())
                echo(str(rows[-1]))
        results["engine"] = {"load": at, "games": sizes.engine_games, "rows": rows}
    if "replay" in parts:
        at = load()
        with bench_settings(pg_admin, redis_url):
            fig = run_replay(*sizes.replay_game, checkpoints=sizes.replay_checkpoints, reps=sizes.replay_reps)
        results["replay"] = {"load": at, "game": fig.game, "players": fig.players, "plies": fig.plies,
                             "snapshot_every": fig.snapshot_every, "play_s": fig.play_s, "rows": fig.rows()}
        echo(str(results["replay"]["rows"]))
    if "pipeline" in parts:
        at, figs = load(), []
        with bench_settings(pg_admin, redis_url):
            for workers in sizes.worker_counts:
                with rig(workers) as r:
                    best = run_pipeline(mails=sizes.pipeline_mails, games=sizes.pipeline_games, on=r)
                    figs.append(best)
                    echo(str(best.row()))
                    half = max(1.0, round(best.mails_per_s / 2, 1))
                    figs.append(run_pipeline(mails=sizes.pipeline_mails // 2, games=sizes.pipeline_games,
                                             rate=half, seed=6, on=r))
                    echo(str(figs[-1].row()))
                    figs.append(run_pipeline(mails=sizes.one_game_mails, one_game=True, seed=7, on=r))
                    echo(str(figs[-1].row()))
        results["pipeline"] = {"load": at, "game": "spyrium", "players": 2, "figures": figs}
    if "web" in parts:
        at = load()
        with bench_settings(pg_admin, redis_url):
            figs = run_web(duration=sizes.web_duration)
        results["web"] = {"load": at, "game": "spyrium", "players": 4, "plies": 40, "threads": 2,
                          "connections": 16, "duration": sizes.web_duration, "figures": figs}
        for f in figs:
            echo(str(f.row()))
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(render(results))
    return results
