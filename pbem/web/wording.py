"""How a page words things, in the page's language: which language that is (page_language), a
UserError's mail example worded for the web (web_text, describe), a time in the reader's zone
(localtime), and the words for a game's status, a no-move policy and a bot's level."""
from __future__ import annotations

import re

from flask import g, request

from pbem import i18n
from pbem.engine import get_game
from pbem.i18n import _, lazy_gettext


LANG_COOKIE = "pbem_lang"


def page_language() -> str:
    """The language of this request: the logged-in user's, else the
    visitor's choice (the language menu, kept in a cookie), else the best of
    the browser's ``Accept-Language``, else English."""
    lang = getattr(g, "user_language", None)
    if lang:
        return lang
    chosen = request.cookies.get(LANG_COOKIE)
    if i18n.supported(chosen):
        return i18n.normalize(chosen)
    return i18n.from_accept_language(request.headers.get("Accept-Language")) or i18n.SOURCE


# the mail commands a UserError's example may start with, and what a web page says instead
WEB_HINTS = {
    "REGISTER": "{rest}", "SAY": "{rest}", "NEXT": "{rest}", "CARD": "{rest}", "VACATION": "{rest}",
    "IF": "", "HELP": "", "CANCEL": "", "NEWADDRESS": "",
    "GAMES": lazy_gettext("see My games"), "STATUS": lazy_gettext("see the game's page"),
    "START": lazy_gettext("use the Start button on the game's page"),
    "JOIN": lazy_gettext("use the Join button in the lobby"),
    "RESIGN": lazy_gettext("use Resign on the game's Manage page"),
    "REPLACE": lazy_gettext("use 'Take over this seat' on the game's Manage page"),
    "NEW": lazy_gettext("use a Create form in the lobby"),
    "NOTIFY": lazy_gettext("use Notifications on your profile"),
    "DISPUTE": lazy_gettext("use the Dispute form on the game's Manage page"),
    "UNDO": lazy_gettext("use the undo buttons on the game's Manage page"),
    "SEATS": lazy_gettext("use 'Who may use my seats' reply addresses' on your profile"),
    "LANGUAGE": lazy_gettext("use Language on your profile"),
    "ACCEPT": lazy_gettext("use Accept or Decline in the lobby"),
    "DECLINE": lazy_gettext("use Accept or Decline in the lobby"),
    "REMOVE": lazy_gettext("use the Remove button next to the player on the game's page"),
}
PASSWORD_HINT = lazy_gettext("type the game's password in the Password field next to Join")
# a UserError's example line, whatever the language calls "e.g." ("\n  e.g. STATUS 2", "\n  напр. STATUS 2"):
# the line break and the two-space indent mark it, then one or two words (the last ending in a dot or colon)
_EG = re.compile(r"\n  (?:\S+ )?\S+[.:] (?P<ex>.*)\Z", re.S)


def web_hint(example: str | None) -> str:
    """A UserError's example as a web page words it: examples are written for mail ('REGISTER Anna K.',
    'STATUS 2'); here a mail command becomes the field's value or the button that does it ('' when
    there is nothing to show)."""
    if not example:
        return ""
    ex = example.strip()
    if ex.startswith("pbem "):  # a command line of the machine's operator
        return ""
    word, _sep, rest = ex.partition(" ")
    hint = WEB_HINTS.get(word.rstrip(":"))
    if hint is None:
        return _("for example %(example)s", example=ex)
    rest = rest.strip()
    if word == "NOTIFY" and rest.split(" ", 1)[0].upper() in ("ADD", "TABLE"):  # a channel's address
        return _("for example %(example)s", example=rest.split()[-1])
    if word.rstrip(":") in ("SAY", "NEXT"):
        rest = re.sub(r"^(\d+|all)?:\s*", "", rest)
    if word == "JOIN" and "<password>" in rest:
        return str(PASSWORD_HINT)
    if hint == "{rest}":
        return _("for example %(example)s", example=rest) if rest else ""
    return str(hint)


def web_text(text: str) -> str:
    """A message that may end in a UserError's mail example ('\\n  e.g. STATUS 2'), worded for the web."""
    m = _EG.search(text or "")
    if not m:
        return text
    hint = web_hint(m.group("ex"))
    return text[:m.start()] + (f" ({hint})" if hint else "")


def describe(e) -> str:
    """A UserError for a web page: its message, with its example worded for the web."""
    return web_text(e.describe())


# the page formats: a strftime pattern a template asks for (``|local('%b %d %H:%M')``) names a Babel
# skeleton, written each language's way ("Nov 25, 2026, 14:05", "25 нояб. 2026 г., 14:05")
_SKELETONS = {"%Y-%m-%d %H:%M": ("yMMMd", "Hm"), "%Y-%m-%d %H:%M:%S": ("yMMMd", "Hms"),
              "%b %d %H:%M": ("MMMd", "Hm"), "%m-%d %H:%M": ("MMMd", "Hm"), "%a %d %b %H:%M": ("MMMEd", "Hm")}


def localtime(dt, fmt: str = "%Y-%m-%d %H:%M") -> str:
    """``dt`` (UTC) in the logged-in user's time zone and the page's language, with the zone's abbreviation."""
    if dt is None:
        return ""
    from datetime import timezone

    from babel import dates

    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    me = getattr(g, "me", None)
    tz = i18n.zone(me.timezone if me is not None and me.timezone else "UTC")
    loc = i18n.locale()
    day, hour = _SKELETONS.get(fmt, _SKELETONS["%Y-%m-%d %H:%M"])
    local = dt.astimezone(tz)
    text = (dates.get_datetime_format("medium", locale=loc).replace("'", "")
            .replace("{1}", dates.format_skeleton(day, local, locale=loc))
            .replace("{0}", dates.format_skeleton(hour, local, locale=loc)))
    return f"{text} {local.tzname() or 'UTC'}"


# a game's status as a page shows it (the stored value stays the English word)
STATUS_WORDS = {"open": lazy_gettext("open"), "running": lazy_gettext("running"),
                "finished": lazy_gettext("finished"), "cancelled": lazy_gettext("cancelled"),
                "abandoned": lazy_gettext("abandoned")}


# what a game does when a move is late, as a page names it (the stored value stays the English word)
POLICY_WORDS = {"wait": lazy_gettext("wait"), "bot": lazy_gettext("bot"), "abandon": lazy_gettext("abandon")}


# a bot's level (pbem.engine.bots.LEVELS), as a page names it
LEVEL_WORDS = {"easy": lazy_gettext("easy"), "normal": lazy_gettext("normal"), "strong": lazy_gettext("strong")}


def level_word(level: str | None) -> str:
    word = LEVEL_WORDS.get(level or "")
    return str(word) if word is not None else (level or "")


def policy_word(policy: str) -> str:
    word = POLICY_WORDS.get(policy)
    return str(word) if word is not None else policy


def status_word(status: str) -> str:
    word = STATUS_WORDS.get(status)
    return str(word) if word is not None else status


def and_list(items) -> str:
    """Names joined the language's way: "Anna and Ben" (English joins them all with "and", as before)."""
    items = [str(x) for x in items]
    if i18n.current() == i18n.SOURCE or len(items) < 2:
        return " and ".join(items)
    from babel.lists import format_list

    return format_list(items, locale=i18n.locale())


def game_title(name: str) -> str:
    """A game's title as its edition in the page's language prints it ("Сквайр"); its name if unknown."""
    try:
        return get_game(name).title
    except KeyError:
        return name
