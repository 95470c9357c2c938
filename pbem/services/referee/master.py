"""The game master: each game has one, its creator unless another
registered user is named (``games.master_id``), with the judges' powers over
that game, by mail and on the web: the deadline, pause and resume, ejecting
and seating players, the no-move policy, ending the game by agreement and
handing the role over. Site admins keep every power in every game.

Each power is one function here, used by the mail commands and the Manage
page alike. Each checks who asks first (everyone else is refused with a
message that says who may do it), then the input (a clear error with an
example, nothing changed), then acts: an ``AuditLog`` row, a notice in the
game's thread and a mail to the table in each reader's language."""
from __future__ import annotations

import re
from datetime import datetime, time, timedelta, timezone

from sqlmodel import Session, select

from pbem.i18n import _, lazy_gettext, lazy_ngettext, ngettext
from pbem.store import names as names_
from pbem.store.models import AuditLog, Game, Seat, User, utcnow

from ..core import audit, clocks, games, lang, notices, notify, seating
from ..core.notices import Joined
from ..core.errors import Forbidden, UserError
from . import disputes

MAX_HOURS = 24 * 30  # as NEW's deadline=


def master_id(g: Game) -> int | None:
    return g.master_id if g.master_id is not None else g.creator_id


def master_of(s: Session, g: Game) -> User | None:
    mid = master_id(g)
    return s.get(User, mid) if mid is not None else None


def is_master(g: Game, user: User | None) -> bool:
    """May ``user`` use the master's powers in ``g``: its master, or a site admin."""
    return user is not None and (user.is_admin or user.id == master_id(g))


def require_master(s: Session, g: Game, user: User | None, example: str) -> User:
    if is_master(g, user):
        return user
    m = master_of(s, g)
    raise Forbidden(_("only the game master of game #%(id)d (%(name)s) or a site admin can do this; nothing "
                      "was changed", id=g.id, name=m.name if m else _("nobody")) if m else
                    _("only a site admin can do this in game #%(id)d; nothing was changed", id=g.id),
                    example=example, code="not_master")


def _running(g: Game, example: str) -> None:
    if g.status != "running":
        raise UserError(_("game #%(id)d is %(status)s; this works only while a game runs", id=g.id,
                          status=games.status_word(g.status)), example=example, code="not_running")


def find_user(s: Session, name: str, example: str) -> User:
    """The registered user of that name (names are told apart as REGISTER tells them apart)."""
    name = " ".join((name or "").split()).strip("\"'")
    if not name:
        raise UserError(_("name the user: their name as they registered it"), example=example, code="no_name")
    u = s.exec(select(User).where(User.name_key == names_.key(name))).first()
    if u is None or not u.confirmed:
        raise UserError(_("nobody is registered as %(name)s; name a user by the name they registered with",
                          name=repr(name[:40])), example=example, code="no_such_user")
    return u


def _tell(s: Session, g: Game, by: User, action: str, what, text, *, detail: str = "",
          paragraphs: list | None = None, at: datetime | None = None) -> AuditLog:
    """Audit, post in the thread and mail the table. ``what`` (the notice's first line) and
    ``text`` may be lazy strings or callables: each reader gets them in their language."""
    english = lang.english(text)
    row = AuditLog(user_id=by.id, game_id=g.id, action=action, detail=(detail or english)[:2000],
                   created_at=at or utcnow())
    s.add(row)
    s.add(notices.post(game_id=g.id, user_id=by.id, value=text))
    s.flush()
    notify.queue_notice(s, g, what, text, paragraphs=paragraphs, seats=_table(s, g))
    return row


def _table(s: Session, g: Game) -> set[int]:
    """The seats a notice goes to: not one open to a replacement, whose former player must not get its new
    reply address (a seat's address speaks for it: it must not reach whoever left it)."""
    return {x.seat for x in seating.seats(s, g.id) if not x.open_for_replacement}


def _by(s: Session, g: Game, by: User) -> str:
    """How the notices name who acted, at the start of a sentence: "The game master Ann" or "The site admin Eve"."""
    if by.id == master_id(g):
        return lazy_gettext("The game master %(name)s", name=by.name)
    return lazy_gettext("The site admin %(name)s", name=by.name)


# ---------------------------------------------------------------- who is master


def appoint(s: Session, creator: User, g: Game, named: User) -> None:
    """NEW ... master=<name>: the creator names another user the game's master from the start."""
    if named.id == creator.id or g.creator_id != creator.id:
        return
    g.master_id = named.id
    s.add(g)
    s.add(AuditLog(user_id=creator.id, game_id=g.id, action="master_changed",
                   detail=f"game master {named.name}, named by the creator {creator.name}"))
    s.flush()


def set_master(s: Session, by: User, g: Game, name: str) -> User:
    """MASTER <game> <name>: the master (or an admin) hands the role to another registered user."""
    example = f"MASTER {g.id} Anna K."
    require_master(s, g, by, example)
    if g.status in ("finished", "aborted", "cancelled"):
        raise UserError(_("game #%(id)d is %(status)s; it needs no master any more", id=g.id,
                          status=games.status_word(g.status)), code="game_over")
    new = find_user(s, name, example)
    if new.id == master_id(g):
        raise UserError(_("%(name)s is already the game master of game #%(id)d", name=new.name, id=g.id),
                        example=example, code="already_master")
    old = master_of(s, g)
    g.master_id = new.id
    s.add(g)
    old_name, new_name = old.name if old else "", new.name
    _tell(s, g, by, "master_changed", lazy_gettext("new game master"),
          lazy_gettext("%(new)s is now the game master of game #%(id)d (before: %(old)s).", new=new_name, id=g.id,
                       old=old_name or _("nobody")),
          detail=f"game master {old_name or '-'} -> {new_name} by {by.name}")
    return new


# ---------------------------------------------------------------- deadlines

DEADLINE_EXAMPLE = "DEADLINE {id} +24h"
_EXTEND_RE = re.compile(r"^\+\s*(\d{1,4})\s*(h|hours?|d|days?)?$", re.I)
_HOURS_RE = re.compile(r"^hours\s*=\s*(\d{1,4})$", re.I)


def _examples(gid: int) -> str:
    return f"DEADLINE {gid} +24h | DEADLINE {gid} 2026-12-20 18:00 | DEADLINE {gid} hours=72"


def parse_when(text: str, tz: str, gid: int) -> datetime:
    """``YYYY-MM-DD HH:MM`` (or a day alone: its end, 23:59) in the zone ``tz``, as UTC."""
    t = " ".join((text or "").replace("T", " ").split())
    m = re.fullmatch(r"(\d{4}-\d{2}-\d{2})(?: (\d{1,2}):(\d{2}))?", t)
    try:
        if not m:
            raise ValueError(t)
        day = datetime.strptime(m.group(1), "%Y-%m-%d").date()
        at = time(int(m.group(2)), int(m.group(3))) if m.group(2) else time(23, 59)
    except ValueError:
        raise UserError(_("DEADLINE takes +hours to extend, a day and time (YYYY-MM-DD HH:MM, in your time zone "
                          "%(tz)s) to set, or hours=N for every move", tz=tz), example=_examples(gid),
                        code="bad_deadline") from None
    return datetime.combine(day, at, tzinfo=clocks.zone(tz)).astimezone(timezone.utc)


def _clocks(s: Session, g: Game) -> list[Seat]:
    """The human seats to move now whose clock runs."""
    to_move = games.engine_for(g).to_move(games.state_at(s, g))
    return [x for x in seating.seats(s, g.id) if x.seat in to_move and not x.is_bot and x.deadline_at is not None]


def set_deadline(s: Session, by: User, g: Game, spec: str, now: datetime | None = None) -> str:
    """DEADLINE <game> +24h (extend the deadline of the seats to move), DEADLINE <game> 2026-12-20 18:00
    (set it, in the master's time zone), DEADLINE <game> hours=72 (each move's hours from now on, the
    clocks running now included). Returns what was done, for the answer."""
    example = _examples(g.id)
    require_master(s, g, by, example)
    _running(g, example)
    now = now or utcnow()
    spec = " ".join((spec or "").split())
    if m := _HOURS_RE.match(spec):
        hours = int(m.group(1))
        if not 1 <= hours <= MAX_HOURS:
            raise UserError(_("the deadline is 1 to 720 hours"), example=f"DEADLINE {g.id} hours=72",
                            code="bad_deadline")
        before = g.deadline_hours
        g.deadline_hours = hours
        s.add(g)
        for seat in _clocks(s, g):
            clocks.recompute(s, g, seat)
        who = _by(s, g, by)
        _tell(s, g, by, "deadline_hours", lazy_gettext("deadline changed"),
              lazy_ngettext("%(who)s has set the time for each move in game #%(id)d to %(num)d hour (it was "
                            "%(before)d), the moves awaited now included.",
                            "%(who)s has set the time for each move in game #%(id)d to %(num)d hours (it was "
                            "%(before)d), the moves awaited now included.", hours, who=who, id=g.id, before=before),
              detail=f"hours per move {before} -> {hours} by {by.name}")
        return ngettext("each move of game #%(id)d now has %(num)d hour; the table is told",
                        "each move of game #%(id)d now has %(num)d hours; the table is told", hours, id=g.id)
    seats = _clocks(s, g)
    if not seats:
        raise UserError(_("no player's clock runs in game #%(id)d now (it is paused, or a bot is to move)",
                          id=g.id), example=f"STATUS {g.id}", code="no_clock")
    names = seating.names(s, g.id)
    who = _by(s, g, by)
    if m := _EXTEND_RE.match(spec):
        n = int(m.group(1))
        delta = timedelta(days=n) if (m.group(2) or "h").lower().startswith("d") else timedelta(hours=n)
        if not timedelta(hours=1) <= delta <= timedelta(hours=MAX_HOURS):
            raise UserError(_("a deadline is extended by 1 to 720 hours"), example=f"DEADLINE {g.id} +24h",
                            code="bad_deadline")
        for seat in seats:
            seat.deadline_at = clocks.aware(seat.deadline_at) + delta
        hours = int(delta.total_seconds() // 3600)
        text = lambda: ngettext(  # noqa: E731
            "%(who)s has extended the deadline of %(players)s in game #%(id)d by %(num)d hour.",
            "%(who)s has extended the deadline of %(players)s in game #%(id)d by %(num)d hours.",
            hours, who=lang.text(who), players=_(" and ").join(names[x.seat] for x in seats), id=g.id)
        detail = f"deadline of seat(s) {', '.join(str(x.seat + 1) for x in seats)} extended by {hours} h by {by.name}"
        done = ngettext("the deadline of game #%(id)d is %(num)d hour later; the table is told",
                        "the deadline of game #%(id)d is %(num)d hours later; the table is told", hours, id=g.id)
    else:
        at = parse_when(spec, by.timezone or "UTC", g.id)
        if at <= now:
            raise UserError(_("%(when)s has passed; a deadline is set in the future", when=spec),
                            example=example, code="bad_deadline")
        if at > now + timedelta(hours=MAX_HOURS):
            raise UserError(_("a deadline is set at most 30 days ahead"), example=example, code="bad_deadline")
        for seat in seats:
            seat.deadline_at = at
        text = lambda: _("%(who)s has set the deadline of %(players)s in game #%(id)d to %(when)s (UTC).",  # noqa: E731
                         who=lang.text(who), players=_(" and ").join(names[x.seat] for x in seats), id=g.id,
                         when=lang.when(at, "UTC"))
        detail = f"deadline of seat(s) {', '.join(str(x.seat + 1) for x in seats)} set to {at:%Y-%m-%d %H:%M} UTC " \
                 f"by {by.name}"
        done = _("the deadline of game #%(id)d is set; the table is told", id=g.id)
    for seat in seats:
        seat.reminded = 0  # the reminders count down to the new deadline
        s.add(seat)
    s.flush()
    _tell(s, g, by, "deadline_changed", lazy_gettext("deadline changed"), text, detail=detail)
    return done


# ---------------------------------------------------------------- pause and resume


def pause(s: Session, by: User, g: Game, now: datetime | None = None) -> None:
    """PAUSE <game>: no moves, no clock, until RESUME (as an admin's pause over a dispute)."""
    require_master(s, g, by, f"PAUSE {g.id}")
    _running(g, f"PAUSE {g.id}")
    if g.paused:
        raise UserError(_("game #%(id)d is already paused", id=g.id), example=f"RESUME {g.id}", code="paused")
    g.paused = True
    s.add(g)
    s.flush()
    who = _by(s, g, by)
    _tell(s, g, by, "game_paused", lazy_gettext("game paused"),
          lazy_gettext("%(who)s has paused game #%(id)d: no moves are taken and no deadline runs until it "
                       "resumes.", who=who, id=g.id), detail=f"paused by {by.name}", at=now)


def resume(s: Session, by: User, g: Game, now: datetime | None = None) -> None:
    """RESUME <game>: moves again; each clock that ran gets back the time the pause took."""
    require_master(s, g, by, f"RESUME {g.id}")
    _running(g, f"RESUME {g.id}")
    if not g.paused:
        raise UserError(_("game #%(id)d is not paused", id=g.id), example=f"PAUSE {g.id}", code="not_paused")
    held = [d for d in disputes.queue(s, game_id=g.id) if d.pauses_game]
    if held and not by.is_admin:
        raise Forbidden(_("game #%(id)d is paused by a site admin while dispute #%(dispute)d is settled; only a "
                          "site admin resumes it", id=g.id, dispute=held[0].id), code="dispute_pause")
    for d in held:  # an admin's resume lifts the dispute's pause too
        d.pauses_game = False
        s.add(d)
    g.paused = False
    s.add(g)
    s.flush()
    clocks.resume_clocks(s, g, now or utcnow())
    who = _by(s, g, by)
    _tell(s, g, by, "game_resumed", lazy_gettext("game resumed"),
          lazy_gettext("%(who)s has resumed game #%(id)d: moves are taken again, and each deadline is moved "
                       "on by the time the pause took.", who=who, id=g.id), detail=f"resumed by {by.name}")


# ---------------------------------------------------------------- seats


def _find_seat(s: Session, g: Game, who: str, example: str) -> Seat:
    """A seat by its number (1-based) or its player's name."""
    who = " ".join((who or "").split()).strip("\"'")
    rows = seating.seats(s, g.id)
    folded = who.casefold()
    number = folded[5:].strip() if folded.startswith("seat ") else folded
    if number.isdigit():
        for seat in rows:
            if seat.seat == int(number) - 1:
                return seat
        raise UserError(_("game #%(id)d has seats 1 to %(players)d", id=g.id, players=g.players),
                        example=example, code="no_seat")
    names = seating.names(s, g.id)
    found = [x for x in rows if x.seat < len(names) and " ".join(names[x.seat].split()).casefold() == folded]
    if len(found) != 1:
        raise UserError(_("%(who)s is not a seat of game #%(id)d: name a seat by its number or its player's "
                          "name (%(names)s)", who=repr(who[:40]), id=g.id,
                          names=", ".join(f"{i + 1} {n}" for i, n in enumerate(names))),
                        example=example, code="no_seat")
    return found[0]


def eject(s: Session, by: User, g: Game, who: str) -> Seat:
    """EJECT <game> <seat or name>: the player leaves the seat; as an abandoned seat, it opens to a
    replacement and a bot plays it meanwhile."""
    example = f"EJECT {g.id} 2"
    require_master(s, g, by, example)
    _running(g, example)
    seat = _find_seat(s, g, who, example)
    number = seat.seat + 1
    if seat.open_for_replacement or seat.user_id is None:
        raise UserError(_("seat %(seat)d of game #%(id)d has no player to eject (a bot plays it)", seat=number,
                          id=g.id), example=f"REPLACE {g.id} {number} Anna K.", code="seat_empty")
    if seat.user_id == by.id:
        raise UserError(_("to leave your own seat, RESIGN"), example=f"RESIGN {g.id}", code="own_seat")
    name = seating.names(s, g.id)[seat.seat]
    who_ = _by(s, g, by)
    # the table is told first: the ejected player's notice still names the seat's old reply address, which
    # dies below (the seat's new address is never mailed to its former player)
    _tell(s, g, by, "seat_ejected", lazy_gettext("player ejected"),
          lazy_gettext("%(who)s has ejected %(name)s from seat %(seat)d of game #%(id)d. A bot plays the seat "
                       "until a replacement takes it (REPLACE %(id)d %(seat)d).", who=who_, name=name, seat=number,
                       id=g.id), detail=f"seat {number} ({name}) ejected by {by.name}")
    seating._close(s, g, seat, "ejected by the game master")
    seating._open(s, g, seat)
    clocks.refresh(s, g, games.state_at(s, g), utcnow())
    return seat


def assign(s: Session, by: User, g: Game, number: int, name: str) -> Seat:
    """REPLACE <game> <seat> <name>: the master seats a registered user in an open seat."""
    example = f"REPLACE {g.id} {number} Anna K."
    require_master(s, g, by, example)
    _running(g, example)
    seat = _find_seat(s, g, str(number), example)
    if not seat.open_for_replacement:
        raise UserError(_("seat %(seat)d of game #%(id)d is not open to a replacement; EJECT its player first",
                          seat=number, id=g.id), example=f"EJECT {g.id} {number}", code="seat_not_open")
    user = find_user(s, name, example)
    if seating.seat_of(s, g.id, user.id) is not None:
        raise UserError(_("%(name)s already has a seat in game #%(id)d", name=user.name, id=g.id), example=example,
                        code="already_seated")
    seating.hand_over(s, g, seat, user, "seated by the master")
    s.add(AuditLog(user_id=by.id, game_id=g.id, action="seat_assigned",
                   detail=f"seat {number} to {user.name} by {by.name}"))
    who = _by(s, g, by)
    text = lazy_gettext("%(who)s has given seat %(seat)d of game #%(id)d to %(name)s, who plays it from ply "
                        "%(ply)d.", who=who, seat=number, id=g.id, name=user.name, ply=g.ply)
    s.add(notices.post(game_id=g.id, user_id=by.id, seat=seat.seat, value=text))
    s.flush()
    clocks.refresh(s, g, games.state_at(s, g), utcnow())
    # the newcomer needs the board and the seat's reply address even after STOP: every seat gets its board
    notify.queue_boards(s, g, text, essential=True)
    return seat


# ---------------------------------------------------------------- the no-move policy


def set_policy(s: Session, by: User, g: Game, policy: str, after: int | None = None,
               level: str | None = None) -> None:
    """POLICY <game> wait|bot [level]|abandon [after=N]."""
    example = f"POLICY {g.id} bot"
    require_master(s, g, by, example)
    if g.status not in ("open", "running"):
        raise UserError(_("game #%(id)d is %(status)s; its policy no longer matters", id=g.id,
                          status=games.status_word(g.status)), code="game_over")
    policy = (policy or "").strip().lower()
    if policy not in games.POLICIES:
        raise UserError(_("the no-move policy is one of %(list)s", list=", ".join(games.POLICIES)),
                        example=f"{example} | POLICY {g.id} abandon after=3", code="bad_policy")
    if after is not None and not 1 <= after <= 20:
        raise UserError(_("after= is 1 to 20 missed deadlines"), example=f"POLICY {g.id} abandon after=3",
                        code="bad_policy")
    if level is not None:
        level = games.check_level(level, f"POLICY {g.id} bot strong")
    before = g.policy
    g.policy = policy
    if after is not None:
        g.abandon_after = after
    if level is not None:
        g.bot_level = level
    s.add(g)
    s.flush()
    who, n, lvl = _by(s, g, by), g.abandon_after, g.bot_level

    changed = lazy_gettext("%(who)s has changed what happens in game #%(id)d when a deadline passes: %(policy)s.",
                           who=who, id=g.id, policy=notify.policy_words(policy, n))
    text = Joined([changed, lazy_gettext("The bot plays at level %(level)s.",
                                         level=lazy_gettext(notify.LEVEL_WORDS[lvl]))], " ") \
        if policy == "bot" else changed

    _tell(s, g, by, "policy_changed", lazy_gettext("no-move policy changed"), text,
          detail=f"policy {before} -> {policy}" + (f" after {after}" if after else "")
          + (f" level {level}" if level else "") + f" by {by.name}")


# ---------------------------------------------------------------- ending the game by agreement

ABORT_ACTIONS = ("abort_proposed", "abort_agreed", "abort_refused", "game_aborted")


def _voters(s: Session, g: Game) -> set[int]:
    """Who must agree to end the game: every remaining human player."""
    return {x.user_id for x in seating.seats(s, g.id) if x.user_id and not x.resigned and not x.is_bot
            and not x.open_for_replacement}


def open_proposal(s: Session, g: Game) -> tuple[AuditLog, set[int]] | None:
    """The master's open proposal to end the game, and who has agreed to it so far."""
    rows = list(s.exec(select(AuditLog).where(AuditLog.game_id == g.id, AuditLog.action.in_(ABORT_ACTIONS))
                       .order_by(AuditLog.id)))
    start = None
    for i, r in enumerate(rows):
        if r.action == "abort_proposed":
            start = i
        elif r.action in ("abort_refused", "game_aborted"):
            start = None
    if start is None or g.status != "running":
        return None
    agreed = {r.user_id for r in rows[start + 1:] if r.action == "abort_agreed"}
    return rows[start], agreed


def _end(s: Session, g: Game, by: User | None, how: str, paragraphs: list | None = None) -> None:
    g.status = "aborted"
    g.paused = False
    g.updated_at = utcnow()
    s.add(g)
    s.flush()
    clocks.refresh(s, g, games.state_at(s, g), utcnow())  # a game that does not run has no clock
    s.add(AuditLog(user_id=by.id if by else None, game_id=g.id, action="game_aborted", detail=how))
    text = lazy_gettext("Game #%(id)d has been stopped without a result: it takes no more moves, and its record "
                        "stays.", id=g.id)
    s.add(notices.post(game_id=g.id, user_id=by.id if by else None, value=text))
    s.flush()
    notify.queue_notice(s, g, lazy_gettext("game ended"), text, paragraphs=paragraphs, seats=_table(s, g))


def propose_end(s: Session, by: User, g: Game, reason: str = "") -> bool:
    """ABORT <game> [reason]: the master proposes to end the game; it ends when every remaining human
    player agrees (ABORT <game> YES). Returns True when it ended at once (nobody else to ask)."""
    example = f"ABORT {g.id}"
    require_master(s, g, by, example)
    _running(g, example)
    if open_proposal(s, g) is not None:
        raise UserError(_("ending game #%(id)d is already proposed; the players answer ABORT %(id)d YES or NO",
                          id=g.id), example=f"ABORT {g.id} YES", code="already_proposed")
    reason = " ".join((reason or "").split())[:500]
    s.add(AuditLog(user_id=by.id, game_id=g.id, action="abort_proposed", detail=reason or "-"))
    if seating.seat_of(s, g.id, by.id) is not None:  # the master who plays agrees by proposing
        s.add(AuditLog(user_id=by.id, game_id=g.id, action="abort_agreed", detail="the proposer"))
    s.flush()
    if _voters(s, g) <= open_proposal(s, g)[1]:
        _end(s, g, by, f"proposed by {by.name}; nobody else to ask",
             paragraphs=[lazy_gettext("Its game master ended it; no other player had to agree.")])
        return True
    who = _by(s, g, by)
    said = lazy_gettext("%(who)s proposes to end game #%(id)d here, without a result. It ends when every player "
                        "agrees: answer ABORT %(id)d YES to agree or ABORT %(id)d NO to refuse.", who=who, id=g.id)
    because = [lazy_gettext("Reason: %(reason)s", reason=reason)] if reason else None
    s.add(notices.post(game_id=g.id, user_id=by.id, value=Joined([said, lazy_gettext("Reason: %(reason)s",
                                                                                      reason=reason)], "\n")
                       if reason else said))
    s.flush()
    notify.queue_notice(s, g, lazy_gettext("end of the game proposed"), said, paragraphs=because,
                        seats=_table(s, g))
    return False


def vote_end(s: Session, user: User, g: Game, agree: bool) -> str:
    """ABORT <game> YES | NO by a player. Returns "ended", "agreed" or "refused"."""
    seat = seating.seat_of(s, g.id, user.id)
    if seat is None or seat.resigned or seat.open_for_replacement:
        raise Forbidden(_("only the players of game #%(id)d answer a proposal to end it", id=g.id),
                        code="no_seat")
    prop = open_proposal(s, g)
    if prop is None:
        raise UserError(_("nobody has proposed to end game #%(id)d; its game master may (ABORT %(id)d)", id=g.id),
                        example=f"STATUS {g.id}", code="no_proposal")
    name = user.name
    if not agree:
        s.add(AuditLog(user_id=user.id, game_id=g.id, action="abort_refused", detail=f"by {name}"))
        text = lazy_gettext("%(name)s refused to end game #%(id)d; the game goes on.", name=name, id=g.id)
        s.add(notices.post(game_id=g.id, user_id=user.id, value=text))
        s.flush()
        notify.queue_notice(s, g, lazy_gettext("the game goes on"), text, seats=_table(s, g))
        return "refused"
    if user.id in prop[1]:
        raise UserError(_("you have already agreed to end game #%(id)d; the others are waited for", id=g.id),
                        code="already_agreed")
    s.add(AuditLog(user_id=user.id, game_id=g.id, action="abort_agreed", detail=f"by {name}"))
    s.flush()
    if _voters(s, g) <= open_proposal(s, g)[1]:
        _end(s, g, user, "every player agreed", paragraphs=[lazy_gettext("Every player agreed to end it.")])
        return "ended"
    return "agreed"


def end_now(s: Session, admin: User, g: Game, reason: str) -> None:
    """ABORT <game> NOW <reason>: a site admin ends the game at once."""
    audit.require_admin(admin)
    reason = audit.require_reason(reason)
    _running(g, f"ABORT {g.id} NOW the players have left")
    s.add(AuditLog(user_id=admin.id, game_id=g.id, action="abort_proposed", detail=f"at once: {reason}"))
    s.add(notices.post(game_id=g.id, user_id=admin.id,
                       value=lazy_gettext("A site admin ended game #%(id)d. Reason: %(reason)s", id=g.id,
                                          reason=reason)))
    s.flush()
    _end(s, g, admin, f"ended at once by the site admin {admin.name}: {reason}",
         paragraphs=[lazy_gettext("A site admin ended it at once. Reason: %(reason)s", reason=reason)])
