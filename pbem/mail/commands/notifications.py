"""Notifications and calendar: NOTIFY (the mail preference, the sender's
chat channels, quiet hours, the digest's hour, a game's table channel and
the calendar feed of the sender's deadlines) and STOP. Every refusal says
what was wrong and shows a command that works; nothing changes then."""
from __future__ import annotations

from pbem.config import settings
from pbem.i18n import N_, _
from pbem.services.core import games
from pbem.services.follow import calendars, channels, messages
from pbem.services.core.errors import UserError

from ..context import Context, need_user
from ..lines import Line, parse_game_id
from .base import Command, Family, Section, Usage

FAMILY = Family("Notifications and calendar", 5)

USAGE = ("NOTIFY every|turn|digest [hour] · NOTIFY ADD <address> [name] · NOTIFY LIST · NOTIFY REMOVE <n> · "
         "NOTIFY TEST <n> · NOTIFY <n> ON|OFF [kinds] · NOTIFY <n> instant|digest · NOTIFY QUIET 22-07|OFF · "
         "NOTIFY HOUR 8|OFF · NOTIFY TABLE <game> <address>|OFF · NOTIFY CALENDAR [NEW]")


def raw_words(line: Line) -> list[str]:
    """The words after NOTIFY as written: an address keeps its case and its characters (the command's
    normalised words would turn a dash in a token into another)."""
    words = line.raw.split()
    return words[1:] if words and words[0].upper() == "NOTIFY" else words


def do_notify(ctx: Context, line: Line) -> str:
    user = need_user(ctx)
    s = ctx.session
    args = line.args
    word = args[0].lower() if args else ""
    if word in messages.NOTIFY_CHOICES:
        return _mail_choice(s, user, word, args[1:])
    if word == "add":
        words = raw_words(line)[1:]
        if not words:
            raise UserError(_("NOTIFY ADD needs the address of your channel"),
                            example=f"NOTIFY ADD {channels.EXAMPLE_URL}", code="no_url")
        row = channels.add(s, user, words[0], " ".join(words[1:]))
        n = len(channels.mine(s, user))
        return _("channel %(n)d added (%(kind)s). A test message is on its way there; if it does not arrive, check "
                 "the address. It gets: %(events)s. NOTIFY LIST shows your channels.", n=n,
                 kind=channels.kind_name(row.kind), events=_events(row))
    if word == "list":
        return listing(s, user)
    if word in ("remove", "delete"):
        row = channels.remove(s, user, args[1] if len(args) > 1 else "")
        return _("channel %(n)s (%(kind)s) removed", n=args[1].lstrip("#"), kind=channels.kind_name(row.kind))
    if word == "test":
        row = channels.test(s, user, args[1] if len(args) > 1 else "")
        return _("a test message is on its way to channel %(n)s (%(kind)s)", n=args[1].lstrip("#"),
                 kind=channels.kind_name(row.kind))
    if word == "quiet":
        return _quiet(s, user, args[1:])
    if word == "hour":
        return _hour(s, user, args[1:])
    if word == "table":
        return _table(ctx, line, user)
    if word == "calendar":
        return _calendar(s, user, args[1:])
    if word.lstrip("#").isdigit():
        return _channel(s, user, args)
    raise UserError(_("NOTIFY does not know %(word)s. It takes: %(usage)s", word=args[0][:20] if args else "…",
                      usage=USAGE), example="NOTIFY LIST", code="bad_notify")


def _mail_choice(s, user, choice: str, rest: list[str]) -> str:
    hour = channels.parse_hour(rest[0], "NOTIFY digest 8") if choice == "digest" and rest else None
    if rest and choice != "digest":
        raise UserError(_("only the digest takes an hour"), example="NOTIFY digest 8", code="bad_notify")
    messages.set_notify(s, user, choice)
    if hour is not None:
        channels.set_digest_hour(s, user, hour)
        return _("you get one digest mail a day, at %(hour)02d:00 (%(tz)s)", hour=hour, tz=user.timezone)
    return {"every": _("you get the board after every move"), "turn": _("you get the board when it is your turn"),
            "digest": _("you get one digest mail a day")}[user.notify]


def _events(row) -> str:
    return ", ".join(channels.event_word(e) for e in row.events) or _("nothing (every kind is off)")


def listing(s, user) -> str:
    rows = channels.mine(s, user)
    lines = [_("Mail: %(choice)s.", choice={"every": _("the board after every move"),
                                             "turn": _("the board when it is your turn"),
                                             "digest": _("one digest a day")}.get(user.notify, user.notify))]
    if not rows:
        lines.append(_("No chat channel yet. NOTIFY ADD <address> adds one, e.g. NOTIFY ADD %(url)s",
                       url=channels.EXAMPLE_URL))
    for i, row in enumerate(rows, 1):
        lines.append(_("%(n)d. %(kind)s %(label)s%(url)s: %(events)s; %(mode)s; %(status)s", n=i,
                       kind=channels.kind_name(row.kind), label=f"«{row.label}» " if row.label else "",
                       url=channels.masked(row.url), events=_events(row),
                       mode=_("at once") if row.mode == "instant" else _("in the daily digest"),
                       status=channels.status(row)))
    if user.quiet_from is not None:
        lines.append(_("Quiet hours: %(start)02d:00 to %(end)02d:00 (%(tz)s): chat notifications wait until they "
                       "end.", start=user.quiet_from, end=user.quiet_until, tz=user.timezone))
    if user.digest_hour is not None:
        lines.append(_("Daily digests at %(hour)02d:00 (%(tz)s).", hour=user.digest_hour, tz=user.timezone))
    lines.append(_("Kinds: %(kinds)s. Settings on the web: %(web)s", kinds=", ".join(channels.EVENTS),
                   web=f"{settings().base_url}/profile"))
    return "\n".join(lines)


def _quiet(s, user, rest: list[str]) -> str:
    example = "NOTIFY QUIET 22-07"
    text = " ".join(rest).replace("–", "-").replace("—", "-")
    if text.strip().lower() in ("off", "none", "no"):
        channels.set_quiet(s, user, None, None)
        return _("no quiet hours: chat notifications come at any hour")
    parts = [p for p in text.replace(" to ", "-").replace(" ", "-").split("-") if p]
    if len(parts) != 2:
        raise UserError(_("quiet hours are written as two hours, from and to"), example=example, code="bad_quiet")
    start, end = (channels.parse_hour(p, example) for p in parts)
    channels.set_quiet(s, user, start, end)
    return _("quiet hours %(start)02d:00 to %(end)02d:00 (%(tz)s): chat notifications wait until they end",
             start=start, end=end, tz=user.timezone)


def _hour(s, user, rest: list[str]) -> str:
    if not rest:
        raise UserError(_("NOTIFY HOUR needs the hour of your daily digests"), example="NOTIFY HOUR 8",
                        code="bad_hour")
    if rest[0].lower() in ("off", "none"):
        channels.set_digest_hour(s, user, None)
        return _("daily digests come a day after the last one, at no fixed hour")
    hour = channels.parse_hour(rest[0], "NOTIFY HOUR 8")
    channels.set_digest_hour(s, user, hour)
    return _("your daily digests come at %(hour)02d:00 (%(tz)s)", hour=hour, tz=user.timezone)


def _channel(s, user, args: list[str]) -> str:
    n = args[0].lstrip("#")
    action = args[1].lower() if len(args) > 1 else ""
    kinds = args[2:]
    if action in channels.MODES:
        row = channels.set_mode(s, user, n, action)
        return (_("channel %(n)s gets its notifications at once", n=n) if row.mode == "instant"
                else _("channel %(n)s gets one digest a day", n=n))
    if action == "on" and not kinds:
        row = channels.enable(s, user, n)
        return _("channel %(n)s is on; a test message is on its way (%(events)s)", n=n, events=_events(row))
    if action in ("on", "off") and kinds:
        row = channels.set_events(s, user, n, action == "on", kinds)
        return _("channel %(n)s now gets: %(events)s", n=n, events=_events(row))
    channels.numbered(s, user, n)  # a channel that does not exist is said first
    raise UserError(_("after the channel's number: ON or OFF and the kinds (%(kinds)s), ON alone to switch it back "
                      "on, or instant or digest", kinds=", ".join(channels.EVENTS)),
                    example=f"NOTIFY {n} OFF talk", code="bad_notify")


def _table(ctx: Context, line: Line, user) -> str:
    s = ctx.session
    words = raw_words(line)[1:]
    gid = parse_game_id(words[:1])
    rest = words[1:]
    if gid is None and ctx.game is not None:
        gid, rest = ctx.game.id, words
    if gid is None or not rest:
        raise UserError(_("NOTIFY TABLE needs the game's number and the address of the group's channel (or OFF)"),
                        example="NOTIFY TABLE 12 discord://<webhook id>/<webhook token>", code="bad_table")
    g = games.get(s, gid)
    if rest[0].lower() in ("off", "remove", "none"):
        if channels.clear_table(s, user, g):
            return _("game #%(id)d has no table channel any more", id=g.id)
        return _("game #%(id)d had no table channel", id=g.id)
    row = channels.set_table(s, user, g, rest[0])
    return _("game #%(id)d is posted to its table channel (%(kind)s) from now on: each move as the whole table sees "
             "it, and the table talk. A test message is on its way.", id=g.id, kind=channels.kind_name(row.kind))


def _calendar(s, user, args: list[str]) -> str:
    """NOTIFY CALENDAR: the address of the sender's private calendar feed; NOTIFY CALENDAR NEW
    makes a new one, voiding the old address and the .ics links of earlier mails."""
    word = args[0].lower() if args else ""
    if word not in ("", "new"):
        raise UserError(_("NOTIFY CALENDAR takes nothing, or NEW for a new address"), example="NOTIFY CALENDAR",
                        code="bad_calendar")
    if word == "new":
        calendars.renew(s, user)
        said = _("your calendar has a new address; the old one, and the calendar links in earlier mails, no longer "
                 "work.")
    else:
        said = _("your deadlines, in a calendar:")
    return _("%(said)s Subscribe to %(url)s in your calendar application (Google Calendar: From URL; Apple Calendar "
             "and Outlook: Subscribe): each of your deadlines appears there with alarms 24 and 4 hours before, "
             "and moves when the deadline moves. Keep the address to yourself; NOTIFY CALENDAR NEW makes a new one.",
             said=said, url=calendars.feed_url(user))


def do_stop(ctx: Context, line: Line) -> str:
    user = need_user(ctx)
    off = bool(line.args) and line.args[0].upper() in ("OFF", "UNDO", "NO")
    messages.stop(ctx.session, user, not off)
    if off:
        return _("you get all game mail again")
    return _("you get no more table talk, observer boards or boards of other players' moves. Still coming: "
             "answers to your mails, your board when it is your turn, deadline reminders, admin decisions and "
             "the end of your games. STOP OFF undoes this.")


STOP = Command(
    "STOP", do_stop, FAMILY,
    usage=(Usage(N_("STOP | STOP OFF"), N_("no more table talk, observer mail or boards of others' moves\n"
                                           "(replies, your-turn boards, reminders and admin decisions still come)"),
                 Section.COMMANDS, 220),),
    doc="no more table talk, observer mail or boards of others' moves (answers to your mails, your board when it "
        "is your turn, deadline reminders, admin decisions and the end of your games still come); `STOP OFF` "
        "undoes it. The one-click unsubscribe link of a mail does what STOP does")

NOTIFY = Command(
    "NOTIFY", do_notify, FAMILY,
    usage=(Usage(N_("NOTIFY every|turn|digest"), N_("a board after every move, only on your turn, or one mail a day"),
                 Section.COMMANDS, 230),
           Usage(N_("NOTIFY ADD <address>"),
                 N_("notifications in Discord, Slack, Telegram, Matrix, ntfy or a JSON\n"
                    "webhook too (NOTIFY LIST, NOTIFY REMOVE <n>, NOTIFY TEST <n>,\n"
                    "NOTIFY <n> OFF talk, NOTIFY QUIET 22-07, NOTIFY HOUR 8,\n"
                    "NOTIFY TABLE <game-id> <address>: the game's group chat)"), Section.COMMANDS, 240),
           Usage(N_("NOTIFY CALENDAR [NEW]"),
                 N_("the private address of a calendar with all your\n"
                    "deadlines (NEW: a new address; the old one stops\n"
                    "working)"), Section.AWAY, 30)),
    doc="how much mail you get: `NOTIFY every|turn|digest [hour]` (the digest at an hour of your time zone: "
        "`NOTIFY digest 8`). Notifications in a chat or push app too: `NOTIFY ADD <address> [name]` (the chat "
        "apps and how to get an address: [notifications.md](notifications.md)), `NOTIFY LIST`, `NOTIFY REMOVE <n>`, `NOTIFY TEST <n>`; what channel `n` gets: `NOTIFY <n> ON|OFF <kinds>` "
        "(`turn`, `reminder`, `start`, `end`, `talk`), `NOTIFY <n> instant|digest`, and `NOTIFY <n> ON` alone "
        "switches a channel that was turned off back on. Quiet hours and the daily digests' hour, in your time "
        "zone: `NOTIFY QUIET 22-07` / `NOTIFY QUIET OFF`, `NOTIFY HOUR 8` / `NOTIFY HOUR OFF`. The game's table "
        "channel, a group chat that follows the game (the creator's): `NOTIFY TABLE <game-id> <address>` / "
        "`NOTIFY TABLE <game-id> OFF`. `NOTIFY CALENDAR`: the private address of a calendar feed of all your "
        "deadlines (subscribe to it in Google Calendar, Apple Calendar or Outlook); `NOTIFY CALENDAR NEW` makes a "
        "new address, and the old one and the mailed `.ics` links stop working")
