"""The lobby: where players find games, join and leave them, and where finished games and
players' records are kept. Builds on the core; hears from it through its events.

    ratings.py   each player's rating in each game, updated when a game ends (GAME_FINISHED)
    tables.py    open games: NEW, JOIN, GAMES, passwords, invitations answered, leaving, removal
    seats.py     RESIGN, a seat opened to a replacement, REPLACE
    invites.py   invitations mailed to an address
    profiles.py  a player's page
    archive.py   the archive of finished games, records exported and imported
    tournaments/ tournaments and leagues: seating, scoring and standings, entries and rounds
"""
