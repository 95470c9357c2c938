"""Which language a mail speaks, and text that is written in it: each reader's own.

Every mail the services queue is built inside ``with speaking(recipient):``,
so every sentence (``pbem.i18n._``), the engine's board and the dates in it are
in that recipient's language; a table of four players may get four languages.
Text decided once for every reader (a headline) is passed as a lazy string or a
callable, and written out per reader by :func:`text`."""
from __future__ import annotations

from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Iterator

from babel.support import LazyProxy

from pbem import i18n

# the English way of writing a date and time in a mail, as pbem always has (kept byte for byte)
EN_LONG = "%a %d %b %Y %H:%M"
EN_SHORT = "%a %H:%M"
# the same in every other language (CLDR patterns: its own day and month names)
LONG = "EEE, d MMM y, HH:mm"
SHORT = "EEE HH:mm"


def of(user) -> str:
    """The language mail to ``user`` speaks (English for nobody: an observer or address without an account)."""
    return i18n.normalize(getattr(user, "language", None)) if user is not None else i18n.SOURCE


@contextmanager
def speaking(user) -> Iterator[str]:
    """Speak ``user``'s language inside the block (here and in the engines)."""
    with i18n.use(of(user)) as code:
        yield code


def text(value) -> str:
    """A string, a lazy string or a callable giving one, written in the current language."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, LazyProxy):
        return str(value)
    if callable(value):
        return text(value())
    return str(value)


def when(dt: datetime, tz: str | None, short: bool = False) -> str:
    """``dt`` in the reader's zone ``tz`` and the current language: English as
    it always was ("Wed 25 Nov 2026 14:05"), the others by the locale's own
    words with the zone's abbreviation ("ср, 25 нояб. 2026, 17:05 MSK")."""
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    if i18n.current() == i18n.SOURCE:
        return f"{dt.astimezone(i18n.zone(tz)):{EN_SHORT if short else EN_LONG}}"
    return i18n.format_datetime(dt, tz, format=SHORT if short else LONG)


def english(value) -> str:
    """``value`` (see :func:`text`) in English: what is stored (thread posts, audit lines) stays English."""
    with i18n.use(i18n.SOURCE):
        return text(value)


def day(d) -> str:
    """A calendar day: ISO in English, as it always was ("2026-12-20"); the locale's words otherwise
    ("20 дек. 2026 г.")."""
    if i18n.current() == i18n.SOURCE:
        return d.isoformat()
    return i18n.format_date(d)
