"""The `pbem` command."""
from __future__ import annotations

import click


@click.group()
def main() -> None:
    """pbem: play-by-email moderator for Spyrium, Squire and It's a Wonderful World."""


@main.group()
def bench() -> None:
    """Benchmarks that measure the real code paths."""


@bench.command("engine")
@click.argument("game", required=False)
@click.option("--players", "-p", type=int, multiple=True, help="player counts (default: all)")
@click.option("--games", "-n", type=int, default=200, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
def bench_engine(game: str | None, players: tuple[int, ...], games: int, seed: int) -> None:
    """Complete random games per second on one core, per game and player count."""
    from pbem.bench.engine import format_table, run_games
    from pbem.engine import DRAFT_GAMES, GAMES, get_game

    names = [get_game(game, include_draft=True).name] if game else sorted({**GAMES, **DRAFT_GAMES})
    rows = []
    for name in names:
        g = get_game(name, include_draft=True)
        for n in players or range(g.min_players, g.max_players + 1):
            rows.append(run_games(name, n, games, seed).row())
            click.echo(rows[-1], err=True)
    click.echo(format_table(rows))


if __name__ == "__main__":
    main()
