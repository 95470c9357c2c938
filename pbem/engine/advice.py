"""What the search thinks of a seat's choices: the ranked moves behind a
post-game review and a practice game's hints (docs/bots.md, "Reviews and
hints").

:func:`advise` runs the search bot (:mod:`.search`) for ``seat`` at a level's
budget and reports its root moves best first, each with two estimates:

- ``value``: the search's mean reward for the move, in [0, 1] -- mostly the
  seat's share of a win in the playouts, a little for the margin (see
  :func:`.search.rewards`); read it as a rough win chance, never a certainty;
- ``points``: the seat's estimated final score after the move, the mean over
  a few determinisations of the game's evaluation at the end of a short
  rollout (the final score where the game ends within it).

Everything is read from what the seat could see: the search and the point
estimates start from the game's ``Knowledge.determinize``, and the notation
and the explanations are written in a determinisation too, so two states
with the same view for the seat give the same advice. Pure and reproducible:
the same view, seat, seed and level give the same advice.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .base import Game, explain as _explain, rng_for
from .bots import LEVELS, bot_module, budget
from .search import Knowledge, rollout, search

#: determinisations averaged for a move's point estimate
POINT_SAMPLES = 6


@dataclass(frozen=True)
class Choice:
    """One move the search weighed."""

    move: Any
    notation: str   # as the seat would write it (game.format_move)
    visits: int     # iterations that went through it
    value: float    # the search's mean reward, 0..1 (about: the chance of winning)
    points: float   # the seat's estimated final score after it


@dataclass(frozen=True)
class Advice:
    """The search's view of one decision: ``choices`` best first (by visits,
    then value); ``level`` and ``iterations`` say how hard it looked."""

    seat: int
    level: str
    iterations: int
    choices: tuple[Choice, ...]

    @property
    def best(self) -> Choice:
        return self.choices[0]

    def of(self, move: Any) -> Choice | None:
        """The choice for ``move`` (None: the search did not weigh it)."""
        return next((c for c in self.choices if c.move == move), None)

    def rank(self, move: Any) -> int | None:
        """``move``'s place among the choices, 1 for the search's first (None: not weighed)."""
        return next((i for i, c in enumerate(self.choices, 1) if c.move == move), None)


def knowledge(game: Game) -> Knowledge | None:
    """The game's search knowledge (None: the game has no search bot)."""
    mod = bot_module(game)
    return getattr(mod, "KNOWLEDGE", None) if mod is not None else None


def decisions(game: Game, state: Any, seat: int) -> int:
    """How many moves ``seat`` may choose from now (0: not its turn)."""
    if seat not in game.to_move(state):
        return 0
    return len(game.legal_moves(state, seat))


def advise(game: Game, state: Any, seat: int, seed: int, level: str = "normal", *,
           include: Sequence = (), stop: Callable[[], bool] | None = None) -> Advice:
    """The search's ranked moves for ``seat`` (to move in ``state``) at
    ``level`` ("normal" or "strong"). ``include``: moves weighed even if the
    search's prior would leave them out (the move a player made). Raises
    ValueError when the game has no search or the seat has no move."""
    if level not in LEVELS or level == "easy":
        raise ValueError(f"advice needs a searching level, not {level!r} (normal, strong)")
    kb = knowledge(game)
    if kb is None:
        raise ValueError(f"{game.name} has no search bot to advise with")
    if seat not in game.to_move(state):
        raise ValueError(f"seat {seat} is not to move")
    _move, stats = search(game, kb, state, seat, seed, budget(game, level), stop=stop, include=include)
    # the seat's own view, dealt once: the notation is read there, never in the true state
    seen = kb.determinize(state, seat, rng_for(seed, "advice-view", seat))
    if not stats["visits"]:  # one legal move: nothing to weigh, the search did not look
        moves = game.legal_moves(seen, seat)
        stats = {"iterations": 0, "visits": {m: 0 for m in moves}, "means": {m: 1.0 for m in moves}}
    order = sorted(stats["visits"], key=lambda m: (-stats["visits"][m], -stats["means"][m]))
    choices = tuple(Choice(m, game.format_move(seen, seat, m), stats["visits"][m], round(stats["means"][m], 4),
                           round(points(game, kb, state, seat, m, seed), 2)) for m in order)
    return Advice(seat, level, stats["iterations"], choices)


def points(game: Game, kb: Knowledge, state: Any, seat: int, move: Any, seed: int,
           samples: int = POINT_SAMPLES) -> float:
    """``seat``'s estimated final score after ``move``: the mean, over
    ``samples`` determinisations, of the evaluation after a rollout of the
    game's policy, at least one ply per seat (the final score where the game
    ends)."""
    total = 0.0
    for k in range(samples):
        rng = rng_for(seed, "advice-points", seat, k)
        d = game.apply(kb.determinize(state, seat, rng), seat, move)
        # at least a round of the other seats, so that a secret choice of a simultaneous step is
        # revealed and counted (a game that reads its estimate at once has no rollout of its own)
        d = rollout(game, kb, d, max(kb.rollout_plies, kb.players(d)), rng)
        out = game.outcome(d)
        total += out.scores[seat] if out is not None else kb.evaluate(d, seat)
    return total / samples


def explain(game: Game, state: Any, seat: int, seed: int, move: Any) -> str | None:
    """One sentence, in the current language, of what ``move`` does, read in
    the same determinisation as :func:`advise`'s notation (the seat's view)."""
    kb = knowledge(game)
    seen = kb.determinize(state, seat, rng_for(seed, "advice-view", seat)) if kb is not None else state
    return _explain(game, seen, seat, move)
