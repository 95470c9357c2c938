"""Engine speed: complete random games per second on one core, moves per
second, and the cost of legal-move generation and of apply."""
from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass

from pbem.engine import get_game, validate_options


@dataclass
class EngineFigures:
    game: str
    players: int
    games: int
    plies: int
    seconds: float
    legal_us: list[float]
    apply_us: list[float]

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds

    @property
    def moves_per_s(self) -> float:
        return self.plies / self.seconds

    @staticmethod
    def _pct(xs: list[float], q: float) -> float:
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0.0

    def row(self) -> dict:
        return {
            "game": self.game,
            "players": self.players,
            "games": self.games,
            "games/s": round(self.games_per_s, 1),
            "moves/s": round(self.moves_per_s),
            "plies/game": round(self.plies / self.games, 1),
            "legal median us": round(statistics.median(self.legal_us), 1),
            "legal p99 us": round(self._pct(self.legal_us, 0.99), 1),
            "apply median us": round(statistics.median(self.apply_us), 1),
            "apply p99 us": round(self._pct(self.apply_us, 0.99), 1),
        }


def run_games(name: str, players: int, games: int, seed: int = 1, options: dict | None = None) -> EngineFigures:
    """Complete random games, timed as a whole (games/s, moves/s), plus a
    second pass timing legal_moves and apply one call at a time."""
    game = get_game(name, include_draft=True)
    opts = validate_options(game, players, options)
    plies = 0
    t0 = time.perf_counter()
    for g in range(games):
        rng = random.Random(seed * 1_000_003 + g)
        state = game.initial_state(players, seed + g, opts)
        while True:
            seats = game.to_move(state)
            if not seats:
                break
            seat = rng.choice(sorted(seats)) if len(seats) > 1 else next(iter(seats))
            legal = game.legal_moves(state, seat)
            state = game.apply(state, seat, legal[rng.randrange(len(legal))])
            plies += 1
    seconds = time.perf_counter() - t0

    legal_us: list[float] = []
    apply_us: list[float] = []
    pc = time.perf_counter
    for g in range(max(1, games // 10)):
        rng = random.Random(seed * 7 + g)
        state = game.initial_state(players, seed + g, opts)
        while True:
            seats = game.to_move(state)
            if not seats:
                break
            seat = rng.choice(sorted(seats)) if len(seats) > 1 else next(iter(seats))
            a = pc()
            legal = game.legal_moves(state, seat)
            b = pc()
            move = legal[rng.randrange(len(legal))]
            c = pc()
            state = game.apply(state, seat, move)
            d = pc()
            legal_us.append((b - a) * 1e6)
            apply_us.append((d - c) * 1e6)
    return EngineFigures(game.name, players, games, plies, seconds, legal_us, apply_us)


def format_table(rows: list[dict]) -> str:
    if not rows:
        return ""
    cols = list(rows[0])
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in cols}
    line = "| " + " | ".join(c.ljust(widths[c]) for c in cols) + " |"
    sep = "|" + "|".join("-" * (widths[c] + 2) for c in cols) + "|"
    body = ["| " + " | ".join(str(r[c]).ljust(widths[c]) for c in cols) + " |" for r in rows]
    return "\n".join([line, sep, *body])


# --- Side by side with another commit -------------------------------------
#
# Each side is a long-lived Python process whose cwd is a checkout (this one,
# or the other commit's engine in a temporary git worktree), so ``import
# pbem.engine`` there imports that checkout's engine. Both run the same
# source below (it uses only the engine's public calls, which have not
# changed since the registry existed), play the same seeded games and time
# them with the process's own CPU clock, so another process on the other
# core costs little. The two sides are asked in turn, old and new, new and
# old, round after round; the ratio is taken pair by pair. Random games are
# the same games (same seeds, same choices) as long as the rules give the
# same legal moves; where a rule changed in between, the games part ways and
# the plies per game differ (both are shown).

_SIDE = r'''
import json, random, sys, time
from pbem.engine import get_game, validate_options

def play(name, players, games, seed):
    game = get_game(name, include_draft=True)
    opts = validate_options(game, players, None)
    plies = 0
    t0 = time.process_time()
    for g in range(games):
        rng = random.Random(seed * 1_000_003 + g)
        state = game.initial_state(players, seed + g, opts)
        while True:
            seats = game.to_move(state)
            if not seats:
                break
            seat = rng.choice(sorted(seats)) if len(seats) > 1 else next(iter(seats))
            legal = game.legal_moves(state, seat)
            state = game.apply(state, seat, legal[rng.randrange(len(legal))])
            plies += 1
    return {"seconds": time.process_time() - t0, "plies": plies}

for line in sys.stdin:
    ask = json.loads(line)
    print(json.dumps(play(**ask)), flush=True)
'''


class _Side:
    """One checkout's engine in a process of its own, answering one request a line."""

    def __init__(self, root: str):
        import subprocess
        import sys

        self.root = root
        self.proc = subprocess.Popen([sys.executable, "-c", _SIDE], cwd=root, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def play(self, name: str, players: int, games: int, seed: int) -> dict:
        import json

        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps({"name": name, "players": players, "games": games, "seed": seed}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the engine process in {self.root} ended (exit {self.proc.wait()})")
        return json.loads(line)

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


def _worktree_of(commit: str):
    """A context manager: a detached temporary git worktree of ``commit``."""
    import contextlib
    import subprocess
    import tempfile
    from pathlib import Path

    import pbem

    repo = str(Path(pbem.__file__).resolve().parent.parent)

    known = subprocess.run(["git", "-C", repo, "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"],
                           capture_output=True, text=True)
    if known.returncode != 0:
        raise ValueError(f"{commit!r} is not a commit of {repo}; give a commit id or tag, e.g. --against c3af06e")

    @contextlib.contextmanager
    def cm():
        tmp = tempfile.mkdtemp(prefix="pbem-bench-")
        path = str(Path(tmp) / "tree")
        subprocess.run(["git", "-C", repo, "worktree", "add", "--detach", "--quiet", path, commit],
                       check=True)
        try:
            yield path
        finally:
            subprocess.run(["git", "-C", repo, "worktree", "remove", "--force", path], check=False)
            subprocess.run(["rm", "-rf", tmp], check=False)

    return repo, cm()


def compare(configs: list[tuple[str, int]], against: str, games: int, rounds: int, seed: int = 1,
            echo=None) -> list[dict]:
    """games/s of this checkout's engine and ``against``'s, per (game, players),
    over ``rounds`` paired runs that alternate which side goes first."""
    repo, tree = _worktree_of(against)
    rows = []
    with tree as old_root:
        old, new = _Side(old_root), _Side(repo)
        try:
            for name, players in configs:  # one warm-up each: imports, data caches
                old.play(name, players, 1, seed)
                new.play(name, players, 1, seed)
            for name, players in configs:
                olds, news, ratios, move_ratios = [], [], [], []
                for r in range(rounds):
                    order = (old, new) if r % 2 == 0 else (new, old)
                    got = {id(side): side.play(name, players, games, seed) for side in order}
                    o, n = got[id(old)], got[id(new)]
                    olds.append(games / o["seconds"])
                    news.append(games / n["seconds"])
                    ratios.append(news[-1] / olds[-1])
                    move_ratios.append((n["plies"] / n["seconds"]) / (o["plies"] / o["seconds"]))
                row = {
                    "game": name,
                    "players": players,
                    "games": games,
                    "rounds": rounds,
                    f"{against} games/s": round(statistics.median(olds), 1),
                    "this games/s": round(statistics.median(news), 1),
                    "ratio": f"{statistics.median(ratios):.2f}",
                    "ratio min-max": f"{min(ratios):.2f}-{max(ratios):.2f}",
                    # The same seeds give the same games only where the rules
                    # have not changed in between; otherwise the moves' count
                    # differs, and moves/s compares the cost of one move.
                    "plies/game": f"{o['plies'] / games:.1f} / {n['plies'] / games:.1f}",
                    "moves/s ratio": f"{statistics.median(move_ratios):.2f}",
                }
                rows.append(row)
                if echo:
                    echo(row)
        finally:
            old.close()
            new.close()
    return rows
