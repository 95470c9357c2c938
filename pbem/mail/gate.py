"""Who may do what by mail (docs/SECURITY.md, "By mail"), as the commands
declare it: where each may be sent, whether it only reads, whether it waits
for its owner's confirmation. The gate marks each line refused or held
before anything runs; nothing of a refused or held line is done."""
from __future__ import annotations

from pbem.config import settings
from pbem.i18n import _, ngettext

from pbem.services.identity import confirmations

from .commands import BY_NAME, COMMANDS, Where, Who, secrets_in
from .context import Context
from .lines import Line

# what an unknown sender may send: a mail with REGISTER in it is read whole (it makes the account); one of
# only commands that read (HELP) is answered
_OPENS = frozenset(c.name for c in COMMANDS if c.who is Who.ANYONE and not c.read_only)
_ANSWERED = frozenset(c.name for c in COMMANDS if c.who is Who.ANYONE and c.read_only)


def gate(ctx: Context) -> None:
    """On a seat's address: the seat's commands, in its game; the account's
    other commands are refused there. On the command address: an unknown
    sender gets a short fixed answer (nothing of the mail echoed) unless it
    registers; commands from a From pbem could not verify wait for the
    owner's confirmation, and the destructive ones wait for it from
    everyone."""
    if ctx.confirmed:
        return
    if ctx.recipient_kind == "seat":
        here = settings().command_address
        for line in ctx.lines:
            command = BY_NAME.get(line.command)
            if command is None or command.only_reads(line):
                continue
            example = "\n  " + _("e.g. to %(address)s: %(line)s", address=here, line=line.raw[:60])
            if command.where is Where.COMMAND:
                line.refusal = _("%(command)s is an account command: send it to %(address)s from your registered "
                                 "address. A game's reply address acts only in its game", command=line.command,
                                 address=here) + example
            elif other := _other_game(ctx, line):
                line.refusal = _("this address acts only in game #%(game)d; for game #%(other)d reply to that "
                                 "game's mail, or write to %(address)s", game=ctx.game.id, other=other,
                                 address=here) + example
            elif command.holds(line):
                _hold(ctx, line, "destructive", f"{line.command} {ctx.game.id}")
        return
    commands = [line.command for line in ctx.lines if line.command]
    if ctx.user is None and not _OPENS.intersection(commands) and \
            not (commands and all(c in _ANSWERED for c in commands)):
        _unknown_sender(ctx)  # whatever the mail holds: commands of others, no command at all, spam
        return
    if ctx.user is None and not ctx.trusted:
        _stranger(ctx)
        if not ctx.lines:
            return
    for line in ctx.lines:
        command = BY_NAME.get(line.command)
        if command is None or command.only_reads(line) or (command.where is Where.GAME and ctx.game is None):
            continue  # (a game's command without its game fails at once: nothing to hold)
        if not ctx.trusted:
            _hold(ctx, line, "unverified")
        elif command.holds(line):
            _hold(ctx, line, "destructive")
    if not ctx.trusted:  # nothing of a mail pbem could not verify is echoed but its commands: the lines meant as a
        # command or a move are refused once, by their numbers, the others are counted
        dropped = ctx.ignored_lines + ctx.talk
        meant = [n for n, line in enumerate(ctx.lines, start=1) if line.command is None]
        ctx.lines = [line for line in ctx.lines if line.command is not None]
        if meant:
            ctx.lines.append(Line(ngettext("(line %(lines)s)", "(lines %(lines)s)", len(meant),
                                           lines=", ".join(map(str, meant[:20])) + (" …" if len(meant) > 20 else "")),
                                  moves=["?"]))
        ctx.ignored_lines, ctx.talk = [], []
        if dropped:
            ctx.paragraphs.append(ngettext("%(num)d line(s) of your mail were not commands; they were not read.",
                                           "%(num)d line(s) of your mail were not commands; they were not read.",
                                           len(dropped)))


def _other_game(ctx: Context, line: Line) -> int | None:
    """The game a seat-address command names, when it is not the seat's own."""
    names_game = BY_NAME[line.command].names_game
    gid = names_game(line, ctx.game) if names_game is not None else None
    return gid if gid is not None and gid != ctx.game.id else None


def _hold(ctx: Context, line: Line, why: str, as_text: str | None = None) -> None:
    secrets = secrets_in(line)
    if secrets:  # kept sealed until the owner answers (services/identity/confirmations.seal), never as written
        as_text = confirmations.seal(" ".join([line.command, *line.args]), secrets)
    line.held = as_text or " ".join(line.raw.split())
    ctx.held.append(line)
    ctx.why_held = ctx.why_held if ctx.why_held == "unverified" else why


def _stranger(ctx: Context) -> None:
    """A mail from an address pbem does not know and could not verify: its
    text may be anybody's, so the answer repeats none of it. A REGISTER is
    held for the address's owner (the asking mail names only REGISTER
    <name>: receipt.ask_confirmation) and nothing else of the mail is read;
    HELP alone is answered, with nothing of its line but the command and a
    game's name."""
    from pbem.engine import GAMES

    ctx.ignored_lines, ctx.talk = [], []
    register = next((line for line in ctx.lines if line.command == "REGISTER"), None)
    if register is not None:
        ctx.lines = [register]
        return
    kept = []
    for line in ctx.lines:
        game = line.args[0].lower() if line.args and line.args[0].lower() in GAMES else None
        if line.command is None or (line.args and game is None):
            continue
        kept.append(Line(f"{line.command} {game}" if game else line.command, command=line.command,
                         args=[game] if game else []))
    ctx.lines = kept
    if not kept:
        _unknown_sender(ctx)


def _unknown_sender(ctx: Context) -> None:
    """A short fixed answer, with nothing of the mail in it: a forged From
    cannot make pbem mail its text to someone else."""
    cfg = settings()
    ctx.lines, ctx.ignored_lines, ctx.talk = [], [], []
    ctx.paragraphs.append(
        _("pbem does not know the address %(sender)s, so your mail was not read. To play, register: send "
          "a mail with the one line REGISTER <your name> to %(address)s (for example REGISTER Anna K.), "
          "or sign up at %(url)s/signup. HELP lists the commands.", sender=ctx.sender[:80],
          address=cfg.command_address, url=cfg.base_url.rstrip('/')))
