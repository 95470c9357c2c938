"""What a post-game review costs and how far its first choices can be trusted (docs/bots.md,
"Reviews and hints"): the CPU of a whole game's review, every decision of every seat weighed with
no bound (services/coach/review.compute, as the task runs it, without the database around it),
and how often the normal search's first choice (what a review and a hint call the best move)
is the move the strong level plays, over a sample of positions per game."""
from __future__ import annotations

import time
from dataclasses import dataclass

from pbem.engine import advice, bots, get_game, validate_options

from .bots import positions


@dataclass
class ReviewCost:
    game: str
    players: int
    decisions: int
    cpu_s: float

    def row(self) -> dict:
        return {"game": self.game, "players": self.players, "decisions": self.decisions,
                "review cpu s": round(self.cpu_s, 2),
                "per decision s": round(self.cpu_s / self.decisions, 3) if self.decisions else 0.0}


def review_cost(name: str, players: int, seed: int = 1) -> ReviewCost:
    """The CPU of the review of one whole greedy game: every seat, every decision with a choice."""
    from pbem.services.coach import review

    game = get_game(name)
    start = game.initial_state(players, seed, validate_options(game, players, {}))
    state, record, ply = start, [], 0
    while game.to_move(state):
        seat = min(game.to_move(state))
        move = bots.choose(game, state, seat, seed + ply, "easy")
        ply += 1
        record.append((ply, seat, game.format_move(state, seat, move), "web"))
        state = game.apply(state, seat, move)
    t = time.thread_time()
    found = review.decisions(game, start, record, set(range(players)))
    review.compute(game, seed, found, list(range(players)), cpu_s=float("inf"), most=10 ** 9)
    return ReviewCost(game.name, players, len(found), time.thread_time() - t)


@dataclass
class Agreement:
    game: str
    players: int
    positions: int
    same: int  # normal's first choice is strong's move
    top3: int  # strong's move is among normal's first three

    def row(self) -> dict:
        pct = lambda k: round(100 * k / self.positions) if self.positions else 0  # noqa: E731
        return {"game": self.game, "players": self.players, "positions": self.positions,
                "agree %": pct(self.same), "in top 3 %": pct(self.top3)}


def agreement(name: str, players: int, games: int = 2, every: int = 9, seed: int = 1) -> Agreement:
    """How often advice's first choice at "normal" is the "strong" bot's move, on every
    ``every``-th decision with a choice of ``games`` greedy games (the same seed for both)."""
    game = get_game(name)
    spots = positions(name, players, games, every, seed)
    same = top3 = 0
    for state, seat, s in spots:
        a = advice.advise(game, state, seat, s, "normal")
        strong = bots.choose(game, state, seat, s, "strong")
        same += a.best.move == strong
        top3 += strong in [c.move for c in a.choices[:3]]
    return Agreement(game.name, players, len(spots), same, top3)


def format_table(rows: list[dict]) -> str:
    """The rows as a fixed-width table (their keys as the heading)."""
    if not rows:
        return ""
    keys = list(rows[0])
    width = {k: max(len(k), *(len(str(r[k])) for r in rows)) for k in keys}
    lines = [" ".join(f"{k:>{width[k]}}" for k in keys)]
    lines += [" ".join(f"{str(r[k]):>{width[k]}}" for k in keys) for r in rows]
    return "\n".join(lines)
