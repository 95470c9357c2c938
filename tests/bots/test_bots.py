"""The bots: only legal moves, reproducible from the seed, clearly better
than random play, and the `pbem selfplay` command around them."""
from __future__ import annotations

import statistics

import pytest
from click.testing import CliRunner

from pbem import selfplay
from pbem.cli import main
from pbem.engine import GAMES, bots, get_game, validate_options

GAME_NAMES = sorted(GAMES)


def _greedy_game(name: str, n: int, seed: int) -> list:
    game = get_game(name)
    state = game.initial_state(n, seed, validate_options(game, n, {}))
    record = []
    while game.to_move(state):
        for seat in sorted(game.to_move(state)):
            if seat not in game.to_move(state):
                continue
            legal = game.legal_moves(state, seat)
            move = bots.choose(game, state, seat, seed * 7919 + len(record))
            assert move in legal, f"{name}: bot chose an illegal move {move!r}"
            text = game.format_move(state, seat, move)
            assert game.parse_move(state, seat, text) == move
            record.append((seat, text))
            state = game.apply(state, seat, move)
    assert game.outcome(state) is not None
    return record


@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_game_has_its_own_bot(name):
    import importlib.util

    assert importlib.util.find_spec(f"pbem.engine.{name}.bot") is not None


@pytest.mark.parametrize("name", GAME_NAMES)
def test_bot_plays_legal_moves_to_the_end_reproducibly(name):
    game = get_game(name)
    _greedy_game(name, game.max_players, seed=11)  # the busiest table, legal to the end
    n = game.min_players
    assert _greedy_game(name, n, seed=12) == _greedy_game(name, n, seed=12)  # same seed, same game


@pytest.mark.parametrize("name", GAME_NAMES)
def test_bot_beats_random_players(name):
    """A small sample of the 200-game figure in docs/bots.md: the greedy bot
    in one seat (rotated) against random players scores clearly more."""
    summary = selfplay.run(name, ("greedy", "random", "random"), 9, seed=500, rotate=True)
    greedy, *randoms = summary.rows()
    assert greedy["mean score"] > max(r["mean score"] for r in randoms) + 3
    assert greedy["win rate"] >= 0.5


def test_bot_raises_for_a_seat_not_to_move():
    game = get_game("spyrium")
    state = game.initial_state(3, 1, {})
    idle = next(s for s in range(3) if s not in game.to_move(state))
    with pytest.raises(ValueError, match="no legal move"):
        bots.choose(game, state, idle, 1)


def test_selfplay_command_prints_a_summary():
    res = CliRunner().invoke(main, ["selfplay", "spyrium", "--players", "2", "--games", "3",
                                    "--bot", "greedy", "--bot", "random", "--seed", "4"])
    assert res.exit_code == 0, res.output
    out = res.stdout  # the progress bar goes to stderr
    assert "spyrium, 2 players, 3 games (seats rotated every game)" in out
    assert "greedy" in out and "random" in out
    assert "s/move" in out and "mean score" in out and "win rate" in out and "95% CI" in out
    again = CliRunner().invoke(main, ["selfplay", "spyrium", "--players", "2", "--games", "3",
                                      "--bot", "greedy", "--bot", "random", "--seed", "4", "--jobs", "2"])
    # everything but the timings (the last two columns) is reproducible, in one process or two

    def results(text):
        return [line.rsplit(None, 2)[0] for line in text.splitlines()[:4]]

    assert results(out) == results(again.stdout)


def test_wilson_interval():
    assert selfplay.wilson(0, 0) == (0.0, 1.0)
    low, high = selfplay.wilson(160, 200)
    assert (round(low, 3), round(high, 3)) == (0.739, 0.85)  # 80 % of 200 games
    low, high = selfplay.wilson(104, 104)
    assert high == 1.0 and round(low, 3) == 0.964


def test_selfplay_refuses_a_policy_the_game_has_not():
    res = CliRunner().invoke(main, ["selfplay", "spyrium", "--players", "2", "--games", "1", "--bot", "collector"])
    assert res.exit_code == 2 and "spyrium has no collector policy" in res.output


@pytest.mark.parametrize("args, expected", [
    (["selfplay", "chess"], "no game called 'chess'"),
    (["selfplay", "squire", "--players", "7"], "Squire is for 2 to 4 players, not 7"),
    (["selfplay", "squire", "--players", "2", "--bot", "greedy", "--bot", "random", "--bot", "random"],
     "3 --bot options for 2 seats"),
    (["selfplay", "squire", "--bot", "clever"], "'clever' is not one of"),
    (["selfplay", "squire", "--games", "0"], "--games must be at least 1"),
])
def test_selfplay_rejects_bad_arguments_clearly(args, expected):
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2
    assert expected in res.output


def test_selfplay_summary_follows_players_through_rotation():
    s = selfplay.run("squire", ("greedy", "random"), 4, seed=3, rotate=True)
    assert [r.kinds for r in s.records] == [("greedy", "random"), ("random", "greedy")] * 2
    greedy_scores = [r.scores[r.kinds.index("greedy")] for r in s.records]
    assert s.rows()[0]["mean score"] == round(statistics.mean(greedy_scores), 2)
