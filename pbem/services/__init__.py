"""The services: the only code that joins the store and the engines (DESIGN.md §1). Mail, the web,
the tasks and the command line call them; they call the store and the engines.

The rooms, each a package; the core is below the others, which build on it and hear from it
through its events (core/events.py), never from one another:

    core/      the game, its record and state, its seats, what each viewer may see, its thread,
               the moves submitted, the mail to its table, the seats' clocks, the accounts
    lobby/     open games and who joins them, seats resigned and taken over, invitations,
               ratings, players' pages, the archive of finished games
    referee/   the game master's powers, disputes settled by an admin, moves taken back
    turns/     keeping a game moving: the deadline sweep, bots, pre-moves, vacations, hints
    follow/    beyond the board mails: table talk, observers and digests, chat channels, calendars
    identity/  login links, commands held until an address confirms them, addresses that bounce
    upkeep/    the periodic duties above every room: the sweep, the pruning of old rows
    coach/     after a game: the search's review of each player's decisions

``wiring.py`` subscribes every listener to the core's events, in the order they run; it is
imported here, so that importing any service (a task, a page, a test) wires them all."""
from . import wiring  # noqa: F401
