"""Keeping a game moving: what happens when a seat is to move and does not, or is a bot, or has
said in advance what it will play. Builds on the core (its clocks: core/clocks.py) and listens
to its events.

    bots.py       bot seats and stand-ins: think with no lock held, play through moves.submit_moves
    premoves.py   NEXT and IF ... THEN, played when the seat's turn comes; what LIST answers
    vacations.py  VACATION and AWAY: days that do not count on a player's clock
    deadlines.py  the deadline sweep of one game: reminders, late seats, the no-move policy
    hints.py      a practice game's HINT: the search's best moves for the seat to move, recorded
"""
