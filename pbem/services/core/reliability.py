"""Reliability: how dependably a player keeps the table moving.

Four counters on the user, each kept in the transaction that causes it (so
the lobby and JOIN read them with the user, no query):

* ``turns_on_time``: a turn the player ended with their own move (by mail,
  on the web, or a pre-move) while their deadline had not passed;
* ``turns_late``: a deadline the player missed -- counted by the deadline
  sweep when it passes (with its grace), or by the move itself when the move
  comes after the deadline and before the sweep saw it (once per deadline);
* ``games_finished``: a game the player held a seat in at its end;
* ``games_left``: a running game the player resigned from, or whose seat the
  sweep abandoned after missed deadlines.

The figure is ``floor(100 * on_time / (on_time + late + left))``: the share of
deadlines met, where leaving a game counts as one more missed deadline. With
fewer than ``NEW_BELOW`` of those events the player is new: no figure yet, and
a game's minimum (``NEW ... min_reliability=90``) does not stop them joining."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import update
from sqlmodel import Session

from pbem.config import settings
from pbem.i18n import _, ngettext
from pbem.store.models import Game, Seat, User

from .clocks import LATE, aware
from .errors import UserError

NEW_BELOW = 5  # events (turns on time, late, games left) before a figure is shown
COUNTERS = ("turns_on_time", "turns_late", "games_finished", "games_left")
_USERS = User.__table__


def count(s: Session, user_id: int | None, counter: str) -> None:
    """One more of ``counter`` for the user: an UPDATE that adds one (two
    transactions counting at once both count); the session's copy of the
    user reads it again when next asked."""
    if user_id is None:
        return
    assert counter in COUNTERS
    s.connection().execute(update(_USERS).where(_USERS.c.id == user_id)
                           .values({counter: _USERS.c[counter] + 1}))
    user = s.identity_map.get(s.identity_key(User, user_id))
    if user is not None:
        s.expire(user, [counter])


@dataclass(frozen=True)
class Figure:
    on_time: int
    late: int
    finished: int
    left: int
    percent: int | None  # None: a new player

    @property
    def is_new(self) -> bool:
        return self.percent is None


def of(user: User) -> Figure:
    on_time, late, left = user.turns_on_time or 0, user.turns_late or 0, user.games_left or 0
    events = on_time + late + left
    percent = None if events < NEW_BELOW else (100 * on_time) // events
    return Figure(on_time, late, user.games_finished or 0, left, percent)


def check_join(g: Game, user: User) -> None:
    """Refuse a seat in ``g`` to a player below its minimum reliability. A new
    player (no figure yet) may join."""
    if g.min_reliability is None:
        return
    fig = of(user)
    if fig.percent is not None and fig.percent < g.min_reliability:
        # three counts, each agreeing with its own words
        raise UserError(_("game #%(id)d asks for a reliability of at least %(min)d%%, and yours is %(yours)d%% "
                          "(%(on_time)s, %(late)s, %(left)s); it takes players who keep their deadlines. Look for a "
                          "game without a minimum, or with a lower one", id=g.id, min=g.min_reliability,
                          yours=fig.percent,
                          on_time=ngettext("%(num)d turn on time", "%(num)d turns on time", fig.on_time),
                          late=ngettext("%(num)d late", "%(num)d late", fig.late),
                          left=ngettext("%(num)d game left", "%(num)d games left", fig.left)),
                        example="GAMES", code="below_min_reliability")


def parse_minimum(value) -> int | None:
    """``min_reliability=90`` of NEW and the web's form: a whole percent 0-100, or none."""
    if value is None or str(value).strip() == "":
        return None
    text = str(value).strip().rstrip("%")
    if not text.isdigit() or not 0 <= int(text) <= 100:
        raise UserError(_("min_reliability is a percent from 0 to 100 (got %(value)s)", value=repr(str(value))),
                        example="NEW spyrium players=4 min_reliability=90", code="bad_option")
    return int(text) or None


def turn_ended(s: Session, seat: Seat, clock: tuple[datetime | None, int], now: datetime) -> None:
    """The seat's player ended their turn with their own move; ``clock`` is
    the seat's (deadline, reminded) before the move. On time unless the
    deadline (with its grace) had passed; a deadline the sweep already
    counted as missed is not counted again."""
    deadline, reminded = clock
    if seat.user_id is None or seat.is_bot or reminded >= LATE:
        return
    grace = timedelta(minutes=settings().deadline_grace_minutes)
    late = deadline is not None and now > aware(deadline) + grace
    count(s, seat.user_id, "turns_late" if late else "turns_on_time")
