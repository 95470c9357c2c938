"""The HELP answer, written from the commands' declarations in the reader's
language: each section's title, then one entry per usage (how it is written,
then what it does in a column of its own), in the order the declarations
give their places."""
from __future__ import annotations

from pbem.config import settings
from pbem.engine import GAMES
from pbem.i18n import N_, _

from .base import Command, Section, Usage, Where, Who

TITLES = {
    Section.COMMANDS: N_("Commands (one per line, to %(addr)s):"),
    Section.PRIVATE: N_("Private games:"),
    Section.MASTER: N_("The game master (the game's creator, or the user named with NEW ... master=<name>; site "
                       "admins\ntoo) runs the game by these commands; the table is told of each:"),
    Section.AWAY: N_("Away, your time, your calendar:"),
    Section.TOURNAMENTS: N_("Tournaments and leagues:"),
}
# after the commands: where moves go, which commands a game's reply address takes, what waits for a confirmation
MOVES = N_("Moves: reply to a game's mail (it goes to your seat's own address), one move per line. A game's\n"
           "reply address acts only in its game: %(seat)s,\n"
           "and the creator's %(creator)s work there; the other commands go to %(addr)s from your registered "
           "address.\n"
           "%(held)s are done once you confirm them (pbem mails you to ask), and\n"
           "so is every command from an address pbem cannot verify (no DKIM signature or SPF pass).")

COLUMN = 29  # where the help column starts: two spaces of indent, the syntax, and at least one space


def entry(syntax: str, help: str) -> str:
    """One entry: the syntax (a long one on lines of its own), then the help in its column."""
    written = syntax.split("\n")
    lines = ["  " + written[0], *("      " + w for w in written[1:])]
    said = help.split("\n")
    if len(written) == 1:
        head = lines.pop()
        lines.append((head.ljust(COLUMN) if len(head) < COLUMN else head + "   ") + said[0])
        said = said[1:]
    return "\n".join([*lines, *(" " * COLUMN + s for s in said)])


def _listed(names: list[str]) -> str:
    return _("%(first)s and %(last)s", first=", ".join(names[:-1]), last=names[-1]) if len(names) > 1 else names[0]


def render(commands: tuple[Command, ...]) -> str:
    """The whole HELP answer, in the current language."""
    values = {"addr": settings().command_address, "games": ", ".join(sorted(GAMES)) or _("none yet")}
    usages: dict[Section, list[Usage]] = {section: [] for section in Section}
    for command in commands:
        for usage in command.usage:
            usages[usage.section].append(usage)
    parts = []
    for section in Section:
        lines = [_(TITLES[section], **values) if section is Section.COMMANDS else _(TITLES[section])]
        for u in sorted(usages[section], key=lambda u: u.place):
            lines.append(entry(_(u.syntax), _(u.help, **values) if "%(" in u.help else _(u.help)))
        if section is Section.COMMANDS:
            # the game's address's own commands first, then those that work on either address
            on_seat = [c.name for where in (Where.GAME, Where.ANY) for c in commands
                       if c.where is where and c.who in (Who.ACCOUNT, Who.PLAYER)]
            creator = [c.name for c in commands if c.where is not Where.COMMAND and c.who is Who.CREATOR]
            held = [c.held_form for c in commands if c.held_form]
            lines.append(_(MOVES, seat=", ".join(on_seat), creator=_listed(creator), held=_listed(held),
                           addr=values["addr"]))
        parts.append("\n".join(lines))
    return "\n".join(parts)
