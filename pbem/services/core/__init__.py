"""The core of the services: what every other room builds on. It imports nothing above it; what
the rooms above must hear of, it announces as an event (events.py; the listeners are wired in
pbem/services/wiring.py).

    errors.py          the errors the services raise (a user's, or a system's)
    paging.py          lists read a page at a time
    lang.py            the language a mail speaks, dates in it
    events.py          the events the core announces, who listens
    sessions.py        web sessions kept on the server
    seating.py         a game's seats and names, reply tokens, a seat changing hands
    games.py           a game's row, its engine, its state at any ply, a seat's view
    clocks.py          each seat's deadline clock
    reliability.py     players' counters of turns on time, late, games left
    visibility.py      what a viewer may see of a game: the one door
    access.py          who may see a (private) game at all
    thread.py          the game thread: posts, moves, notices
    unseen.py          moves the others have not been mailed yet
    calendar_links.py  a user's calendar key, the .ics link in a mail
    notify.py          mail to a game's players, each with their own view
    audit.py           admin actions, logged with their reason
    moves.py           moves submitted, checked, applied, written to the record
    lifecycle.py       a game's start, a resignation, a new reply address
    accounts.py        users: addresses, names, language, time zone
"""
