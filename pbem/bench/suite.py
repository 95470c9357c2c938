"""`pbem bench all`: every part in turn, then docs/PERFORMANCE.md."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .env import PG_ADMIN, REDIS_URL, bench_settings
from .report import load, machine, render


@dataclass
class Sizes:
    engine_games: int = 50
    replay_checkpoints: int = 8
    replay_reps: int = 15
    pipeline_mails: int = 600
    pipeline_games: int = 40
    target_rate: float = 50.0  # p99 < 500 ms at half of the 100 moves/s target (docs/PERFORMANCE.md §3)
    one_game_mails: int = 60
    web_duration: int = 10
    replay_game: tuple[str, int] = ("iaww", 5)
    worker_counts: tuple[int, ...] = (1, 2)

    @classmethod
    def quick(cls) -> "Sizes":
        # one mail per game: with a few games, a game's second mail can reach the other worker while the
        # first is still on its way to the game's lock, and is then (rightly) not this seat's turn yet;
        # the full sizes put a game's mails 40 places apart in the queue
        return cls(engine_games=1, replay_checkpoints=2, replay_reps=2, pipeline_mails=8, pipeline_games=8,
                   one_game_mails=3, web_duration=1, replay_game=("spyrium", 2), worker_counts=(2,), target_rate=5.0)


def _try(fn, figs: list, echo):
    """One measurement; a failure (e.g. the shared database restarted under
    it) is reported in the table instead of ending the whole run."""
    try:
        fig = fn()
    except Exception as e:  # noqa: BLE001 - reported, not hidden
        echo(f"measurement failed: {e!r}"[:300])
        figs.append(f"failed: {type(e).__name__}: {str(e).splitlines()[0][:160]}")
        return None
    figs.append(fig)
    echo(str(fig.row()))
    return fig


def run_all(out: Path | None, sizes: Sizes, *, pg_admin: str = PG_ADMIN, redis_url: str = REDIS_URL,
            parts: tuple[str, ...] = ("engine", "replay", "pipeline", "web"), relay: bool = False,
            echo: Callable[[str], None] = print) -> dict:
    from pbem.engine import GAMES, get_game

    from .engine import run_games
    from .replay import run_replay

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
                for attempt in (1, 2):  # the shared database may restart under a rig: start it again once
                    try:
                        _pipeline_rows(workers, sizes, figs, echo, target=workers == max(sizes.worker_counts),
                                       relay=relay)
                        break
                    except Exception as e:  # noqa: BLE001 - reported in the table
                        echo(f"rig with {workers} worker(s) failed: {e!r}"[:300])
                        if attempt == 2:
                            figs.append(f"failed: {workers} worker(s): {type(e).__name__}: "
                                        f"{str(e).splitlines()[0][:160]}")
        results["pipeline"] = {"load": at, "game": "spyrium", "players": 2, "figures": figs, "relay": relay}
    return _rest(results, out, sizes, pg_admin, redis_url, parts, echo)


def _pipeline_rows(workers, sizes, figs, echo, target: bool = False, relay: bool = False) -> None:
    """On one rig: as fast as possible, then paced at half of that (and, on
    the biggest rig, at the target's half load), then one game closed loop."""
    from .pipeline import rig, run_pipeline

    with rig(workers, relay=relay) as r:
        best = _try(lambda: run_pipeline(mails=sizes.pipeline_mails, games=sizes.pipeline_games, on=r), figs, echo)
        rates = [max(1.0, round((best.mails_per_s if best else 20) / 2, 1))]
        if target:
            rates.append(sizes.target_rate)
        for k, rate in enumerate(sorted(set(rates))):
            _try(lambda: run_pipeline(mails=sizes.pipeline_mails // 2, games=sizes.pipeline_games, rate=rate,
                                      seed=6 + 10 * k, on=r), figs, echo)
        _try(lambda: run_pipeline(mails=sizes.one_game_mails, one_game=True, seed=7, on=r), figs, echo)


def _rest(results, out, sizes, pg_admin, redis_url, parts, echo) -> dict:
    from .web import run_web

    if "web" in parts:
        at = load()
        try:
            with bench_settings(pg_admin, redis_url):
                figs = run_web(duration=sizes.web_duration)
        except Exception as e:  # noqa: BLE001 - the rest of the report is still worth writing
            echo(f"web bench failed: {e!r}"[:300])
            figs = []
        results["web"] = {"load": at, "game": "spyrium", "players": 4, "plies": 40, "threads": 2,
                          "connections": 16, "duration": sizes.web_duration, "figures": figs}
        for f in figs:
            echo(str(f.row()))
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(render(results))
    return results
