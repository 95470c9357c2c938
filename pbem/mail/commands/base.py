"""What a mail command is: one declaration, after Mailman 3's email commands
(a name, how it is written, what it does, and ``process``), with what pbem
adds: where it may be sent, who may send it, whether it only reads, and
whether it waits for its owner's confirmation. The HELP answer, the
command reference (docs/commands.md), the permission table of
docs/SECURITY.md and the gate all read these declarations."""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Callable

from pbem.store.models import Game

from ..context import Context
from ..lines import Line, parse_game_id


class Where(Enum):
    """The addresses a command may be sent to (the values are the reference's words)."""

    COMMAND = "command address"  # refused on a seat's address
    ANY = "command or seat address"  # on a seat's address: in its game only
    GAME = "game address"  # it works in the game of the address it came to (a seat's, or the From's)


class Who(Enum):
    """Who may send it (the services check who may act in a game; the gate reads ANYONE)."""

    ANYONE = "anyone"  # an unknown address too
    ACCOUNT = "registered user"
    PLAYER = "player"  # of the game
    CREATOR = "creator"  # of the game
    MASTER = "game master"  # the creator unless another is named; site admins too


class Section(Enum):
    """The parts of the HELP answer, in their order."""

    COMMANDS = 1
    PRIVATE = 2
    MASTER = 3
    AWAY = 4
    TOURNAMENTS = 5


@dataclass(frozen=True)
class Family:
    """A group of commands in the command reference."""

    title: str
    order: int


@dataclass(frozen=True)
class Usage:
    """One entry of HELP: how the command is written and what that does, both
    translated. ``help`` may break into lines where the help column wraps (the
    translations break theirs as their words need); ``place`` orders the
    entries of a section."""

    syntax: str
    help: str
    section: Section
    place: int


Handler = Callable[[Context, Line], "str | None"]


@dataclass(frozen=True)
class Command:
    name: str
    process: Handler  # does it; returns what the receipt says of it, or raises UserError
    family: Family
    usage: tuple[Usage, ...] = ()  # its HELP entries (none: another command's entry shows it)
    aliases: tuple[str, ...] = ()  # other names for it (RESUME: PAUSE's handler reads which was written)
    where: Where = Where.COMMAND
    who: Who = Who.ACCOUNT
    read_only: bool = False  # it changes nothing: runs unverified, and a repeat of it is a repeat
    read_only_alone: bool = False  # written alone (no words after it) it changes nothing: LANGUAGE
    # a line of it that changes nothing, by its words (TOURNAMENT STANDINGS 3 only reads; TOURNAMENT JOIN 3 does not)
    reads_when: Callable[[Line], bool] | None = None
    destructive: bool | str = False  # waits for the owner's confirmation; a word: when the line ends with it
    # a line of it that waits for the owner's confirmation, by its words (TOURNAMENT LEAVE 3 gives up
    # the player's running tables; TOURNAMENT JOIN 3 does not), and how HELP and the tables name it
    holds_when: Callable[[Line], bool] | None = None
    held_as: str = ""
    # the game a line of it names (a seat's address refuses another game's), given the address's game
    names_game: Callable[[Line, Game | None], int | None] | None = None
    # a line that begins with its word but is talk ("Pause for thought"): (the word as written, the rest)
    is_talk: Callable[[str, str], bool] | None = None
    # on a seat's address, a line of its words that is a move in some game (Spyrium's "new", Squire's "start")
    is_move_on_seat: Callable[[list[str]], bool] | None = None
    words_as_written: bool = False  # its words keep their typography (a name may end in a full stop)
    # the words of a line of it that are secrets (a game's password): never stored or repeated as written
    secrets: Callable[[Line], list[str]] | None = None
    syntax: tuple[str, ...] = ()  # how it is written, for the reference, where its HELP entries do not say it
    doc: str = ""  # what it does, for the reference (docs/commands.md; English, Markdown)

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    def only_reads(self, line: Line) -> bool:
        """This line of it changes nothing, so the gate lets it through from anyone, anywhere it may be sent."""
        return (self.read_only or (self.read_only_alone and not line.args)
                or (self.reads_when is not None and self.reads_when(line)))

    def holds(self, line: Line) -> bool:
        """This line of it waits for its owner's confirmation (it cannot be undone by mail)."""
        if self.holds_when is not None and self.holds_when(line):
            return True
        if isinstance(self.destructive, str):
            return bool(line.args) and line.args[-1].upper() == self.destructive
        return self.destructive

    @property
    def held_form(self) -> str | None:
        """How HELP and the tables name what is held: the command, or the form of it that is."""
        if self.held_as:
            return self.held_as
        if isinstance(self.destructive, str):
            return f"{self.name} ... {self.destructive}"
        return self.name if self.destructive else None


# shared readers for the declarations


def first_word_game(line: Line, here: Game | None) -> int | None:
    """The game a line names by its first word (RESIGN 12)."""
    return parse_game_id(line.args)
