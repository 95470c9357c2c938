"""Tournaments and leagues: a season of games by mail with fair seatings, standings computed from
the games' results, and a director who starts the rounds (or dates them).

    seating.py   who sits where each round (Swiss-like league, round robin, elimination): pure
    scoring.py   points by place or by score, forfeits, byes, standings and tie-breaks: pure
    fairness.py  the seating's fairness over simulated seasons (docs/tournaments.md)
    season.py    a tournament in the store: made, entered, its rounds started and closed by its director
                 (or on their dates), its calendar
    runs.py      the sweep's part: the rounds whose date has come started, a dated season closed at its end
    mails.py     the invitation, "your next table", the final standings, the lines in the daily digest
    view.py      what its page, its standings CSV and the list show one viewer
"""
