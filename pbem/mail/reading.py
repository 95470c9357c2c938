"""Tolerant reading, as the Diplomacy judges read orders: which of a mail's
lines are moves, which are the player's talk around them (reported as
ignored, never refused as moves), and which are a mistyped command."""
from __future__ import annotations

import difflib
import re

from pbem.i18n import _
from pbem.services.core import games, moves

from .commands import ACCOUNT_COMMANDS
from .context import Context
from .lines import Line, normalize, split_steps

# a closing that begins with a word of some game's notation ("Take care", "Go team!"): never a move
CLOSING_RE = re.compile(r"^(take care|take it easy|go team|good game|gg|play well|pass it on)\b", re.I)


PLACEMENT_RE = re.compile(r"^\w{1,4}>\w")

# short talk that must never be taken for a card's or a city's abbreviation
CHATTER = frozenset({"hi", "hey", "hello", "ok", "okay", "k", "kk", "ty", "thx", "gg", "ha", "haha", "lol", "yes",
                     "no", "yep", "nope", "xx", "xo", "bye", "cheers", "thanks", "sure", "fine", "great", "nice",
                     "wow", "oops", "sorry", "ciao", "da", "нет", "да", "ок"})


def sort_out(ctx: Context) -> None:
    """On a seat's address, a line meant as a move (it parses, or it is
    written in the game's notation words) is a move, and the talk around the
    moves is reported as ignored, never as a failed move; in a reply to
    table talk, what is not a move is table talk. On the command address, a
    line that is not a command is ignored unless it looks like a mistyped
    one."""
    from pbem.engine import playable_games
    from pbem.engine.base import looks_like_move

    names = _own_names(ctx)
    engine = games.engine_for(ctx.game) if ctx.seat is not None else None
    kept: list[Line] = []
    for line in ctx.lines:
        if line.command is not None:
            kept.append(line)
            continue
        bare = normalize(line.raw).lower()
        if bare in names or CLOSING_RE.match(bare):  # the player's name under the mail, a closing
            ctx.ignored_lines.append(line.raw)
            continue
        if engine is None:
            if _looks_like_command(line.raw) or any(looks_like_move(e, m) for e in playable_games()
                                                    for m in line.moves):
                kept.append(line)  # answered with the command it resembles, or where moves go
            else:
                ctx.ignored_lines.append(line.raw)
            continue

        def parses(text: str) -> bool:  # short answers too: "o1", "+5", "vp" answer a pending decision
            return (text.lower() not in CHATTER and text[-1] not in "?!," and
                    moves.parses_as_move(ctx.session, ctx.game, ctx.seat.seat, text))

        def is_step(text: str) -> bool:  # a part of a line with commas between its steps: a notation word first,
            first = text.split()[0]  # or a cube placed ("m>museum")
            return first.lower() in getattr(engine, "notation_words", ()) or bool(PLACEMENT_RE.match(first))

        if any("," in m for m in line.moves):
            steps = [p for m in line.moves for p in ([m] if parses(m) else split_steps(m, is_step))]
            line = Line(line.raw, moves=steps)

        if ctx.replies_to_talk:
            meant = [m for m in line.moves if parses(m)]
            if meant and len(meant) == len(line.moves):
                kept.append(line)
            else:
                ctx.talk.append(line.raw)
            continue
        meant = [m for m in line.moves if looks_like_move(engine, m) or parses(m)]
        if not meant:
            ctx.ignored_lines.append(line.raw)
            continue
        if len(meant) < len(line.moves):
            ctx.ignored_lines.extend(m for m in line.moves if m not in meant)
            line = Line(line.raw, moves=meant)
        kept.append(line)
    ctx.lines = kept


def _own_names(ctx: Context) -> set[str]:
    """The sender's name and first name, lower-cased: a line of just that is a signature."""
    if ctx.user is None or not (ctx.user.name or "").strip():
        return set()
    name = normalize(ctx.user.name).lower()
    first = name.split()[0]
    return {name, first, f"-{first}", f"- {first}", f"-{name}"}


def _looks_like_command(raw: str) -> bool:
    """A line on the command address that was meant as a command: one word in
    capitals, or a first word close to a command's name (a typo)."""
    words = normalize(raw).split()
    if not words:
        return False
    first = words[0]
    if len(words) <= 3 and first.isupper() and first.isalpha() and len(first) >= 3:
        return True
    return _closest_command(first, cutoff=0.8) is not None


def _closest_command(word: str, cutoff: float) -> str | None:
    """The command name ``word`` most likely mistypes, if any is that close."""
    guess = difflib.get_close_matches(word.upper(), ACCOUNT_COMMANDS, n=1, cutoff=cutoff)
    return guess[0] if guess else None


def unknown_command(raw: str) -> str:
    """The answer to a line on the command address that is no command: the one it resembles, and the list."""
    words = normalize(raw).split()
    guess = _closest_command(words[0], cutoff=0.6) if words else None
    known = ", ".join(ACCOUNT_COMMANDS)
    if guess:
        text = _("'%(line)s' is not a command. Did you mean %(guess)s? On this address pbem understands "
                 "%(commands)s; moves go to your seat's address (reply to the game's mail).", line=raw[:60],
                 guess=guess, commands=known)
    else:
        text = _("'%(line)s' is not a command. On this address pbem understands %(commands)s; moves go to your "
                 "seat's address (reply to the game's mail).", line=raw[:60], commands=known)
    return text + "\n  " + _("e.g. %(example)s", example="HELP")
