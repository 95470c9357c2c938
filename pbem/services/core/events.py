"""The events the core announces: how the rooms above hear that a game changed without the core
naming them.

An event is announced inside the announcer's transaction and is over before the announcer goes
on: its listeners run one after the other, in the order ``pbem/services/wiring.py`` subscribed
them, each with the event's arguments (positional, in the order given below). A listener's
exception is the announcer's, and rolls its transaction back. So announcing an event does exactly
what calling each listener there would do -- the same statements, the same mails, in the same
order -- while the core imports nothing above it.

The subscriptions are all made in ``pbem/services/wiring.py``, which ``pbem/services/__init__.py``
imports: whoever imports any service (a task, a page, a test) has them all.
"""
from __future__ import annotations

from typing import Callable


class Event:
    """A named event and its listeners, in the order they run."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._listeners: list[Callable[..., object]] = []

    @property
    def listeners(self) -> tuple[Callable[..., object], ...]:
        return tuple(self._listeners)

    def listen(self, fn: Callable[..., object]) -> Callable[..., object]:
        """Run ``fn`` after the listeners subscribed before it, each time the event is announced."""
        if fn in self._listeners:  # a second subscription would run it twice
            raise ValueError(f"{fn.__module__}.{fn.__qualname__} already listens to {self.name}")
        self._listeners.append(fn)
        return fn

    def announce(self, *args: object) -> None:
        for fn in self._listeners:
            fn(*args)

    def __repr__(self) -> str:
        return f"<event {self.name}>"


GAME_STARTED = Event("game_started")
"""An open game has started (``lifecycle.start``): its first position is stored, the seats'
clocks are set and the pre-moves due were played (``POSITION_CHANGED``). Arguments: ``(s, g)``.
Listeners, in order: ``turns.bots.game_started`` (once the transaction commits, a bot worker plays
for a bot seat to move), ``follow.notifications.started`` (the players' chat channels and the
game's table channel hear that it started)."""

MOVES_APPLIED = Event("moves_applied")
"""A seat's moves are in the record (``moves.submit_moves``): the game's row, the move log, the
thread and the snapshots are written, and ``GAME_FINISHED`` was announced if they ended the game;
the turn is not yet counted and the clocks not yet set. Arguments: ``(s, g, source)``, ``source``
as ``submit_moves`` was given it ("mail", "web", "bot", "premove", "admin", ...). Listeners:
``turns.bots.moves_applied`` (a bot seat now to move is played by a worker after the commit;
not after a bot's own move, which the loop that made it follows up)."""

POSITION_CHANGED = Event("position_changed")
"""A game's position changed -- it started, or moves were applied -- and each seat's clock has
been set for it (``moves.after_change``). Arguments: ``(s, g, source, now)``: ``source`` "start"
for a start, else as ``submit_moves`` was given it; ``now`` the caller's clock (the deadline
sweep passes its own) or None. Listeners: ``turns.premoves.position_changed`` (the pre-moves of
the seats now to act are played, in the order they were sent; not while an admin re-applies a
corrected move list)."""

GAME_FINISHED = Event("game_finished")
"""Moves have ended a game: announced once, by the transaction that sets its status "finished"
(``moves._persist``), after the record is written. Arguments: ``(s, g)``. Listeners:
``lobby.ratings.finished`` (its players rated, its result recorded, each player's finished game
counted), ``coach.review.finished`` (once the transaction commits, the players' decisions are
reviewed by the search on the bots' queue)."""

SEAT_LEFT = Event("seat_left")
"""A seat's player leaves it -- resigned, abandoned, opened to a replacement, ejected, replaced
(``seating._close``) -- before the seat's history records the end of their time in it. Arguments:
``(s, g, seat, reason)``: the seat's row and the reason in English ("resigned", "abandoned", ...).
Listeners: ``turns.premoves.seat_left`` (the player's pre-moves end with them: they were theirs to
play, not the seat's next player's nor a bot's)."""

POSTED = Event("posted")
"""A person's post (table talk or a private message, not a move or a notice) is in a game's thread
(``thread.post``). Arguments: ``(s, g, post)``. Listeners: ``follow.notifications.talk`` (to the
game's table channel and the players' channels that take talk, as each reader may read it)."""

BOARDS_QUEUED = Event("boards_queued")
"""A change of a game is being told to its table (``notify.queue_boards``): the observers' mails
are queued, the players' come next. Arguments: ``(s, g, headline, to_move)``: the headline (a
string, lazy string or callable, written per reader: ``lang.text``) and the seats now to move.
Listeners: ``follow.notifications.after_change`` ("your turn" to each player now to move, the end
of the game, and the change as the whole table is told it to the table channel)."""

REMINDER_DUE = Event("reminder_due")
"""A seat is reminded of its deadline (``notify.queue_reminder``), before its reminder mail (which
an address that bounces does not get). Arguments: ``(s, g, seat, user, deadline, stage, now)``:
the seat's row, its player, the deadline, the reminders the seat had before this one, the sweep's
clock. Listeners: ``follow.notifications.reminder`` (to the player's chat channels that take
reminders)."""

DIGEST_WRITTEN = Event("digest_written")
"""A player's daily digest is being written (``follow.messages.send_digests``), in the player's
language: its games' paragraphs are in the list, and the rooms above add theirs. Arguments:
``(s, user, paragraphs)``: the list to append to. Listeners: ``lobby.tournaments.mails.digest``
(the tournaments running that the player plays in: the round, their place and points)."""

ALL = (GAME_STARTED, MOVES_APPLIED, POSITION_CHANGED, GAME_FINISHED, SEAT_LEFT, POSTED, BOARDS_QUEUED,
       REMINDER_DUE, DIGEST_WRITTEN)
