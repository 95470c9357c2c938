"""The thread's notices (a dispute opened, a game paused or stopped, a seat taken over, a move
taken back): each is stored as what happened -- the message and its arguments -- and worded for
each reader when it is shown, so a Russian page reads it in Russian and an Italian one in Italian.
``Post.body`` keeps the English sentence as well: for the archive, the logs, and any reader of the
row that does not word it.

A notice is a lazy string (``lazy_gettext`` / ``lazy_ngettext``) whose arguments are plain values,
other lazy strings, a :class:`Day` or a :class:`Joined` list; :func:`post` stores it and
:func:`wording` writes it out in the current language. Notices stored before they were kept this
way hold only their English: :func:`wording` finds which message wrote one (every notice's message
is registered here, worded as the old English was) and translates it with the arguments it read
back, and shows the English when none matches."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

from babel.support import LazyProxy

from pbem import i18n
from pbem.i18n import N_
from pbem.store.models import Post

from . import lang


@dataclass(frozen=True)
class Day:
    """A calendar day in a notice, written as each reader's language writes days."""

    day: date

    def __call__(self) -> str:
        return text(self)

    __str__ = __call__


@dataclass(frozen=True)
class Joined:
    """A list in a notice ("ply 3 B MINE, ply 4 a secret choice"), each item worded per reader."""

    items: Sequence[Any]
    sep: Any = ", "

    def __call__(self) -> str:  # lang.text writes it out like any callable, in the current language
        return text(self)

    __str__ = __call__  # and a lazy string's placeholder, as "%s" does


def spec(value: Any) -> Any:
    """``value`` as JSON: what is needed to word it again in any language."""
    if isinstance(value, LazyProxy):
        func, args, kwargs = value._func, value._args, value._kwargs  # noqa: SLF001 -- babel keeps the call here
        a = {k: spec(v) for k, v in kwargs.items()}
        if func is i18n.gettext:
            return {"m": args[0], "a": a}
        if func is i18n.ngettext:
            return {"s": args[0], "p": args[1], "n": args[2], "a": a}
        return str(value)
    if isinstance(value, Day):
        return {"day": value.day.isoformat()}
    if isinstance(value, Joined):
        return {"join": [spec(x) for x in value.items], "sep": spec(value.sep)}
    if isinstance(value, (bool, int, float)) or value is None:
        return value
    return str(value)


def render(data: Any) -> Any:
    """A :func:`spec` worded in the current language."""
    if isinstance(data, dict):
        if "m" in data:
            values = {k: render(v) for k, v in (data.get("a") or {}).items()}
            if data["m"] in RENAMED:  # stored before its message became a plural entry
                return RENAMED[data["m"]](values)
            return i18n.gettext(data["m"], **values)
        if "s" in data:
            return i18n.ngettext(data["s"], data["p"], int(data["n"]),
                                 **{k: render(v) for k, v in (data.get("a") or {}).items()})
        if "day" in data:
            return lang.day(date.fromisoformat(data["day"]))
        if "join" in data:
            return str(render(data.get("sep", ", "))).join(str(render(x)) for x in data["join"])
    return data


def text(value: Any) -> str:
    """A notice (lazy string, :class:`Day`, :class:`Joined`, plain text) in the current language."""
    return str(render(spec(value)))


def post(*, game_id: int, value: Any, user_id: int | None = None, seat: int | None = None, tail: str = "",
         kind: str = "notice") -> Post:
    """The thread row of a notice (``kind`` "admin": an admin's announcement): its English
    (``tail``, text a person wrote, follows untranslated) and what words it for every reader."""
    if callable(value) and not isinstance(value, (LazyProxy, Day, Joined)):  # a sentence made by code:
        return Post(game_id=game_id, kind=kind, user_id=user_id, seat=seat, source="system",  # its English, read
                    body=lang.english(value) + tail)  # back through the catalog when shown
    with i18n.use(i18n.SOURCE):
        english = text(value)
    data = {"v": spec(value)}
    if tail:
        data["t"] = tail
    return Post(game_id=game_id, kind=kind, user_id=user_id, seat=seat, source="system",
                body=english + tail, notice=json.dumps(data, ensure_ascii=False))


def wording(p: Post) -> str:
    """A notice as the current reader reads it."""
    if p.notice:
        try:
            data = json.loads(p.notice)
            return str(render(data["v"])) + str(data.get("t") or "")
        except (ValueError, KeyError, TypeError):
            return p.body
    if i18n.current() == i18n.SOURCE:
        return p.body
    if p.kind == "admin" and "\nReason: " in p.body:  # an admin's announcement: the sentence, then the reason
        said, _sep, reason = p.body.rpartition("\nReason: ")
        return _from_english(said) + "\n" + i18n.gettext("Reason: %(reason)s", reason=reason)
    return _from_english(p.body)


# ---------------------------------------------------------------- notices stored in English only

# The notices the thread wrote as plain English before they went through the catalog, worded
# as they were: an old row reads back through these like any other message.
MESSAGES = (
    N_("%(name)s disputes ply %(ply)d: %(text)s. An admin will look at it; the game goes on unless the admin "
       "pauses it."),
    N_("%(name)s resigned from seat %(seat)d; a bot plays it until a replacement takes it (REPLACE %(id)d "
       "%(seat)d)."),
    N_("The table voted to open seat %(seat)d; a bot plays it until a replacement takes it."),
    N_("%(name)s takes over seat %(seat)d at ply %(ply)d."),
    N_("%(name)s cancelled the game before it started."),
    N_("%(name)s took back their move at ply %(ply)d (%(move)s), inside their own turn; it stays in the log, "
       "marked undone."),
    N_("%(name)s refused to take back ply %(ply)d; the move stands."),
    N_("A site admin ended game #%(id)d. Reason: %(reason)s"),
    N_("%(late)s The seat is abandoned: a bot plays it until a replacement takes it (REPLACE %(id)d %(seat)d)."),
)
POT = Path(i18n.__file__).with_name("locale") / "services.pot"


def _plural_n(value: Any) -> int:
    """The count a plural entry agrees with: a whole number as it is; one written with a decimal ("2.5")
    reads as a plural in every language, as 2 does."""
    return int(value) if re.fullmatch(r"\d+", str(value)) else 2


# Notices whose message has since become a plural entry (a count now agrees with its noun), as they were
# stored: each old message with the words its arguments are now given in. A notice stored with its message
# and arguments finds its message here; one stored in English only, its English.
RENAMED = {
    "%(who)s has set the time for each move in game #%(id)d to %(hours)d hours (it was %(before)d), the moves "
    "awaited now included.": lambda a: i18n.ngettext(
        "%(who)s has set the time for each move in game #%(id)d to %(num)d hour (it was %(before)d), the moves "
        "awaited now included.",
        "%(who)s has set the time for each move in game #%(id)d to %(num)d hours (it was %(before)d), the moves "
        "awaited now included.", _plural_n(a.get("hours")), **a),
    "the table is told; after %(n)d missed deadlines the seat is abandoned: a bot plays it until someone takes it "
    "over": lambda a: i18n.ngettext(
        "the table is told; after %(num)d missed deadline the seat is abandoned: a bot plays it until someone "
        "takes it over",
        "the table is told; after %(num)d missed deadlines the seat is abandoned: a bot plays it until someone "
        "takes it over", _plural_n(a.get("n"))),
    "%(who)s has missed the deadline at ply %(ply)d (%(missed)d missed so far).": lambda a: i18n.ngettext(
        "%(who)s has missed the deadline at ply %(ply)d (%(num)d missed so far).",
        "%(who)s has missed the deadline at ply %(ply)d (%(num)d missed so far).", _plural_n(a.get("missed")), **a),
    "An admin rolled game #%(id)d back to ply %(ply)d (%(undone)d move(s) marked undone) and re-applied "
    "%(applied)d corrected move(s)": lambda a: i18n.gettext(
        "An admin rolled game #%(id)d back to ply %(ply)d (%(undone)s) and re-applied %(applied)s",
        id=a.get("id"), ply=a.get("ply"),
        undone=i18n.ngettext("%(num)d move marked undone", "%(num)d moves marked undone", _plural_n(a.get("undone"))),
        applied=i18n.ngettext("%(num)d corrected move", "%(num)d corrected moves", _plural_n(a.get("applied")))),
    "pbem was unavailable for about %(hours)s hours; every deadline in this game has been extended by that "
    "much.": lambda a: i18n.ngettext(
        "pbem was unavailable for about %(num)s hour; every deadline in this game has been extended by that much.",
        "pbem was unavailable for about %(num)s hours; every deadline in this game has been extended by that much.",
        _plural_n(a.get("hours")), num=a.get("hours")),
}


def _reader(msgid: str | tuple[str, str]):
    """What words a message's arguments, read back from its English, in the current language."""
    if isinstance(msgid, tuple):  # a plural entry: its count is ``num``
        return lambda values: i18n.ngettext(msgid[0], msgid[1], _plural_n(values.get("num")), **values)
    if msgid in RENAMED:
        return RENAMED[msgid]
    return lambda values: i18n.gettext(msgid, **values)


@lru_cache(maxsize=1)
def _patterns() -> tuple[tuple[re.Pattern, str, Any], ...]:
    """Every message of the services' catalog with arguments (each form of a plural entry, and the messages
    since renamed), as a pattern that reads them back from its English, longest first (the most specific
    wins), with what words them."""
    from babel.messages.pofile import read_po

    if not POT.exists():  # an installation without the catalog's template: old notices stay English
        return ()
    with POT.open("rb") as f:
        entries = [m.id for m in read_po(f) if "%(" in str(m.id)]
    forms = {}
    for entry in [*entries, *RENAMED]:
        for form in (entry if isinstance(entry, tuple) else (entry,)):
            forms.setdefault(form, entry)
    out = []
    for msgid in sorted(forms, key=len, reverse=True):
        rx, pos, seen = [], 0, set()
        for m in re.finditer(r"%\((\w+)\)([sd])", msgid):
            rx.append(re.escape(msgid[pos:m.start()]))
            name = m.group(1)
            if name in seen:  # a placeholder used twice: the same text again
                rx.append(rf"(?P={name})")
            else:
                seen.add(name)
                rx.append(rf"(?P<{name}>\d+)" if m.group(2) == "d" else rf"(?P<{name}>.+?)")
            pos = m.end()
        rx.append(re.escape(msgid[pos:]))
        try:
            out.append((re.compile("".join(rx), re.S), msgid, _reader(forms[msgid])))
        except re.error:
            continue
    return tuple(out)


@lru_cache(maxsize=4096)
def _translated(body: str, code: str) -> str:
    with i18n.use(code):
        plain = i18n.gettext(body)
        if plain != body:
            return plain
        for rx, msgid, reader in _patterns():
            m = rx.fullmatch(body)
            if m is None:
                continue
            values = {k: int(v) if f"%({k})d" in msgid else _translated(v, code) for k, v in m.groupdict().items()}
            return reader(values)
    return body


def _from_english(body: str) -> str:
    """An old notice (English only) in the current language, when a message of the catalog wrote it."""
    return _translated(body, i18n.current())


def dump(value: Any) -> str:
    """A notice's :func:`spec` as stored (tests and the archive read it back)."""
    return json.dumps(spec(value), ensure_ascii=False)
