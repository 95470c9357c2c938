"""The game master's commands: MASTER, DEADLINE, PAUSE and RESUME, EJECT,
POLICY, ABORT (and REPLACE <game> <seat> <name>, with REPLACE). The game
master is the game's creator, or the user named with NEW ... master=<name>;
site admins too. The table is told of each."""
from __future__ import annotations

import re

from pbem.i18n import N_, _
from pbem.services.core import games, notify
from pbem.services.core.errors import UserError
from pbem.store.models import Game

from ..context import Context, need_user, rest
from ..lines import Line, parse_game_id, parse_options
from .base import Command, Family, Section, Usage, Where, Who

FAMILY = Family("The game master", 4)


def master_game_id(line: Line, here: Game | None) -> int | None:
    """The game a master's command names: its first word when that is a game number (but EJECT 2 on a
    game's address names seat 2 of that game), else the game of the address it came to."""
    gid = parse_game_id(line.args)
    if gid is not None and here is not None and line.command == "EJECT" and len(line.args) == 1:
        return here.id
    return gid if gid is not None else (here.id if here is not None else None)


def _master_args(ctx: Context, line: Line, example: str) -> tuple[Game, str]:
    """The game and the rest of the line as written."""
    gid = master_game_id(line, ctx.game)
    if gid is None:
        raise UserError(_("%(command)s needs a game number", command=line.command), example=example,
                        code="no_game_id")
    words = rest(line).split()
    if words and parse_game_id(words[:1]) == gid and not (line.command == "EJECT" and len(words) == 1):
        words = words[1:]
    return games.get(ctx.session, gid, lock=True), " ".join(words)


def do_master(ctx: Context, line: Line) -> str:
    from pbem.services.referee import master

    user = need_user(ctx)
    g, name = _master_args(ctx, line, "MASTER 12 Anna K.")
    if not name:
        m = master.master_of(ctx.session, g)
        return _("the game master of game #%(game)d is %(name)s; MASTER %(game)d <name> hands the role over",
                 game=g.id, name=m.name if m else _("nobody"))
    new = master.set_master(ctx.session, user, g, name)
    return _("%(name)s is now the game master of game #%(game)d; the table is told", name=new.name, game=g.id)


def do_deadline(ctx: Context, line: Line) -> str:
    from pbem.services.referee import master

    user = need_user(ctx)
    g, spec = _master_args(ctx, line, "DEADLINE 12 +24h")
    return master.set_deadline(ctx.session, user, g, spec)


def do_pause(ctx: Context, line: Line) -> str:
    from pbem.services.referee import master

    user = need_user(ctx)
    g, _words = _master_args(ctx, line, f"{line.command} 12")
    if line.command == "PAUSE":
        master.pause(ctx.session, user, g)
        return _("game #%(game)d is paused: no moves and no clock until RESUME %(game)d; the table is told",
                 game=g.id)
    master.resume(ctx.session, user, g)
    return _("game #%(game)d runs again; each deadline is moved on by the time the pause took; the table is told",
             game=g.id)


def do_eject(ctx: Context, line: Line) -> str:
    from pbem.services.referee import master

    user = need_user(ctx)
    g, who = _master_args(ctx, line, "EJECT 12 2")
    seat = master.eject(ctx.session, user, g, who)
    return _("seat %(seat)d of game #%(game)d is open to a replacement and a bot plays it meanwhile; the table is "
             "told. REPLACE %(game)d %(seat)d <name> seats someone", seat=seat.seat + 1, game=g.id)


def do_policy(ctx: Context, line: Line) -> str:
    from pbem.services.referee import master

    user = need_user(ctx)
    g, words_ = _master_args(ctx, line, "POLICY 12 bot")
    opts, words = parse_options(words_.split())
    after = opts.pop("after", None)
    level = words.pop(1) if len(words) == 2 and words[0].lower() == "bot" else None  # POLICY 12 bot strong
    if opts or len(words) != 1 or (after is not None and not after.isdigit()):
        raise UserError(_("POLICY takes wait, bot (and a level: easy, normal or strong) or abandon (and "
                          "after=N missed deadlines for abandon)"),
                        example=f"POLICY {g.id} bot strong | POLICY {g.id} abandon after=3", code="bad_policy")
    master.set_policy(ctx.session, user, g, words[0], int(after) if after is not None else None, level=level)
    return _("game #%(game)d: when a deadline passes, %(policy)s; the table is told", game=g.id,
             policy=str(notify.policy_words(g.policy, g.abandon_after)))


def do_abort(ctx: Context, line: Line) -> str:
    from pbem.services.referee import master

    user = need_user(ctx)
    g, words = _master_args(ctx, line, "ABORT 12")
    word, _sep, reason = words.partition(" ")
    if word.upper() in ("YES", "NO"):
        how = master.vote_end(ctx.session, user, g, word.upper() == "YES")
        return {"ended": _("agreed: game #%(game)d has ended; everyone is told", game=g.id),
                "refused": _("refused: game #%(game)d goes on; everyone is told", game=g.id)}.get(
            how, _("agreed; the other players of game #%(game)d are waited for", game=g.id))
    if word.upper() == "NOW":
        master.end_now(ctx.session, user, g, reason)
        return _("game #%(game)d has ended; everyone is told", game=g.id)
    if master.propose_end(ctx.session, user, g, words):
        return _("game #%(game)d has ended (nobody else had to agree); everyone is told", game=g.id)
    return _("the players of game #%(game)d are asked to agree to end it (ABORT %(game)d YES)", game=g.id)


def _is_talk(word: str, rest_: str) -> bool:
    """"Pause for thought", "Deadline is tomorrow": the command is in capitals, or names the game's number."""
    return not (word.isupper() or re.match(r"#?\d{1,12}\b", rest_.strip()))


def _master(name: str, process, usage: tuple[Usage, ...], doc: str, **kw) -> Command:
    """A game master's command: on the command address with the game's number, or on the game's address
    without it."""
    return Command(name, process, FAMILY, usage=usage, where=Where.ANY, who=Who.MASTER, names_game=master_game_id,
                   is_talk=_is_talk, doc=doc, **kw)


MASTER = _master(
    "MASTER", do_master,
    (Usage(N_("MASTER <game-id> <name>"), N_("hand the game master's role to another registered user"),
           Section.MASTER, 80),),
    "who is the game master; with a name, (the master or an admin) hand the role to that registered user",
    syntax=("MASTER <game-id> [name]",))

DEADLINE = _master(
    "DEADLINE", do_deadline,
    (Usage(N_("DEADLINE <game-id> +24h"), N_("extend the deadline of the players to move (or +2d)"), Section.MASTER,
           10),
     Usage(N_("DEADLINE <game-id> 2026-12-20 18:00"),
           N_("set it (your time zone); DEADLINE <game-id> hours=72: each move's time"), Section.MASTER, 20)),
    "extend the deadline of the players to move (`+2d` too), set it (in your time zone), or set each move's "
    "hours",
    syntax=("DEADLINE <game-id> +24h", "DEADLINE <game-id> 2026-12-20 18:00", "DEADLINE <game-id> hours=72"))

PAUSE = _master(
    "PAUSE", do_pause,
    (Usage(N_("PAUSE <game-id> | RESUME <game-id>"), N_("no moves and no clock until it resumes"), Section.MASTER,
           30),),
    "no moves and no clock until `RESUME`; each deadline then gets back the time the pause took",
    aliases=("RESUME",))

EJECT = _master(
    "EJECT", do_eject,
    (Usage(N_("EJECT <game-id> <seat or name>"),
           N_("the player leaves; a bot plays the seat until a replacement takes it"), Section.MASTER, 40),),
    "the player leaves the seat (a bot plays it until a replacement takes it: `REPLACE <game-id> <seat> <name>`)")

POLICY = _master(
    "POLICY", do_policy,
    (Usage(N_("POLICY <game-id> wait|bot [level]|abandon [after=3]"),
           N_("what happens when a\ndeadline passes (level: easy, normal or strong)"), Section.MASTER, 60),),
    "what happens when a deadline passes: the game waits, a bot (of a level) moves for the late player, or the "
    "seat is abandoned after so many missed deadlines")

ABORT = _master(
    "ABORT", do_abort,
    (Usage(N_("ABORT <game-id> [reason]"),
           N_("propose to end the game without a result; each player answers\n"
              "ABORT <game-id> YES or NO, and it ends when all agree"), Section.MASTER, 70),),
    "propose to end the game without a result: it ends (status *aborted*, the record stays) when every "
    "remaining player answers `ABORT <game-id> YES`; a `NO` turns it down. A site admin may end it at once "
    "with a reason",
    syntax=("ABORT <game-id> [reason]", "ABORT <game-id> YES|NO", "ABORT <game-id> NOW <reason>"))
