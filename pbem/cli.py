"""The `pbem` command."""
from __future__ import annotations

import logging
import os
import subprocess
import sys

import click


@click.group()
def main() -> None:
    """pbem: play-by-email moderator for Spyrium, Squire and It's a Wonderful World."""


def _prepare() -> None:
    from pbem.store.db import upgrade

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    upgrade()


@main.command()
def up() -> None:
    """Run everything on one machine: web, SMTP receiver, Celery worker and beat.

    Defaults need nothing but Python: SQLite and an embedded broker under ./var,
    outgoing mail written to ./var/maildir and listed at /outbox."""
    from pbem.config import ROOT, settings
    from pbem.mail.inbound import make_controller

    cfg = settings()
    _prepare()
    smtpd = make_controller(cfg)
    smtpd.start()
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "worker", "worker", "-B", "--pool=threads", "--concurrency=2",
         "--loglevel=WARNING", "-s", str(cfg.var_dir / "celerybeat-schedule")],
        cwd=str(ROOT), env=dict(os.environ, **cfg.to_env()),
    )
    click.echo(f"pbem is up.\n  web:   {cfg.base_url}/  (outbox: {cfg.base_url}/outbox)\n"
               f"  smtp:  {cfg.smtpd_host}:{cfg.smtpd_port}  (commands to {cfg.command_address})\n"
               f"  data:  {cfg.var_dir}\n  mail out: {'relay ' + cfg.smtp_url if cfg.smtp_url else cfg.maildir}\n"
               "Press Ctrl-C to stop.")
    try:
        _serve_web(cfg)
    finally:
        worker.terminate()
        try:
            worker.wait(15)
        except subprocess.TimeoutExpired:
            worker.kill()
        smtpd.stop()


def _serve_web(cfg) -> None:
    from werkzeug.serving import run_simple

    from pbem.web import create_app

    run_simple(cfg.web_host, cfg.web_port, create_app(cfg), threaded=True, use_reloader=False)


@main.command()
def smtpd() -> None:
    """Run the SMTP receiver alone (production: behind the domain's MX)."""
    import time

    from pbem.config import settings
    from pbem.mail.inbound import make_controller

    _prepare()
    ctl = make_controller(settings())
    ctl.start()
    click.echo(f"SMTP receiver on {ctl.hostname}:{ctl.port}")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        ctl.stop()


@main.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.pass_context
def worker(ctx) -> None:
    """Run a Celery worker (extra arguments go to celery, e.g. -B --concurrency 4)."""
    from pbem.config import ROOT

    os.chdir(ROOT)
    os.execv(sys.executable, [sys.executable, "-m", "celery", "-A", "worker", "worker", *ctx.args])


@main.command()
def web() -> None:
    """Run the web site alone with the development server (production: gunicorn 'pbem.web:create_app()')."""
    from pbem.config import settings

    _prepare()
    _serve_web(settings())


@main.group()
def db() -> None:
    """Database maintenance."""


@db.command("upgrade")
def db_upgrade() -> None:
    """Apply every migration."""
    from pbem.store.db import upgrade

    upgrade()
    click.echo("database is up to date")


@main.command()
@click.argument("inbound_id", type=int)
def redrive(inbound_id: int) -> None:
    """Run a failed inbound mail through the pipeline again."""
    from pbem.mail.pipeline import process_inbound

    click.echo(process_inbound(inbound_id, redrive=True))


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


@main.command()
@click.argument("game")
@click.option("--players", "-p", type=int, default=None, help="seats (default: the game's maximum)")
@click.option("--games", "-n", "count", type=int, default=20, show_default=True)
@click.option("--bot", "kinds", type=click.Choice(["greedy", "random"]), multiple=True,
              help="bot per seat in seat order, repeatable (default: greedy everywhere; "
                   "fewer than the seats: the last one fills the rest)")
@click.option("--rotate/--no-rotate", default=True, show_default=True,
              help="move the bots one seat on every game")
@click.option("--seed", type=int, default=1, show_default=True)
def selfplay(game: str, players: int | None, count: int, kinds: tuple[str, ...], rotate: bool, seed: int) -> None:
    """Play bot games in the engine and print mean scores, win rates, game lengths and moves/s.

    e.g. pbem selfplay spyrium --players 3 --games 200 --bot greedy --bot random"""
    from tqdm import tqdm

    from pbem import selfplay as sp
    from pbem.engine import OptionError, get_game

    try:
        engine = get_game(game)
    except KeyError as e:
        raise click.UsageError(f"{e.args[0]}; e.g. pbem selfplay spyrium --players 3") from None
    n = players or engine.max_players
    if not engine.min_players <= n <= engine.max_players:
        raise click.UsageError(f"{engine.title} is for {engine.min_players} to {engine.max_players} players, "
                               f"not {n}; e.g. pbem selfplay {engine.name} --players {engine.min_players}")
    if count < 1:
        raise click.UsageError("--games must be at least 1; e.g. --games 200")
    if len(kinds) > n:
        raise click.UsageError(f"{len(kinds)} --bot options for {n} seats; give at most one per seat")
    kinds = tuple(kinds) or ("greedy",)
    kinds = kinds + (kinds[-1],) * (n - len(kinds))
    with tqdm(total=count, unit="game", desc=f"{engine.name} x{n}", file=sys.stderr) as bar:
        try:
            summary = sp.run(engine.name, kinds, count, seed=seed, rotate=rotate, on_game=lambda r: bar.update())
        except OptionError as e:
            raise click.UsageError(str(e)) from None
    click.echo(summary.format())


@main.command()
@click.argument("game", required=False, default="spyrium")
@click.option("--players", "-p", type=int, default=None, help="bot players (default 3)")
@click.option("--seed", type=int, default=None, help="the game's seed (default: random)")
@click.option("--max-plies", type=int, default=None, help="stop the demo after this many plies")
@click.option("--exit", "exit_", is_flag=True, help="stop everything when the game is over (default: keep serving)")
def demo(game: str, players: int | None, seed: int | None, max_plies: int | None, exit_: bool) -> None:
    """Run pbem on its embedded defaults with a demo game whose bot players play by real mail.

    Shows the game's progress live; the game page is at the printed address."""
    from pbem import demo as demo_mod
    from pbem.engine import get_game

    try:
        engine = get_game(game)
    except KeyError as e:
        raise click.UsageError(f"{e.args[0]}; e.g. pbem demo squire") from None
    if players is not None and not max(2, engine.min_players) <= players <= engine.max_players:
        raise click.UsageError(f"the {engine.title} demo is for {max(2, engine.min_players)} to "
                               f"{engine.max_players} players, not {players}; e.g. pbem demo {engine.name} --players 3")
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    demo_mod.run(engine.name, players, seed=seed, max_plies=max_plies, keep_serving=not exit_, echo=click.echo)


if __name__ == "__main__":
    main()
