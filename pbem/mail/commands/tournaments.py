"""Tournaments and leagues by mail: one command, TOURNAMENT, whose second word says what
(NEW, JOIN, LEAVE, STATUS, STANDINGS, LIST, and the director's START, CLOSE, SCHEDULE, INVITE,
SEAT and ADJUST). The handler reads
the line and calls the services (services/lobby/tournaments/season.py); every refusal comes
from there or from the reading here, with an example, and changes nothing."""
from __future__ import annotations

import re

from pbem.engine import get_game
from pbem.i18n import N_, _, lazy_gettext, ngettext
from pbem.services.core import seating
from pbem.services.core.errors import UserError
from pbem.services.lobby.tournaments import mails, runs, scoring, season, view
from pbem.store.models import utcnow

from ..context import Context, need_user, rest
from ..lines import Line, parse_options
from .base import Command, Family, Section, Usage

FAMILY = Family("Tournaments and leagues", 7)

ACTIONS = ("NEW", "JOIN", "LEAVE", "STATUS", "STANDINGS", "LIST", "START", "CLOSE", "SCHEDULE", "INVITE", "SEAT",
           "ADJUST")
READING = ("STATUS", "STANDINGS", "LIST")
EXAMPLE = "TOURNAMENT NEW spyrium players=3 rounds=3"
_NAME_RE = re.compile(r"(?:^|\s)name=(.*?)(?=\s+[a-z_][a-z0-9_]*=|\s+private\b|$)", re.I)
# TOURNAMENT NEW's own keys; any other key=value is an option of the game (side=..., hand=...)
OWN_KEYS = ("players", "rounds", "format", "advance", "scoring", "points", "tiebreaks", "deadline", "policy", "bot",
            "entry", "max", "password", "invite", "min_rating", "min_reliability", "start", "every", "dates", "late",
            "director")
CALENDAR_KEYS = ("start", "every", "dates", "late")


def _action(line: Line) -> str:
    word = (line.args[0] if line.args else "").upper()
    if word not in ACTIONS:
        raise UserError(_("TOURNAMENT is followed by one of %(list)s", list=", ".join(ACTIONS)),
                        example="TOURNAMENT LIST", code="bad_action")
    return word


def _number(line: Line, action: str) -> int:
    word = line.args[1].lstrip("#") if len(line.args) > 1 else ""
    if not word.isdigit():
        raise UserError(_("TOURNAMENT %(action)s needs a tournament's number", action=action),
                        example=f"TOURNAMENT {action} 3", code="no_tournament_id")
    return int(word)


def _int(value: str | None, key: str) -> int | None:
    if value is None:
        return None
    if not value.strip().rstrip("h").isdigit():
        raise UserError(_("%(key)s is a whole number (got %(value)s)", key=key, value=repr(value)),
                        example=f"{EXAMPLE} deadline=48", code="bad_option")
    return int(value.strip().rstrip("h"))


def _new(ctx: Context, line: Line) -> str:
    user = need_user(ctx)
    text = rest(line)[len(line.args[0]):].strip()
    name = ""
    if m := _NAME_RE.search(text):  # name=Winter league: a name may have spaces
        name = m.group(1).strip()
        text = text[:m.start()] + " " + text[m.end():]
    opts, words = parse_options(text.split())
    private = any(w.lower() == "private" for w in words)
    words = [w for w in words if w.lower() != "private"]
    if len(words) != 1:
        raise UserError(_("TOURNAMENT NEW needs the name of one game, then options written key=value"),
                        example=EXAMPLE, code="no_game_name")
    own = {k: opts.pop(k) for k in list(opts) if k in OWN_KEYS}
    if private and "password" in own:
        raise UserError(_("a tournament is either private (invitation only) or has a password, not both"),
                        example="TOURNAMENT NEW squire private invite=ann@example.org,bob@example.org",
                        code="bad_option")
    t = runs.make(ctx.session, user, words[0], name=name, table_size=_int(own.get("players"), "players"),
                      options=opts, format=own.get("format", "swiss").lower(), rounds=_int(own.get("rounds"), "rounds") or 3,
                      advance=_int(own.get("advance"), "advance") or 1, scoring_by=own.get("scoring", "places").lower(),
                      points=own.get("points"), tie_breaks=own.get("tiebreaks"),
                      deadline_hours=_int(own.get("deadline"), "deadline") or 48, policy=own.get("policy", "bot").lower(),
                      bot_level=own.get("bot", "easy"), entry_days=_int(own.get("entry"), "entry"),
                      max_entries=_int(own.get("max"), "max"), access="private" if private else "public",
                      password=own.get("password"), invited=(own.get("invite") or "").split(","),
                      min_rating=own.get("min_rating"), min_reliability=own.get("min_reliability"),
                      start=own.get("start"), every=own.get("every"), dates=own.get("dates"), late=own.get("late"),
                      named_director=own.get("director"))
    engine = get_game(t.game)
    answer = ngettext("tournament #%(id)d (%(name)s: %(game)s at tables of %(num)d) is open for entry: players send "
                      "TOURNAMENT JOIN %(id)d, and you start each round with TOURNAMENT START %(id)d",
                      "tournament #%(id)d (%(name)s: %(game)s at tables of %(num)d) is open for entry: players send "
                      "TOURNAMENT JOIN %(id)d, and you start each round with TOURNAMENT START %(id)d",
                      t.table_size, id=t.id, name=t.name, game=engine.title)
    if t.next_round_at is not None:
        answer += ". " + _calendar_words(ctx, t)
    elif _every_alone(t):
        answer += ". " + _every_words(t)
    if t.invited:  # each was sent how to enter (runs.make)
        answer += ". " + ngettext("%(num)d address is invited and has been sent how to enter",
                                  "%(num)d addresses are invited and have been sent how to enter", len(t.invited))
    if t.access == "password":  # the director's own reply: the only mail with the word
        answer += ". " + _("Its password is %(password)s: players send TOURNAMENT JOIN %(id)d %(password)s",
                           password=own["password"].strip(), id=t.id)
    return answer


def _calendar_words(ctx: Context, t) -> str:
    """When the next round starts, in the reader's zone, and what a late table does."""
    late = (_("if a table of the round before is still playing then, the round waits for it") if t.late == "wait"
            else _("if a table of the round before is still playing then, the round starts without it"))
    return _("round %(round)d starts on %(when)s, %(late)s", round=t.round + 1,
             when=mails.when_words(t.next_round_at, ctx.user), late=late)


def _every_alone(t) -> bool:
    return t.dated_from is not None and not t.round_dates and bool(t.every_days)


def _every_words(t) -> str:
    return ngettext("you start round %(round)d with TOURNAMENT START %(id)d; each round after it starts %(num)d day "
                    "after the one before it started",
                    "you start round %(round)d with TOURNAMENT START %(id)d; each round after it starts %(num)d days "
                    "after the one before it started", t.every_days, round=t.round + 1, id=t.id)


def _schedule(ctx: Context, line: Line) -> str:
    user = need_user(ctx)
    tid = _number(line, "SCHEDULE")
    opts, words = parse_options(line.args[2:])
    off = [w for w in words if w.lower() == "off"]
    bad = [k for k in opts if k not in CALENDAR_KEYS] + [w for w in words if w.lower() != "off"]
    if bad:
        raise UserError(_("TOURNAMENT SCHEDULE takes start=, every=, dates=, late= or off (not %(word)s)",
                          word=bad[0]), example=f"TOURNAMENT SCHEDULE {tid} {season.calendar_example(utcnow())} late=wait",
                        code="bad_option")
    t = season.schedule(ctx.session, user, tid, start=opts.get("start"), every=opts.get("every"),
                        dates=opts.get("dates"), late=opts.get("late"), off=bool(off))
    if t.next_round_at is not None:
        return _("tournament #%(id)d: %(calendar)s", id=t.id, calendar=_calendar_words(ctx, t))
    if _every_alone(t):
        return _("tournament #%(id)d: %(calendar)s", id=t.id, calendar=_every_words(t))
    late = (_("a round waits for every table of the round before") if t.late == "wait"
            else _("a round may start while a table of the round before is still playing"))
    return _("tournament #%(id)d has no round to date: you start each round with TOURNAMENT START %(id)d (%(late)s)",
             id=t.id, late=late)


def _invite(ctx: Context, line: Line) -> str:
    user = need_user(ctx)
    tid = _number(line, "INVITE")
    addresses = [a for word in line.args[2:] for a in word.split(",")]
    t, new = season.invite(ctx.session, user, tid, addresses)
    mails.invitations(ctx.session, t, new, user)
    return ngettext("tournament #%(id)d: %(num)d address newly invited and sent how to enter",
                    "tournament #%(id)d: %(num)d addresses newly invited and sent how to enter", len(new), id=t.id)


def _join(ctx: Context, line: Line) -> str:
    user = need_user(ctx)
    tid = _number(line, "JOIN")
    t = season.join(ctx.session, user, tid, password=" ".join(line.args[2:3]) or None)
    n = len(season.entries(ctx.session, t))
    return ngettext("you have entered tournament #%(id)d (%(name)s); %(num)d player has entered so far",
                    "you have entered tournament #%(id)d (%(name)s); %(num)d players have entered so far", n,
                    id=t.id, name=t.name)


def _leave(ctx: Context, line: Line) -> str:
    user = need_user(ctx)
    left = season.leave(ctx.session, user, _number(line, "LEAVE"))
    for g in left.games:
        ctx.boards_for[g.id] = lazy_gettext("%(name)s has left the tournament; a bot plays their seat to the end "
                                            "of this game.", name=user.name)
    if left.games:
        return _("you have left tournament #%(id)d: a bot plays your seat in game #%(game)d to its end, and you "
                 "sit out the later rounds", id=left.tournament.id, game=left.games[0].id)
    return _("you have left tournament #%(id)d", id=left.tournament.id)


def _shown(ctx: Context, tid: int):
    t = season.get(ctx.session, tid)
    if not season.may_see(ctx.session, t, ctx.user):
        raise UserError(_("there is no tournament #%(id)d", id=tid), example="TOURNAMENT LIST", code="no_tournament")
    return t


def standings_text(ctx: Context, t) -> str:
    rows = season.standings(ctx.session, t)
    names = season.names(ctx.session, [r.player for r in rows])
    out = []
    for r in rows:
        out.append(ngettext("%(place)d. %(name)s: %(points)s (%(num)d game, %(wins)d won)",
                            "%(place)d. %(name)s: %(points)s (%(num)d games, %(wins)d won)", r.played,
                            place=r.place, name=names.get(r.player, "?"), points=scoring.format_number(r.points),
                            wins=r.wins)
                   + (" — " + _("left") if r.forfeits else "")
                   + (" — " + _("adjusted %(points)s", points=view.signed(r.adjusted)) if r.adjusted else ""))
    for a in view.adjustments(ctx.session, t):
        out.append(_("Adjusted by the director: %(name)s %(points)s, %(reason)s", name=a.name, points=a.points,
                     reason=a.reason))
    return "\n".join(out) or _("nobody has entered yet")


def _state(t) -> str:
    """Where a tournament stands, in the reader's words."""
    return {"entry": _("open for entry"), "running": _("round %(round)d is being played", round=t.round),
            "finished": _("finished"), "cancelled": _("cancelled")}[t.status]


def _status(ctx: Context, line: Line) -> str:
    s = ctx.session
    t = _shown(ctx, _number(line, "STATUS"))
    n = len(season.in_play(s, t))
    head = _state(t)
    lines = [ngettext("tournament #%(id)d, %(name)s (%(game)s, %(format)s, tables of %(size)d): %(status)s; "
                      "%(num)d player in play",
                      "tournament #%(id)d, %(name)s (%(game)s, %(format)s, tables of %(size)d): %(status)s; "
                      "%(num)d players in play", n, id=t.id, name=t.name, game=get_game(t.game).title,
                      format=t.format, size=t.table_size, status=head)]
    names = season.names(s, [e.user_id for e in season.entries(s, t)])
    for row in season.tables_of(s, t, t.round) if t.round else []:
        status = season.game_status(s, row.game_id)
        lines.append(_("table %(table)d: game #%(game)d (%(status)s): %(players)s", table=row.number,
                       game=row.game_id, status=status, players=", ".join(names.get(p, "?") for p in row.players)))
    byes = season.rounds_of(s, t)[-1].byes if t.round else []
    if byes:
        lines.append(_("sitting out: %(players)s", players=", ".join(names.get(p, "?") for p in byes)))
    if t.next_round_at is not None:
        lines.append(_calendar_words(ctx, t))
    ctx.paragraphs.append(standings_text(ctx, t))
    return "\n".join(lines)


def _standings(ctx: Context, line: Line) -> str:
    t = _shown(ctx, _number(line, "STANDINGS"))
    ctx.paragraphs.append(standings_text(ctx, t))
    return _("the standings of tournament #%(id)d (%(name)s) are below", id=t.id, name=t.name)


def _list(ctx: Context, line: Line) -> str:
    shown = season.list_shown(ctx.session, ctx.user, limit=20)
    if not shown:
        return _("No tournaments right now: start one with TOURNAMENT NEW <game>.")
    out = []
    for t in shown:
        n = len(season.entries(ctx.session, t))
        out.append(ngettext("#%(id)d %(name)s (%(game)s): %(status)s, %(num)d player",
                            "#%(id)d %(name)s (%(game)s): %(status)s, %(num)d players", n, id=t.id, name=t.name,
                            game=get_game(t.game).title, status=_state(t)))
    return "\n".join(out)


def _start(ctx: Context, line: Line) -> str:
    user = need_user(ctx)
    t, rnd, made = runs.start(ctx.session, user, _number(line, "START"))
    for g in made:
        ctx.boards_for[g.id] = lazy_gettext("Tournament #%(id)d, round %(round)d: game #%(game)d has started: "
                                            "%(names)s.", id=t.id, round=rnd.number, game=g.id,
                                            names=", ".join(seating.names(ctx.session, g.id)))
    return ngettext("round %(round)d of tournament #%(id)d has started at %(num)d table",
                    "round %(round)d of tournament #%(id)d has started at %(num)d tables", len(made),
                    round=rnd.number, id=t.id)


def _close(ctx: Context, line: Line) -> str:
    user = need_user(ctx)
    t = runs.close(ctx.session, user, _number(line, "CLOSE"))
    if t.status == "cancelled":
        return _("tournament #%(id)d is cancelled before its first round", id=t.id)
    ctx.paragraphs.append(standings_text(ctx, t))
    return _("tournament #%(id)d is over; its final standings are below", id=t.id)


def _seat(ctx: Context, line: Line) -> str:
    user = need_user(ctx)
    tid = _number(line, "SEAT")
    t, player = runs.seat(ctx.session, user, tid, " ".join(line.args[2:3]))
    return _("%(name)s is entered in tournament #%(id)d and seated from round %(round)d on; they have been told",
             name=player.name, id=t.id, round=t.round + 1)


def _adjust(ctx: Context, line: Line) -> str:
    user = need_user(ctx)
    tid = _number(line, "ADJUST")
    t, row = runs.adjust(ctx.session, user, tid, " ".join(line.args[2:3]), " ".join(line.args[3:4]),
                         " ".join(line.args[4:]))
    ctx.paragraphs.append(standings_text(ctx, t))
    return _("the points of %(name)s in tournament #%(id)d are adjusted by %(points)s (%(reason)s); they have been "
             "told, and the standings are below", name=ctx.session.get(type(user), row.user_id).name, id=t.id,
             points=view.signed(row.points), reason=row.reason)


HANDLERS = {"NEW": _new, "JOIN": _join, "LEAVE": _leave, "STATUS": _status, "STANDINGS": _standings, "LIST": _list,
            "START": _start, "CLOSE": _close, "SCHEDULE": _schedule, "INVITE": _invite, "SEAT": _seat,
            "ADJUST": _adjust}


def do_tournament(ctx: Context, line: Line) -> str:
    return HANDLERS[_action(line)](ctx, line)


def _reads(line: Line) -> bool:
    return bool(line.args) and line.args[0].upper() in READING


def _secrets(line: Line) -> list[str]:
    if not line.args:
        return []
    if line.args[0].upper() == "JOIN":
        return line.args[2:3]
    return [a.split("=", 1)[1] for a in line.args if a.lower().startswith("password=") and a.split("=", 1)[1]]


TOURNAMENT = Command(
    "TOURNAMENT", do_tournament, FAMILY, reads_when=_reads, secrets=_secrets,
    # leaving gives up the player's running tables to bots and every later round: it cannot be undone
    holds_when=lambda line: bool(line.args) and line.args[0].upper() == "LEAVE", held_as="TOURNAMENT LEAVE",
    syntax=("TOURNAMENT NEW <game> [players=N] [rounds=3] [format=swiss|robin|elimination] [option=value ...]",
            "TOURNAMENT JOIN <id> [password]", "TOURNAMENT LEAVE <id>", "TOURNAMENT STATUS <id>",
            "TOURNAMENT STANDINGS <id>", "TOURNAMENT LIST", "TOURNAMENT START <id>", "TOURNAMENT CLOSE <id>",
            "TOURNAMENT SCHEDULE <id> [start=YYYY-MM-DD every=14d | dates=...] [late=wait|go] | off",
            "TOURNAMENT INVITE <id> <address>[,<address>...]", "TOURNAMENT SEAT <id> <address>",
            "TOURNAMENT ADJUST <id> <address> <points> <reason>"),
    usage=(Usage(N_("TOURNAMENT NEW <game> [players=N] [rounds=3]\n"
                    "[format=swiss|robin|elimination] [name=...] [entry=days]"),
                 N_("make a tournament and direct it; players: the seats\n"
                    "at each table (also private, password=, max=,\n"
                    "min_rating=, min_reliability=)"), Section.TOURNAMENTS, 10),
           Usage(N_("TOURNAMENT JOIN <id> [password]\n| LEAVE <id>"),
                 N_("enter a tournament, or leave it (a bot plays your\n"
                    "seat in this round's game to its end)"), Section.TOURNAMENTS, 20),
           Usage(N_("TOURNAMENT LIST | STATUS <id>\n| STANDINGS <id>"),
                 N_("the tournaments, one's round and tables, its\nstandings"), Section.TOURNAMENTS, 30),
           Usage(N_("TOURNAMENT START <id>\n| CLOSE <id>"),
                 N_("the director starts the next round, or ends the\ntournament"), Section.TOURNAMENTS, 40),
           Usage(N_("TOURNAMENT SCHEDULE <id> start=2027-01-10 every=14d\n[late=wait|go] | INVITE <id> <addresses>"),
                 N_("the director dates the rounds (each starts on its\ndate), or invites more addresses"),
                 Section.TOURNAMENTS, 50),
           Usage(N_("TOURNAMENT SEAT <id> <address>\n| ADJUST <id> <address> -1 <reason>"),
                 N_("the director enters a player (from the next round),\nor adjusts a player's points, saying why"),
                 Section.TOURNAMENTS, 60)),
    doc="tournaments and leagues ([tournaments.md](tournaments.md)). `NEW` makes one (you direct it): `players` "
        "seats per table, `format` `swiss` (a league of `rounds` rounds), `robin` or `elimination` (`advance`: how "
        "many of each table go on), `scoring` `places` or `score`, `points=4-2-1-0`, `tiebreaks=wins,opponents`, "
        "`deadline`, `policy`, `bot`, `entry` (days entry stays open), `max`, `private` with `invite=a@b,c@d`, "
        "`password=<word>`, `min_rating`, `min_reliability`, `name=...`, `director=<address>` (another account "
        "directs it), the rounds' dates (`start=2027-01-10` and "
        "`every=14d`, or `dates=2027-01-10,2027-01-24`; `every=` alone: each round that many days after the one "
        "before started, the first started by the director; a time may follow, `2027-01-10T18:00`, in the director's "
        "time zone), `late=wait|go`, and the game's own options. `JOIN` enters "
        "(while entry is open, and the conditions are met); `LEAVE` leaves at once (during a round a bot plays "
        "your seat to the end of its game, which you forfeit, and you sit out later rounds). `STATUS`, "
        "`STANDINGS` and `LIST` only read. The director's `START` seats the next round (every table a game, "
        "started at once) when the last one has finished (with `late=go`, also while a table of it still plays); "
        "`CLOSE` ends it (before the first round: cancels it). `SCHEDULE` dates the rounds to come (the first date "
        "is the next round's; each round then starts on its date, and the tournament closes itself after its last "
        "round) or changes `late`, `SCHEDULE <id> off` takes the dates away; `INVITE` invites more addresses, "
        "each sent how to enter; `SEAT <id> <address>` enters a registered player whatever the entry conditions, "
        "seated from the next round (a league only, once it has begun); `ADJUST <id> <address> <points> <reason>` "
        "adds or takes away points (`-1`, `+0.5`) with its reason, shown with the standings and told to the player")
