"""The `pbem` command."""
from __future__ import annotations

import logging
import os
import pathlib
import subprocess
import sys

import click


@click.group()
@click.version_option(package_name="pbem", prog_name="pbem")
def main() -> None:
    """pbem: play-by-email moderator for Spyrium, Squire and It's a Wonderful World."""


def _checked_settings():
    """The settings in force, or the process stops here with one line naming the setting that cannot
    work and a value that would (config.SettingError): a serving process must not start and then fail
    every mail or every page."""
    from pbem.config import SettingError, settings

    try:
        return settings()
    except SettingError as e:
        raise click.ClickException(f"pbem did not start: {e}") from None


def _prepare(service: str = "web") -> None:
    from pbem import i18n, logs
    from pbem.store.db import upgrade

    logs.configure(service)  # PBEM_LOG_FORMAT: text, or JSON (production)
    i18n.ensure_compiled()
    upgrade()


@main.command()
def up() -> None:
    """Run everything on one machine: web, SMTP receiver, Celery worker and beat.

    Defaults need nothing but Python: SQLite and an embedded broker under ./var,
    outgoing mail written to ./var/maildir (`pbem outbox` lists it; on the web,
    /outbox shows each user their own mail and admins all of it). The receiver
    and the worker run in processes of their own: idle SMTP connections can
    never take the web site's file descriptors."""
    from pbem.bench.env import stop_server
    from pbem.mail.inbound import spawn

    cfg = _checked_settings()
    _prepare()
    smtpd = spawn(cfg)
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "pbem.worker", "worker", "-B", "--pool=threads", "--concurrency=2",
         "--loglevel=WARNING", "-s", str(cfg.var_dir / "celerybeat-schedule")],
        env=dict(os.environ, **cfg.to_env()),
    )
    click.echo(f"pbem is up.\n  web:   {cfg.base_url}/  (your mail: {cfg.base_url}/outbox; all mail: pbem outbox)\n"
               f"  smtp:  {cfg.smtpd_host}:{cfg.smtpd_port}  (commands to {cfg.command_address})\n"
               f"  data:  {cfg.var_dir}\n  mail out: {'relay ' + cfg.smtp_url if cfg.smtp_url else cfg.maildir}\n"
               "Press Ctrl-C to stop.")
    try:
        _serve_web(cfg)
    finally:
        for proc in (worker, smtpd):
            stop_server(proc, 15)


def _serve_web(cfg) -> None:
    from werkzeug.serving import run_simple

    from pbem.web import create_app

    run_simple(cfg.web_host, cfg.web_port, create_app(cfg), threaded=True, use_reloader=False)


@main.command()
def smtpd() -> None:
    """Run the SMTP receiver alone (production: behind the domain's MX; its sessions are capped to fit
    its file descriptors)."""
    from pbem.config import require_secret_key
    from pbem.mail.inbound import serve

    cfg = _checked_settings()
    require_secret_key(cfg)  # production: bounce addresses are checked with the shared key
    _prepare("receiver")
    serve(cfg)


@main.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.pass_context
def worker(ctx) -> None:
    """Run a Celery worker (extra arguments go to celery, e.g. -B --concurrency 4)."""
    _checked_settings()
    os.execv(sys.executable, [sys.executable, "-m", "celery", "-A", "pbem.worker", "worker", *ctx.args])


@main.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.pass_context
def beat(ctx) -> None:
    """Run Celery beat: the periodic tasks (sweep, deadlines, prune). Start one per site, or one more as a
    standby: only the beat holding the database lease "beat" sends (PBEM_BEAT_LEASE_S); extra arguments
    go to celery."""
    cfg = _checked_settings()
    _prepare()
    cfg.var_dir.mkdir(parents=True, exist_ok=True)
    os.execv(sys.executable, [sys.executable, "-m", "celery", "-A", "pbem.worker", "beat", "--loglevel=INFO",
                              "-s", str(cfg.var_dir / "celerybeat-schedule"), *ctx.args])


@main.command()
def web() -> None:
    """Run the web site alone with the development server (production: gunicorn 'pbem.web:create_app()')."""
    cfg = _checked_settings()
    _prepare()
    _serve_web(cfg)


@main.command("metrics-exporter")
@click.option("--host", default="127.0.0.1", show_default=True, help="address to listen on (0.0.0.0: every one)")
@click.option("--port", type=click.IntRange(1, 65535), default=9464, show_default=True)
def metrics_exporter(host: str, port: int) -> None:
    """Serve /metrics on a host without the web site (worker-only, receiver-only): the counts of this
    host's pbem processes (PBEM_METRICS_DIR), with the web's rule: PBEM_METRICS_TOKEN, else loopback only."""
    from pbem import logs, metrics

    cfg = _checked_settings()
    logs.configure("exporter")
    if cfg.metrics_path is None:
        raise click.ClickException("PBEM_METRICS_DIR=off: this host counts nothing to export")
    server = metrics.exporter(host, port)
    click.echo(f"metrics of {cfg.metrics_path} on http://{host}:{port}/metrics"
               + ("" if cfg.metrics_token else " (loopback only: no PBEM_METRICS_TOKEN)"))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


@main.group("i18n")
def i18n_group() -> None:
    """The translation catalogs (scripts/i18n extracts and merges them)."""


@i18n_group.command("compile")
@click.option("--force", is_flag=True, help="recompile every catalog, not only the changed ones")
def i18n_compile(force: bool) -> None:
    """Compile every .po catalog to .mo (the install scripts run this)."""
    from pbem import i18n

    written = i18n.compile_catalogs(force=force)
    click.echo(f"{len(written)} catalog(s) compiled" if written else "the catalogs are up to date")


@main.group()
def docs() -> None:
    """Pages of docs/ written from the code."""


@docs.command("commands")
def docs_commands() -> None:
    """docs/commands.md and docs/SECURITY.md's mail table, from the mail commands' declarations."""
    from pbem.mail.commands import docs as command_docs

    for path in command_docs.write():
        click.echo(f"wrote {path}")


@main.group()
def db() -> None:
    """Database maintenance."""


@db.command("upgrade")
def db_upgrade() -> None:
    """Apply every migration."""
    from pbem.store.db import upgrade

    done = upgrade()
    click.echo(f"database migrated ({len(done)} migrations: {done[0]} to {done[-1]}); it is up to date" if done
               else "database is up to date")


@main.command()
@click.argument("inbound_id", type=int)
def redrive(inbound_id: int) -> None:
    """Run a failed inbound mail through the pipeline again."""
    from pbem.mail.pipeline import process_inbound

    click.echo(process_inbound(inbound_id, redrive=True))


@main.command()
@click.argument("mail_id", type=int, required=False)
@click.option("--to", "to", default=None, help="only the mail to this address, with its text")
@click.option("--last", "last", default=20, show_default=True, help="how many mails")
def outbox(mail_id: int | None, to: str | None, last: int) -> None:
    """The mail pbem has sent, for the machine's operator (on the embedded
    default it goes to ./var/maildir): the newest mails, those to one address
    with their text (e.g. a login link), or one mail whole. On the web,
    /outbox shows admins every mail and each user the mail sent to them."""
    from pbem.services.core import visibility
    from pbem.store.db import unit_of_work
    from pbem.store.models import Outbound

    _prepare()
    with unit_of_work() as s:
        if mail_id is not None:
            rows = [r for r in [s.get(Outbound, mail_id)] if r is not None]
            if not rows:
                raise click.ClickException(f"there is no mail #{mail_id}")
        else:
            rows = visibility.all_mail(s, to=to, limit=last)
        for r in reversed(rows):
            click.echo(f"#{r.id}  {r.created_at:%Y-%m-%d %H:%M}  to {r.to_addr}  [{r.kind}, {r.status}]  {r.subject}")
            if to or mail_id is not None:
                click.echo("    " + r.body_text.rstrip().replace("\n", "\n    ") + "\n")
        if not rows:
            click.echo("no mail" + (f" to {to}" if to else ""))


@main.command("backup")
@click.argument("file", type=click.Path(dir_okay=False))
def backup_cmd(file: str) -> None:
    """Back the database up to FILE while pbem runs: SQLite's online backup (the database as of one
    commit, the service writing on), or pg_dump's custom format on PostgreSQL.

    e.g. pbem backup /var/backups/pbem-$(date +%F).sqlite3"""
    from pathlib import Path

    from pbem.store import backup

    try:
        done = backup.backup(Path(file))
    except backup.BackupError as e:
        raise click.ClickException(str(e)) from None
    rows = f", {sum(done.tables.values())} rows" if done.tables else ""
    games = f" ({done.tables.get('games', 0)} games, {done.tables.get('moves', 0)} moves)" if done.tables else ""
    click.echo(f"backed up to {done.path}: {done.bytes} bytes{rows}{games}")


@main.command("restore")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--yes", is_flag=True, help="do not ask (the database is replaced by the backup)")
def restore_cmd(file: str, yes: bool) -> None:
    """Replace the database with the backup FILE (stop the web, the receiver, the workers and the
    beat first). The backup is checked before anything is changed; then the migrations are applied."""
    from pathlib import Path

    from pbem.config import settings
    from pbem.store import backup
    from pbem.store.db import dispose_engines, upgrade

    url = settings().database_url
    try:
        if backup.backend(url) == "sqlite":
            backup.check_sqlite(Path(file))
        if not yes:
            click.confirm(f"Replace the database {make_safe(url)} with {file}?", abort=True)
        done = backup.restore(Path(file))
    except backup.BackupError as e:
        raise click.ClickException(str(e)) from None
    dispose_engines()
    upgrade()
    games = f" ({done.tables.get('games', 0)} games, {done.tables.get('moves', 0)} moves)" if done.tables else ""
    click.echo(f"restored {file}{games}; the database is up to date; start the services again")


@main.command("export")
@click.argument("game_id", type=int)
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True), required=False, default="-")
def export_cmd(game_id: int, file: str) -> None:
    """Write finished game GAME_ID's record as JSON to FILE (or standard output): what the archive
    offers (public moves and posts, options, seed, outcome, the final state's hash), for any finished
    game, a private one too (the operator's).

    e.g. pbem export 12 game-12.json"""
    from pbem.services.lobby import archive
    from pbem.services.core.errors import UserError
    from pbem.store.db import unit_of_work

    from pbem.store.models import User

    _prepare_quiet()
    operator = User(email="", name="operator", is_admin=True)  # not stored: the archive as an admin sees it
    try:
        with unit_of_work() as s:
            # private games too: the machine's operator reads every record
            text = archive.dumps(archive.record(s, game_id, operator))
    except UserError as e:
        raise click.ClickException(e.describe()) from None
    with click.open_file(file, "w", encoding="utf-8") as out:
        out.write(text)
    if file != "-":
        click.echo(f"game #{game_id}'s record written to {file}")


@main.command("import")
@click.argument("file", type=click.File("rb"))
def import_cmd(file) -> None:
    """Import a game record (from `pbem export` or the archive's download) as a new finished game.
    Every move is replayed through the rules and the final state must be the record's own, or
    nothing is stored. Its players are placeholders that cannot log in (docs/players.md, the archive).

    e.g. pbem import game-12.json"""
    from pbem.services.lobby import archive

    data = file.read()

    def run(s):
        return archive.import_record(s, archive.parse(data), by=_operator()).id

    gid = _admin_action(run)
    click.echo(f"imported as game #{gid}")


def make_safe(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


@main.command("prune")
def prune_cmd() -> None:
    """Apply the retention settings now (the beat does it every PBEM_PRUNE_EVERY_S): old processed mail,
    sent outbox rows and finished games' snapshots (docs/operators.md, Retention)."""
    from pbem.services.upkeep.retention import prune

    _prepare_quiet()
    click.echo(", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in prune().as_dict().items()))


class _AdminGroup(click.Group):
    """`pbem admin ADDRESS [--revoke]`, the command from before `pbem admin` had subcommands, still
    works: it is `grant` (or `revoke`)."""

    def parse_args(self, ctx, args):
        if args and "@" in args[0] and args[0] not in self.commands:
            rest = [a for a in args[1:] if a != "--revoke"]
            args = ["revoke" if "--revoke" in args[1:] else "grant", args[0], *rest]
        return super().parse_args(ctx, args)


def _operator() -> str:
    """Who ran a `pbem admin` command, for the audit log: the login on this machine."""
    import getpass
    import socket

    try:
        who = os.environ.get("SUDO_USER") or getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name (a container): the uid says enough
        who = f"uid {os.getuid()}"
    return f"{who}@{socket.gethostname()}"


def _admin_action(fn):
    """Run ``fn(session)`` in one transaction; a refusal is a clear error that changed nothing."""
    from pbem.services.core.errors import UserError
    from pbem.store.db import unit_of_work

    _prepare_quiet()
    try:
        with unit_of_work() as s:
            return fn(s)
    except UserError as e:
        raise click.ClickException(e.describe()) from None


def _prepare_quiet() -> None:
    from pbem.store.db import upgrade

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)
    upgrade()


def _user_line(u) -> str:
    flags = [f for f, on in (("admin", u.is_admin), ("disabled", u.disabled_at is not None),
                             ("unconfirmed", not u.confirmed), ("STOP", u.stopped)) if on]
    return f"#{u.id}  {u.email}  {u.name}" + (f"  [{', '.join(flags)}]" if flags else "") + \
        f"  since {u.created_at:%Y-%m-%d}"


@main.group(cls=_AdminGroup)
def admin() -> None:
    """Accounts and games, for the machine's operator. Every change is kept in the audit log
    (the web console's /admin shows it).

    \b
    e.g. pbem admin grant ann@example.org
         pbem admin find ann
         pbem admin disable bob@example.org --reason "abusive table talk"
         pbem admin seats 12"""


@admin.command("grant")
@click.argument("email")
def admin_grant(email: str) -> None:
    """Make the account of EMAIL an administrator (the admin console, every mail in /outbox)."""
    from pbem.services.core import accounts

    u = _admin_action(lambda s: accounts.set_admin(s, email, True, by=_operator()))
    click.echo(f"{u.name} <{u.email}> is an administrator")


@admin.command("revoke")
@click.argument("email")
def admin_revoke(email: str) -> None:
    """The account of EMAIL is no longer an administrator."""
    from pbem.services.core import accounts

    u = _admin_action(lambda s: accounts.set_admin(s, email, False, by=_operator()))
    click.echo(f"{u.name} <{u.email}> is no longer an administrator")


@admin.command("list")
@click.option("--admins", is_flag=True, help="only administrators")
@click.option("--disabled", is_flag=True, help="only disabled accounts")
@click.option("--last", default=50, show_default=True, help="how many accounts (newest first)")
def admin_list(admins: bool, disabled: bool, last: int) -> None:
    """The accounts, newest first."""
    from pbem.services.core import accounts

    rows = _admin_action(lambda s: accounts.search(s, "", admins=admins, disabled=disabled, limit=last))
    for u in rows:
        click.echo(_user_line(u))
    if not rows:
        click.echo("no account")


@admin.command("find")
@click.argument("text")
def admin_find(text: str) -> None:
    """Accounts whose address or name contains TEXT (any case)."""
    from pbem.services.core import accounts

    if not text.strip():
        raise click.UsageError("say what to look for: part of an address or a name; e.g. pbem admin find ann")
    rows = _admin_action(lambda s: accounts.search(s, text))
    for u in rows:
        click.echo(_user_line(u))
    if not rows:
        click.echo(f"no account's address or name contains {text!r}")


@admin.command("disable")
@click.argument("email")
@click.option("--reason", required=True, help="why (kept in the audit log)")
def admin_disable(email: str, reason: str) -> None:
    """Disable the account of EMAIL: its mail is refused (one polite answer a day), its web
    sessions end and its login is refused; its seats are played by each game's no-move policy."""
    from pbem.services.core import accounts

    u = _admin_action(lambda s: accounts.disable(s, email, reason, by=_operator()))
    click.echo(f"{u.name} <{u.email}> is disabled (since {u.disabled_at:%Y-%m-%d %H:%M} UTC)")


@admin.command("enable")
@click.argument("email")
def admin_enable(email: str) -> None:
    """Enable the account of EMAIL again."""
    from pbem.services.core import accounts

    u = _admin_action(lambda s: accounts.enable(s, email, by=_operator()))
    click.echo(f"{u.name} <{u.email}> is enabled")


def _earlier_tokens(s, game_id: int, seat) -> list[str]:
    """The tokens of the seat's earlier reply addresses that its moves came by (pbem keeps no old
    token: only the addresses of the mail its moves came in say that it was renewed)."""
    from sqlmodel import select

    from pbem.config import settings
    from pbem.store.addresses import parse_recipient
    from pbem.store.models import Inbound, Move

    cfg = settings()
    rcpts = s.exec(select(Inbound.rcpt_to).join(Move, Move.inbound_id == Inbound.id)
                   .where(Move.game_id == game_id, Move.seat == seat.seat).distinct())
    tokens = []
    for rcpt in rcpts:
        who = parse_recipient(rcpt, cfg.domain, cfg.command_local)
        if who is not None and who.kind == "seat" and who.token != seat.token and who.token not in tokens:
            tokens.append(who.token)
    return tokens


@admin.command("seats")
@click.argument("game_id", type=int)
def admin_seats(game_id: int) -> None:
    """A game's seats: who plays each, its state, and its reply address's token (only a prefix:
    the token is the seat's key)."""
    from pbem.services.core import games, seating
    from pbem.store.models import Game, User

    def show(s):
        g = s.get(Game, game_id)
        if g is None:
            raise click.ClickException(f"there is no game #{game_id}; `pbem admin find` finds players, "
                                       f"the web console /admin lists the games")
        click.echo(f"game #{g.id} {games.engine_for(g).title}, {g.status}, ply {g.ply}, policy {g.policy}"
                   + (", paused" if g.paused else ""))
        for seat in seating.seats(s, g.id):
            u = s.get(User, seat.user_id) if seat.user_id else None
            who = "bot" if seat.is_bot else (f"{u.name} <{u.email}>" if u else "empty")
            if seat.is_bot:
                state = "bot (no mail)"
            elif u is None or seat.resigned or seat.abandoned:
                state = "void: " + ("resigned" if seat.resigned else "abandoned" if seat.abandoned else "no player")
            elif u.disabled_at is not None:
                state = "valid, but its account is disabled (mail refused)"
            else:
                state = "valid"
            earlier = _earlier_tokens(s, g.id, seat)
            if earlier:
                state += (f"; rotated: moves came from {len(earlier)} earlier address(es) of this seat ("
                          + ", ".join(t[:6] + "..." for t in earlier) + "), which no longer work")
            extra = [f"deadline {seat.deadline_at:%Y-%m-%d %H:%M}"] if seat.deadline_at else []
            extra += [f"missed {seat.missed}"] if seat.missed else []
            click.echo(f"  seat {seat.seat + 1}: {who}; token {seat.token[:6]}... {state}"
                       + (f"; {', '.join(extra)}" if extra else ""))

    _admin_action(show)


@main.group()
def bench() -> None:
    """Benchmarks that measure the real code paths."""


@bench.command("pictures")
@click.option("--pictures", "-n", type=int, default=20, show_default=True,
              help="positions per game and count for the table per picture (0: none)")
@click.option("--moves", "-m", type=int, default=4, show_default=True,
              help="positions per game and count for the table per move's mails, before and after (0: none)")
@click.option("--plies", type=int, default=0, show_default=True,
              help="plies of one game per game and count for the table of a game's moves: each rendered whole, "
                   "band by band with no band kept, and band by band with the game's bands kept (0: none)")
@click.option("--width", type=int, default=0, help="PNG width in pixels (default: PBEM_PICTURE_WIDTH)")
@click.option("--seed", type=int, default=1, show_default=True)
def bench_pictures(pictures: int, moves: int, plies: int, width: int, seed: int) -> None:
    """CPU per board picture in the mail (drawing the view, rendering the PNG) and its bytes, per game;
    then per move: the pictures of the mails of one move, one to each seat, before and after; then
    (--plies) a game's moves one after another, whole and band by band."""
    from pbem.bench.engine import format_table
    from pbem.bench.pictures import MOVE_CASES, run, run_game, run_moves
    from pbem.config import load_settings

    width = width or load_settings().picture_width
    if pictures > 0:
        rows = [run("spyrium", 2, pictures, width, seed), run("spyrium", 5, pictures, width, seed),
                run("squire", 2, pictures, width, seed, {"side": "british"}),
                run("squire", 4, pictures, width, seed, {"side": "world"}),
                run("iaww", 2, pictures, width, seed), run("iaww", 5, pictures, width, seed)]
        click.echo(format_table(rows))
    if moves > 0:
        rows = [run_moves(game, players, moves, width, seed, options)
                for game, options, counts in MOVE_CASES for players in counts]
        click.echo(format_table(rows))
    if plies > 0:
        rows = [run_game(game, players, plies, width, seed, options)
                for game, options, counts in MOVE_CASES for players in counts]
        click.echo(format_table(rows))


@bench.command("bots")
@click.argument("game", required=False)
@click.option("--players", "-p", type=int, multiple=True, help="player counts (default: 2 and the game's most)")
@click.option("--level", "levels", type=click.Choice(["easy", "normal", "strong"]), multiple=True,
              help="levels (default: all three)")
@click.option("--games", "-n", type=int, default=2, show_default=True, help="greedy games the positions come from")
@click.option("--every", type=int, default=5, show_default=True, help="take every k-th decision with a choice")
@click.option("--seed", type=int, default=1, show_default=True)
def bench_bots(game: str | None, players: tuple[int, ...], levels: tuple[str, ...], games: int, every: int,
               seed: int) -> None:
    """Seconds of one core per bot move at each level, on positions from real games (docs/bots.md)."""
    from pbem.bench.bots import format_table, measure
    from pbem.engine import GAMES, get_game

    names = [get_game(game).name] if game else sorted(GAMES)
    rows = []
    for name in names:
        g = get_game(name)
        for n in players or sorted({2, g.max_players}):
            for cost in measure(name, n, levels or ("easy", "normal", "strong"), games, every, seed):
                rows.append(cost.row())
                click.echo(rows[-1], err=True)
    click.echo(format_table(rows))


@bench.command("review")
@click.argument("game", required=False)
@click.option("--players", "-p", type=int, default=3, show_default=True)
@click.option("--games", "-n", type=int, default=2, show_default=True,
              help="greedy games the agreement's positions come from")
@click.option("--every", type=int, default=9, show_default=True, help="take every k-th decision with a choice")
@click.option("--seed", type=int, default=1, show_default=True)
def bench_review(game: str | None, players: int, games: int, every: int, seed: int) -> None:
    """The CPU of a whole game's post-game review, and how often the normal search's first choice is the
    strong bot's move (docs/bots.md, "Reviews and hints")."""
    from pbem.bench.review import agreement, format_table, review_cost
    from pbem.engine import GAMES, get_game

    names = [get_game(game).name] if game else sorted(GAMES)
    costs, agree = [], []
    for name in names:
        costs.append(review_cost(name, players, seed).row())
        click.echo(costs[-1], err=True)
        agree.append(agreement(name, players, games, every, seed).row())
        click.echo(agree[-1], err=True)
    click.echo(format_table(costs))
    click.echo()
    click.echo(format_table(agree))


@bench.command("engine")
@click.argument("game", required=False)
@click.option("--players", "-p", type=int, multiple=True, help="player counts (default: all)")
@click.option("--games", "-n", type=int, default=200, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--against", metavar="COMMIT",
              help="instead, play the same seeded games with this checkout's engine and with COMMIT's "
                   "(a temporary git worktree), each in a process of its own, and print both games/s "
                   "(CPU time) and their ratio, e.g. --against c3af06e")
@click.option("--rounds", type=int, default=5, show_default=True,
              help="with --against: paired runs per row, the side going first alternating")
def bench_engine(game: str | None, players: tuple[int, ...], games: int, seed: int, against: str | None,
                 rounds: int) -> None:
    """Complete random games per second on one core, per game and player count."""
    from pbem.bench.engine import compare, format_table, run_games
    from pbem.engine import DRAFT_GAMES, GAMES, get_game

    names = [get_game(game, include_draft=True).name] if game else sorted({**GAMES, **DRAFT_GAMES})
    configs = []
    for name in names:
        g = get_game(name, include_draft=True)
        configs += [(name, n) for n in players or range(g.min_players, g.max_players + 1)]
    if against:
        if rounds < 1 or games < 1:
            raise click.BadParameter("--rounds and --games must be at least 1, e.g. --games 50 --rounds 5")
        try:
            rows = compare(configs, against, games, rounds, seed, echo=lambda r: click.echo(r, err=True))
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--against") from None
        click.echo(format_table(rows))
        return
    rows = []
    for name, n in configs:
        rows.append(run_games(name, n, games, seed).row())
        click.echo(rows[-1], err=True)
    click.echo(format_table(rows))


@main.command()
@click.argument("game")
@click.option("--players", "-p", type=int, default=None, help="seats (default: the game's maximum)")
@click.option("--games", "-n", "count", type=int, default=20, show_default=True)
@click.option("--bot", "kinds", type=click.Choice(["greedy", "easy", "normal", "strong", "random", "collector"]),
              multiple=True,
              help="bot per seat in seat order, repeatable: a level (easy = greedy, normal, strong), random, or "
                   "collector (Squire's comparison policy); default greedy everywhere; fewer than the seats: the "
                   "last one fills the rest")
@click.option("--rotate/--no-rotate", default=True, show_default=True,
              help="move the bots one seat on every game")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--jobs", "-j", type=int, default=1, show_default=True, help="processes playing games at once")
def selfplay(game: str, players: int | None, count: int, kinds: tuple[str, ...], rotate: bool, seed: int,
             jobs: int) -> None:
    """Play bot games in the engine and print mean scores and win rates with 95 % intervals, and each
    bot's seconds per move.

    e.g. pbem selfplay squire --players 2 --games 200 --bot strong --bot easy --jobs 2"""
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
            summary = sp.run(engine.name, kinds, count, seed=seed, rotate=rotate, on_game=lambda r: bar.update(),
                             jobs=max(1, jobs))
        except (OptionError, ValueError) as e:
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


_pg_opt = click.option("--pg", "pg_admin", default="postgresql+psycopg://root@127.0.0.1:5432/test", show_default=True,
                       help="PostgreSQL URL; the bench makes (and drops) a fresh database beside it")
_redis_opt = click.option("--redis", "redis_url", default="redis://127.0.0.1:6379/0", show_default=True,
                          help="Redis broker (the bench uses a key prefix of its own)")


@bench.command("replay")
@click.option("--game", default="iaww", show_default=True)
@click.option("--players", "-p", type=int, default=5, show_default=True)
@click.option("--checkpoints", type=int, default=8, show_default=True)
@click.option("--reps", type=int, default=15, show_default=True)
@_pg_opt
@_redis_opt
def bench_replay(game: str, players: int, checkpoints: int, reps: int, pg_admin: str, redis_url: str) -> None:
    """Rebuild a long game's state with and without snapshots; load the latest state as it grows."""
    from pbem.bench.engine import format_table
    from pbem.bench.env import bench_settings
    from pbem.bench.replay import run_replay

    with bench_settings(pg_admin, redis_url):
        fig = run_replay(game, players, checkpoints=checkpoints, reps=reps)
    click.echo(f"{fig.game} {fig.players}p, {fig.plies} plies, snapshot every {fig.snapshot_every}; "
               f"played through the service in {fig.play_s:.1f} s")
    click.echo(format_table(fig.rows()))


@bench.command("pipeline")
@click.option("--workers", "-w", type=int, default=1, show_default=True, help="Celery worker processes")
@click.option("--mails", "-n", type=int, default=400, show_default=True)
@click.option("--games", type=int, default=40, show_default=True, help="games the mails are spread over")
@click.option("--game", default="spyrium", show_default=True)
@click.option("--players", "-p", type=int, default=2, show_default=True)
@click.option("--rate", type=float, default=0.0, show_default=True, help="mails/s offered (0: as fast as possible)")
@click.option("--clients", type=int, default=4, show_default=True, help="SMTP connections at once")
@click.option("--one-game", is_flag=True, help="every mail into one game, each after the previous is applied")
@click.option("--pool", default="solo", show_default=True, type=click.Choice(["solo", "prefork", "threads"]))
@click.option("--concurrency", type=int, default=1, show_default=True, help="per worker (prefork/threads)")
@click.option("--picture-workers", type=int, default=0, show_default=True,
              help="workers on PBEM_PICTURE_QUEUE at nice 10 (the board pictures in the mail)")
@click.option("--relay", is_flag=True, help="deliver over SMTP to a relay sink (aiosmtpd on loopback, a process "
              "of its own) instead of the maildir")
@click.option("--relay-max-mails", type=click.IntRange(min=1), default=None,
              help="with --relay: PBEM_RELAY_MAX_MAILS for the workers (1: a new connection per mail)")
@_pg_opt
@_redis_opt
def bench_pipeline(pg_admin: str, redis_url: str, **kw) -> None:
    """Mails over real SMTP, real Celery workers on Redis, PostgreSQL: mails/s until all is delivered,
    latency to the queued reply, CPU per mail by component; delivered to the maildir, or with --relay
    to an SMTP relay (its count of connections and mails is shown)."""
    from pbem.bench.engine import format_table
    from pbem.bench.env import bench_settings
    from pbem.bench.pipeline import run_pipeline

    if kw["relay_max_mails"] and not kw["relay"]:
        raise click.UsageError("--relay-max-mails is for --relay")
    with bench_settings(pg_admin, redis_url):
        fig = run_pipeline(**kw)
        pictures = _picture_share()
    click.echo(format_table([fig.row()]))
    if fig.relay:
        click.echo(f"Delivery: {fig.delivery} (SMTP to a sink on loopback; PBEM_RELAY_MAX_MAILS per connection): "
                   f"{fig.relay['mails']} mails over {fig.relay['used']} connection(s), {fig.relay['opened']} of "
                   "them opened during the run.")
    else:
        click.echo("Delivery: maildir.")
    if pictures:
        click.echo(pictures)
    if fig.cpu_s:
        click.echo("\nCPU per mail, by component:\n" + format_table([fig.cpu_row()]))


def _picture_share() -> str:
    """How many of a bench run's board mails showed their board as a picture."""
    from sqlalchemy import func, select

    from pbem.store.db import unit_of_work
    from pbem.store.models import Outbound, Picture

    with unit_of_work() as s:
        boards = s.execute(select(func.count()).select_from(Outbound)
                           .where(Outbound.body_html.is_not(None), Outbound.kind.in_(("board", "reply")))).scalar()
        drawn = s.execute(select(func.count()).select_from(Outbound).join(Picture, Picture.key == Outbound.picture_key)
                          .where(Picture.png.is_not(None))).scalar()
        rendered = s.execute(select(func.count()).select_from(Picture).where(Picture.png.is_not(None))).scalar()
    if not boards:
        return ""
    return (f"Pictures: {drawn} of {boards} HTML boards and receipts showed the board as a picture "
            f"({rendered} pictures rendered); the others went without (the picture settings: docs/operators.md).")


@bench.command("worker")
@click.option("--mails", "-n", type=int, default=30, show_default=True, help="measured mails per case")
@click.option("--games", type=int, default=8, show_default=True, help="games a case's mails are spread over")
@click.option("--warm", type=int, default=8, show_default=True, help="mails processed before the measured ones")
@click.option("--picture-mails", type=int, default=4, show_default=True,
              help="measured mails per case with pictures (each draws and renders its boards: seconds a mail)")
@click.option("--game", "game_names", multiple=True, help="only this game (repeatable; default: every game)")
@click.option("--players", "-p", "players", type=int, multiple=True,
              help="players (repeatable; default: 2, 4 and 5, where the game seats them)")
@click.option("--pictures", type=click.Choice(["off", "on", "both"]), default="both", show_default=True,
              help="the board pictures in the mail (on: drawn and rendered at delivery, inline)")
@click.option("--languages", default="en", show_default=True,
              help="the players' languages by seat, comma-separated (en,ru,bg,it: each mail in its reader's)")
@click.option("--baseline", "baseline_path", type=click.Path(dir_okay=False, path_type=pathlib.Path), default=None,
              help="the figures to hold these against (default: pbem/bench/baseline.json)")
@click.option("--cpu-ratio", type=float, default=1.3, show_default=True,
              help="a case fails above its baseline's CPU ms/mail times this (CPU scaled by the yardstick)")
@click.option("--statements-ratio", type=float, default=1.05, show_default=True,
              help="a case fails above its baseline's statements/mail times this")
@click.option("--no-check", is_flag=True, help="report only: exit 0 whatever the figures")
@click.option("--write-baseline", type=click.Path(dir_okay=False, path_type=pathlib.Path), default=None,
              help="write these figures as a baseline file (the targets of --baseline kept)")
@_pg_opt
@_redis_opt
def bench_worker(mails: int, games: int, warm: int, picture_mails: int, game_names: tuple[str, ...],
                 players: tuple[int, ...], pictures: str, languages: str, baseline_path: pathlib.Path | None,
                 cpu_ratio: float, statements_ratio: float, no_check: bool, write_baseline: pathlib.Path | None,
                 pg_admin: str, redis_url: str) -> None:
    """The budget of a move mail: one worker's CPU and SQL statements per move mail, in this process (no
    Celery, no SMTP): process_inbound on stored mails, PostgreSQL, replies delivered to the maildir, for
    2, 4 and 5 players of each game, pictures off and on. Held against the baseline file and its targets:
    exits 1 when a case is over. For instructions per mail, whatever the load:
    valgrind --tool=callgrind --toggle-collect=functools_reduce pbem bench worker --game spyrium -p 2 -n 30"""
    import json

    from pbem.bench import worker
    from pbem.bench.engine import format_table
    from pbem.bench.env import bench_settings
    from pbem.engine import get_game

    for name in game_names:
        try:
            get_game(name)
        except KeyError as e:
            raise click.UsageError(f"{e.args[0]}; e.g. pbem bench worker --game spyrium") from None
    which = {"off": (False,), "on": (True,), "both": (False, True)}[pictures]
    cases = worker.budget_cases(game_names, players or worker.BUDGET_PLAYERS, which)
    if not cases:
        raise click.UsageError("no game seats that many players; e.g. pbem bench worker --game spyrium -p 4")
    langs = tuple(x.strip() for x in languages.split(",") if x.strip())
    load = os.getloadavg()
    yard = worker.cpu_yardstick()
    figs = []
    with bench_settings(pg_admin, redis_url):
        for game, n, pic in cases:
            click.echo(f"{worker.key(game, n, pic)} ...", err=True)
            fig = worker.run_case(game, n, pic, mails=picture_mails if pic else mails, games=games,
                                  warm=min(warm, 2) if pic else warm, languages=langs)
            figs.append(((game, n, pic), fig))
    load_after = os.getloadavg()
    yard = round((yard + worker.cpu_yardstick()) / 2, 4)  # the machine's speed before and after the cases
    baseline = worker.load_baseline(baseline_path or worker.BASELINE)
    speed = yard / baseline["yardstick_s"] if baseline.get("yardstick_s") else 1.0
    rows = []
    for (game, n, pic), fig in figs:
        base = baseline.get("cases", {}).get(worker.key(game, n, pic), {})
        rows.append({"game": game, "players": n, "pictures": "on" if pic else "off", "mails": len(fig.cpu_s),
                     "cpu ms/mail": fig.cpu_ms, "cpu ms scaled": round(fig.cpu_ms / speed, 2),
                     "baseline cpu ms": base.get("cpu_ms", ""),
                     "statements/mail": fig.statements_per_mail, "statements max": max(fig.statements, default=0),
                     "baseline statements": base.get("statements", "")})
    click.echo(f"Load average before {' '.join(f'{x:.2f}' for x in load)}, after "
               f"{' '.join(f'{x:.2f}' for x in load_after)}; CPU yardstick {yard} s (baseline "
               f"{baseline.get('yardstick_s')} s: CPU scaled by {1 / speed:.3f}); {mails} mails a case "
               f"({picture_mails} with pictures), after {warm} ({min(warm, 2)}), over {games} games.")
    click.echo(format_table(rows))
    verdicts = worker.judge(figs, baseline, speed, cpu_ratio, statements_ratio)
    click.echo("\n" + "\n".join(v.line() for v in verdicts))
    if write_baseline:
        write_baseline.write_text(json.dumps(worker.baseline_json(figs, yard, baseline, baseline.get("note", "")),
                                             indent=2) + "\n", encoding="utf-8")
        click.echo(f"wrote {write_baseline}")
    over = [v for v in verdicts if v.enforced and not v.ok]
    if over and not no_check:
        click.echo(f"over budget: {len(over)} figure(s)", err=True)
        sys.exit(1)


@bench.command("hostile")
@click.option("--size", "sizes", type=int, multiple=True, help="mail sizes in KB (default: 1 64 512 2048)")
@click.option("--reps", type=int, default=3, show_default=True, help="mails per input and size (the median is shown)")
@click.option("--input", "names", multiple=True, help="only these inputs (default: all; see pbem/bench/hostile.py)")
@_pg_opt
@_redis_opt
def bench_hostile(sizes: tuple[int, ...], reps: int, names: tuple[str, ...], pg_admin: str, redis_url: str) -> None:
    """CPU per mail for the worst inputs (blank-line floods, 'On On On' lines, quoted floods, deep HTML,
    folded From headers, long base64 lines, many or deeply nested MIME parts) from 1 KB to the 2 MiB limit,
    through the real pipeline on PostgreSQL: per mail and per KB, and whether any grows faster than its size."""
    from pbem.bench.engine import format_table
    from pbem.bench.env import bench_settings
    from pbem.bench.hostile import INPUTS, SIZES_KB, run_hostile, verdicts

    unknown = [n for n in names if n not in INPUTS]
    if unknown:
        raise click.UsageError(f"no input {unknown[0]!r}; the inputs are: " + ", ".join(INPUTS))
    with bench_settings(pg_admin, redis_url):
        rows = run_hostile(sizes or SIZES_KB, reps, names, echo=lambda s: click.echo(s, err=True))
    click.echo(format_table(rows))
    click.echo("\n" + "\n".join(verdicts(rows)))


@bench.command("web")
@click.option("--path", "paths", multiple=True, help="URL paths ({id} = the game); default /games/{id} and "
              "/games/{id}/view.json, falling back to /outbox and /healthz when they answer 404")
@click.option("--duration", "-d", type=int, default=10, show_default=True, help="seconds per path")
@click.option("--connections", "-c", type=int, default=16, show_default=True)
@_pg_opt
@_redis_opt
def bench_web(paths: tuple[str, ...], duration: int, connections: int, pg_admin: str, redis_url: str) -> None:
    """wrk against gunicorn -w 2 'pbem.web:create_app()': requests/s and latency."""
    from pbem.bench.engine import format_table
    from pbem.bench.env import bench_settings
    from pbem.bench.web import DEFAULT_PATHS, run_web

    with bench_settings(pg_admin, redis_url):
        figs = run_web(paths or DEFAULT_PATHS, duration=duration, connections=connections)
    click.echo(format_table([f.row() for f in figs]))


@bench.command("live")
@click.option("--pages", "-n", type=int, default=1000, show_default=True, help="open game pages (event streams)")
@click.option("--moves", type=int, default=5, show_default=True, help="moves made while they are open")
@click.option("--idle", "idle_s", type=float, default=10.0, show_default=True, help="seconds measured idle")
@_pg_opt
@_redis_opt
def bench_live(pages: int, moves: int, idle_s: float, pg_admin: str, redis_url: str) -> None:
    """Open game pages held by one gunicorn process: database work while idle, memory a page, and the
    delay from a move's commit to every page's event."""
    from pbem.bench.env import bench_settings
    from pbem.bench.live import run_live

    if pages < 1 or moves < 1:
        raise click.UsageError("at least one page and one move, e.g. pbem bench live --pages 1000 --moves 5")
    with bench_settings(pg_admin, redis_url):
        figs = run_live(pg_admin, pages=pages, moves=moves, idle_s=idle_s)
    click.echo(figs.format())


@bench.command("scale")
@click.option("--sizes", default="1000,10000,100000", show_default=True, help="games stored, comma-separated")
@click.option("--keep", is_flag=True, help="keep each filled database (pbem_scale_<N>) and reuse it next time")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--quick", is_flag=True, help="a small pool of playouts and few repetitions: checks that it runs")
@click.option("--out", type=click.Path(file_okay=False), default="docs/perf/scale", show_default=True,
              help="where EXPLAIN of each operation's heaviest statements goes (<out>/<size>/<operation>.txt)")
@click.option("--report", type=click.Path(dir_okay=False), default=None, help="also write the report here")
@click.option("--pg", "--pg-admin", "pg_admin", default="postgresql+psycopg://root@127.0.0.1:5432/test",
              show_default=True, help="PostgreSQL URL; the bench makes (and drops) its databases beside it")
@_redis_opt
def bench_scale(sizes: str, keep: bool, seed: int, quick: bool, out: str, report: str | None, pg_admin: str,
                redis_url: str) -> None:
    """What stored history costs: a database filled to each size of games, then the pages,
    one move mail, the deadline sweep, the outage catch-up and retention, as ratios to the smallest size."""
    from pathlib import Path

    from pbem.bench.scale import run_scale

    try:
        ns = sorted({int(x) for x in sizes.split(",") if x.strip()})
    except ValueError:
        raise click.UsageError(f"--sizes is numbers of games, comma-separated (e.g. 1000,10000), not {sizes!r}") \
            from None
    if not ns or ns[0] < 20:
        raise click.UsageError("every size is at least 20 games")
    text = run_scale(ns, seed=seed, keep=keep, pg_admin=pg_admin, redis_url=redis_url, out=Path(out),
                     report=Path(report) if report else None, quick=quick, echo=lambda s: click.echo(s, err=True))
    click.echo(text)


@bench.command("all")
@click.option("--out", type=click.Path(dir_okay=False), default="docs/PERFORMANCE.md", show_default=True)
@click.option("--quick", is_flag=True, help="tiny sizes: checks that everything runs, measures nothing useful")
@click.option("--part", "parts", multiple=True, type=click.Choice(["engine", "replay", "pipeline", "web"]),
              help="only these parts (default: all)")
@click.option("--relay", is_flag=True, help="the pipeline part delivers over SMTP to a relay sink, not the maildir")
@_pg_opt
@_redis_opt
def bench_all(out: str, quick: bool, parts: tuple[str, ...], relay: bool, pg_admin: str, redis_url: str) -> None:
    """Every benchmark in turn, then the report (docs/PERFORMANCE.md)."""
    from pathlib import Path

    from pbem.bench.suite import Sizes, run_all

    run_all(Path(out), Sizes.quick() if quick else Sizes(), pg_admin=pg_admin, redis_url=redis_url,
            parts=parts or ("engine", "replay", "pipeline", "web"), relay=relay,
            echo=lambda s: click.echo(s, err=True))
    click.echo(f"wrote {out}")


# ---- DKIM: a key for signing outgoing mail, and the DNS record that publishes it


def dkim_txt_record(selector: str, domain: str, public_der: bytes) -> str:
    """The zone-file line of a DKIM key: strings of at most 255 characters (RFC 1035)."""
    import base64

    value = f"v=DKIM1; k=rsa; p={base64.b64encode(public_der).decode()}"
    chunks = " ".join(f'"{value[i:i + 255]}"' for i in range(0, len(value), 255))
    return f"{selector}._domainkey.{domain}. IN TXT ( {chunks} )"


@click.group("dkim")
def dkim_group() -> None:
    """DKIM signing of outgoing mail."""


@dkim_group.command("keygen")
@click.option("--selector", default=None, help="the selector (default: PBEM_DKIM_SELECTOR, 'pbem')")
@click.option("--domain", default=None, help="the signing domain (default: PBEM_DKIM_DOMAIN, else PBEM_DOMAIN)")
@click.option("--out", "out", default=None, help="the key file to write (default: <var>/dkim/<selector>.pem)")
@click.option("--bits", default=2048, show_default=True, type=click.IntRange(1024, 4096))
@click.option("--force", is_flag=True, help="replace an existing key file")
def dkim_keygen(selector: str | None, domain: str | None, out: str | None, bits: int, force: bool) -> None:
    """Write a new RSA key for DKIM and print its DNS TXT record."""
    import os
    from pathlib import Path

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    from pbem.config import settings

    cfg = settings()
    selector = (selector or cfg.dkim_selector).strip()
    domain = (domain or cfg.signing_domain).strip().lower().rstrip(".")
    if not selector or not all(p.isalnum() or p in "-_" for p in selector.replace(".", "")):
        raise click.BadParameter(f"{selector!r} is not a DNS label; use letters, digits and '-', e.g. pbem2026",
                                 param_hint="--selector")
    path = Path(out) if out else cfg.var_dir / "dkim" / f"{selector}.pem"
    if path.exists() and not force:
        raise click.ClickException(f"{path} exists; nothing was written. Pass --force to replace it, or choose "
                                   f"another --selector (e.g. {selector}2) to rotate keys")
    key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                            serialization.NoEncryption())
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    der = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    click.echo(f"wrote {path} (keep it secret). Publish this record in the DNS of {domain}:\n")
    click.echo(dkim_txt_record(selector, domain, der))
    click.echo(f"\nthen set PBEM_DKIM_KEY_FILE={path} PBEM_DKIM_SELECTOR={selector}"
               + (f" PBEM_DKIM_DOMAIN={domain}" if domain != cfg.domain else ""))


main.add_command(dkim_group)


if __name__ == "__main__":
    main()
