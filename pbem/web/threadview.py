"""The game thread as the game page shows it: the talk line by line, and each run of moves of one turn
or round (services/core/visibility.turns_of) folded into one line ("Ann, Bob, Cat — 6 moves") that opens
on the moves; and which of them the reader asked to see (services/core/thread.SHOWS). Everything here
is read through the one door (services/core/visibility.latest_posts); game.js folds the live posts the
same way."""
from __future__ import annotations

from babel import Locale

from pbem.i18n import current, translations
from pbem.services.core import visibility

LINES_SHOWN = 30  # the page opens at the thread's newest lines (a folded turn is one); older ones on request
BATCH = 100  # posts read at a time while filling those lines
POSTS_MAX = 600  # ... and no more than these, however the thread runs (the page says older ones remain)


def lines(posts: list[dict]) -> list[dict]:
    """``posts`` (oldest first, as the page's dicts: games._post_dict) as the thread's lines, oldest
    first: {"post": p} for a post or a notice, {"fold": [moves], "turn", "names", "first", "last"} for a run
    of moves of one turn or round, with its movers and its plies as the reader is shown them (a post between
    two moves of a turn ends its line: the talk stays in its place)."""
    out: list[dict] = []
    for p in posts:
        if p["kind"] != "move":
            out.append({"post": p})
            continue
        last = out[-1] if out else None
        if last is not None and "fold" in last and last["turn"] == p.get("turn"):
            last["fold"].append(p)
        else:
            out.append({"fold": [p], "turn": p.get("turn")})
    for line in out:
        if "fold" in line:
            line["names"] = list(dict.fromkeys(p["author"] for p in line["fold"]))
            plies = [p["ply"] for p in line["fold"] if p.get("ply") is not None]
            line["first"], line["last"] = (min(plies), max(plies)) if plies else (None, None)
    return out


def window(s, g, who, *, whole: bool, hidden=None) -> tuple[list, bool]:
    """The newest posts ``who`` may read that make the page's first LINES_SHOWN lines (all of them when
    ``whole``), oldest first, each move with its turn; and whether older ones remain."""
    if whole:
        return visibility.latest_posts(s, g, who, 100_000, hidden=hidden, turns=True)
    posts, older = visibility.latest_posts(s, g, who, LINES_SHOWN, hidden=hidden, turns=True)
    while older and posts and len(posts) < POSTS_MAX and _count(posts) < LINES_SHOWN:
        more, older = visibility.latest_posts(s, g, who, BATCH, before_id=posts[0].id, hidden=hidden, turns=True)
        posts = more + posts
    return posts, older


def _count(posts) -> int:
    """How many lines ``posts`` (visibility.PostRow, oldest first) make."""
    n, turn = 0, _TALK
    for p in posts:
        if p.kind != "move":
            n, turn = n + 1, _TALK
        elif turn is _TALK or p.turn != turn:
            n, turn = n + 1, p.turn
    return n


_TALK = object()  # the line before is not a run of moves


def words() -> dict:
    """The words game.js writes a live line with, in the reader's language, their placeholders left in
    (the messages are templates/web/thread.html's)."""
    tr = translations(current())
    out = {w: tr.ugettext(w) for w in ("Notice", "Private")}
    out.update(ply=tr.ugettext("ply %(ply)s"), plies=tr.ugettext("plies %(first)s–%(last)s"),
               moves=plural_forms("%(num)d move", "%(num)d moves"))
    return out


def plural_forms(singular: str, plural: str) -> dict[str, str]:
    """The forms of a message with a count in the reader's language, by CLDR plural category ("one",
    "few", "many", "other"), each with its ``%(num)d``: the page's script picks one with the browser's
    Intl.PluralRules (a live line's "7 moves" in Russian is "7 ходов", its "3 moves" "3 хода")."""
    lang = current()
    rule = Locale.parse(lang).plural_form
    tr = translations(lang)
    out: dict[str, str] = {}
    for n in range(0, 200):
        out.setdefault(rule(n), tr.ungettext(singular, plural, n))
    return out
