"""The documentation written from the commands' declarations: the command
reference (docs/commands.md) and the mail permission table of
docs/SECURITY.md (between its marker comments). ``pbem docs commands``
writes both; tests/mail/test_command_docs.py fails when they differ from
what the declarations say."""
from __future__ import annotations

import re
from pathlib import Path

from . import COMMANDS
from .base import Command, Where, Who

ROOT = Path(__file__).resolve().parents[3]
REFERENCE = ROOT / "docs" / "commands.md"
SECURITY = ROOT / "docs" / "SECURITY.md"
TABLE_START, TABLE_END = "<!-- mail-table -->", "<!-- /mail-table -->"

COLUMNS = ("seat address", "command address, From verified", "command address, From not verified",
           "unknown sender, verified", "unknown sender, not verified")

INTRO = """\
# Mail commands

<!-- Written by `pbem docs commands` from the commands' declarations in pbem/mail/commands/:
change those, then run it again. -->

Send commands, one per line, to the command address (`pbem@<domain>`); the words may be written in
any case, and `HELP` answers with this list in your language. A reply to a game's mail goes to your
seat's own address: there a line that is no command is a move, and the commands sent to "command or
seat address" below act in that game only, with the game's number left out (`STATUS`, `PAUSE`,
`DEADLINE +24h`, `EJECT 2`, `ABORT YES`). The others go to the command address, from your registered
address. A command from an address pbem cannot verify (no DKIM signature or SPF pass) is done once
you confirm it (pbem mails your registered address to ask), unless it only reads;
{held} are confirmed every time, whoever sends them.
Who may send what from where, in full: [SECURITY.md](SECURITY.md#by-mail).

*sent to*: the command address; the command address or a seat's address; or a game's address only
(a reply to the game's mail). *by*: anyone (an unknown address too), a registered user, a player of
the game, the game's creator, or its game master (the creator unless another is named; site admins
too).
"""


def _code(text: str) -> str:
    return "`" + " ".join(text.split()).replace("|", "\\|") + "`"


def _syntax(command: Command) -> str:
    forms = command.syntax or [u.syntax for u in command.usage]
    return " / ".join(_code(f) for f in forms)


def _place(command: Command) -> tuple[int, int, int]:
    """Where HELP shows the command: its own first entry, else the entry that names it (DECLINE on ACCEPT's)."""
    if command.usage:
        return min((u.section.value, u.place, 0) for u in command.usage)
    named = re.compile(rf"\b{command.name}\b")
    return min((u.section.value, u.place, 1) for c in COMMANDS for u in c.usage if named.search(f"{u.syntax} {u.help}"))


IN_HELP_ORDER = sorted(COMMANDS, key=_place)


def reference() -> str:
    """docs/commands.md: one table per family, a row per command, in the order HELP shows them."""
    families = sorted({c.family for c in COMMANDS}, key=lambda f: f.order)
    held = [f"`{c.held_form.replace('...', '…')}`" for c in COMMANDS if c.held_form]
    out = [INTRO.format(held=", ".join(held[:-1]) + " and " + held[-1])]
    for family in families:
        out += [f"## {family.title}", "", "| command | sent to | by | what it does |", "|---|---|---|---|"]
        out += [f"| {_syntax(c)} | {c.where.value} | {c.who.value} | {c.doc.replace('|', chr(92) + '|')} |"
                for c in IN_HELP_ORDER if c.family is family]
        out.append("")
    return "\n".join(out)


def outcomes(command: Command, held: bool) -> tuple[str, ...]:
    """What pbem does with a line of the command from each kind of sender (COLUMNS): runs, asks (held for
    the owner's confirmation), refused, or the fixed answer to an unknown sender. ``held``: the line is one
    that waits for confirmation (Command.holds)."""
    seat = "refused" if command.where is Where.COMMAND else "asks" if held else "runs"
    if command.where is Where.GAME:
        verified = unverified = "refused"
    else:
        verified = "asks" if held else "runs"
        unverified = "runs" if command.read_only else "asks"
    if command.who is Who.ANYONE:
        unknown = ("runs", "runs" if command.read_only else "asks")
    else:
        unknown = ("fixed answer", "fixed answer")
    return seat, verified, unverified, *unknown


def permission_table() -> str:
    """docs/SECURITY.md's mail table: a row for moves, then one per command name, and one for the form of a
    command that alone waits for confirmation (REPLACE … VOTE, TOURNAMENT LEAVE)."""
    rows = [("moves", ("runs", "refused", "refused", "fixed answer", "fixed answer"))]
    for c in IN_HELP_ORDER:
        for name in c.names:
            rows.append((f"`{name}`", outcomes(c, c.destructive is True)))
        if isinstance(c.destructive, str):
            rows.append((f"`{c.name} … {c.destructive}`", outcomes(c, True)))
        if c.held_as:
            rows.append((f"`{c.held_as}`", outcomes(c, True)))
    lines = ["| command | " + " | ".join(COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    lines += [f"| {name} | " + " | ".join(cells) + " |" for name, cells in rows]
    return "\n".join(lines)


def security_page(text: str) -> str:
    """docs/SECURITY.md with its mail table written anew."""
    head, rest = text.split(TABLE_START, 1)
    _old, tail = rest.split(TABLE_END, 1)
    return f"{head}{TABLE_START}\n{permission_table()}\n{TABLE_END}{tail}"


def write() -> list[Path]:
    """Write both pages; the paths that changed."""
    changed = []
    for path, text in ((REFERENCE, reference()), (SECURITY, security_page(SECURITY.read_text(encoding="utf-8")))):
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed
