"""Who listens to the core's events: every subscription, in the order the listeners run.

The core announces what happened to a game (services/core/events.py, where each event says when
it is announced and with what); the rooms above react here, and nowhere else. A listener runs
inside the announcer's transaction, before the announcer goes on, so the order below is the
order of their statements and mails. ``pbem/services/__init__.py`` imports this module: any
import of a service has every listener subscribed."""
from __future__ import annotations

from .coach import review
from .core import events
from .follow import notifications
from .lobby import ratings
from .lobby.tournaments import mails as tournament_mails
from .turns import bots, premoves

# a game started: a bot worker for a bot seat to move (after the commit), then the chat channels
events.GAME_STARTED.listen(bots.game_started)
events.GAME_STARTED.listen(notifications.started)

# moves are in the record: a bot worker for a bot seat now to move (after the commit)
events.MOVES_APPLIED.listen(bots.moves_applied)

# the clocks are set for the new position: the pre-moves now due are played
events.POSITION_CHANGED.listen(premoves.position_changed)

# a move ended the game: its players rated, its result recorded
events.GAME_FINISHED.listen(ratings.finished)
# ... and its players' decisions reviewed by the search, on the bots' queue (after the commit)
events.GAME_FINISHED.listen(review.finished)

# a seat's player leaves it: their pre-moves end with them
events.SEAT_LEFT.listen(premoves.seat_left)

# a person wrote in a game's thread: to the chat channels that take talk
events.POSTED.listen(notifications.talk)

# a change is told to the table: "your turn", the end, the table channel
events.BOARDS_QUEUED.listen(notifications.after_change)

# a seat is reminded of its deadline: its player's chat channels too
events.REMINDER_DUE.listen(notifications.reminder)

# a player's daily digest is written: the tournaments they play in add their standing
events.DIGEST_WRITTEN.listen(tournament_mails.digest)
