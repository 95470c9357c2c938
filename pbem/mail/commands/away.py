"""Absence and time: VACATION in one game, AWAY in all of them, and the
TIMEZONE a player's days and deadlines are read and written in."""
from __future__ import annotations

import re

from pbem.i18n import N_, _, ngettext
from pbem.services.core import accounts, games, lang
from pbem.services.core.errors import UserError
from pbem.store.models import Game, utcnow

from ..context import Context, need_game, need_user
from ..lines import Line, parse_game_id
from .base import Command, Family, Section, Usage, Where, Who

FAMILY = Family("Absence and time", 6)


def do_vacation(ctx: Context, line: Line) -> str:
    from datetime import date

    from pbem.services.turns import vacations

    user = need_user(ctx)
    args = list(line.args)
    if len(args) == 3:  # VACATION <game> <from> <to> on the command address
        gid = parse_game_id(args[:1])
        g = games.get(ctx.session, gid) if gid else None
        args = args[1:]
    else:
        g = need_game(ctx, line, vacations.EXAMPLE)
    if g is None:
        raise UserError("VACATION <game> <from> <to>", example="VACATION 12 2026-12-20 2026-12-27",
                        code="bad_vacation")
    first, last = vacations.parse_dates(args)
    vacations.declare(ctx.session, user, g, first, last, today=date.today())
    return _("your clock in game #%(game)d pauses from %(first)s to %(last)s; the table is told", game=g.id,
             first=first.isoformat(), last=last.isoformat())


def do_away(ctx: Context, line: Line) -> str:
    """AWAY <from> <to>: one absence in every game of the sender, each within its allowance; AWAY
    alone lists the absences to come; AWAY CANCEL withdraws those not begun. Days are the sender's own (their
    time zone: TIMEZONE)."""
    from pbem.services.turns import vacations

    user = need_user(ctx)
    today = vacations.local_today(user, utcnow())
    words = line.raw.split()[1:]
    if not words:
        rows = vacations.upcoming(ctx.session, user, today)
        if not rows:
            return _("you have no absence to come. AWAY <first day> <last day> declares one in all your games, "
                     "e.g. %(example)s", example=vacations.AWAY_EXAMPLE)
        spans: dict[tuple, list[str]] = {}
        for v in rows:
            spans.setdefault((v.starts_on, v.ends_on), []).append(f"#{v.game_id}")
        return _("your absences to come (AWAY CANCEL withdraws those not begun):") + "".join(
            "\n  " + _("%(first)s to %(last)s: %(games)s", first=lang.day(a), last=lang.day(b), games=", ".join(g))
            for (a, b), g in spans.items())
    if len(words) == 1 and words[0].upper() == "CANCEL":
        rows = vacations.cancel_upcoming(ctx.session, user, today)
        return ngettext("%(num)d absence withdrawn (%(games)s); the tables are told",
                        "%(num)d absences withdrawn (%(games)s); the tables are told", len(rows),
                        games=", ".join(sorted({f"#{v.game_id}" for v in rows})))
    first, last = vacations.parse_span(words, today)
    done = vacations.away(ctx.session, user, first, last, today)
    said = _("you are away from %(first)s to %(last)s (%(tz)s): your clock pauses on those days in %(games)s; "
             "each table is told", first=lang.day(first), last=lang.day(last), tz=user.timezone,
             games=", ".join(f"#{g.id}" for g in done.applied))
    for g, why in done.refused:
        said += "\n  " + _("not in #%(id)d: %(why)s", id=g.id, why=why)
    return said


def do_timezone(ctx: Context, line: Line) -> str:
    """TIMEZONE <zone>: the sender's time zone; alone, the current one."""
    user = need_user(ctx)
    words = line.raw.split()[1:]
    if not words:
        return _("your time zone is %(zone)s. TIMEZONE and a zone changes it", zone=user.timezone) \
            + "\n  " + _("e.g. %(example)s", example=accounts.TIMEZONE_EXAMPLE)
    zone = accounts.set_timezone(ctx.session, user, " ".join(words))
    return _("your time zone is now %(zone)s: pbem reads your dates and writes your deadlines in it (it is "
             "%(now)s there)", zone=zone, now=lang.when(utcnow(), zone))


def _vacation_game(line: Line, here: Game | None) -> int | None:
    """VACATION <game> <from> <to> names its game first; with two dates, the game of the address."""
    return parse_game_id(line.args[:1]) if len(line.args) == 3 else None


VACATION = Command(
    "VACATION", do_vacation, FAMILY, where=Where.ANY, who=Who.PLAYER, names_game=_vacation_game,
    usage=(Usage(N_("VACATION <from> <to>"),
                 N_("an absence (YYYY-MM-DD, both days included): your clock pauses"), Section.COMMANDS, 120),),
    doc="an absence in one game (`YYYY-MM-DD`, both days included; on the command address the game's number "
        "first: `VACATION <game-id> <from> <to>`): your clock pauses, within the game's allowance of vacation "
        "days; the table is told")

AWAY = Command(
    "AWAY", do_away, FAMILY,
    # "Away from home till Monday" is talk: the command is alone, CANCEL, or begins with a day
    is_talk=lambda word, rest: not (word.isupper() or not rest.strip() or rest.strip().upper() == "CANCEL"
                                    or re.match(r"\d", rest.strip())),
    usage=(Usage(N_("AWAY <first day> <last day>"),
                 N_("away from all your games, e.g. AWAY 20.12.2026\n"
                    "27.12.2026 (or 2026-12-20, or 20 December): your\n"
                    "clocks pause on those days, in each game within\n"
                    "its allowance; AWAY lists your absences, AWAY\n"
                    "CANCEL withdraws those not begun"), Section.AWAY, 10),),
    doc="an absence in all your open and running games at once, each within its allowance of vacation days (a "
        "game whose allowance is spent says so; the others take it); each table is told. Days as you write them: "
        "`2026-12-20`, `20.12.2026`, `20.12.`, `20/12/2026`, `20 December 2026`, `20 декабря`, `20 dicembre`, in "
        "your time zone. `AWAY` alone lists your absences; `AWAY CANCEL` withdraws those not begun")

TIMEZONE = Command(
    "TIMEZONE", do_timezone, FAMILY,
    # "Timezone troubles..." is talk: the command is alone or names one zone
    is_talk=lambda word, rest: not (word.isupper() or len(rest.split()) <= 1 and ("/" in rest or not rest.strip())),
    usage=(Usage(N_("TIMEZONE <zone>"),
                 N_("your time zone (TIMEZONE Europe/Sofia): your days\n"
                    "and deadlines are read and written in it;\n"
                    "TIMEZONE alone shows it"), Section.AWAY, 20),),
    doc="your time zone (`TIMEZONE Europe/Sofia`, or a city alone: `TIMEZONE Sofia`): your days and deadlines "
        "are read and written in it; alone, it shows it")
